/**
 * PostgreSQL values in text format (what `pgoutput` sends and what a snapshot query returns when
 * pg's type parsers are bypassed) turned into weir's value representation (sql-type.ts), and which
 * column types a weir type can read without loss. Sessions run with `TimeZone = UTC` and
 * `DateStyle = ISO`, so dates and timestamps arrive as `2024-01-31 12:00:00.123456[+00]`.
 *
 * BOOLEAN←bool; SMALLINT←int2; INT←int2/int4; BIGINT←int2/int4/int8 (every int8 exactly, see
 * common/int64.ts); TINYINT←int2 (values beyond ±127 are errors); FLOAT←float4; DOUBLE←float4/float8/
 * int2/int4; DECIMAL(p,s)←numeric whose digits fit, and integers that fit; CHAR/VARCHAR/STRING←any
 * type, as its text; BINARY/VARBINARY/BYTES←bytea (hex output, `\x0aff`); DATE←date; TIME←time; TIMESTAMP←timestamp; TIMESTAMP_LTZ←timestamptz.
 */
import { isNanoTimestamp, nanosOfMillis, truncateNanos } from '../../common/epoch-nanos.js';
import { hexToBytes } from '../../common/bytes.js';
import { fitsPrecision, parseDecimal, pow10, rescaleDecimal } from '../../common/decimal.js';
import { dateFromParts, MILLIS_PER_DAY, parseTime, truncateMillis } from '../../common/datetime.js';
import { parseInt64 } from '../../common/int64.js';
import { formatType, type SqlType } from '../../common/sql-type.js';

/** Turns the text of one value into its weir value; throws an Error saying why the text does not fit. */
export type TextParser = (text: string) => unknown;

/** A column of the captured table, from the catalog. */
export interface SourceColumn {
  readonly name: string;
  /** `pg_type.typname`: `int4`, `numeric`, `timestamptz`, ... */
  readonly base: string;
  readonly typmod: number;
}

const INTEGER_SOURCES: Readonly<Record<string, readonly string[]>> = {
  TINYINT: ['int2'],
  SMALLINT: ['int2'],
  INT: ['int2', 'int4'],
  BIGINT: ['int2', 'int4', 'int8'],
};
const INTEGER_DIGITS: Readonly<Record<string, number>> = { int2: 5, int4: 10, int8: 19 };

/** True for the weir types this source can produce. */
export function cdcSupportsType(type: SqlType): boolean {
  return !['INTERVAL_DAY_TIME', 'INTERVAL_YEAR_MONTH', 'ROW', 'ARRAY', 'MAP', 'NULL'].includes(type.kind);
}

/** True when every value of the column can be read as `type` (integers and unconstrained numerics are checked per value). */
export function columnReadable(column: SourceColumn, type: SqlType): boolean {
  const { base, typmod } = column;
  switch (type.kind) {
    case 'BOOLEAN':
      return base === 'bool';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return INTEGER_SOURCES[type.kind]!.includes(base);
    case 'FLOAT':
      return base === 'float4';
    case 'DOUBLE':
      return ['float4', 'float8', 'int2', 'int4'].includes(base);
    case 'DECIMAL': {
      const integerDigits = type.precision - type.scale;
      if (INTEGER_DIGITS[base] !== undefined) return INTEGER_DIGITS[base]! <= integerDigits;
      if (base !== 'numeric') return false;
      if (typmod < 0) return true;
      const precision = ((typmod - 4) >> 16) & 0xffff;
      const scale = (typmod - 4) & 0xffff;
      return scale <= type.scale && precision - scale <= integerDigits;
    }
    case 'CHAR':
    case 'VARCHAR':
      return true;
    case 'BINARY':
    case 'VARBINARY':
      return base === 'bytea';
    case 'DATE':
      return base === 'date';
    case 'TIME':
      return base === 'time';
    case 'TIMESTAMP':
      return base === 'timestamp';
    case 'TIMESTAMP_LTZ':
      return base === 'timestamptz';
    default:
      return false;
  }
}

/** The parser of a weir type (one of {@link cdcSupportsType}). */
export function textParser(type: SqlType): TextParser {
  switch (type.kind) {
    case 'BOOLEAN':
      return (text) => {
        if (text === 't' || text === 'true') return true;
        if (text === 'f' || text === 'false') return false;
        throw notA(type, text);
      };
    case 'TINYINT':
      return integerParser(type, -128, 127);
    case 'SMALLINT':
      return integerParser(type, -32768, 32767);
    case 'INT':
      return integerParser(type, -2147483648, 2147483647);
    case 'BIGINT':
      return (text) => {
        if (!/^[+-]?\d+$/.test(text)) throw notA(type, text);
        const value = parseInt64(text);
        if (value === undefined) throw new Error(`${text} is outside the range of ${formatType({ ...type, nullable: true })}`);
        return value;
      };
    case 'FLOAT':
      return (text) => Math.fround(floatOf(type, text));
    case 'DOUBLE':
      return (text) => floatOf(type, text);
    case 'DECIMAL': {
      const { precision, scale } = type;
      return (text) => {
        const parsed = parseDecimal(text);
        if (parsed === undefined) throw notA(type, text);
        if (parsed.scale > scale && parsed.unscaled % pow10(parsed.scale - scale) !== 0n) {
          throw new Error(`${text} has more than ${scale} digits after the point of ${formatType({ ...type, nullable: true })}`);
        }
        const unscaled = rescaleDecimal(parsed.unscaled, parsed.scale, scale);
        if (!fitsPrecision(unscaled, precision)) throw new Error(`${text} does not fit ${formatType({ ...type, nullable: true })}`);
        return unscaled;
      };
    }
    case 'CHAR':
    case 'VARCHAR':
      return (text) => text;
    case 'BINARY':
    case 'VARBINARY': {
      const { kind, length } = type;
      return (text) => {
        const bytes = text.startsWith('\\x') ? hexToBytes(text.slice(2)) : undefined;
        if (bytes === undefined) throw new Error(`${text.length > 40 ? text.slice(0, 40) + '...' : text} is not bytea in hex format (bytea_output must be 'hex')`);
        if (bytes.length > length) throw new Error(`${bytes.length} bytes do not fit ${formatType({ ...type, nullable: true })}`);
        if (kind === 'VARBINARY' || bytes.length === length) return bytes;
        const padded = new Uint8Array(length);
        padded.set(bytes);
        return padded;
      };
    }
    case 'DATE':
      return (text) => {
        const days = parseDays(text.endsWith(' BC') ? text.slice(0, -3) : text, text.endsWith(' BC'));
        if (days === undefined) throw notA(type, text);
        return days;
      };
    case 'TIME': {
      const precision = type.precision;
      return (text) => {
        const millis = parseTime(text);
        if (millis === undefined) throw notA(type, text);
        return truncateMillis(millis, precision);
      };
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const { precision } = type;
      const zoned = type.kind === 'TIMESTAMP_LTZ';
      if (isNanoTimestamp(type)) {
        // PostgreSQL's microseconds, kept: epoch nanos.
        return (text) => {
          const nanos = parseTimestampTextNanos(text, zoned);
          if (nanos === undefined) throw notA(type, text);
          return truncateNanos(nanos, precision);
        };
      }
      return (text) => {
        const millis = parseTimestampText(text, zoned);
        if (millis === undefined) throw notA(type, text);
        return truncateMillis(millis, precision);
      };
    }
    default:
      throw new Error(`no text parser for ${formatType(type)}`);
  }
}

function integerParser(type: SqlType, min: number, max: number): TextParser {
  return (text) => {
    if (!/^[+-]?\d+$/.test(text)) throw notA(type, text);
    const value = Number(text);
    if (value < min || value > max || !Number.isSafeInteger(value)) {
      throw new Error(`${text} is outside the range of ${formatType({ ...type, nullable: true })}`);
    }
    return value;
  };
}

function floatOf(type: SqlType, text: string): number {
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN') throw notA(type, text);
  return value;
}

const DATE_PART = /^(\d{4,})-(\d{2})-(\d{2})$/;

function parseDays(text: string, bc: boolean): number | undefined {
  const match = DATE_PART.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  return dateFromParts(bc ? 1 - year : year, Number(match[2]), Number(match[3]));
}

const ZONE_SUFFIX = /([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

/** `yyyy-MM-dd HH:mm:ss[.ffffff][±zz[:zz[:zz]]][ BC]` to epoch milliseconds (UTC when zoned). */
/** {@link parseTimestampText} keeping the fraction digits past the milliseconds: epoch nanos. */
function parseTimestampTextNanos(text: string, zoned: boolean): bigint | undefined {
  const millis = parseTimestampText(text, zoned);
  if (millis === undefined) return undefined;
  const fraction = /:\d{2}\.(\d+)/.exec(text);
  const nanoOfMilli = fraction === null ? 0 : Number(fraction[1]!.padEnd(9, '0').slice(3, 9));
  return nanosOfMillis(millis, nanoOfMilli);
}

function parseTimestampText(text: string, zoned: boolean): number | undefined {
  const bc = text.endsWith(' BC');
  let rest = bc ? text.slice(0, -3) : text;
  let offsetMillis = 0;
  if (zoned) {
    const zone = ZONE_SUFFIX.exec(rest);
    if (zone === null) return undefined;
    const sign = zone[1] === '-' ? -1 : 1;
    offsetMillis = sign * ((Number(zone[2]) * 60 + Number(zone[3] ?? 0)) * 60 + Number(zone[4] ?? 0)) * 1000;
    rest = rest.slice(0, zone.index);
  }
  const space = rest.indexOf(' ');
  if (space < 0) return undefined;
  const days = parseDays(rest.slice(0, space), bc);
  const time = parseTime(rest.slice(space + 1));
  if (days === undefined || time === undefined) return undefined;
  return days * MILLIS_PER_DAY + time - offsetMillis;
}

function notA(type: SqlType, text: string): Error {
  return new Error(`'${text}' is not a ${formatType({ ...type, nullable: true })}`);
}
