/** Types and runtime values of literals as Flink types them (`10` INT, `0.908` DECIMAL(3, 3), `1e6` DOUBLE, `x'0aff'` BINARY(2)). */
import { hexToBytes } from '../../common/bytes.js';
import { parseDecimal } from '../../common/decimal.js';
import { WeirError, type SourceSpan } from '../../common/errors.js';
import { parseInt64 } from '../../common/int64.js';
import { dateFromParts, MILLIS_PER_DAY } from '../../common/datetime.js';
import { MAX_MILLIS_PRECISION, nanosOfMillis } from '../../common/epoch-nanos.js';
import { formatType, MAX_DECIMAL_PRECISION, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { castConverter } from '../../expr/cast.js';
import { Exprs, type LiteralExpr } from '../../expr/scalar-expr.js';
import type { Expr, IntervalLiteral, IntervalUnit, TypedLiteral } from '../parse/ast.js';

/** A numeric literal: INT when it fits, then BIGINT (exact to 2^63 − 1, see common/int64.ts), then DECIMAL(p, 0); with a point DECIMAL(p, s); with an exponent DOUBLE. */
export function numberLiteral(text: string, span: SourceSpan): LiteralExpr {
  if (/[eE]/.test(text)) return Exprs.literal(Number(text), SqlTypes.double(false));
  if (!text.includes('.')) {
    const value = Number(text);
    if (Number.isSafeInteger(value) && value <= 0x7fffffff) return Exprs.literal(value, SqlTypes.int(false));
    if (Number.isSafeInteger(value)) return Exprs.literal(value, SqlTypes.bigint(false));
    const int64 = parseInt64(text);
    if (int64 !== undefined) return Exprs.literal(int64, SqlTypes.bigint(false));
  }
  const decimal = parseDecimal(text);
  if (decimal === undefined) throw new WeirError('INTERNAL_ERROR', `the grammar accepted a malformed number '${text}'`);
  if (decimal.precision > MAX_DECIMAL_PRECISION) {
    throw new WeirError('INVALID_ARGUMENT', `numeric literal ${text} has more than ${MAX_DECIMAL_PRECISION} digits`, { span });
  }
  return Exprs.literal(decimal.unscaled, SqlTypes.decimal(decimal.precision, decimal.scale, false));
}

/**
 * A binary string literal `x'0aff'`: BINARY(n) NOT NULL of its n bytes (BINARY(0) for `x''`, as
 * Flink types the empty literal). Anything but an even number of hex digits is an error naming the literal.
 */
export function binaryLiteral(hex: string, span: SourceSpan): LiteralExpr {
  const bytes = hexToBytes(hex);
  if (bytes === undefined) {
    const why = /^[0-9A-Fa-f]*$/.test(hex) ? `an odd number of hex digits (${hex.length})` : 'a character that is not a hex digit';
    throw new WeirError('INVALID_ARGUMENT', `binary literal x'${hex}' has ${why}; it needs two hex digits per byte`, { span });
  }
  return Exprs.literal(bytes, SqlTypes.binary(bytes.length, false));
}

const MILLIS: Readonly<Record<Exclude<IntervalUnit, 'YEAR' | 'MONTH'>, number>> = {
  DAY: 86_400_000,
  HOUR: 3_600_000,
  MINUTE: 60_000,
  SECOND: 1000,
  MILLISECOND: 1,
};

/** The largest value of a field after the leading one (`1 23:59:59.999`, `1-11`). */
const FIELD_MAX: Readonly<Partial<Record<IntervalUnit, number>>> = { MONTH: 11, HOUR: 23, MINUTE: 59, SECOND: 59 };

/**
 * `INTERVAL '4' SECOND` → 4000 ms (INTERVAL DAY TO SECOND); `INTERVAL '1-2' YEAR TO MONTH` → 14
 * months; `INTERVAL '10 00:00:00.004' DAY(2) TO SECOND(3)`. Fields after the leading one must be in
 * their range (hours 0–23, ...). A written precision bounds the leading field's digits (`'100'
 * DAY(2)` overflows, as in Flink) and SECOND's fraction digits; without one the leading field is
 * not bounded (Flink's default is 2 digits: weir accepts more).
 */
export function intervalLiteral(literal: IntervalLiteral): LiteralExpr {
  const text = literal.value.trim();
  const qualifier = `${literal.from}${literal.leadingPrecision === undefined ? '' : `(${literal.leadingPrecision})`}${literal.to === undefined ? '' : ` TO ${literal.to}`}${literal.fractionalPrecision === undefined ? '' : `(${literal.fractionalPrecision})`}`;
  const bad = (): never => {
    throw new WeirError('INVALID_ARGUMENT', `invalid interval literal '${literal.value}' for ${literal.from}${literal.to ? ' TO ' + literal.to : ''}`, { span: literal.span });
  };
  const sign = text.startsWith('-') ? -literal.sign : literal.sign;
  const body = text.replace(/^[-+]/, '');
  const units: IntervalUnit[] = literal.from === 'YEAR' || literal.from === 'MONTH' ? ['YEAR', 'MONTH'] : ['DAY', 'HOUR', 'MINUTE', 'SECOND'];
  const start = literal.from === 'MILLISECOND' ? -1 : units.indexOf(literal.from);
  const end = literal.to === undefined ? start : units.indexOf(literal.to);
  const parts = start < 0 ? [body] : body.split(units[start] === 'YEAR' && end > start ? '-' : /[ :]/);
  const fields = start < 0 ? ['MILLISECOND' as const] : units.slice(start, end + 1);
  const yearMonth = literal.from === 'YEAR' || literal.from === 'MONTH';
  // Only the last field (seconds, or a single field) may have a fraction.
  if (parts.length !== fields.length || !parts.every((p, i) => (i === parts.length - 1 && !yearMonth ? /^\d+(\.\d+)?$/ : /^\d+$/).test(p))) return bad();
  const leading = parts[0]!.split('.')[0]!;
  if (literal.leadingPrecision !== undefined && leading.replace(/^0+(?=\d)/, '').length > literal.leadingPrecision) {
    throw new WeirError('INVALID_ARGUMENT', `interval field value ${leading} exceeds the precision of the ${literal.from}(${literal.leadingPrecision}) field of INTERVAL ${qualifier}`, { span: literal.span });
  }
  const fraction = parts[parts.length - 1]!.split('.')[1] ?? '';
  if (literal.fractionalPrecision !== undefined && fraction.length > literal.fractionalPrecision) {
    throw new WeirError('INVALID_ARGUMENT', `interval fraction .${fraction} has more digits than the fractional precision ${literal.fractionalPrecision} of INTERVAL ${qualifier}`, { span: literal.span });
  }
  fields.forEach((field, i) => {
    const max = FIELD_MAX[field];
    if (i > 0 && max !== undefined && Number(parts[i]) >= max + 1) {
      throw new WeirError('INVALID_ARGUMENT', `invalid interval literal '${literal.value}' for INTERVAL ${qualifier}: ${field} must be at most ${max}, got ${parts[i]}`, { span: literal.span });
    }
  });
  if (yearMonth) {
    const months = fields.reduce((total, field, i) => total + Number(parts[i]) * (field === 'YEAR' ? 12 : 1), 0);
    return Exprs.literal(sign * months, SqlTypes.intervalYearMonth(false));
  }
  let millis = 0;
  fields.forEach((field, i) => (millis += Number(parts[i]) * MILLIS[field as keyof typeof MILLIS]));
  return Exprs.literal(sign * Math.round(millis) + 0, SqlTypes.intervalDayTime(false));
}

/** `DATE '2020-01-01'` (days), `TIME '12:00:00'` (ms of day), `TIMESTAMP '2020-01-01 12:00:00.123'` (epoch ms; epoch nanos beyond three fraction digits). */
export function typedLiteral(literal: TypedLiteral): LiteralExpr {
  const bad = (): never => {
    throw new WeirError('INVALID_ARGUMENT', `invalid ${literal.type} literal '${literal.value}'`, { span: literal.span });
  };
  const text = literal.value.trim();
  switch (literal.type) {
    case 'DATE': {
      const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text) ?? bad();
      return Exprs.literal(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000, SqlTypes.date(false));
    }
    case 'TIME': {
      const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/.exec(text) ?? bad();
      const millis = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3] ?? 0)) * 1000 + Number((m[4] ?? '0').padEnd(3, '0'));
      return Exprs.literal(millis, SqlTypes.time(0, false));
    }
    case 'TIMESTAMP': {
      const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/.exec(text) ?? bad();
      const fraction = m[7] ?? '';
      // Through the calendar of common/datetime.ts, not Date.UTC, which reads years 0..99 as 1900..1999.
      const days = dateFromParts(Number(m[1]), Number(m[2]), Number(m[3]));
      const [hours, minutes, seconds] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
      if (days === undefined || hours > 23 || minutes > 59 || seconds > 59) bad();
      const millis = days! * MILLIS_PER_DAY + ((hours * 60 + minutes) * 60 + seconds) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0'));
      const precision = fraction.length;
      // Above milliseconds the value is epoch nanos (common/epoch-nanos.ts), every digit kept.
      const value = precision > MAX_MILLIS_PRECISION ? nanosOfMillis(millis, Number(fraction.slice(3).padEnd(6, '0'))) : millis;
      return Exprs.literal(value, SqlTypes.timestamp(precision, false));
    }
  }
}

/** Integer text PostgreSQL accepts for an integer column: no fraction, which CAST would truncate silently. */
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/**
 * A string literal written into a column of type `type`, read as PostgreSQL reads an untyped
 * literal in INSERT: `'8821808526777993'` into BIGINT is that BIGINT, `'2022-06-10 12:20:04.858'`
 * into TIMESTAMP(3) that timestamp (the text parsed as CAST parses it; integer columns take
 * integer text only). Undefined for a string column (the literal already is one) and for types
 * text does not convert to (ROW, ARRAY, MAP, INTERVAL). Text that does not parse, or a number
 * outside the type's range, is an error naming `column` (say `column 'id' of 't'`) and the text.
 */
export function stringLiteralAs(value: string, span: SourceSpan, type: SqlType, column: string): LiteralExpr | undefined {
  const target = withNullable(type, false);
  const name = formatType(withNullable(type, true));
  switch (target.kind) {
    case 'CHAR':
    case 'VARCHAR':
    case 'BINARY':
    case 'VARBINARY':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'NULL':
      return undefined;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      if (!INTEGER_TEXT.test(value)) throw invalid();
      break;
    case 'BOOLEAN':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DECIMAL':
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      break;
    default: {
      const unhandled: never = target;
      throw new WeirError('INTERNAL_ERROR', `unhandled type ${String(unhandled)}`);
    }
  }
  const convert = castConverter(SqlTypes.string(false), target);
  let converted: unknown;
  try {
    converted = convert === undefined ? value : convert(value);
  } catch (error) {
    if (!(error instanceof WeirError)) throw error;
    if (error.code !== 'ARITHMETIC_OVERFLOW') throw invalid();
    throw outOfRange();
  }
  // Flink's CAST gives NULL for a DECIMAL that does not fit; an INSERT of such text is an error, as in PostgreSQL.
  if (converted === null) throw outOfRange();
  return Exprs.literal(converted, target);

  function outOfRange(): WeirError {
    return new WeirError('ARITHMETIC_OVERFLOW', `${column} has type ${name}, and '${value}' is outside its range`, { span });
  }

  function invalid(): WeirError {
    return new WeirError('INVALID_ARGUMENT', `${column} has type ${name}, and '${value}' is not a valid ${name}`, { span });
  }
}

/** The count of LIMIT, FETCH or OFFSET: a non-negative integer literal. */
export function rowCount(expr: Expr, clause: 'LIMIT' | 'OFFSET'): number {
  if (expr.kind === 'literal' && expr.type === 'number' && /^\d+$/.test(expr.text) && Number.isSafeInteger(Number(expr.text))) return Number(expr.text);
  throw new WeirError('INVALID_ARGUMENT', `${clause} takes a non-negative integer`, { span: expr.span });
}
