/**
 * Flink/Calcite type conversion rules: the common type of several expressions (CASE branches,
 * comparison operands, IN lists, UNION columns), which conversions happen implicitly, and which
 * an explicit CAST allows.
 */
import {
  MAX_DECIMAL_PRECISION,
  MAX_VARBINARY_LENGTH,
  MAX_VARCHAR_LENGTH,
  isBinaryType,
  isIntegerType,
  isNumericType,
  isStringType,
  sameType,
  withNullable,
  withoutTimeAttribute,
  type SqlType,
} from '../common/sql-type.js';

type DecimalType = Extract<SqlType, { kind: 'DECIMAL' }>;
type StringType = Extract<SqlType, { kind: 'CHAR' | 'VARCHAR' }>;
type BinaryType = Extract<SqlType, { kind: 'BINARY' | 'VARBINARY' }>;

const INTEGER_RANK = { TINYINT: 1, SMALLINT: 2, INT: 3, BIGINT: 4 } as const;
const INTEGER_DECIMAL_PRECISION = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 } as const;

/**
 * The DECIMAL type that holds every value of an exact numeric type: DECIMAL itself, or
 * DECIMAL(3|5|10|19, 0) for TINYINT, SMALLINT, INT and BIGINT. Undefined for other types.
 */
export function asDecimalType(type: SqlType): DecimalType | undefined {
  if (type.kind === 'DECIMAL') return type;
  if (isIntegerType(type)) {
    const precision = INTEGER_DECIMAL_PRECISION[type.kind as keyof typeof INTEGER_DECIMAL_PRECISION];
    return { kind: 'DECIMAL', nullable: type.nullable, precision, scale: 0 };
  }
  return undefined;
}

/**
 * A DECIMAL type capped at precision 38 the way Flink adjusts arithmetic results: when the
 * precision is too large the integer digits are kept and the scale shrinks, but not below
 * min(scale, 6).
 */
export function adjustedDecimal(precision: number, scale: number, nullable: boolean): SqlType {
  if (precision <= MAX_DECIMAL_PRECISION) return { kind: 'DECIMAL', nullable, precision, scale };
  const integerDigits = precision - scale;
  const adjustedScale = Math.max(MAX_DECIMAL_PRECISION - integerDigits, Math.min(scale, 6));
  return { kind: 'DECIMAL', nullable, precision: MAX_DECIMAL_PRECISION, scale: adjustedScale };
}

/**
 * The least restrictive type of `types`, to which all of them convert implicitly: numeric
 * widening (TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE, DECIMAL keeping the
 * largest integer part and scale), CHAR/VARCHAR → VARCHAR of the longest length (CHAR when all are
 * CHAR of one length), BINARY/VARBINARY likewise → VARBINARY (BINARY when all are BINARY of one length), DATE with TIMESTAMP → TIMESTAMP, the largest TIME/TIMESTAMP precision,
 * NULL adopting the others; element-wise for ROW, ARRAY and MAP. Nullable when any input is.
 * Time attributes are dropped. Undefined when the types have no common type.
 */
export function leastRestrictive(types: readonly SqlType[]): SqlType | undefined {
  let result: SqlType | undefined;
  let nullable = false;
  for (const type of types) {
    nullable ||= type.nullable;
    if (type.kind === 'NULL') continue;
    if (result === undefined) {
      result = withoutTimeAttribute(type);
      continue;
    }
    result = commonOfTwo(result, type);
    if (result === undefined) return undefined;
  }
  if (result === undefined) return types.length > 0 ? { kind: 'NULL', nullable: true } : undefined;
  return withNullable(result, nullable);
}

function commonOfTwo(a: SqlType, b: SqlType): SqlType | undefined {
  if (isNumericType(a) && isNumericType(b)) return commonNumeric(a, b);
  if (isStringType(a) && isStringType(b)) return commonString(a as StringType, b as StringType);
  if (isBinaryType(a) && isBinaryType(b)) return commonBinary(a as BinaryType, b as BinaryType);
  switch (a.kind) {
    case 'BOOLEAN':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return b.kind === a.kind ? a : undefined;
    case 'DATE':
      if (b.kind === 'DATE') return a;
      if (b.kind === 'TIMESTAMP' || b.kind === 'TIMESTAMP_LTZ') return withoutTimeAttribute(b);
      return undefined;
    case 'TIME':
      return b.kind === 'TIME' ? { ...a, precision: Math.max(a.precision, b.precision) } : undefined;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (b.kind === 'DATE') return a;
      if (b.kind !== 'TIMESTAMP' && b.kind !== 'TIMESTAMP_LTZ') return undefined;
      return { kind: a.kind === 'TIMESTAMP_LTZ' || b.kind === 'TIMESTAMP_LTZ' ? 'TIMESTAMP_LTZ' : 'TIMESTAMP', nullable: a.nullable, precision: Math.max(a.precision, b.precision) };
    case 'ROW': {
      if (b.kind !== 'ROW' || b.fields.length !== a.fields.length) return undefined;
      const fields = [];
      for (let i = 0; i < a.fields.length; i++) {
        const type = leastRestrictive([a.fields[i]!.type, b.fields[i]!.type]);
        if (type === undefined) return undefined;
        fields.push({ name: a.fields[i]!.name, type });
      }
      return { kind: 'ROW', nullable: a.nullable, fields };
    }
    case 'ARRAY': {
      if (b.kind !== 'ARRAY') return undefined;
      const element = leastRestrictive([a.element, b.element]);
      return element === undefined ? undefined : { kind: 'ARRAY', nullable: a.nullable, element };
    }
    case 'MAP': {
      if (b.kind !== 'MAP') return undefined;
      const key = leastRestrictive([a.key, b.key]);
      const value = leastRestrictive([a.value, b.value]);
      return key === undefined || value === undefined ? undefined : { kind: 'MAP', nullable: a.nullable, key, value };
    }
    default:
      return undefined;
  }
}

function commonNumeric(a: SqlType, b: SqlType): SqlType {
  if (a.kind === 'DOUBLE' || b.kind === 'DOUBLE') return { kind: 'DOUBLE', nullable: a.nullable };
  if (a.kind === 'FLOAT' || b.kind === 'FLOAT') {
    return a.kind === 'DECIMAL' || b.kind === 'DECIMAL' ? { kind: 'DOUBLE', nullable: a.nullable } : { kind: 'FLOAT', nullable: a.nullable };
  }
  if (a.kind === 'DECIMAL' || b.kind === 'DECIMAL') {
    const x = asDecimalType(a)!;
    const y = asDecimalType(b)!;
    // As Calcite's leastRestrictive and Flink's LogicalTypeMerging: every integer digit is kept and the scale gives way
    // beyond 38 digits (DECIMAL(38, 10) and DECIMAL(38, 30) meet at DECIMAL(38, 10), not DECIMAL(38, 30)).
    const digits = Math.min(Math.max(x.precision - x.scale, y.precision - y.scale), MAX_DECIMAL_PRECISION);
    const scale = Math.min(Math.max(x.scale, y.scale), MAX_DECIMAL_PRECISION - digits);
    return { kind: 'DECIMAL', nullable: a.nullable, precision: digits + scale, scale };
  }
  const rankA = INTEGER_RANK[a.kind as keyof typeof INTEGER_RANK];
  const rankB = INTEGER_RANK[b.kind as keyof typeof INTEGER_RANK];
  return rankA >= rankB ? a : withNullable(b, a.nullable);
}

function commonString(a: StringType, b: StringType): SqlType {
  if (a.kind === 'CHAR' && b.kind === 'CHAR' && a.length === b.length) return a;
  return { kind: 'VARCHAR', nullable: a.nullable, length: Math.max(a.length, b.length) };
}

function commonBinary(a: BinaryType, b: BinaryType): SqlType {
  if (a.kind === 'BINARY' && b.kind === 'BINARY' && a.length === b.length) return a;
  return { kind: 'VARBINARY', nullable: a.nullable, length: Math.max(a.length, b.length) };
}

const NUMERIC_ORDER = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE'];

/**
 * True when a value of `from` may be used where `to` is expected without an explicit CAST
 * (Flink's implicit casts): identical types, numeric widening, a wider DECIMAL, CHAR/VARCHAR to a
 * string type at least as long (or STRING), BINARY/VARBINARY to a VARBINARY at least as long (or
 * BYTES), DATE → TIMESTAMP, TIMESTAMP ↔ TIMESTAMP_LTZ widening
 * precision, NULL to anything; element-wise for ROW/ARRAY/MAP. Nullability is not considered.
 */
export function canCastImplicitly(from: SqlType, to: SqlType): boolean {
  if (from.kind === 'NULL') return true;
  if (sameType(from, to, { ignoreNullability: true })) return true;
  if (isNumericType(from) && isNumericType(to)) {
    if (from.kind === 'DECIMAL' && to.kind === 'DECIMAL') {
      return to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
    }
    if (to.kind === 'DECIMAL') {
      const exact = asDecimalType(from);
      return exact !== undefined && canCastImplicitly(exact, to);
    }
    return NUMERIC_ORDER.indexOf(from.kind) <= NUMERIC_ORDER.indexOf(to.kind);
  }
  if (isStringType(from) && isStringType(to)) {
    return to.kind === 'VARCHAR' && (to.length >= (from as { length: number }).length || to.length === MAX_VARCHAR_LENGTH);
  }
  if (isBinaryType(from) && isBinaryType(to)) {
    return to.kind === 'VARBINARY' && (to.length >= (from as BinaryType).length || to.length === MAX_VARBINARY_LENGTH);
  }
  switch (from.kind) {
    case 'DATE':
      return to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ';
    case 'TIME':
      return to.kind === 'TIME' && to.precision >= from.precision;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return (to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ') && to.precision >= from.precision;
    case 'ROW':
      return to.kind === 'ROW' && to.fields.length === from.fields.length && from.fields.every((f, i) => canCastImplicitly(f.type, to.fields[i]!.type));
    case 'ARRAY':
      return to.kind === 'ARRAY' && canCastImplicitly(from.element, to.element);
    case 'MAP':
      return to.kind === 'MAP' && canCastImplicitly(from.key, to.key) && canCastImplicitly(from.value, to.value);
    default:
      return false;
  }
}

/**
 * True when a value of `from` may be stored into a column of type `to` (INSERT, UPDATE ... SET):
 * the implicit casts, plus any numeric type into any other, converted by CAST at run time (a
 * value that does not fit is an error there, never silently changed), and any binary string type
 * into any other (CAST pads a BINARY(n) with zero bytes and cuts what is longer, as Flink's sink
 * conversion does).
 */
export function canAssign(from: SqlType, to: SqlType): boolean {
  return canCastImplicitly(from, to) || (isNumericType(from) && isNumericType(to)) || (isBinaryType(from) && isBinaryType(to));
}

/**
 * True when `CAST(x AS to)` is allowed for `x` of type `from` (whether a particular value converts
 * is decided at run time): anything to a string; strings to BOOLEAN, numbers, DATE, TIME,
 * TIMESTAMP(_LTZ) and binary strings (UTF-8); binary strings among each other; numbers and BOOLEAN among each other; DATE/TIME/TIMESTAMP/TIMESTAMP_LTZ among
 * each other where it makes sense (a TIME to a timestamp on 1970-01-01, as Flink); an interval to the same interval; element-wise for
 * ROW/ARRAY/MAP; NULL to anything.
 */
export function canCast(from: SqlType, to: SqlType): boolean {
  if (from.kind === 'NULL' || canCastImplicitly(from, to)) return true;
  if (isStringType(to)) return true;
  const numericOrBoolean = (t: SqlType): boolean => isNumericType(t) || t.kind === 'BOOLEAN';
  if (isBinaryType(to)) return isStringType(from) || isBinaryType(from);
  if (isStringType(from)) {
    return numericOrBoolean(to) || to.kind === 'DATE' || to.kind === 'TIME' || to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ';
  }
  if (numericOrBoolean(from) && numericOrBoolean(to)) return true;
  switch (from.kind) {
    case 'DATE':
      return to.kind === 'DATE';
    case 'TIME':
      return to.kind === 'TIME' || to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return to.kind === 'DATE' || to.kind === 'TIME' || to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ';
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return to.kind === from.kind;
    case 'ROW':
      return to.kind === 'ROW' && to.fields.length === from.fields.length && from.fields.every((f, i) => canCast(f.type, to.fields[i]!.type));
    case 'ARRAY':
      return to.kind === 'ARRAY' && canCast(from.element, to.element);
    case 'MAP':
      return to.kind === 'MAP' && canCast(from.key, to.key) && canCast(from.value, to.value);
    default:
      return false;
  }
}

/**
 * Why CAST refuses `from` to `to` (for a pair {@link canCast} rejects): Flink's explanations for a
 * number to or from TIMESTAMP or TIMESTAMP_LTZ, naming the function to use instead; otherwise
 * Calcite's `Cast function cannot convert value of type FROM to type TO` with the types as `describe` shows them.
 */
export function castRefusal(from: SqlType, to: SqlType, describe: (type: SqlType) => string): string {
  if (isNumericType(from) && to.kind === 'TIMESTAMP_LTZ') {
    return "The cast from NUMERIC type to TIMESTAMP_LTZ type is not allowed. It's recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead.";
  }
  if (from.kind === 'TIMESTAMP_LTZ' && isNumericType(to)) return 'The cast from TIMESTAMP_LTZ type to NUMERIC type is not allowed.';
  if (isNumericType(from) && to.kind === 'TIMESTAMP') {
    return "The cast from NUMERIC type to TIMESTAMP type is not allowed. It's recommended to use TO_TIMESTAMP(FROM_UNIXTIME(numeric_col)) instead, note the numeric is in seconds.";
  }
  if (from.kind === 'TIMESTAMP' && isNumericType(to)) {
    return "The cast from TIMESTAMP type to NUMERIC type is not allowed. It's recommended to use UNIX_TIMESTAMP(CAST(timestamp_col AS STRING)) instead.";
  }
  return `Cast function cannot convert value of type ${describe(from)} to type ${describe(to)}`;
}

/**
 * The type two operands of a comparison are converted to before comparing: their least
 * restrictive type, or — when one is a string and the other a number, BOOLEAN or date/time — the
 * non-string type (the string is cast, as Calcite's implicit coercion does). Undefined when they
 * are not comparable.
 */
export function comparisonType(a: SqlType, b: SqlType): SqlType | undefined {
  const decimals = comparedDecimals(a, b);
  if (decimals !== undefined) return decimals;
  const common = leastRestrictive([a, b]);
  if (common !== undefined) return common;
  const castable = (t: SqlType): boolean =>
    isNumericType(t) || t.kind === 'BOOLEAN' || t.kind === 'DATE' || t.kind === 'TIME' || t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ';
  const nullable = a.nullable || b.nullable;
  if (isStringType(a) && castable(b)) return withNullable(withoutTimeAttribute(b), nullable);
  if (isStringType(b) && castable(a)) return withNullable(withoutTimeAttribute(a), nullable);
  return undefined;
}

/**
 * The DECIMAL two exact numerics (one a DECIMAL) are compared in: every fraction digit kept (so no
 * two different values compare equal), the integer digits capped at 38. Unlike
 * {@link leastRestrictive}, which gives up scale beyond 38 digits as Calcite does for a value's
 * type, a comparison must not round. Undefined for other pairs.
 */
function comparedDecimals(a: SqlType, b: SqlType): SqlType | undefined {
  if (a.kind !== 'DECIMAL' && b.kind !== 'DECIMAL') return undefined;
  const x = asDecimalType(a);
  const y = asDecimalType(b);
  if (x === undefined || y === undefined) return undefined;
  const scale = Math.max(x.scale, y.scale);
  const precision = Math.min(Math.max(x.precision - x.scale, y.precision - y.scale) + scale, MAX_DECIMAL_PRECISION);
  return { kind: 'DECIMAL', nullable: a.nullable || b.nullable, precision, scale };
}

type PrecisionScale = { readonly precision: number; readonly scale: number };

/** Flink's type of `a + b` and `a - b` for DECIMALs: scale max(s1, s2), one more integer digit than the wider operand, capped at 38. */
export function decimalPlusType(a: PrecisionScale, b: PrecisionScale, nullable: boolean): SqlType {
  const scale = Math.max(a.scale, b.scale);
  return adjustedDecimal(Math.max(a.precision - a.scale, b.precision - b.scale) + scale + 1, scale, nullable);
}

/** Flink's type of `a * b` for DECIMALs: DECIMAL(p1 + p2 + 1, s1 + s2), capped at 38 (Flink's LogicalTypeMerging, since it adds the one digit). */
export function decimalTimesType(a: PrecisionScale, b: PrecisionScale, nullable: boolean): SqlType {
  return adjustedDecimal(a.precision + b.precision + 1, a.scale + b.scale, nullable);
}

/** Flink's type of `a / b` for DECIMALs: scale max(6, s1 + p2 + 1), precision p1 - s1 + s2 + scale, capped at 38. */
export function decimalDivideType(a: PrecisionScale, b: PrecisionScale, nullable: boolean): SqlType {
  const scale = Math.max(6, a.scale + b.precision + 1);
  return adjustedDecimal(a.precision - a.scale + b.scale + scale, scale, nullable);
}

/** Flink's type of `MOD(a, b)` for DECIMALs: scale max(s1, s2), the smaller integer part. */
export function decimalModType(a: PrecisionScale, b: PrecisionScale, nullable: boolean): SqlType {
  const scale = Math.max(a.scale, b.scale);
  return adjustedDecimal(Math.min(a.precision - a.scale, b.precision - b.scale) + scale, scale, nullable);
}

/** Flink's type of `ROUND(x, digits)` for a DECIMAL x (one more digit, as rounding may carry). */
export function decimalRoundType(a: PrecisionScale, digits: number, nullable: boolean): SqlType {
  if (digits >= a.scale) return { kind: 'DECIMAL', nullable, precision: a.precision, scale: a.scale };
  if (digits < 0) return { kind: 'DECIMAL', nullable, precision: Math.min(MAX_DECIMAL_PRECISION, 1 + a.precision - a.scale), scale: 0 };
  return { kind: 'DECIMAL', nullable, precision: Math.min(MAX_DECIMAL_PRECISION, 1 + a.precision - a.scale + digits), scale: digits };
}
