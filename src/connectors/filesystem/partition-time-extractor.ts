/**
 * Flink's default partition time extractor: `partition.time-extractor.timestamp-pattern` with
 * `$<column>` replaced by the partition's values (`'$dt $hm:00'`), or the first partition value
 * when there is no pattern, read as `yyyy-MM-dd[ HH:mm[:ss[.fff]]]` in UTC (Flink's default
 * `sink.partition-commit.watermark-time-zone`).
 */
import { parseTimestamp } from '../../common/datetime.js';
import { closestName, WeirError } from '../../common/errors.js';

/** The option holding the pattern. */
export const TIMESTAMP_PATTERN_OPTION = 'partition.time-extractor.timestamp-pattern';

/** A partition's time text from its values in `PARTITIONED BY` order, and that text as epoch milliseconds (undefined when it is not a timestamp). */
export type PartitionTimeExtractor = (values: readonly string[]) => { readonly text: string; readonly time: number | undefined };

/**
 * Compiles the pattern for a table partitioned by `keys`. Throws INVALID_OPTION naming the option
 * when the pattern refers to a column that is not a partition column.
 */
export function partitionTimeExtractor(pattern: string | undefined, keys: readonly string[]): PartitionTimeExtractor {
  if (pattern === undefined) {
    return (values) => {
      const text = values[0]!;
      return { text, time: parseTimestamp(text) };
    };
  }
  const pieces: (string | number)[] = [];
  let last = 0;
  for (const match of pattern.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const index = keys.indexOf(match[1]!);
    if (index < 0) throw unknownReference(match[1]!, keys);
    pieces.push(pattern.slice(last, match.index), index);
    last = match.index! + match[0].length;
  }
  pieces.push(pattern.slice(last));
  return (values) => {
    const text = pieces.map((piece) => (typeof piece === 'number' ? values[piece]! : piece)).join('');
    return { text, time: parseTimestamp(text) };
  };
}

function unknownReference(name: string, keys: readonly string[]): WeirError {
  const guess = closestName(name, keys);
  const known = keys.length === 0 ? 'the table has none' : `they are ${keys.map((key) => `$${key}`).join(', ')}`;
  return new WeirError(
    'INVALID_OPTION',
    `filesystem option '${TIMESTAMP_PATTERN_OPTION}' refers to '$${name}', which is not a partition column; ${guess === undefined ? known : `did you mean '$${guess}'?`}`,
  );
}
