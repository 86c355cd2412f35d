/**
 * The options of the line formats as a table declares them (Flink's `json.*`, `csv.*` and
 * `format.*` keys), read and checked once so that every connector with a `'format'` option
 * (filesystem, NATS) understands the same keys with the same messages.
 */
import type { OptionSpec } from '../../common/connector-descriptor.js';
import { WeirError } from '../../common/errors.js';

/** Flink's `csv.array-element-delimiter`: separates the elements of an ARRAY and the fields of a ROW inside one CSV field. */
export const CSV_ELEMENT_DELIMITER = ';';

/** The settings of the CSV format, read by the decoder and honoured by the sink. */
export interface CsvSettings {
  /** One character, neither the quote character nor a line break. */
  readonly fieldDelimiter: string;
  /** One character, neither the delimiter nor a line break. */
  readonly quoteCharacter: string;
  /** Lines starting with `#` are comments, not records (files only). */
  readonly allowComments: boolean;
  /** An unquoted field equal to this is NULL (besides an empty unquoted field). */
  readonly nullLiteral: string | undefined;
}

/** The settings of the JSON format. */
export interface JsonSettings {
  /** A field missing from the object is an error instead of NULL. */
  readonly failOnMissingField: boolean;
}

/** Everything a connector needs to decode (or encode) records of its `'format'`. */
export interface FormatOptions {
  /** The `'format'` option as written; the connector decides which names it accepts. */
  readonly format: string;
  readonly csv: CsvSettings;
  readonly json: JsonSettings;
  /** Bad records go to the dead-letter file instead of failing the job. */
  readonly ignoreParseErrors: boolean;
}

/** The option keys of {@link FORMAT_OPTION_SPECS}, for connectors that check keys themselves. */
export const FORMAT_OPTION_KEYS = [
  'format.fail-on-error',
  'format.ignore-parse-errors',
  'json.fail-on-missing-field',
  'json.ignore-parse-errors',
  'csv.field-delimiter',
  'csv.quote-character',
  'csv.allow-comments',
  'csv.null-literal',
  'csv.ignore-parse-errors',
] as const;

/** The format options a connector lists in its descriptor (besides `'format'` itself). */
export const FORMAT_OPTION_SPECS: readonly OptionSpec[] = [
  { key: 'format.fail-on-error', description: 'Fail the job on a record that does not decode (the opposite of format.ignore-parse-errors).', default: 'true' },
  { key: 'format.ignore-parse-errors', description: 'Write records that do not decode to .weir/dead-letter/<table>.jsonl, count and report them, and go on.', default: 'false' },
  { key: 'json.fail-on-missing-field', description: 'A field missing from a JSON object is an error instead of NULL.', default: 'false' },
  { key: 'json.ignore-parse-errors', description: "format.ignore-parse-errors for 'format' = 'json'.", default: 'false' },
  { key: 'csv.field-delimiter', description: "The CSV field delimiter: one character, or '\\t' for a tab.", default: ',' },
  { key: 'csv.quote-character', description: 'The character that quotes CSV fields (RFC 4180: doubled inside a quoted field).', default: '"' },
  { key: 'csv.allow-comments', description: 'Lines starting with # are comments.', default: 'false' },
  { key: 'csv.null-literal', description: 'An unquoted field with this text is NULL (an empty unquoted field always is).' },
  { key: 'csv.ignore-parse-errors', description: "format.ignore-parse-errors for 'format' = 'csv'.", default: 'false' },
];

/**
 * Reads the format options of a table's option map; `connector` names the connector in messages.
 * Throws INVALID_OPTION for a missing `'format'`, a `json.*`/`csv.*` key with another format, a
 * value that is not allowed, or contradictory error policies (`format.fail-on-error` = true with
 * an ignore-parse-errors option = true, or any two of them disagreeing).
 */
export function readFormatOptions(connector: string, options: ReadonlyMap<string, string>): FormatOptions {
  const format = options.get('format');
  if (format === undefined) throw new WeirError('INVALID_OPTION', `${connector} needs option 'format'`);
  for (const key of FORMAT_OPTION_KEYS) {
    const prefix = key.slice(0, key.indexOf('.'));
    if (options.has(key) && prefix !== 'format' && prefix !== format) {
      throw new WeirError('INVALID_OPTION', `${connector} option '${key}' applies only to 'format' = '${prefix}', not '${format}'`);
    }
  }
  const flag = (key: string): boolean | undefined => readBoolean(connector, options, key);
  const delimiter = options.get('csv.field-delimiter');
  const quote = options.get('csv.quote-character');
  const csv: CsvSettings = {
    fieldDelimiter: delimiter === undefined ? ',' : readCharacter(connector, 'csv.field-delimiter', delimiter === '\\t' ? '\t' : delimiter, delimiter, '"'),
    quoteCharacter: quote === undefined ? '"' : readCharacter(connector, 'csv.quote-character', quote, quote, undefined),
    allowComments: flag('csv.allow-comments') ?? false,
    nullLiteral: options.get('csv.null-literal'),
  };
  if (csv.fieldDelimiter === csv.quoteCharacter) {
    throw new WeirError('INVALID_OPTION', `${connector} options 'csv.field-delimiter' and 'csv.quote-character' must differ, both are '${csv.quoteCharacter}'`);
  }
  return {
    format,
    csv,
    json: { failOnMissingField: flag('json.fail-on-missing-field') ?? false },
    ignoreParseErrors: readErrorPolicy(connector, options, flag),
  };
}

/** Whether bad records are set aside, from the four keys that say it; contradictions are errors. */
function readErrorPolicy(connector: string, options: ReadonlyMap<string, string>, flag: (key: string) => boolean | undefined): boolean {
  const said: { key: string; ignore: boolean }[] = [];
  for (const key of ['format.ignore-parse-errors', 'json.ignore-parse-errors', 'csv.ignore-parse-errors']) {
    const value = flag(key);
    if (value !== undefined) said.push({ key, ignore: value });
  }
  const failOnError = flag('format.fail-on-error');
  if (failOnError !== undefined) said.push({ key: 'format.fail-on-error', ignore: !failOnError });
  const first = said[0];
  const other = said.find((s) => s.ignore !== first?.ignore);
  if (first !== undefined && other !== undefined) {
    throw new WeirError(
      'INVALID_OPTION',
      `${connector} options '${first.key}' = '${options.get(first.key)}' and '${other.key}' = '${options.get(other.key)}' contradict each other`,
      { hint: "set 'format.ignore-parse-errors' = 'true' to set bad records aside, or leave both out to fail on them" },
    );
  }
  return first?.ignore ?? false;
}

function readBoolean(connector: string, options: ReadonlyMap<string, string>, key: string): boolean | undefined {
  const text = options.get(key);
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  throw new WeirError('INVALID_OPTION', `${connector} option '${key}' must be 'true' or 'false', got '${text}'`);
}

/** One character that is not a line break (nor `reserved`): what CSV's delimiter and quote must be. */
function readCharacter(connector: string, key: string, value: string, written: string, reserved: string | undefined): string {
  if ([...value].length !== 1 || value === '\n' || value === '\r' || value === reserved) {
    const what = reserved === undefined ? 'a line break' : 'a quote or line break';
    throw new WeirError('INVALID_OPTION', `${connector} option '${key}' must be one character other than ${what}, got '${written}'`);
  }
  return value;
}
