/**
 * Flink's `json` format, decoding side: one JSON object per record, fields by column name (case
 * sensitive), nested ROWs as objects, ARRAYs as arrays, MAPs as objects with keys parsed as the
 * key type. A field that is missing or null is NULL, unless `json.fail-on-missing-field` (missing)
 * or a NOT NULL column (either) makes it an error. Numbers and strings are converted per column
 * type; a string holds any scalar value in its SQL text (`"12.50"`, `"2020-01-01 12:00:00"`,
 * ISO-8601 `"2020-01-01T12:00:00Z"`), and a STRING column takes numbers, booleans and nested JSON
 * as their text. Values a double cannot hold exactly (a long DECIMAL, a BIGINT past 2^53) are
 * read from the record's exact text, never rounded.
 */
import { parseInt64 } from '../../common/int64.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { RowField, SqlType } from '../../common/sql-type.js';
import type { JsonSettings } from './format-options.js';
import { JsonNumberText, parseJsonExact } from './json-exact-parser.js';
import { RecordDecodeError, type RecordDecoder } from './record-decoder.js';
import { INTEGER_RANGES, notValid, outOfRange, quoteValue, textValueParser } from './text-value-parser.js';

/** Thrown by a converter that met a number a double may have rounded; the record is parsed again exactly. */
const NEEDS_EXACT = Symbol('needs exact numbers');

/** Converts one JSON value that is neither null nor missing. */
type JsonConverter = (value: unknown) => unknown;

/** Decodes JSON records into rows of one schema; the converters are compiled in the constructor. */
export class JsonRecordDecoder implements RecordDecoder {
  readonly #row: (value: unknown) => Row;

  constructor(schema: Schema, settings: JsonSettings) {
    const object = objectConverter(schema, settings, 'column');
    this.#row = (value) => {
      if (!isObject(value)) throw new RecordDecodeError(`not a JSON object: ${shownJson(value)}`);
      return object(value);
    };
  }

  decode(text: string): Row {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new RecordDecodeError(`not valid JSON: ${(error as Error).message}`);
    }
    try {
      return this.#row(value);
    } catch (error) {
      if (error !== NEEDS_EXACT) throw error;
      return this.#row(parseJsonExact(text));
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumberText);
}

/** How a value appears in messages: strings quoted, numbers as written, JSON as text. */
function shownJson(value: unknown): string {
  if (typeof value === 'string') return quoteValue(value);
  if (value instanceof JsonNumberText) return value.text;
  const text = JSON.stringify(value, exactNumbers) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function exactNumbers(_key: string, value: unknown): unknown {
  return value instanceof JsonNumberText ? Number(value.text) : value;
}

/**
 * The converter of a JSON object into the positional row of `fields`. `label` is `column` at the
 * top and `field` inside a ROW; a failure is rethrown as `<label> '<name>': <reason>`, with the
 * column named on the error at the top.
 */
function objectConverter(fields: readonly RowField[], settings: JsonSettings, label: 'column' | 'field'): (value: Record<string, unknown>) => Row {
  const names = fields.map((field) => field.name);
  const converters = fields.map((field) => jsonConverter(field.type, settings));
  const absent = fields.map((field) => absentHandler(field.type, settings.failOnMissingField, label));
  const count = fields.length;
  return (object) => {
    const row = new Array<unknown>(count);
    let i = 0;
    try {
      for (; i < count; i++) {
        const value = object[names[i]!];
        row[i] = value === undefined || value === null ? absent[i]!(value) : converters[i]!(value);
      }
    } catch (error) {
      throw labelled(error, `${label} '${names[i]!}'`, label === 'column' ? names[i] : undefined);
    }
    return row;
  };
}

/** The error with `where: ` in front of its message; anything but a RecordDecodeError passes through. */
function labelled(error: unknown, where: string, column: string | undefined): unknown {
  if (!(error instanceof RecordDecodeError)) return error;
  return new RecordDecodeError(`${where}: ${error.message}`, column ?? error.column);
}

/** What a missing (`undefined`) or null field becomes: NULL, or an error for NOT NULL and fail-on-missing-field. */
function absentHandler(type: SqlType, failOnMissing: boolean, label: string): (value: null | undefined) => null {
  if (!type.nullable) {
    return (value) => {
      throw new RecordDecodeError(`${value === undefined ? 'missing' : 'null'}, but the ${label} is NOT NULL`);
    };
  }
  if (failOnMissing) {
    return (value) => {
      if (value === undefined) throw new RecordDecodeError('missing');
      return null;
    };
  }
  return () => null;
}

/** The number of significant digits a double's shortest text has beyond which it may not be the text the record had. */
const EXACT_DIGITS = 15;

/** True when the shortest text of `value` has more than {@link EXACT_DIGITS} significant digits. */
function mayBeRounded(text: string): boolean {
  if (text.length <= EXACT_DIGITS) return false;
  const mantissa = text.replace(/[eE].*$/, '').replace(/[-.]/g, '').replace(/^0+/, '');
  return mantissa.length > EXACT_DIGITS;
}

/** The converter of a non-NULL JSON value into `type`'s representation. */
function jsonConverter(type: SqlType, settings: JsonSettings): JsonConverter {
  const parse = textValueParser(type);
  switch (type.kind) {
    case 'BOOLEAN':
      return (value) => {
        if (typeof value === 'boolean') return value;
        if (typeof value === 'string') return parse(value);
        throw notValid(shownJson(value), type);
      };
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH': {
      const [min, max] = INTEGER_RANGES[type.kind]!;
      const exactWhenLarge = type.kind === 'BIGINT' || type.kind === 'INTERVAL_DAY_TIME';
      const integer = (value: number, shown: () => string): number => {
        if (!Number.isInteger(value)) throw notValid(shown(), type);
        if (value >= min && value <= max && Number.isSafeInteger(value)) return value + 0;
        throw outOfRange(shown(), type);
      };
      // A BIGINT beyond 2^53 from its exact text (an integer written with an exponent or a fraction is not exact text of a long).
      const exactInteger = (text: string): unknown =>
        type.kind === 'BIGINT' && /^-?\d+$/.test(text) ? (parseInt64(text) ?? integer(Number(text), () => text)) : integer(Number(text), () => text);
      return (value) => {
        if (typeof value === 'number') {
          if (exactWhenLarge && !Number.isSafeInteger(value) && Number.isInteger(value)) throw NEEDS_EXACT;
          return integer(value, () => String(value));
        }
        if (typeof value === 'string') return parse(value);
        if (value instanceof JsonNumberText) return exactInteger(value.text);
        throw notValid(shownJson(value), type);
      };
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const float = type.kind === 'FLOAT';
      const approximate = (value: number, shown: () => string): number => {
        const result = float ? Math.fround(value) : value;
        if (!Number.isFinite(result)) throw outOfRange(shown(), type);
        return result;
      };
      return (value) => {
        if (typeof value === 'number') return approximate(value, () => String(value));
        if (typeof value === 'string') return parse(value);
        if (value instanceof JsonNumberText) return approximate(Number(value.text), () => value.text);
        throw notValid(shownJson(value), type);
      };
    }
    case 'DECIMAL':
      return (value) => {
        if (typeof value === 'number') {
          const text = String(value);
          if (mayBeRounded(text)) throw NEEDS_EXACT;
          return parse(text, text);
        }
        if (typeof value === 'string') return parse(value);
        if (value instanceof JsonNumberText) return parse(value.text, value.text);
        throw notValid(shownJson(value), type);
      };
    case 'CHAR':
    case 'VARCHAR':
      return (value) => {
        if (typeof value === 'string') return parse(value);
        if (value instanceof JsonNumberText) return parse(value.text);
        if (typeof value === 'object') return parse(JSON.stringify(value, exactNumbers));
        return parse(String(value));
      };
    case 'BINARY':
    case 'VARBINARY':
      return (value) => {
        if (typeof value === 'string') return parse(value);
        throw notValid(shownJson(value), type);
      };
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return (value) => {
        if (typeof value === 'string') return parse(value);
        throw notValid(shownJson(value), type);
      };
    case 'ROW': {
      const object = objectConverter(type.fields, settings, 'field');
      return (value) => {
        if (isObject(value)) return object(value);
        throw notValid(shownJson(value), type);
      };
    }
    case 'ARRAY':
      return arrayConverter(type, settings);
    case 'MAP':
      return mapConverter(type, settings);
    case 'NULL':
      return (value) => {
        throw notValid(shownJson(value), type);
      };
  }
}

function arrayConverter(type: Extract<SqlType, { kind: 'ARRAY' }>, settings: JsonSettings): JsonConverter {
  const element = jsonConverter(type.element, settings);
  const absent = absentHandler(type.element, false, 'element');
  return (value) => {
    if (!Array.isArray(value)) throw notValid(shownJson(value), type);
    const result = new Array<unknown>(value.length);
    let i = 0;
    try {
      for (; i < value.length; i++) {
        const item: unknown = value[i];
        result[i] = item === null ? absent(null) : element(item);
      }
    } catch (error) {
      throw labelled(error, `element ${i + 1}`, undefined);
    }
    return result;
  };
}

function mapConverter(type: Extract<SqlType, { kind: 'MAP' }>, settings: JsonSettings): JsonConverter {
  const key = textValueParser(type.key);
  const entry = jsonConverter(type.value, settings);
  const absent = absentHandler(type.value, false, 'value');
  return (value) => {
    if (!isObject(value)) throw notValid(shownJson(value), type);
    const result = new Map<unknown, unknown>();
    for (const name of Object.keys(value)) {
      const item = value[name];
      try {
        result.set(key(name), item === null ? absent(null) : entry(item));
      } catch (error) {
        throw labelled(error, `key ${quoteValue(name)}`, undefined);
      }
    }
    return result;
  };
}
