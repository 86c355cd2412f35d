/**
 * BIGINT values: the full signed 64-bit range of a Java `long`, held exactly in a *normalized
 * hybrid* representation — a JS `number` when the value is a safe integer (|v| ≤ 2^53 − 1), a JS
 * `bigint` otherwise, and never a `bigint` inside the safe range. Because the form is a function
 * of the value, `===`, Map/Set lookups, key encoding and hashing stay consistent, and the common
 * case (every value a safe integer) runs on plain numbers. JS `<`/`>` compare a number and a bigint
 * by value, so orderings need no conversion.
 *
 * Arithmetic takes the number path when both operands are numbers and the result is a safe
 * integer; otherwise it is computed on bigints and wrapped to 64 bits as Java's `long` arithmetic
 * does (Flink: `9223372036854775807 + 1` = `-9223372036854775808`).
 */

/** A BIGINT value: a safe-integer number, or a bigint outside the safe range within 64 bits. */
export type Int64 = number | bigint;

/** Long.MIN_VALUE. */
export const INT64_MIN = -(2n ** 63n);
/** Long.MAX_VALUE. */
export const INT64_MAX = 2n ** 63n - 1n;

const SAFE_MAX = Number.MAX_SAFE_INTEGER;
const SAFE_MAX_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const SAFE_MIN_BIG = -SAFE_MAX_BIG;

/** The normalized form of a bigint already in the 64-bit range: a number when it is safe. */
export function normalizeInt64(value: bigint): Int64 {
  return value >= SAFE_MIN_BIG && value <= SAFE_MAX_BIG ? Number(value) : value;
}

/** An exact integer wrapped to 64 bits (two's complement, as Java's long overflow), normalized. */
export function wrapInt64(value: bigint): Int64 {
  return normalizeInt64(BigInt.asIntN(64, value));
}

/** The value as a bigint. */
export function int64ToBigInt(value: Int64): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/** The nearest double (Java's `(double) long`). */
export function int64ToNumber(value: Int64): number {
  return typeof value === 'number' ? value : Number(value);
}

/** True when `value` is a BIGINT value in normalized form. */
export function isInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value) && !Object.is(value, -0);
  return typeof value === 'bigint' && (value < SAFE_MIN_BIG || value > SAFE_MAX_BIG) && value >= INT64_MIN && value <= INT64_MAX;
}

/** The BIGINT of an exact integer bigint when it fits 64 bits (normalized), else undefined. */
export function int64FromBigInt(value: bigint): Int64 | undefined {
  return value >= INT64_MIN && value <= INT64_MAX ? normalizeInt64(value) : undefined;
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** The BIGINT of decimal integer text (`'8821808526777993777'`, spaces around allowed), or undefined when it is not one or is out of range. */
export function parseInt64(text: string): Int64 | undefined {
  if (!INTEGER_TEXT.test(text)) return undefined;
  const n = Number(text);
  if (Number.isSafeInteger(n)) return n + 0;
  return int64FromBigInt(BigInt(text.trim()));
}

/** Java's `(long) d`: truncated toward zero, saturated at the 64-bit bounds, NaN → 0. */
export function int64FromDouble(value: number): Int64 {
  if (value !== value) return 0;
  const truncated = Math.trunc(value) + 0;
  if (Number.isSafeInteger(truncated)) return truncated;
  if (truncated >= 9223372036854775807) return INT64_MAX;
  if (truncated <= -9223372036854775808) return INT64_MIN;
  return normalizeInt64(BigInt(truncated));
}

/** `a + b` wrapping to 64 bits. */
export function int64Add(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= SAFE_MAX && r >= -SAFE_MAX) return r;
  }
  return wrapInt64(int64ToBigInt(a) + int64ToBigInt(b));
}

/** `a - b` wrapping to 64 bits. */
export function int64Subtract(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= SAFE_MAX && r >= -SAFE_MAX) return r + 0;
  }
  return wrapInt64(int64ToBigInt(a) - int64ToBigInt(b));
}

/** `a * b` wrapping to 64 bits. */
export function int64Multiply(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    // A rounded product within the safe range was exact (rounding is monotonic and 2^53 is a double).
    if (r <= SAFE_MAX && r >= -SAFE_MAX) return r + 0;
  }
  return wrapInt64(int64ToBigInt(a) * int64ToBigInt(b));
}

/** `-a` wrapping to 64 bits (`-Long.MIN_VALUE` is `Long.MIN_VALUE`). */
export function int64Negate(a: Int64): Int64 {
  return typeof a === 'number' ? 0 - a : wrapInt64(-a);
}

/** Java's Math.abs(long) (`ABS(Long.MIN_VALUE)` is `Long.MIN_VALUE`). */
export function int64Abs(a: Int64): Int64 {
  if (typeof a === 'number') return Math.abs(a);
  return a < 0n ? wrapInt64(-a) : a;
}

/** `a / b` truncated toward zero, wrapping (`Long.MIN_VALUE / -1`); `b` must not be zero. */
export function int64Quotient(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') return (a - (a % b)) / b + 0;
  return wrapInt64(int64ToBigInt(a) / int64ToBigInt(b));
}

/** `a % b` with the sign of the dividend, as Java; `b` must not be zero. */
export function int64Remainder(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') return (a % b) + 0;
  return normalizeInt64(int64ToBigInt(a) % int64ToBigInt(b));
}

/** Java's Long.compare: negative, zero or positive. */
export function compareInt64(a: Int64, b: Int64): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
