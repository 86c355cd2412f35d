/**
 * The line formats of the filesystem sink, as Flink's `json`, `csv` and `debezium-json` formats
 * write them: one record per line, ending in `\n`. Each format compiles one encoder per column
 * when it is created, so that serialising a record is a loop of monomorphic calls.
 */
import { formatTimestampNanos, isNanoTimestamp } from '../../common/epoch-nanos.js';
import { bytesToBase64 } from '../../common/bytes.js';
import { formatDate, formatTimeOfDay, formatTimestamp } from '../../common/datetime.js';
import { formatDecimal } from '../../common/decimal.js';
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import { formatType, type RowField, type SqlType } from '../../common/sql-type.js';
import { formatDouble, formatFloat, formatValue } from '../../common/value-format.js';
import { csvCanHold } from '../formats/csv-record-decoder.js';
import { CSV_ELEMENT_DELIMITER } from '../formats/format-options.js';

/** The formats the sink writes (`'format' = ...`). */
export const ROW_FORMATS = ['json', 'csv', 'debezium-json'] as const;

/** One of {@link ROW_FORMATS}. */
export type RowFormatName = (typeof ROW_FORMATS)[number];

/** A serialiser of records for one schema. */
export interface RowFormat {
  readonly name: RowFormatName;
  /** The extension of committed part files, without the dot. */
  readonly extension: string;
  /** True when the format can only describe inserts, so anything but +I must be refused. */
  readonly appendOnly: boolean;
  /** The line of one record, including its final `\n`. An append-only format ignores `kind`. */
  serialize(kind: RowKind, row: Row): string;
}

/** Settings of the formats beyond the schema. */
export interface RowFormatSettings {
  /** The CSV field delimiter: one character, neither the quote character nor a line break. */
  readonly fieldDelimiter: string;
  /** The CSV quote character (`"` when absent). */
  readonly quoteCharacter?: string;
  /** Written for NULL in CSV instead of an empty field; a string equal to it is quoted. */
  readonly nullLiteral?: string;
}

/** True when `name` is one of {@link ROW_FORMATS}. */
export function isRowFormatName(name: string): name is RowFormatName {
  return (ROW_FORMATS as readonly string[]).includes(name);
}

/** Creates the serialiser of `format` for rows of `schema`; the schema must pass {@link checkFormatSupports}. */
export function createRowFormat(format: RowFormatName, schema: Schema, settings: RowFormatSettings): RowFormat {
  switch (format) {
    case 'json':
      return jsonFormat(schema);
    case 'csv':
      return csvFormat(schema, settings);
    case 'debezium-json':
      return debeziumJsonFormat(schema);
  }
}

/**
 * Throws INVALID_OPTION when `format` cannot write a column of `schema`: CSV has no MAP, and a
 * CSV field holds an ARRAY or ROW only of scalar values (one level of element delimiters).
 */
export function checkFormatSupports(format: RowFormatName, schema: Schema): void {
  if (format !== 'csv') return;
  for (const field of schema) {
    if (!csvCanHold(field.type)) {
      throw new WeirError('INVALID_OPTION', `format 'csv' cannot write column '${field.name}' of type ${formatType(field.type)}`, {
        hint: "CSV holds MAP values and nested ARRAY or ROW values only as text; use 'format' = 'json'",
      });
    }
  }
}

/** Renders one non-NULL value. */
type Encoder = (value: unknown) => string;

function jsonFormat(schema: Schema): RowFormat {
  const object = jsonObjectEncoder(schema);
  return { name: 'json', extension: 'json', appendOnly: true, serialize: (_kind, row) => `${object(row)}\n` };
}

/** Flink's debezium-json: +I and +U become creations (`"op":"c"`), -U and -D deletions (`"op":"d"`). */
function debeziumJsonFormat(schema: Schema): RowFormat {
  const object = jsonObjectEncoder(schema);
  return {
    name: 'debezium-json',
    extension: 'json',
    appendOnly: false,
    serialize: (kind, row) =>
      kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER
        ? `{"before":null,"after":${object(row)},"op":"c"}\n`
        : `{"before":${object(row)},"after":null,"op":"d"}\n`,
  };
}

/** A JSON object with the fields' names as keys, in order; NULL is `null`. */
function jsonObjectEncoder(fields: readonly RowField[]): Encoder {
  if (fields.length === 0) return () => '{}';
  const prefixes = fields.map((field, i) => `${i === 0 ? '{' : ','}${JSON.stringify(field.name)}:`);
  const encoders = fields.map((field) => jsonEncoder(field.type));
  return (value) => {
    const row = value as readonly unknown[];
    let text = '';
    for (let i = 0; i < encoders.length; i++) {
      const item = row[i];
      text += prefixes[i]! + (item === null || item === undefined ? 'null' : encoders[i]!(item));
    }
    return `${text}}`;
  };
}

/**
 * Flink's JSON encoding of a non-NULL value: numbers as JSON numbers (DOUBLE in Java's notation,
 * DECIMAL as its exact text with the type's scale), temporal values as SQL-format strings
 * (TIMESTAMP_LTZ with a `Z`), intervals as their number of months or milliseconds, binary strings
 * as base64 strings (as Jackson writes a `byte[]`), MAP keys as text.
 */
function jsonEncoder(type: SqlType): Encoder {
  switch (type.kind) {
    case 'BOOLEAN':
      return (value) => (value ? 'true' : 'false');
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return (value) => String(value);
    case 'FLOAT':
      return (value) => jsonApproximate(value as number, formatFloat);
    case 'DOUBLE':
      return (value) => jsonApproximate(value as number, formatDouble);
    case 'DECIMAL': {
      const scale = type.scale;
      return (value) => formatDecimal(value as bigint, scale);
    }
    case 'CHAR':
    case 'VARCHAR':
      return (value) => JSON.stringify(value);
    case 'BINARY':
    case 'VARBINARY':
      return (value) => `"${bytesToBase64(value as Uint8Array)}"`;
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const text = temporalEncoder(type);
      return (value) => `"${text(value)}"`;
    }
    case 'ROW':
      return jsonObjectEncoder(type.fields);
    case 'ARRAY':
      return jsonArrayEncoder(type.element);
    case 'MAP':
      return jsonMapEncoder(type.key, type.value);
    case 'NULL':
      return () => 'null';
  }
}

/** Java's notation for finite values; NaN and ±Infinity as strings, as Jackson writes them by default. */
function jsonApproximate(value: number, format: (value: number) => string): string {
  return Number.isFinite(value) ? format(value) : `"${String(value)}"`;
}

function jsonArrayEncoder(elementType: SqlType): Encoder {
  const element = jsonEncoder(elementType);
  return (value) => {
    let text = '';
    for (const item of value as readonly unknown[]) {
      text += `${text === '' ? '' : ','}${item === null || item === undefined ? 'null' : element(item)}`;
    }
    return `[${text}]`;
  };
}

function jsonMapEncoder(keyType: SqlType, valueType: SqlType): Encoder {
  const entryValue = jsonEncoder(valueType);
  return (value) => {
    const entries: string[] = [];
    for (const [k, v] of value as ReadonlyMap<unknown, unknown>) {
      const key = k === null || k === undefined ? 'null' : typeof k === 'string' ? k : formatValue(k, keyType);
      entries.push(`${JSON.stringify(key)}:${v === null || v === undefined ? 'null' : entryValue(v)}`);
    }
    return `{${entries.join(',')}}`;
  };
}

/**
 * The SQL text of a temporal value, without quotes: `2020-01-01`, `12:00:00`, `2020-01-01 12:00:00.000`.
 * Rows of a stream arrive in time order, many in one millisecond: a value equal to the previous
 * one reuses its text.
 */
function temporalEncoder(type: Extract<SqlType, { kind: 'DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>): Encoder {
  const format = temporalFormat(type);
  let last: unknown = NOT_FORMATTED;
  let text = '';
  return (value) => {
    if (value !== last) {
      text = format(value);
      last = value;
    }
    return text;
  };
}

/** The previous value of an encoder that has formatted nothing yet. */
const NOT_FORMATTED = Symbol('not formatted');

function temporalFormat(type: Extract<SqlType, { kind: 'DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>): Encoder {
  switch (type.kind) {
    case 'DATE':
      return (value) => formatDate(value as number);
    case 'TIME': {
      const precision = type.precision;
      return (value) => formatTimeOfDay(value as number, precision);
    }
    case 'TIMESTAMP': {
      const precision = type.precision;
      // A TIMESTAMP(p > 3) is epoch nanos: every fraction digit is written.
      if (isNanoTimestamp(type)) return (value) => formatTimestampNanos(value as bigint, precision);
      return (value) => formatTimestamp(value as number, precision);
    }
    case 'TIMESTAMP_LTZ': {
      const precision = type.precision;
      if (isNanoTimestamp(type)) return (value) => `${formatTimestampNanos(value as bigint, precision)}Z`;
      return (value) => `${formatTimestamp(value as number, precision)}Z`;
    }
  }
}

/**
 * RFC 4180 lines with the delimiter between fields and `\n` at the end (as Flink writes them):
 * a field is quoted when it holds the delimiter, the quote character or a line break, or equals
 * the null literal, with quote characters doubled. NULL is an empty field (or the null literal);
 * an empty string is quoted (`""`), so the two stay apart.
 */
function csvFormat(schema: Schema, settings: RowFormatSettings): RowFormat {
  const delimiter = settings.fieldDelimiter;
  const nullText = settings.nullLiteral ?? '';
  const encoders = schema.map((field) => csvEncoder(field.type));
  const quote = csvQuoter(delimiter, settings.quoteCharacter ?? '"', nullText);
  const serialize = (_kind: RowKind, row: Row): string => {
    let line = '';
    for (let i = 0; i < encoders.length; i++) {
      const value = row[i];
      if (i > 0) line += delimiter;
      line += value === null || value === undefined ? nullText : quote(encoders[i]!(value));
    }
    return `${line}\n`;
  };
  return { name: 'csv', extension: 'csv', appendOnly: true, serialize };
}

function csvQuoter(delimiter: string, quote: string, nullText: string): (text: string) => string {
  const doubled = quote + quote;
  return (text) => {
    if (text !== '' && text !== nullText && !text.includes(delimiter) && !text.includes(quote) && !text.includes('\n') && !text.includes('\r')) return text;
    return `${quote}${text.replaceAll(quote, doubled)}${quote}`;
  };
}

/** Flink's CSV text of a non-NULL value before quoting: `true`, `1.0E7`, `12.50`, `a;b` for an ARRAY or ROW, base64 for bytes (as Jackson's CSV writes a `byte[]`). */
function csvEncoder(type: SqlType): Encoder {
  switch (type.kind) {
    case 'BOOLEAN':
      return (value) => (value ? 'true' : 'false');
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return temporalEncoder(type);
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return (value) => String(value);
    case 'BINARY':
    case 'VARBINARY':
      return (value) => bytesToBase64(value as Uint8Array);
    case 'ARRAY': {
      const element = csvNested(type.element);
      return (value) => (value as readonly unknown[]).map(element).join(CSV_ELEMENT_DELIMITER);
    }
    case 'ROW': {
      const fields = type.fields.map((field) => csvNested(field.type));
      return (value) => fields.map((field, i) => field((value as readonly unknown[])[i])).join(CSV_ELEMENT_DELIMITER);
    }
    default:
      return (value) => formatValue(value, type);
  }
}

function csvNested(type: SqlType): (value: unknown) => string {
  const encoder = csvEncoder(type);
  return (value) => (value === null || value === undefined ? '' : encoder(value));
}
