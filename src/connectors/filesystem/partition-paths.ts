/**
 * Hive-style partition directories, as Flink's filesystem sink lays them out: one directory level
 * per `PARTITIONED BY` column, named `<column>=<value>` with both sides escaped as Flink's
 * PartitionPathUtils escapes them (`hm=10%3A05`), a NULL or blank value written as the default
 * partition name. Partition columns are not written into the files.
 */
import { closestName, WeirError } from '../../common/errors.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { formatValue } from '../../common/value-format.js';

/** Flink's `partition.default-name`: the directory value of a NULL or blank partition value. */
export const DEFAULT_PARTITION_NAME = '__DEFAULT_PARTITION__';

/** The characters Flink escapes in partition path names (as `%XX`). */
const ESCAPED = /[\u0000-\u001f"#%'*/:=?\\\u007f{[\]^]/g;

/** Where each row of a table goes, and which of its columns are written into the files. */
export interface PartitionLayout {
  /** The partition columns, in `PARTITIONED BY` order; empty when the table is not partitioned. */
  readonly keys: readonly string[];
  /** The columns written into the files (all but the partition columns). */
  readonly dataSchema: Schema;
  /** The row's partition directory relative to the table's path (`dt=2024-01-01/hm=10%3A05`); `''` when unpartitioned. */
  directoryOf(row: Row): string;
  /** The row without its partition columns; the returned array is reused by the next call. */
  dataOf(row: Row): Row;
}

/** Flink's escaping of one partition path name: the characters of {@link ESCAPED} as `%XX`. */
export function escapePathName(text: string): string {
  return text.replace(ESCAPED, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The values of a partition directory written by {@link PartitionLayout.directoryOf}, unescaped, in order. */
export function partitionValues(directory: string): string[] {
  return directory.split('/').map((segment) => {
    const value = segment.slice(segment.indexOf('=') + 1);
    return value.replace(/%([0-9A-F]{2})/g, (_whole, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  });
}

/**
 * The layout of `schema` partitioned by `keys` (checked by {@link checkPartitionKeys}). NULL, empty
 * and blank values go to `defaultName`, as in Flink.
 */
export function partitionLayout(schema: Schema, keys: readonly string[], defaultName = DEFAULT_PARTITION_NAME): PartitionLayout {
  if (keys.length === 0) return { keys, dataSchema: schema, directoryOf: () => '', dataOf: (row) => row };
  const keyIndexes = keys.map((key) => schema.findIndex((field) => field.name === key));
  const dataIndexes = schema.flatMap((field, i) => (keys.includes(field.name) ? [] : [i]));
  const prefixes = keys.map((key, i) => `${i === 0 ? '' : '/'}${escapePathName(key)}=`);
  const texts = keyIndexes.map((index) => partitionText(schema[index]!.type));
  const defaultValue = escapePathName(defaultName);
  const data: unknown[] = new Array<unknown>(dataIndexes.length);
  const lastValues: unknown[] = keyIndexes.map(() => undefined);
  const segments: string[] = keyIndexes.map(() => '');
  let directory: string | undefined;
  return {
    keys,
    dataSchema: dataIndexes.map((i) => schema[i]!),
    // Rows of one partition arrive in runs: a key value equal to the previous row's keeps its
    // escaped segment, and a row whose values all repeat gets the previous directory string.
    directoryOf(row) {
      let changed = directory === undefined;
      for (let k = 0; k < keyIndexes.length; k++) {
        const value = row[keyIndexes[k]!];
        if (value === lastValues[k] && typeof value !== 'object' && directory !== undefined) continue;
        lastValues[k] = value;
        const text = value === null || value === undefined ? '' : texts[k]!(value);
        segments[k] = prefixes[k]! + (text.trim() === '' ? defaultValue : escapePathName(text));
        changed = true;
      }
      if (changed) directory = segments.join('');
      return directory!;
    },
    dataOf(row) {
      for (let i = 0; i < dataIndexes.length; i++) data[i] = row[dataIndexes[i]!];
      return data;
    },
  };
}

/**
 * Throws INVALID_ARGUMENT unless `keys` are distinct scalar columns of `schema` that leave at
 * least one column for the files; names the problem and, for a misspelt column, the likely one.
 */
export function checkPartitionKeys(schema: Schema, keys: readonly string[]): void {
  const names = schema.map((field) => field.name);
  keys.forEach((key, i) => {
    const field = schema.find((f) => f.name === key);
    if (field === undefined) {
      const guess = closestName(key, names);
      throw new WeirError('UNKNOWN_COLUMN', `PARTITIONED BY column '${key}' is not a column of the table${guess === undefined ? `; the columns are ${names.join(', ')}` : `; did you mean '${guess}'?`}`);
    }
    if (keys.indexOf(key) !== i) throw new WeirError('INVALID_ARGUMENT', `PARTITIONED BY names column '${key}' twice`);
    if (!isScalar(field.type)) {
      throw new WeirError('INVALID_ARGUMENT', `PARTITIONED BY column '${key}' has type ${formatType(field.type)}; a partition value must be a scalar`);
    }
  });
  if (keys.length > 0 && keys.length === schema.length) {
    throw new WeirError('INVALID_ARGUMENT', `PARTITIONED BY names every column, which leaves none to write into the files`);
  }
}

function isScalar(type: SqlType): boolean {
  return type.kind !== 'ARRAY' && type.kind !== 'MAP' && type.kind !== 'ROW';
}

/** A partition value's text as Flink's `toString` gives it: `true`, `12.50`, `2024-01-01`. */
function partitionText(type: SqlType): (value: unknown) => string {
  if (type.kind === 'BOOLEAN') return (value) => (value ? 'true' : 'false');
  return (value) => formatValue(value, type);
}
