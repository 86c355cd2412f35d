/**
 * Run-time helpers for numeric operators, called by generated code: range checks of integer
 * results (which the generated code computes inline), integer division and remainder, and exact
 * DECIMAL arithmetic on unscaled bigints. Errors name the operation and its operands.
 */
import { decimalOverflow, divideHalfUp, fitsPrecision, formatDecimal, pow10, rescaleDecimal } from '../../common/decimal.js';
import { WeirError } from '../../common/errors.js';

function describeOperation(a: unknown, op: string, b: unknown): string {
  if (b !== undefined) return `${a} ${op} ${b}`;
  return op === '-' ? `-(${a})` : `${op}(${a})`;
}

function overflow(typeName: string, a: unknown, op: string, b: unknown): WeirError {
  return new WeirError('ARITHMETIC_OVERFLOW', `${typeName} overflow in ${describeOperation(a, op, b)}`);
}

/**
 * `r` when it is a TINYINT; otherwise ARITHMETIC_OVERFLOW naming `a op b` (or `op(a)` when `b` is
 * undefined). The three integer checks below work the same way; all normalise -0 to 0.
 */
export function tinyintResult(r: number, a: number, op: string, b?: number): number {
  if (r >= -128 && r <= 127) return r + 0;
  throw overflow('TINYINT', a, op, b);
}

/** `r` when it is a SMALLINT; see {@link tinyintResult}. */
export function smallintResult(r: number, a: number, op: string, b?: number): number {
  if (r >= -32768 && r <= 32767) return r + 0;
  throw overflow('SMALLINT', a, op, b);
}

/** `r` when it is an INT (32-bit); see {@link tinyintResult}. */
export function intResult(r: number, a: number, op: string, b?: number): number {
  if ((r | 0) === r) return r | 0;
  throw overflow('INT', a, op, b);
}

/** `r` when it is a BIGINT (a safe integer: results beyond 2^53 - 1 are errors, never rounded); see {@link tinyintResult}. */
export function bigintResult(r: number, a: number, op: string, b?: number): number {
  if (Number.isSafeInteger(r)) return r + 0;
  throw overflow('BIGINT', a, op, b);
}

/** `r` when it is a finite number of INTERVAL milliseconds or months. */
export function intervalResult(r: number, a: number, op: string, b?: number): number {
  if (Number.isSafeInteger(r)) return r + 0;
  throw overflow('INTERVAL', a, op, b);
}

function divisionByZero(expression: string): WeirError {
  return new WeirError('EXECUTION_ERROR', `division by zero in ${expression}`);
}

/** Integer division truncating toward zero, as Java; exact for safe integers. Division by zero is an error. */
export function integerDivide(a: number, b: number): number {
  if (b === 0) throw divisionByZero(`${a} / 0`);
  return (a - (a % b)) / b + 0;
}

/** Integer remainder with the sign of the dividend, as Java's `%`. Zero divisor is an error. */
export function integerMod(a: number, b: number): number {
  if (b === 0) throw divisionByZero(`MOD(${a}, 0)`);
  return (a % b) + 0;
}

/** The result of a DECIMAL(p, s) operation: rounded HALF_UP from `exactScale` to `s`, then checked to fit `p`. */
function decimalResult(exact: bigint, exactScale: number, p: number, s: number, describe: () => string): bigint {
  const value = exactScale === s ? exact : rescaleDecimal(exact, exactScale, s);
  if (fitsPrecision(value, p)) return value;
  throw decimalOverflow(p, s, describe());
}

const operand = (value: bigint, scale: number): string => formatDecimal(value, scale);

/** `a + b` for unscaled `a` (scale `sa`) and `b` (scale `sb`), as DECIMAL(p, s). */
export function decimalAdd(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint {
  const scale = Math.max(sa, sb);
  const exact = a * pow10(scale - sa) + b * pow10(scale - sb);
  return decimalResult(exact, scale, p, s, () => `${operand(a, sa)} + ${operand(b, sb)}`);
}

/** `a - b` as DECIMAL(p, s); see {@link decimalAdd}. */
export function decimalSubtract(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint {
  const scale = Math.max(sa, sb);
  const exact = a * pow10(scale - sa) - b * pow10(scale - sb);
  return decimalResult(exact, scale, p, s, () => `${operand(a, sa)} - ${operand(b, sb)}`);
}

/** `a * b` as DECIMAL(p, s); see {@link decimalAdd}. */
export function decimalMultiply(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint {
  return decimalResult(a * b, sa + sb, p, s, () => `${operand(a, sa)} * ${operand(b, sb)}`);
}

/** `a / b` as DECIMAL(p, s), rounded HALF_UP at scale `s`; a zero divisor is an error. */
export function decimalDivide(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint {
  const describe = (): string => `${operand(a, sa)} / ${operand(b, sb)}`;
  if (b === 0n) throw divisionByZero(describe());
  const shift = sb + s - sa;
  const quotient = shift >= 0 ? divideHalfUp(a * pow10(shift), b) : divideHalfUp(a, b * pow10(-shift));
  if (fitsPrecision(quotient, p)) return quotient;
  throw decimalOverflow(p, s, describe());
}

/** `MOD(a, b)` (sign of the dividend) as DECIMAL(p, s); a zero divisor is an error. */
export function decimalMod(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint {
  const describe = (): string => `MOD(${operand(a, sa)}, ${operand(b, sb)})`;
  if (b === 0n) throw divisionByZero(describe());
  const scale = Math.max(sa, sb);
  return decimalResult((a * pow10(scale - sa)) % (b * pow10(scale - sb)), scale, p, s, describe);
}

/** Rounds a DECIMAL of scale `s` HALF_UP to `digits` fraction digits (negative: tens, hundreds, …) and returns it at scale `resultScale`. */
export function decimalRound(value: bigint, s: number, digits: number, resultScale: number): bigint {
  if (digits >= s) return rescaleDecimal(value, s, resultScale);
  const rounded = divideHalfUp(value, pow10(s - digits));
  return digits >= 0 ? rescaleDecimal(rounded, digits, resultScale) : rounded * pow10(-digits) * pow10(resultScale);
}

/** FLOOR of a DECIMAL of scale `s`, as an unscaled value of scale 0. */
export function decimalFloor(value: bigint, s: number): bigint {
  if (s === 0) return value;
  const unit = pow10(s);
  const q = value / unit;
  return value < 0n && q * unit !== value ? q - 1n : q;
}

/** CEIL of a DECIMAL of scale `s`, as an unscaled value of scale 0. */
export function decimalCeil(value: bigint, s: number): bigint {
  if (s === 0) return value;
  const unit = pow10(s);
  const q = value / unit;
  return value > 0n && q * unit !== value ? q + 1n : q;
}

/** Rounds an integer HALF_UP to `-digits` tens (ROUND(123, -1) = 120); non-negative `digits` leave it unchanged. */
export function integerRound(value: number, digits: number): number {
  if (digits >= 0) return value;
  const unit = 10 ** -digits;
  const remainder = value % unit;
  const down = value - remainder;
  if (Math.abs(remainder) * 2 >= unit) return down + Math.sign(value) * unit;
  return down + 0;
}

/** Rounds a double HALF_UP at `digits` fraction digits of its shortest decimal form, as Flink does (through BigDecimal). */
export function doubleRound(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  const text = String(value);
  const exponentAt = text.search(/e/i);
  const mantissa = exponentAt < 0 ? text : text.slice(0, exponentAt);
  const exponent = exponentAt < 0 ? 0 : Number(text.slice(exponentAt + 1));
  const point = mantissa.indexOf('.');
  const scale = (point < 0 ? 0 : mantissa.length - point - 1) - exponent;
  if (scale <= digits) return value;
  const negative = mantissa.startsWith('-');
  const unscaled = BigInt(mantissa.replace(/[-.]/g, ''));
  const rounded = divideHalfUp(negative ? -unscaled : unscaled, pow10(scale - digits));
  return digits >= 0 ? Number(formatDecimal(rounded, digits)) : Number(rounded) * 10 ** -digits;
}
