/**
 * DECIMAL(p, s) values: a bigint unscaled value whose scale lives in the type (see sql-type.ts).
 * Small pure functions for parsing, rescaling (HALF_UP, as Java's BigDecimal), formatting,
 * precision checks and conversions to and from JS numbers.
 */
import { WeirError } from './errors.js';

const POW10_CACHE: bigint[] = [];
for (let i = 0, p = 1n; i <= 80; i++, p *= 10n) POW10_CACHE.push(p);

/** 10^n as a bigint (n ≥ 0); cached for the exponents DECIMAL arithmetic uses. */
export function pow10(n: number): bigint {
  return n < POW10_CACHE.length ? POW10_CACHE[n]! : 10n ** BigInt(n);
}

/** A decimal number as parsed from text: `unscaled / 10^scale`, with `precision` digits. */
export interface ParsedDecimal {
  readonly unscaled: bigint;
  /**
   * The digits of the value as Calcite types an exact literal: the digits of the unscaled value,
   * or `scale + 1` when that is not more than the scale (`1.5` → 2, `0.908` → 4, `0` → 1).
   */
  readonly precision: number;
  /** Digits after the point; never negative (`1.5e3` parses to 1500 with scale 0). */
  readonly scale: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/;

/**
 * Parses `[+|-]digits[.digits][e[+|-]digits]` (no surrounding spaces); undefined when the text is
 * not a number. Exponents beyond ±400 are rejected rather than expanded.
 */
export function parseDecimal(text: string): ParsedDecimal | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const intDigits = match[2] ?? '';
  const fracDigits = match[3] ?? '';
  if (intDigits.length + fracDigits.length === 0) return undefined;
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  if (Math.abs(exponent) > 400) return undefined;
  let unscaled = BigInt(intDigits + fracDigits);
  let scale = fracDigits.length - exponent;
  if (scale < 0) {
    unscaled *= pow10(-scale);
    scale = 0;
  }
  const digits = digitCount(unscaled);
  if (match[1] === '-') unscaled = -unscaled;
  return { unscaled, precision: digits > scale ? digits : scale + 1, scale };
}

/** `n / d` rounded HALF_UP (ties away from zero); `d` must not be zero. */
export function divideHalfUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twiceR = r < 0n ? -2n * r : 2n * r;
  const absD = d < 0n ? -d : d;
  if (twiceR < absD) return q;
  return n < 0n !== d < 0n ? q - 1n : q + 1n;
}

/** The unscaled value at `toScale`, rounding HALF_UP when digits are dropped. */
export function rescaleDecimal(unscaled: bigint, fromScale: number, toScale: number): bigint {
  if (toScale === fromScale) return unscaled;
  if (toScale > fromScale) return unscaled * pow10(toScale - fromScale);
  return divideHalfUp(unscaled, pow10(fromScale - toScale));
}

/** True when the unscaled value has at most `precision` digits, i.e. fits DECIMAL(precision, s). */
export function fitsPrecision(unscaled: bigint, precision: number): boolean {
  const limit = pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

/** The number of digits of the unscaled value (1 for zero). */
export function digitCount(unscaled: bigint): number {
  return (unscaled < 0n ? -unscaled : unscaled).toString().length;
}

/** Renders the value with exactly `scale` fraction digits: `10.500`, `-0.5`, `42`. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

/** The error for a value that does not fit DECIMAL(precision, scale); `expression` says where it came from. */
export function decimalOverflow(precision: number, scale: number, expression: string): WeirError {
  return new WeirError('ARITHMETIC_OVERFLOW', `DECIMAL(${precision}, ${scale}) overflow in ${expression}`);
}

/** Returns the unscaled value when it fits DECIMAL(precision, scale); throws ARITHMETIC_OVERFLOW naming `expression` otherwise. */
export function checkPrecision(unscaled: bigint, precision: number, scale: number, expression: string): bigint {
  if (!fitsPrecision(unscaled, precision)) throw decimalOverflow(precision, scale, expression);
  return unscaled;
}

/** Compares two decimals of possibly different scales: negative, zero or positive. */
export function compareDecimals(a: bigint, aScale: number, b: bigint, bScale: number): number {
  const x = aScale < bScale ? a * pow10(bScale - aScale) : a;
  const y = bScale < aScale ? b * pow10(aScale - bScale) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

const EXACT_DOUBLE_LIMIT = 2n ** 53n;

/** The nearest double to the decimal (correctly rounded). */
export function decimalToNumber(unscaled: bigint, scale: number): number {
  if (scale === 0) return Number(unscaled);
  if (scale <= 22 && unscaled < EXACT_DOUBLE_LIMIT && unscaled > -EXACT_DOUBLE_LIMIT) {
    return Number(unscaled) / 10 ** scale;
  }
  return Number(formatDecimal(unscaled, scale));
}

/**
 * The double as an unscaled value at `scale`, as Java's `BigDecimal.valueOf(d).setScale(scale,
 * HALF_UP)` (the shortest decimal that reads back as `d`, then rounded); undefined for NaN and ±Infinity.
 */
export function decimalFromNumber(value: number, scale: number): bigint | undefined {
  if (!Number.isFinite(value)) return undefined;
  if (Number.isInteger(value) && Number.isSafeInteger(value)) return BigInt(value) * pow10(scale);
  const parsed = parseDecimal(String(value));
  if (parsed === undefined) return undefined;
  return rescaleDecimal(parsed.unscaled, parsed.scale, scale);
}

/** The decimal truncated towards zero to an integer (as Java's `BigDecimal.longValue()` before narrowing). */
export function truncateDecimal(unscaled: bigint, scale: number): bigint {
  return scale === 0 ? unscaled : unscaled / pow10(scale);
}
