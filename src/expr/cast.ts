/**
 * CAST and TRY_CAST: a converter of non-NULL values per (from, to) pair, built once at compile
 * time, following Flink's cast rules: numbers narrow into smaller integer types as Java's casts do
 * (integers and DECIMALs wrap around, FLOAT/DOUBLE saturate and NaN becomes 0), DECIMAL rounds
 * HALF_UP and a number or text that does not fit the DECIMAL's precision becomes NULL, strings are trimmed
 * before parsing, CHAR(n) pads and VARCHAR(n) cuts. Strings and binary strings convert through
 * UTF-8 (bytes that are not UTF-8 are an error, as Flink's strict mode); BINARY(n) pads with zero
 * bytes and cuts, VARBINARY(n) cuts, as Flink's. Text that does not convert is an error
 * (EXECUTION_ERROR `cannot cast 'abc' to INT`, ARITHMETIC_OVERFLOW `INT overflow in
 * CAST('3000000000' AS INT)`), which TRY_CAST turns into NULL. BIGINT values are exact 64-bit
 * (common/int64.ts): a DECIMAL wraps into it and a DOUBLE saturates at its bounds, as in Java, and
 * text beyond them is an overflow error.
 */
import {
  decimalFromNumber,
  fitsPrecision,
  decimalToNumber,
  formatDecimal,
  parseDecimal,
  pow10,
  rescaleDecimal,
  truncateDecimal,
} from '../common/decimal.js';
import { copyBytes, utf8Bytes, utf8Text } from '../common/bytes.js';
import { floorDiv, floorMod, MILLIS_PER_DAY, parseTime, parseTimestamp, truncateMillis } from '../common/datetime.js';
import {
  isNanoTimestamp,
  MAX_MILLIS_PRECISION,
  millisOfNanos,
  millisOfNanosAt,
  nanosOfDays,
  nanosOfMillis,
  parseTimestampNanos,
  truncateNanos,
  type EpochNanos,
} from '../common/epoch-nanos.js';
import { WeirError } from '../common/errors.js';
import { instantOf, instantOfNanos, localOf, localOfNanos, UTC_ZONE } from '../common/time-zone.js';
import { int64FromDouble, int64ToNumber, parseInt64, wrapInt64, type Int64 } from '../common/int64.js';
import { formatType, isBinaryType, isIntegerType, isStringType, MAX_VARBINARY_LENGTH, MAX_VARCHAR_LENGTH, withNullable, type SqlType } from '../common/sql-type.js';
import { formatValue } from '../common/value-format.js';
import type { CodegenContext } from './function-definition.js';
import { parseDateText } from './runtime/date-text.js';
import { canCast, castRefusal } from './type-coercion.js';

/** Converts one non-NULL value. */
export type Converter = (value: any) => unknown;

const INTEGER_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [-(2 ** 63), 2 ** 63],
};

const typeName = (type: SqlType): string => formatType(withNullable(type, true));

function describe(value: unknown, type: SqlType): string {
  return isStringType(type) ? `'${value as string}'` : formatValue(value, type);
}

function cannotCast(value: unknown, from: SqlType, to: SqlType): WeirError {
  return new WeirError('EXECUTION_ERROR', `cannot cast ${describe(value, from)} to ${typeName(to)}`);
}

function castOverflow(value: unknown, from: SqlType, to: SqlType): WeirError {
  return new WeirError('ARITHMETIC_OVERFLOW', `${typeName(to)} overflow in CAST(${describe(value, from)} AS ${typeName(to)})`);
}

/**
 * The converter for non-NULL values of `from` into `to`, or undefined when the representation
 * needs no change. Throws TYPE_MISMATCH when CAST does not allow the pair. `zone` (a resolved
 * `table.local-time-zone`) is where a TIMESTAMP_LTZ instant has its wall-clock time: casts
 * between TIMESTAMP_LTZ and TIMESTAMP, DATE, TIME or text go through it, as in Flink.
 */
export function castConverter(from: SqlType, to: SqlType, zone: string = UTC_ZONE): Converter | undefined {
  if (from.kind === 'NULL') return undefined;
  if (!canCast(from, to)) throw new WeirError('TYPE_MISMATCH', castRefusal(from, to, typeName));
  switch (to.kind) {
    case 'CHAR':
    case 'VARCHAR':
      return toStringConverter(from, to, zone);
    case 'BINARY':
    case 'VARBINARY':
      return toBinaryConverter(from, to);
    case 'BOOLEAN':
      return toBooleanConverter(from, to);
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return toIntegerConverter(from, to);
    case 'FLOAT':
    case 'DOUBLE':
      return toApproximateConverter(from, to);
    case 'DECIMAL':
      return toDecimalConverter(from, to);
    case 'DATE':
      return toDateConverter(from, to, zone);
    case 'TIME':
      return toTimeConverter(from, to, zone);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return toTimestampConverter(from, to, zone);
    case 'ROW': {
      const row = from as Extract<SqlType, { kind: 'ROW' }>;
      const fields = to.fields.map((field, i) => castConverter(row.fields[i]!.type, field.type, zone));
      if (fields.every((f) => f === undefined)) return undefined;
      return (value: readonly unknown[]) => value.map((v, i) => (v === null || fields[i] === undefined ? v : fields[i]!(v)));
    }
    case 'ARRAY': {
      const element = castConverter((from as Extract<SqlType, { kind: 'ARRAY' }>).element, to.element, zone);
      if (element === undefined) return undefined;
      return (value: readonly unknown[]) => value.map((v) => (v === null ? v : element(v)));
    }
    case 'MAP': {
      const map = from as Extract<SqlType, { kind: 'MAP' }>;
      const key = castConverter(map.key, to.key, zone);
      const val = castConverter(map.value, to.value, zone);
      if (key === undefined && val === undefined) return undefined;
      return (value: ReadonlyMap<unknown, unknown>) => {
        const result = new Map<unknown, unknown>();
        for (const [k, v] of value) result.set(k === null || key === undefined ? k : key(k), v === null || val === undefined ? v : val(v));
        return result;
      };
    }
    default:
      return undefined;
  }
}

function toStringConverter(from: SqlType, to: Extract<SqlType, { kind: 'CHAR' | 'VARCHAR' }>, zone: string): Converter | undefined {
  const fitLength = to.kind === 'CHAR' ? (s: string) => (s.length > to.length ? s.slice(0, to.length) : s.padEnd(to.length, ' ')) : (s: string) => (s.length > to.length ? s.slice(0, to.length) : s);
  if (isStringType(from)) {
    const fromLength = (from as { length: number }).length;
    if (to.kind === 'VARCHAR' && (to.length === MAX_VARCHAR_LENGTH || fromLength <= to.length)) return undefined;
    if (to.kind === 'CHAR' && from.kind === 'CHAR' && fromLength === to.length) return undefined;
    return fitLength;
  }
  if (isBinaryType(from)) {
    const what = `CAST(${typeName(from)} AS ${typeName(to)})`;
    if (to.kind === 'VARCHAR' && to.length === MAX_VARCHAR_LENGTH) return (value: Uint8Array) => utf8Text(value, what);
    return (value: Uint8Array) => fitLength(utf8Text(value, what));
  }
  // Binary strings nested in a ROW, ARRAY or MAP are decoded as a top-level one is (Flink casts each element to STRING).
  const what = `CAST(${typeName(from)} AS ${typeName(to)})`;
  const binary = (bytes: Uint8Array): string => utf8Text(bytes, what);
  if (to.kind === 'VARCHAR' && to.length === MAX_VARCHAR_LENGTH) return (value) => formatValue(value, from, zone, binary);
  return (value) => fitLength(formatValue(value, from, zone, binary));
}

/** Strings as their UTF-8 bytes; BINARY(n) padded with zero bytes or cut to n, VARBINARY(n) cut to n. */
function toBinaryConverter(from: SqlType, to: Extract<SqlType, { kind: 'BINARY' | 'VARBINARY' }>): Converter | undefined {
  const { length } = to;
  const fit =
    to.kind === 'BINARY'
      ? (bytes: Uint8Array): Uint8Array => {
          if (bytes.length === length) return bytes;
          if (bytes.length > length) return copyBytes(bytes.subarray(0, length));
          const padded = new Uint8Array(length);
          padded.set(bytes);
          return padded;
        }
      : (bytes: Uint8Array): Uint8Array => (bytes.length > length ? copyBytes(bytes.subarray(0, length)) : bytes);
  if (isStringType(from)) return (value: string) => fit(utf8Bytes(value));
  const fromLength = (from as Extract<SqlType, { kind: 'BINARY' | 'VARBINARY' }>).length;
  if (to.kind === 'VARBINARY' && (length === MAX_VARBINARY_LENGTH || fromLength <= length)) return undefined;
  if (to.kind === 'BINARY' && from.kind === 'BINARY' && fromLength === length) return undefined;
  return fit;
}

const TRUE_TEXT = new Set(['t', 'true', 'y', 'yes', '1']);
const FALSE_TEXT = new Set(['f', 'false', 'n', 'no', '0']);

function toBooleanConverter(from: SqlType, to: SqlType): Converter | undefined {
  if (from.kind === 'BOOLEAN') return undefined;
  if (isStringType(from)) {
    return (value: string) => {
      const text = value.trim().toLowerCase();
      if (TRUE_TEXT.has(text)) return true;
      if (FALSE_TEXT.has(text)) return false;
      throw cannotCast(value, from, to);
    };
  }
  if (from.kind === 'DECIMAL') return (value: bigint) => value !== 0n;
  return (value: number) => value !== 0;
}

const INTEGER_TEXT = /^[+-]?\d+(?:\.\d*)?$/;

const WRAP_BITS: Readonly<Record<string, number>> = { TINYINT: 8, SMALLINT: 16, INT: 32 };

/** Java's narrowing of an integer (exact in a double) to a TINYINT, SMALLINT or INT: the low bits, two's complement. */
function wrapTo(bits: number, n: number): number {
  if (bits === 32) return n | 0;
  const shift = 32 - bits;
  return ((n | 0) << shift) >> shift;
}

function toIntegerConverter(from: SqlType, to: SqlType): Converter | undefined {
  const [min, max] = INTEGER_RANGE[to.kind]!;
  const bits = WRAP_BITS[to.kind];
  const checked = (value: unknown, n: number): number => {
    if (n >= min && n <= max) return n + 0;
    throw castOverflow(value, from, to);
  };
  if (isIntegerType(from)) {
    const [fromMin, fromMax] = INTEGER_RANGE[from.kind]!;
    if (fromMin >= min && fromMax <= max) return undefined;
    // Only a narrowing from BIGINT (whose values may be bigints) into TINYINT/SMALLINT/INT remains.
    return (value: Int64) => (typeof value === 'number' ? wrapTo(bits!, value) : Number(BigInt.asIntN(bits!, value)));
  }
  switch (from.kind) {
    case 'BOOLEAN':
      return (value: boolean) => (value ? 1 : 0);
    case 'FLOAT':
    case 'DOUBLE':
      // Java: double → long/int saturates (NaN → 0); a TINYINT/SMALLINT goes through int, then wraps.
      return (value: number) => {
        if (bits === undefined) return int64FromDouble(value);
        if (Number.isNaN(value)) return 0;
        const truncated = Math.trunc(value) + 0;
        const saturated = Math.min(2147483647, Math.max(-2147483648, truncated));
        return wrapTo(bits, saturated);
      };
    case 'DECIMAL': {
      const scale = from.scale;
      return (value: bigint) => {
        const truncated = truncateDecimal(value, scale);
        if (bits !== undefined) return Number(BigInt.asIntN(bits, truncated));
        return wrapInt64(truncated);
      };
    }
    default:
      return (value: string) => {
        const text = value.trim();
        if (!INTEGER_TEXT.test(text)) throw cannotCast(value, from, to);
        const point = text.indexOf('.');
        const digits = point < 0 ? text : text.slice(0, point);
        if (bits !== undefined) return checked(value, Number(digits));
        const parsed = parseInt64(digits);
        if (parsed === undefined) throw castOverflow(value, from, to);
        return parsed;
      };
  }
}

const DOUBLE_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[dDfF]?$|^[+-]?(?:NaN|Infinity)$/;

function toApproximateConverter(from: SqlType, to: SqlType): Converter | undefined {
  const float = to.kind === 'FLOAT';
  const round = float ? Math.fround : (n: number) => n;
  switch (from.kind) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'FLOAT':
      return undefined;
    case 'INT':
    case 'DOUBLE':
      return float ? Math.fround : undefined;
    case 'BIGINT':
      return float ? (value: Int64) => Math.fround(int64ToNumber(value)) : int64ToNumber;
    case 'BOOLEAN':
      return (value: boolean) => (value ? 1 : 0);
    case 'DECIMAL': {
      const scale = from.scale;
      return (value: bigint) => round(decimalToNumber(value, scale));
    }
    default:
      return (value: string) => {
        const text = value.trim();
        if (!DOUBLE_TEXT.test(text)) throw cannotCast(value, from, to);
        return round(Number(text.replace(/[dDfF]$/, '')));
      };
  }
}

function toDecimalConverter(from: SqlType, to: Extract<SqlType, { kind: 'DECIMAL' }>): Converter | undefined {
  const { precision, scale } = to;
  const fit = (_value: unknown, unscaled: bigint): bigint | null => (fitsPrecision(unscaled, precision) ? unscaled : null);
  switch (from.kind) {
    case 'DECIMAL':
      if (from.scale === scale && from.precision <= precision) return undefined;
      return (value: bigint) => fit(value, rescaleDecimal(value, from.scale, scale));
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      const unit = pow10(scale);
      return (value: Int64) => fit(value, BigInt(value) * unit);
    }
    case 'FLOAT':
    case 'DOUBLE':
      return (value: number) => {
        const unscaled = decimalFromNumber(value, scale);
        return unscaled === undefined ? null : fit(value, unscaled);
      };
    case 'BOOLEAN': {
      const one = pow10(scale);
      return (value: boolean) => fit(value, value ? one : 0n);
    }
    default:
      return (value: string) => {
        const parsed = parseDecimal(value.trim());
        if (parsed === undefined) throw cannotCast(value, from, to);
        // Text that does not fit the precision is NULL, as a number that does not fit (Flink's
        // BinaryStringDataUtil.toDecimal gives null on overflow); only text that is no number is an error.
        return fit(value, rescaleDecimal(parsed.unscaled, parsed.scale, scale));
      };
  }
}

function toDateConverter(from: SqlType, to: SqlType, zone: string): Converter | undefined {
  if (from.kind === 'DATE') return undefined;
  if (isNanoTimestamp(from)) return throughMillis(toDateConverter(millisTimestamp(from), to, zone)!);
  if (from.kind === 'TIMESTAMP') return (value: number) => floorDiv(value, MILLIS_PER_DAY);
  if (from.kind === 'TIMESTAMP_LTZ') return (value: number) => floorDiv(localOf(value, zone), MILLIS_PER_DAY);
  return (value: string) => {
    const days = parseDateText(value);
    if (days === undefined) throw cannotCast(value, from, to);
    return days;
  };
}

/** TIME keeps milliseconds of the day whatever its precision, as Flink's runtime does (sub-millisecond digits are cut). */
function toTimeConverter(from: SqlType, to: Extract<SqlType, { kind: 'TIME' }>, zone: string): Converter | undefined {
  const precision = to.precision;
  if (isNanoTimestamp(from)) return throughMillis(toTimeConverter(millisTimestamp(from), to, zone)!);
  if (from.kind === 'TIME') return from.precision <= precision ? undefined : (value: number) => truncateMillis(value, precision);
  if (from.kind === 'TIMESTAMP') return (value: number) => truncateMillis(floorMod(value, MILLIS_PER_DAY), precision);
  if (from.kind === 'TIMESTAMP_LTZ') return (value: number) => truncateMillis(floorMod(localOf(value, zone), MILLIS_PER_DAY), precision);
  return (value: string) => {
    const millis = parseTime(value);
    if (millis === undefined) throw cannotCast(value, from, to);
    return truncateMillis(millis, precision);
  };
}

/** The same timestamp type at precision 3 (epoch milliseconds). */
function millisTimestamp(type: SqlType): SqlType {
  return { ...(type as Extract<SqlType, { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>), precision: MAX_MILLIS_PRECISION };
}

/** A converter of epoch milliseconds applied to epoch nanos rounded down to their millisecond. */
function throughMillis(convert: Converter): Converter {
  return (value: EpochNanos) => convert(millisOfNanos(value));
}

function toTimestampConverter(from: SqlType, to: Extract<SqlType, { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>, zone: string): Converter | undefined {
  const precision = to.precision;
  if (isNanoTimestamp(to) || isNanoTimestamp(from)) return nanoTimestampConverter(from, to, zone);
  const truncates = from.kind !== 'DATE' && !isStringType(from) && (from as { precision: number }).precision > precision && precision < 3;
  // Between a wall-clock TIMESTAMP (or DATE, or text) and an instant, through the session zone.
  const toInstant = to.kind === 'TIMESTAMP_LTZ' && from.kind !== 'TIMESTAMP_LTZ';
  const toWall = to.kind === 'TIMESTAMP' && from.kind === 'TIMESTAMP_LTZ';
  switch (from.kind) {
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (toInstant) return (value: number) => instantOf(truncateMillis(value, precision), zone);
      if (toWall) return (value: number) => truncateMillis(localOf(value, zone), precision);
      return truncates ? (value: number) => truncateMillis(value, precision) : undefined;
    case 'DATE':
      return toInstant ? (value: number) => instantOf(value * MILLIS_PER_DAY, zone) : (value: number) => value * MILLIS_PER_DAY;
    case 'TIME':
      // Flink puts the time on 1970-01-01 and drops its fraction of a second (FLINK-17224).
      return toInstant ? (value: number) => instantOf(value - (value % 1000), zone) : (value: number) => value - (value % 1000);
    default:
      return (value: string) => {
        const millis = parseTimestamp(value);
        if (millis === undefined) throw cannotCast(value, from, to);
        const wall = truncateMillis(millis, precision);
        return toInstant ? instantOf(wall, zone) : wall;
      };
  }
}

/**
 * Casts into or out of a timestamp of precision above 3 (epoch nanos, common/epoch-nanos.ts): the
 * value is taken to epoch nanos, moved between wall-clock time and instant through the session
 * zone when the kinds differ, then truncated to the target precision (as Flink's CAST, towards
 * the past) and given the target's representation.
 */
function nanoTimestampConverter(from: SqlType, to: Extract<SqlType, { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>, zone: string): Converter | undefined {
  const precision = to.precision;
  const toInstant = to.kind === 'TIMESTAMP_LTZ' && from.kind !== 'TIMESTAMP_LTZ';
  const toWall = to.kind === 'TIMESTAMP' && from.kind === 'TIMESTAMP_LTZ';
  const shift = toInstant ? (n: EpochNanos) => instantOfNanos(n, zone) : toWall ? (n: EpochNanos) => localOfNanos(n, zone) : undefined;
  const out = isNanoTimestamp(to) ? (n: EpochNanos): unknown => truncateNanos(n, precision) : (n: EpochNanos): unknown => millisOfNanosAt(n, precision);
  const finish = shift === undefined ? out : (n: EpochNanos) => out(shift(n));
  switch (from.kind) {
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (!isNanoTimestamp(from)) return (value: number) => finish(nanosOfMillis(value));
      if (shift === undefined && isNanoTimestamp(to) && from.precision <= precision) return undefined;
      return finish;
    case 'DATE':
      return (value: number) => finish(nanosOfDays(value));
    case 'TIME':
      // As into TIMESTAMP(p <= 3): the time on 1970-01-01, its fraction of a second dropped (FLINK-17224).
      return (value: number) => finish(nanosOfMillis(value - (value % 1000)));
    default:
      return (value: string) => {
        const nanos = parseTimestampNanos(value);
        if (nanos === undefined) throw cannotCast(value, from, to);
        return finish(nanos);
      };
  }
}

/**
 * True when CAST from `from` to `to` can give NULL for a non-NULL value: a DECIMAL target that the
 * value may not fit (Flink's DECIMAL overflow is NULL), or a DOUBLE/FLOAT NaN or infinity into a
 * DECIMAL. As in Flink the cast keeps its type (NOT NULL for a NOT NULL operand); generated code
 * checks its result for NULL all the same.
 */
export function castMayYieldNull(from: SqlType, to: SqlType): boolean {
  if (to.kind === 'DECIMAL') {
    if (from.kind === 'DECIMAL') {
      const integerDigits = from.precision - from.scale;
      const target = to.precision - to.scale;
      return integerDigits > target || (integerDigits === target && to.scale < from.scale);
    }
    if (isIntegerType(from)) return INTEGER_DIGITS[from.kind]! > to.precision - to.scale;
    return from.kind !== 'BOOLEAN' && from.kind !== 'NULL';
  }
  if (to.kind === 'ROW') return from.kind === 'ROW' && from.fields.some((f, i) => castMayYieldNull(f.type, to.fields[i]!.type));
  return false;
}

/**
 * A JS expression that casts the non-NULL value `code` of type `from` to `to`: `code` itself when
 * no conversion is needed, else a call of the converter (held in the closure). TRY_CAST yields
 * NULL where CAST throws.
 */
export function generateCast(ctx: CodegenContext, code: string, from: SqlType, to: SqlType, tryCast: boolean): string {
  if (isIntegerType(from) && to.kind === 'DECIMAL' && INTEGER_DIGITS[from.kind]! + to.scale <= to.precision) {
    return to.scale === 0 ? `BigInt(${code})` : `BigInt(${code}) * ${pow10(to.scale)}n`;
  }
  const converter = cachedConverter(from, to, ctx.timeZone);
  if (converter === undefined) return code;
  const name = ctx.constant(converter, `cast_${to.kind.toLowerCase()}`);
  return tryCast ? `${ctx.lib('tryCast')}(${name}, ${code})` : `${name}(${code})`;
}

const INTEGER_DIGITS: Readonly<Record<string, number>> = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 };

const converters = new Map<string, Converter | undefined>();

/** {@link castConverter}, shared across compilations (converters are pure), so one cast is one closure constant. */
function cachedConverter(from: SqlType, to: SqlType, zone: string): Converter | undefined {
  const key = `${formatType(from)} -> ${formatType(to)} @ ${zone}`;
  if (converters.has(key)) return converters.get(key);
  const converter = castConverter(from, to, zone);
  converters.set(key, converter);
  return converter;
}

/** Calls `convert`, turning a WeirError into NULL (TRY_CAST). */
export function tryCast(convert: Converter, value: unknown): unknown {
  try {
    return convert(value);
  } catch (error) {
    if (error instanceof WeirError) return null;
    throw error;
  }
}

/** The SQL text of a value for error messages: strings quoted, decimals with their scale. */
export function describeValue(value: unknown, type: SqlType): string {
  if (value === null) return 'NULL';
  if (type.kind === 'DECIMAL') return formatDecimal(value as bigint, type.scale);
  return describe(value, type);
}
