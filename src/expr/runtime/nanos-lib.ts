/**
 * Run-time helpers for TIMESTAMP(p)/TIMESTAMP_LTZ(p) values with p > 3 (epoch nanos, a bigint:
 * common/epoch-nanos.ts), called by generated code: conversions to and from epoch milliseconds
 * (NULL-safe, for the argument and result bridging of define.ts) and the temporal functions that
 * keep the nanoseconds (interval arithmetic, EXTRACT, TIMESTAMPDIFF, FLOOR/CEIL, DATE_FORMAT,
 * TO_TIMESTAMP, TO_TIMESTAMP_LTZ).
 */
import { addMonthsToMillis, floorMod, MILLIS_PER_DAY } from '../../common/datetime.js';
import { millisOfNanos, nanoOfMilliOf, nanosOfMillis, NANOS_PER_MILLI, truncateNanos, type EpochNanos } from '../../common/epoch-nanos.js';
import { WeirError } from '../../common/errors.js';
import { instantOfNanos, localOfNanos } from '../../common/time-zone.js';
import { instantOfWallTime, MAX_LTZ_MILLIS, MIN_LTZ_MILLIS } from './temporal-lib.js';

export { instantOfNanos, localOfNanos };
import { cachedDateFormatter, cachedDateParserNanos, cachedJavaTimeParser, type DateFormatter } from './date-format.js';

/** Epoch milliseconds (rounded down) of epoch nanos; NULL stays NULL. */
export function millisOfNanosOrNull(nanos: EpochNanos | null): number | null {
  return nanos === null ? null : millisOfNanos(nanos);
}

/** Epoch nanos of epoch milliseconds; NULL stays NULL. */
export function nanosOfMillisOrNull(millis: number | null): EpochNanos | null {
  return millis === null ? null : nanosOfMillis(millis);
}

/** `ts + interval` for epoch nanos and an INTERVAL DAY TO SECOND in milliseconds (`sign` -1 subtracts). */
export function addMillisToNanos(nanos: EpochNanos, millis: number, sign: number): EpochNanos {
  return nanos + BigInt(sign * millis) * NANOS_PER_MILLI;
}

/** `ts + interval` for epoch nanos and an INTERVAL YEAR TO MONTH in months: the calendar move of the millisecond, the nanoseconds kept. */
export function addMonthsToNanos(nanos: EpochNanos, months: number): EpochNanos {
  return nanosOfMillis(addMonthsToMillis(millisOfNanos(nanos), months), nanoOfMilliOf(nanos));
}

/** TIMESTAMPADD of epoch nanos: `add` (a TIMESTAMPADD function of epoch milliseconds) moves the millisecond, the nanoseconds within it are kept. */
export function addToNanos(add: (amount: number, millis: number) => number, amount: number, nanos: EpochNanos): EpochNanos {
  return nanosOfMillis(add(amount, millisOfNanos(nanos)), nanoOfMilliOf(nanos));
}

/** `a - b` of two epoch nanos as an INTERVAL DAY TO SECOND (milliseconds, rounded towards zero as Flink's millisecond intervals). */
export function nanosBetweenAsMillis(a: EpochNanos, b: EpochNanos): number {
  return Number((a - b) / NANOS_PER_MILLI);
}

/** Nanoseconds of the second (its fraction) of epoch nanos: 0..999999999. */
function nanoOfSecond(nanos: EpochNanos): number {
  return floorMod(millisOfNanos(nanos), 1000) * 1_000_000 + nanoOfMilliOf(nanos);
}

/**
 * EXTRACT of a unit that sees below the millisecond — MICROSECOND and NANOSECOND, which, like
 * MILLISECOND, are the fraction of the second in that unit (Flink's: 11:22:33.123456 has
 * MICROSECOND 123456) — or of any other unit through `millisExtractor` on the epoch milliseconds.
 */
export function nanoExtractor(unit: string, millisExtractor: (millis: number) => number): (nanos: EpochNanos) => number {
  switch (unit.toUpperCase()) {
    case 'MICROSECOND':
      return (n) => Math.floor(nanoOfSecond(n) / 1000);
    case 'NANOSECOND':
      return (n) => nanoOfSecond(n);
    default:
      return (n) => millisExtractor(millisOfNanos(n));
  }
}

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  MICROSECOND: 1000n,
  NANOSECOND: 1n,
  MILLISECOND: NANOS_PER_MILLI,
  SECOND: 1000n * NANOS_PER_MILLI,
  MINUTE: 60_000n * NANOS_PER_MILLI,
  HOUR: 3_600_000n * NANOS_PER_MILLI,
  DAY: BigInt(MILLIS_PER_DAY) * NANOS_PER_MILLI,
  WEEK: 7n * BigInt(MILLIS_PER_DAY) * NANOS_PER_MILLI,
};

/**
 * TIMESTAMPDIFF for epoch nanos: whole units from `a` to `b`, truncated toward zero, for units of
 * a week and below (the nanoseconds count: 00:00:00.999999999 to 00:00:01 is 0 seconds); months,
 * quarters and years through `monthsDiff` on the milliseconds. Throws INVALID_ARGUMENT for an
 * unknown unit.
 */
export function nanoDiffFunction(unit: string, monthsDiff: (a: number, b: number) => number): (a: EpochNanos, b: EpochNanos) => number {
  const size = UNIT_NANOS[unit.toUpperCase()];
  if (size === undefined) return (a, b) => monthsDiff(millisOfNanos(a), millisOfNanos(b));
  return (a, b) => {
    const units = (b - a) / size;
    if (units > 2147483647n || units < -2147483648n) throw new WeirError('ARITHMETIC_OVERFLOW', `TIMESTAMPDIFF(${unit}) overflows INT: ${units}`);
    return Number(units);
  };
}

/** DATE_FORMAT of epoch nanos with a formatter (the pattern's S beyond three letters shows the nanoseconds). */
export function formatNanos(format: DateFormatter, nanos: EpochNanos): string {
  return format(millisOfNanos(nanos), nanoOfMilliOf(nanos));
}

/** DATE_FORMAT(ts(p > 3), pattern) with a pattern known only at run time. */
export function dateFormatNanos(nanos: EpochNanos, pattern: string): string {
  return formatNanos(cachedDateFormatter(pattern), nanos);
}

/** TO_TIMESTAMP(text, pattern) into TIMESTAMP(`precision` > 3): the wall-clock epoch nanos, truncated to the precision; NULL when the text does not match. */
export function toTimestampNanos(text: string, pattern: string, precision: number): EpochNanos | null {
  const parsed = cachedJavaTimeParser(pattern)(text);
  return parsed === undefined ? null : truncateNanos(nanosOfMillis(parsed.millis, parsed.nanoOfMilli), precision);
}

/** TO_TIMESTAMP_LTZ(text, pattern[, zone]) into TIMESTAMP_LTZ(`precision` > 3): the text read as a wall time of `zone`, truncated to the precision; NULL when it does not match. */
export function textToTimestampLtzNanos(precision: number, text: string, pattern: string, zone = 'UTC'): EpochNanos | null {
  const parsed = cachedDateParserNanos(pattern)(text);
  if (parsed === undefined) return null;
  return truncateNanos(nanosOfMillis(instantOfWallTime(parsed.millis, zone), parsed.nanoOfMilli), precision);
}

/** {@link epochToNanos}, or NULL for an instant outside the years 0000..9999 or a NaN or infinite epoch (Flink's range). */
export function epochToNanosOrNull(epoch: number | bigint, precision: number): EpochNanos | null {
  if (typeof epoch === 'number' && !Number.isFinite(epoch)) return null;
  const nanos = epochToNanos(epoch, precision);
  return nanos < MIN_LTZ_NANOS || nanos > MAX_LTZ_NANOS ? null : nanos;
}

const MIN_LTZ_NANOS = BigInt(MIN_LTZ_MILLIS) * NANOS_PER_MILLI;
const MAX_LTZ_NANOS = BigInt(MAX_LTZ_MILLIS) * NANOS_PER_MILLI + 999_999n;

/** TO_TIMESTAMP_LTZ(epoch, precision) for a literal precision of 4..9: the epoch value in units of 10^-precision seconds, exactly. */
export function epochToNanos(epoch: number | bigint, precision: number): EpochNanos {
  if (typeof epoch === 'number' && !Number.isInteger(epoch)) {
    return BigInt(Math.floor(epoch * 10 ** (9 - precision)));
  }
  return BigInt(epoch) * 10n ** BigInt(9 - precision);
}
