/** Types and runtime values of literals as Flink types them (`10` INT, `0.908` DECIMAL(3, 3), `1e6` DOUBLE, `x'0aff'` BINARY(2)). */
import { hexToBytes } from '../../common/bytes.js';
import { parseDecimal } from '../../common/decimal.js';
import { WeirError, type SourceSpan } from '../../common/errors.js';
import { parseInt64 } from '../../common/int64.js';
import { formatType, MAX_DECIMAL_PRECISION, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { castConverter } from '../../expr/cast.js';
import { Exprs, type LiteralExpr } from '../../expr/scalar-expr.js';
import type { IntervalLiteral, IntervalUnit, TypedLiteral } from '../parse/ast.js';

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

/** `INTERVAL '4' SECOND` → 4000 ms (INTERVAL DAY TO SECOND); `INTERVAL '1-2' YEAR TO MONTH` → 14 months. */
export function intervalLiteral(literal: IntervalLiteral): LiteralExpr {
  const text = literal.value.trim();
  const bad = (): never => {
    throw new WeirError('INVALID_ARGUMENT', `invalid interval literal '${literal.value}' for ${literal.from}${literal.to ? ' TO ' + literal.to : ''}`, { span: literal.span });
  };
  const sign = text.startsWith('-') ? -literal.sign : literal.sign;
  const body = text.replace(/^[-+]/, '');
  if (literal.from === 'YEAR' || literal.from === 'MONTH') {
    const match = literal.from === 'YEAR' && literal.to === 'MONTH' ? /^(\d+)-(\d+)$/.exec(body) : /^(\d+)$/.exec(body);
    if (match === null) return bad();
    const months = literal.from === 'YEAR' ? Number(match[1]) * 12 + Number(match[2] ?? 0) : Number(match[1]);
    return Exprs.literal(sign * months, SqlTypes.intervalYearMonth(false));
  }
  const units: Exclude<IntervalUnit, 'YEAR' | 'MONTH'>[] = ['DAY', 'HOUR', 'MINUTE', 'SECOND'];
  const start = literal.from === 'MILLISECOND' ? -1 : units.indexOf(literal.from);
  if (literal.to === undefined || start < 0) {
    if (!/^\d+(\.\d+)?$/.test(body)) return bad();
    return Exprs.literal(sign * Math.round(Number(body) * MILLIS[literal.from as keyof typeof MILLIS]), SqlTypes.intervalDayTime(false));
  }
  const parts = body.split(/[ :]/);
  const end = units.indexOf(literal.to as (typeof units)[number]);
  if (end < start || parts.length !== end - start + 1 || !parts.every((p) => /^\d+(\.\d+)?$/.test(p))) return bad();
  let millis = 0;
  parts.forEach((part, i) => (millis += Number(part) * MILLIS[units[start + i]!]));
  return Exprs.literal(sign * Math.round(millis), SqlTypes.intervalDayTime(false));
}

/** `DATE '2020-01-01'` (days), `TIME '12:00:00'` (ms of day), `TIMESTAMP '2020-01-01 12:00:00.123'` (epoch ms). */
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
      const millis = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), Number(fraction.slice(0, 3).padEnd(3, '0')));
      if (Number.isNaN(millis)) bad();
      return Exprs.literal(millis, SqlTypes.timestamp(Math.max(fraction.length, 0), false));
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
