/**
 * Run-time helpers for numeric operators, called by generated code: range checks of integer
 * results (which the generated code computes inline), integer division and remainder, and exact
 * DECIMAL arithmetic on unscaled bigints. Errors name the operation and its operands.
 */
import { divideHalfUp, fitsPrecision, formatDecimal, pow10, rescaleDecimal } from '../../common/decimal.js';
import { MAX_DECIMAL_PRECISION } from '../../common/sql-type.js';
import { WeirError } from '../../common/errors.js';
import { int64Quotient, int64Remainder, int64ToBigInt, wrapInt64, type Int64 } from '../../common/int64.js';

/** BIGINT arithmetic for generated code: exact 64-bit, wrapping as Java's long, numbers while the values are safe integers (see common/int64.ts). */
export { int64Abs, int64Add, int64Multiply, int64Negate, int64Subtract, int64ToNumber } from '../../common/int64.js';

function describeOperation(a: unknown, op: string, b: unknown): string {
  if (b !== undefined) return `${a} ${op} ${b}`;
  return op === '-' ? `-(${a})` : `${op}(${a})`;
}

function overflow(typeName: string, a: unknown, op: string, b: unknown): WeirError {
  return new WeirError('ARITHMETIC_OVERFLOW', `${typeName} overflow in ${describeOperation(a, op, b)}`);
}

/**
 * `r` when it is a safe integer of milliseconds (a TIMESTAMP computed from a BIGINT); otherwise
 * ARITHMETIC_OVERFLOW naming `a op b` (or `op(a)` when `b` is undefined). Normalises -0 to 0.
 */
export function bigintResult(r: number, a: number, op: string, b?: number): number {
  if (Number.isSafeInteger(r)) return r + 0;
  throw overflow('BIGINT', a, op, b);
}

/** A BIGINT used as epoch milliseconds (or seconds): the number itself, an error for a value beyond 2^53 (no TIMESTAMP is that far). */
export function int64AsEpoch(value: Int64): number {
  if (typeof value === 'number') return value;
  throw new WeirError('ARITHMETIC_OVERFLOW', `${value} is outside the range of TIMESTAMP_LTZ(3)`);
}

/** `r` when it is a finite number of INTERVAL milliseconds or months. */
export function intervalResult(r: number, a: number, op: string, b?: number): number {
  if (Number.isSafeInteger(r)) return r + 0;
  throw overflow('INTERVAL', a, op, b);
}

function divisionByZero(expression: string): WeirError {
  return new WeirError('EXECUTION_ERROR', `division by zero in ${expression}`);
}

/** Integer division truncating toward zero, as Java (BIGINT operands may be bigints; `MIN / -1` wraps). Division by zero is an error. */
export function integerDivide(a: Int64, b: Int64): Int64 {
  if (b === 0) throw divisionByZero(`${a} / 0`);
  return int64Quotient(a, b);
}

/** Integer remainder with the sign of the dividend, as Java's `%` (BIGINT operands may be bigints). Zero divisor is an error. */
export function integerMod(a: Int64, b: Int64): Int64 {
  if (b === 0) throw divisionByZero(`MOD(${a}, 0)`);
  return int64Remainder(a, b);
}

/** The result of a DECIMAL(p, s) operation: rounded HALF_UP from `exactScale` to `s`; NULL when it does not fit `p` (Flink's DECIMAL overflow). */
function decimalResult(exact: bigint, exactScale: number, p: number, s: number): bigint | null {
  const value = exactScale === s ? exact : rescaleDecimal(exact, exactScale, s);
  return fitsPrecision(value, p) ? value : null;
}

const operand = (value: bigint, scale: number): string => formatDecimal(value, scale);

/** `a + b` for unscaled `a` (scale `sa`) and `b` (scale `sb`), as DECIMAL(p, s); NULL when it does not fit. */
export function decimalAdd(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint | null {
  const scale = Math.max(sa, sb);
  const exact = a * pow10(scale - sa) + b * pow10(scale - sb);
  return decimalResult(exact, scale, p, s);
}

/** `a - b` as DECIMAL(p, s); see {@link decimalAdd}. */
export function decimalSubtract(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint | null {
  const scale = Math.max(sa, sb);
  const exact = a * pow10(scale - sa) - b * pow10(scale - sb);
  return decimalResult(exact, scale, p, s);
}

/** `a * b` as DECIMAL(p, s); see {@link decimalAdd}. */
export function decimalMultiply(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint | null {
  return decimalResult(a * b, sa + sb, p, s);
}

/** `a / b` as DECIMAL(p, s), rounded HALF_UP at scale `s` (NULL when it does not fit); a zero divisor is an error, as Java's BigDecimal. */
export function decimalDivide(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint | null {
  if (b === 0n) throw divisionByZero(`${operand(a, sa)} / ${operand(b, sb)}`);
  const shift = sb + s - sa;
  const quotient = shift >= 0 ? divideHalfUp(a * pow10(shift), b) : divideHalfUp(a, b * pow10(-shift));
  return fitsPrecision(quotient, p) ? quotient : null;
}

/** `MOD(a, b)` (sign of the dividend) as DECIMAL(p, s); a zero divisor is an error. */
export function decimalMod(a: bigint, sa: number, b: bigint, sb: number, p: number, s: number): bigint | null {
  if (b === 0n) throw divisionByZero(`MOD(${operand(a, sa)}, ${operand(b, sb)})`);
  const scale = Math.max(sa, sb);
  return decimalResult((a * pow10(scale - sa)) % (b * pow10(scale - sb)), scale, p, s);
}

/** Rounds a DECIMAL of scale `s` HALF_UP to `digits` fraction digits (negative: tens, hundreds, …) and returns it at scale `resultScale`; NULL when it does not fit `resultPrecision`. */
export function decimalRound(value: bigint, s: number, digits: number, resultScale: number, resultPrecision: number = MAX_DECIMAL_PRECISION): bigint | null {
  let result: bigint;
  if (digits >= s) result = rescaleDecimal(value, s, resultScale);
  else {
    const rounded = divideHalfUp(value, pow10(s - digits));
    result = digits >= 0 ? rescaleDecimal(rounded, digits, resultScale) : rounded * pow10(-digits) * pow10(resultScale);
  }
  // Rounding up may carry past the type's precision (ROUND(99...9 AS DECIMAL(38, 0), -1)): NULL, as Flink's DECIMAL overflow.
  return fitsPrecision(result, resultPrecision) ? result : null;
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
export function integerRound(value: Int64, digits: number): Int64 {
  if (digits >= 0) return value;
  if (typeof value === 'bigint' || digits < -15 || Math.abs(value) > 2 ** 52) {
    const big = int64ToBigInt(value);
    if (digits < -18) return 0;
    const unit = 10n ** BigInt(-digits);
    const remainder = big % unit;
    const down = big - remainder;
    const magnitude = remainder < 0n ? -remainder : remainder;
    return wrapInt64(magnitude * 2n >= unit ? down + (big < 0n ? -unit : unit) : down);
  }
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

/** Truncates an integer toward zero to `-digits` tens (TRUNCATE(129, -1) = 120); non-negative `digits` leave it unchanged. */
export function integerTruncate(value: Int64, digits: number): Int64 {
  if (digits >= 0) return value;
  if (typeof value === 'bigint' || digits < -15) {
    if (digits < -18) return 0;
    const big = int64ToBigInt(value);
    return wrapInt64(big - (big % 10n ** BigInt(-digits)));
  }
  const unit = 10 ** -digits;
  return value - (value % unit) + 0;
}

/** Truncates a DECIMAL of scale `s` toward zero to `digits` fraction digits and returns it at scale `resultScale`. */
export function decimalTruncate(value: bigint, s: number, digits: number, resultScale: number): bigint {
  if (digits >= s) return rescaleDecimal(value, s, resultScale);
  const truncated = value / pow10(s - digits);
  return digits >= 0 ? rescaleDecimal(truncated, digits, resultScale) : truncated * pow10(-digits) * pow10(resultScale);
}

/** Truncates a double toward zero at `digits` fraction digits of its shortest decimal form, as Flink does (through BigDecimal). */
export function doubleTruncate(value: number, digits: number): number {
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
  const truncated = (negative ? -unscaled : unscaled) / pow10(scale - digits);
  return digits >= 0 ? Number(formatDecimal(truncated, digits)) : Number(truncated) * 10 ** -digits;
}

const MULTIPLIER = 0x5deece66dn;
const MASK = (1n << 48n) - 1n;

/**
 * java.util.Random, bit for bit: Flink's RAND(seed) and RAND_INTEGER(seed, bound) draw from one,
 * so a seeded call gives the same sequence as in Flink.
 */
export class JavaRandom {
  private seed: bigint;

  constructor(seed: number) {
    this.seed = (BigInt(seed) ^ MULTIPLIER) & MASK;
  }

  private next(bits: number): number {
    this.seed = (this.seed * MULTIPLIER + 0xbn) & MASK;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }

  /** A double in [0, 1), as Random.nextDouble. */
  nextDouble(): number {
    return (this.next(26) * 134217728 + this.next(27)) / 9007199254740992;
  }

  /** An int in [0, bound), as Random.nextInt(bound); a bound that is not positive is an error. */
  nextInt(bound: number): number {
    if (bound <= 0) throw new WeirError('EXECUTION_ERROR', `RAND_INTEGER: the bound must be positive, got ${bound}`);
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Number((BigInt(bound) * BigInt(r)) >> 31n);
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next(31));
    return r;
  }
}

/** RAND_INTEGER(bound) without a seed: an int in [0, bound); a bound that is not positive is an error. */
export function randomInteger(bound: number): number {
  if (bound <= 0) throw new WeirError('EXECUTION_ERROR', `RAND_INTEGER: the bound must be positive, got ${bound}`);
  return Math.floor(Math.random() * bound);
}

/** Java's Long.toBinaryString of a BIGINT (negative numbers as 64-bit two's complement). */
export function binaryString(value: Int64): string {
  return value >= 0 ? value.toString(2) : BigInt.asUintN(64, int64ToBigInt(value)).toString(2);
}

/** Java's Long.toHexString of a BIGINT, upper case (negative numbers as 64-bit two's complement). */
export function hexOfInteger(value: Int64): string {
  return (value >= 0 ? value.toString(16) : BigInt.asUintN(64, int64ToBigInt(value)).toString(16)).toUpperCase();
}

/** Java's `a << n` (`left`) or `a >> n` for a BIGINT: the count taken modulo 64, the result wrapped to 64 bits. */
export function int64Shift(a: Int64, n: number, left: boolean): Int64 {
  const count = BigInt(n & 63);
  const value = int64ToBigInt(a);
  return wrapInt64(left ? value << count : value >> count);
}

const UINT64_MAX = 2n ** 64n - 1n;

/** A CONV base as Java's Number.intValue() reads it: the low 32 bits. */
function convBase(base: Int64): number {
  return Number(BigInt.asIntN(32, int64ToBigInt(base)));
}

/**
 * Flink's CONV(num, fromBase, toBase) (Hive's UDFConv) of the text of a number: NULL when a base is
 * outside 2..36 (toBase by its absolute value) or a character is not a digit of fromBase; the
 * digits read as an unsigned 64-bit number (2^64 - 1 when they overflow), a leading '-' negating
 * it; written unsigned for a positive toBase, signed (a '-' for a negative number) for a negative
 * one, digits in upper case.
 */
export function conv(num: string, fromBase: Int64, toBase: Int64): string | null {
  const from = convBase(fromBase);
  const to = convBase(toBase);
  if (num.length === 0 || from < 2 || from > 36 || Math.abs(to) < 2 || Math.abs(to) > 36) return null;
  let negative = num[0] === '-';
  const digits = negative ? num.slice(1) : num;
  if (digits.length > 64) throw new WeirError('EXECUTION_ERROR', `CONV: '${num}' has more than 64 digits`);
  let value = 0n;
  let overflow = false;
  const radix = BigInt(from);
  for (const c of digits) {
    const digit = c.charCodeAt(0) < 128 ? parseInt(c, from) : NaN;
    if (Number.isNaN(digit)) return null;
    if (!overflow) {
      value = value * radix + BigInt(digit);
      if (value > UINT64_MAX) overflow = true;
    }
  }
  if (overflow) value = UINT64_MAX;
  const signed = (u: bigint): bigint => BigInt.asIntN(64, u);
  if (negative && to > 0) value = signed(value) < 0n ? UINT64_MAX : BigInt.asUintN(64, -value);
  if (to < 0 && signed(value) < 0n) {
    value = BigInt.asUintN(64, -value);
    negative = true;
  }
  const text = value.toString(Math.abs(to)).toUpperCase();
  return negative && to < 0 ? `-${text}` : text;
}
