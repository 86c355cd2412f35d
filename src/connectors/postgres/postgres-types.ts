/**
 * Flink SQL types in PostgreSQL: the column type a created table gets, which existing column
 * types can hold a weir type without loss, and the text each value is sent as (values travel as
 * text elements of typed arrays, see postgres-dml.ts).
 *
 * BOOLEAN→boolean, TINYINT/SMALLINT→smallint, INT→integer, BIGINT→bigint, FLOAT→real,
 * DOUBLE→double precision, DECIMAL(p,s)→numeric(p,s), CHAR(n)→char(n), VARCHAR(n)→varchar(n)
 * (text for STRING), BINARY/VARBINARY/BYTES→bytea, DATE→date, TIME(p)→time(p), TIMESTAMP(p)→timestamp(p),
 * TIMESTAMP_LTZ(p)→timestamptz(p), INTERVAL→interval, ROW/ARRAY/MAP→jsonb. PostgreSQL keeps
 * microseconds: a TIMESTAMP(p)/TIMESTAMP_LTZ(p) of p 4..6 is written exactly, one of p 7..9 into a
 * timestamp(6) column with its digits past the microsecond cut (truncated, as a CAST to
 * TIMESTAMP(6) would, where PostgreSQL itself would round).
 */
import { bytesToHex } from '../../common/bytes.js';
import { formatDecimal } from '../../common/decimal.js';
import { civilFromDays, floorDiv, formatTimeOfDay, MILLIS_PER_DAY, truncateMillis } from '../../common/datetime.js';
import { isNanoTimestamp, millisOfNanos, nanoOfMilliOf, truncateNanos } from '../../common/epoch-nanos.js';
import { formatType, MAX_VARCHAR_LENGTH, type SqlType } from '../../common/sql-type.js';
import { formatValue } from '../../common/value-format.js';

/** PostgreSQL's largest char(n)/varchar(n) length. */
const MAX_PG_CHAR_LENGTH = 10_485_760;

/** PostgreSQL keeps at most microseconds. */
export const MAX_POSTGRES_TIME_PRECISION = 6;
const MAX_PG_TIME_PRECISION = MAX_POSTGRES_TIME_PRECISION;

/** The column type weir creates for a SQL type (without NOT NULL). */
export function postgresType(type: SqlType): string {
  switch (type.kind) {
    case 'BOOLEAN':
      return 'boolean';
    case 'TINYINT':
    case 'SMALLINT':
      return 'smallint';
    case 'INT':
      return 'integer';
    case 'BIGINT':
      return 'bigint';
    case 'FLOAT':
      return 'real';
    case 'DOUBLE':
      return 'double precision';
    case 'DECIMAL':
      return `numeric(${type.precision},${type.scale})`;
    case 'CHAR':
      // CHAR(0), the type of the literal '', has no PostgreSQL char(n): its only value fits text.
      return type.length >= 1 && type.length <= MAX_PG_CHAR_LENGTH ? `char(${type.length})` : 'text';
    case 'VARCHAR':
      return type.length === MAX_VARCHAR_LENGTH || type.length > MAX_PG_CHAR_LENGTH ? 'text' : `varchar(${type.length})`;
    case 'BINARY':
    case 'VARBINARY':
      return 'bytea';
    case 'DATE':
      return 'date';
    case 'TIME':
      return `time(${Math.min(type.precision, MAX_PG_TIME_PRECISION)})`;
    case 'TIMESTAMP':
      return `timestamp(${Math.min(type.precision, MAX_PG_TIME_PRECISION)})`;
    case 'TIMESTAMP_LTZ':
      return `timestamptz(${Math.min(type.precision, MAX_PG_TIME_PRECISION)})`;
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return 'interval';
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return 'jsonb';
    case 'NULL':
      return 'text';
  }
}

/**
 * The element type of the array a column's values travel in: the type without length, precision
 * or scale, so that the assignment to the column checks them (an explicit cast to varchar(3)
 * would silently truncate, one to numeric(5,2) round).
 */
export function arrayElementType(type: SqlType): string {
  switch (type.kind) {
    case 'DECIMAL':
      return 'numeric';
    case 'CHAR':
    case 'VARCHAR':
    case 'NULL':
      return 'text';
    case 'TIME':
      return 'time';
    case 'TIMESTAMP':
      return 'timestamp';
    case 'TIMESTAMP_LTZ':
      return 'timestamptz';
    default:
      return postgresType(type);
  }
}

/** A column of an existing table, as the catalog describes it. */
export interface ExistingColumn {
  readonly name: string;
  /** `format_type(atttypid, atttypmod)`: `numeric(10,2)`, `character varying(20)`, `timestamp(3) without time zone`. */
  readonly type: string;
  /** `pg_type.typname` of the column's type: `int4`, `numeric`, `varchar`, `bpchar`, `timestamptz`, ... */
  readonly base: string;
  /** `pg_attribute.atttypmod`: -1 when the type has no modifier. */
  readonly typmod: number;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
}

const INTEGER_DIGITS: Readonly<Record<string, number>> = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 };
const INTEGER_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  TINYINT: ['int2', 'int4', 'int8'],
  SMALLINT: ['int2', 'int4', 'int8'],
  INT: ['int4', 'int8'],
  BIGINT: ['int8'],
};

/** True when every value of `type` can be written into the column without loss or error. */
export function columnHolds(column: ExistingColumn, type: SqlType): boolean {
  const { base, typmod } = column;
  switch (type.kind) {
    case 'BOOLEAN':
      return base === 'bool';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return INTEGER_COLUMNS[type.kind]!.includes(base) || (base === 'numeric' && numericHolds(typmod, INTEGER_DIGITS[type.kind]!, 0));
    case 'FLOAT':
      return base === 'float4' || base === 'float8';
    case 'DOUBLE':
      return base === 'float8';
    case 'DECIMAL':
      return base === 'numeric' && numericHolds(typmod, type.precision - type.scale, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      if (base === 'text') return true;
      if (base === 'varchar') return typmod < 0 || (type.length !== MAX_VARCHAR_LENGTH && typmod - 4 >= type.length);
      return base === 'bpchar' && type.kind === 'CHAR' && typmod - 4 >= type.length;
    case 'BINARY':
    case 'VARBINARY':
      return base === 'bytea';
    case 'DATE':
      return base === 'date';
    case 'TIME':
      return base === 'time' && precisionHolds(typmod, type.precision);
    case 'TIMESTAMP':
      return base === 'timestamp' && precisionHolds(typmod, type.precision);
    case 'TIMESTAMP_LTZ':
      return base === 'timestamptz' && precisionHolds(typmod, type.precision);
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return base === 'interval' && typmod < 0;
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return base === 'jsonb' || base === 'json';
    case 'NULL':
      return true;
  }
}

/** A numeric column's typmod holds `(precision - scale, scale)` digits when both parts are at least as wide. */
function numericHolds(typmod: number, integerDigits: number, scale: number): boolean {
  if (typmod < 0) return true;
  const precision = ((typmod - 4) >> 16) & 0xffff;
  const columnScale = (typmod - 4) & 0xffff;
  return columnScale >= scale && precision - columnScale >= integerDigits;
}

function precisionHolds(typmod: number, precision: number): boolean {
  return typmod < 0 || typmod >= Math.min(precision, MAX_PG_TIME_PRECISION);
}

/** Turns one value of a column into the text PostgreSQL reads it from (null for NULL). */
export type ValueEncoder = (value: unknown) => string | null;

/**
 * The encoder of a column type. Decimals keep every digit, timestamps their milliseconds
 * (truncated to the type's precision as Flink does), dates before year 1 are written with `BC`,
 * and ROW/ARRAY/MAP become JSON (see {@link jsonText}).
 */
export function valueEncoder(type: SqlType): ValueEncoder {
  switch (type.kind) {
    case 'BOOLEAN':
      return (v) => (v === null || v === undefined ? null : v ? 'true' : 'false');
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (v === null || v === undefined ? null : Object.is(v, -0) ? '-0' : String(v));
    case 'DECIMAL': {
      const scale = type.scale;
      return (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? formatDecimal(v, scale) : String(v));
    }
    case 'DATE':
      return (v) => (v === null || v === undefined ? null : postgresDate(v as number));
    case 'TIME': {
      const precision = type.precision;
      return (v) => (v === null || v === undefined ? null : formatTimeOfDay(truncateMillis(v as number, precision), 3));
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const precision = type.precision;
      const zone = type.kind === 'TIMESTAMP_LTZ' ? '+00' : '';
      // Epoch nanos (p > 3) are sent with microseconds, PostgreSQL's precision: exact for p <= 6, truncated (not rounded, as PostgreSQL would) beyond.
      if (isNanoTimestamp(type)) return (v) => (v === null || v === undefined ? null : postgresTimestampMicros(v as bigint, precision, zone));
      return (v) => (v === null || v === undefined ? null : postgresTimestamp(truncateMillis(v as number, precision), zone));
    }
    case 'INTERVAL_DAY_TIME':
      return (v) => (v === null || v === undefined ? null : `${v as number} milliseconds`);
    case 'INTERVAL_YEAR_MONTH':
      return (v) => (v === null || v === undefined ? null : `${v as number} months`);
    case 'BINARY':
    case 'VARBINARY':
      return (v) => (v === null || v === undefined ? null : `\\x${bytesToHex(v as Uint8Array)}`);
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return (v) => (v === null || v === undefined ? null : jsonText(v, type));
    default:
      return (v) => (v === null || v === undefined ? null : String(v));
  }
}

/** `yyyy-MM-dd`, or `yyyy-MM-dd BC` for years before 1 (PostgreSQL has no year 0). */
export function postgresDate(days: number): string {
  const { text, bc } = civilText(days);
  return bc ? `${text} BC` : text;
}

function postgresTimestamp(millis: number, zone: string): string {
  const days = floorDiv(millis, MILLIS_PER_DAY);
  const { text, bc } = civilText(days);
  return `${text} ${formatTimeOfDay(millis - days * MILLIS_PER_DAY, 3)}${zone}${bc ? ' BC' : ''}`;
}

/** The text of epoch nanos truncated to microseconds (and to `precision`), PostgreSQL's resolution: `2020-01-01 12:00:00.123456`. */
function postgresTimestampMicros(nanos: bigint, precision: number, zone: string): string {
  const micros = truncateNanos(nanos, Math.min(precision, MAX_PG_TIME_PRECISION));
  const millis = millisOfNanos(micros);
  const days = floorDiv(millis, MILLIS_PER_DAY);
  const { text, bc } = civilText(days);
  const microsOfMilli = String(nanoOfMilliOf(micros) / 1000).padStart(3, '0');
  return `${text} ${formatTimeOfDay(millis - days * MILLIS_PER_DAY, 3)}${microsOfMilli}${zone}${bc ? ' BC' : ''}`;
}

function civilText(days: number): { text: string; bc: boolean } {
  const { year, month, day } = civilFromDays(days);
  const bc = year <= 0;
  const shownYear = bc ? 1 - year : year;
  return { text: `${String(shownYear).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`, bc };
}

/**
 * A nested value as JSON text for a jsonb column: a ROW is an object of its fields, an ARRAY an
 * array, a MAP an object keyed by the keys' text. Numbers stay numbers (DECIMAL with all its
 * digits, which jsonb keeps exactly); NaN and infinities, dates, times and timestamps are strings
 * in PostgreSQL's `to_json` forms (`2020-01-31`, `2020-01-31T12:00:00.123`, `...+00:00`, bytes as `\x0aff`).
 */
export function jsonText(value: unknown, type: SqlType): string {
  if (value === null || value === undefined) return 'null';
  switch (type.kind) {
    case 'BOOLEAN':
      return value ? 'true' : 'false';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return String(value);
    case 'FLOAT':
    case 'DOUBLE':
      return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
    case 'BINARY':
    case 'VARBINARY':
      return JSON.stringify(`\\x${bytesToHex(value as Uint8Array)}`);
    case 'DATE':
      return JSON.stringify(postgresDate(value as number));
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      if (isNanoTimestamp(type)) {
        const text = postgresTimestampMicros(value as bigint, type.precision, '');
        const bc = text.endsWith(' BC');
        const plain = bc ? text.slice(0, -3) : text;
        return JSON.stringify(`${plain.replace(' ', 'T')}${type.kind === 'TIMESTAMP_LTZ' ? '+00:00' : ''}${bc ? ' BC' : ''}`);
      }
      const millis = truncateMillis(value as number, type.precision);
      const days = floorDiv(millis, MILLIS_PER_DAY);
      const { text, bc } = civilText(days);
      const zone = type.kind === 'TIMESTAMP_LTZ' ? '+00:00' : '';
      return JSON.stringify(`${text}T${formatTimeOfDay(millis - days * MILLIS_PER_DAY, 3)}${zone}${bc ? ' BC' : ''}`);
    }
    case 'ROW': {
      const row = value as readonly unknown[];
      return `{${type.fields.map((field, i) => `${JSON.stringify(field.name)}:${jsonText(row[i], field.type)}`).join(',')}}`;
    }
    case 'ARRAY':
      return `[${(value as readonly unknown[]).map((element) => jsonText(element, type.element)).join(',')}]`;
    case 'MAP': {
      const entries: string[] = [];
      for (const [k, v] of value as ReadonlyMap<unknown, unknown>) {
        const key = k === null || k === undefined ? 'null' : typeof k === 'string' ? k : formatValue(k, type.key);
        entries.push(`${JSON.stringify(key)}:${jsonText(v, type.value)}`);
      }
      return `{${entries.join(',')}}`;
    }
    default:
      return JSON.stringify(formatValue(value, type));
  }
}

/** The type as a message shows it: `DECIMAL(10, 2)`, `STRING` (no NOT NULL). */
export function describeType(type: SqlType): string {
  return formatType({ ...type, nullable: true } as SqlType);
}
