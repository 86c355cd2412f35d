/**
 * Values of TIMESTAMP(p) and TIMESTAMP_LTZ(p) with a precision above 3 (microseconds,
 * nanoseconds): a bigint of nanoseconds since 1970-01-01 00:00:00 ("epoch nanos"; a wall-clock
 * time for TIMESTAMP, an instant for TIMESTAMP_LTZ). Precisions 0..3 keep epoch milliseconds in a
 * number (sql-type.ts), so the common case, and every millisecond path, is unchanged.
 *
 * Why a bigint and not an object of (millis, nanoOfMilli) as Flink's TimestampData: a bigint is a
 * primitive, so equality (`===`), order (`<`), Map keys, the key codec, row hashes, the V8
 * serializer of keyed state and the tagged JSON of operator state (bigintReplacer) all treat it by
 * value already, as they do BIGINTs beyond 2^53; a class would need each of them taught, and its
 * prototype restored after every snapshot. Which representation a value has is decided by its
 * static type alone ({@link isNanoTimestamp}), never by inspecting the value.
 */
import { floorDiv, floorMod, formatTimestamp, MILLIS_PER_DAY, parseTimestampFraction } from './datetime.js';
import type { SqlType } from './sql-type.js';

/** A TIMESTAMP(p)/TIMESTAMP_LTZ(p) value with p > 3: nanoseconds since the epoch. */
export type EpochNanos = bigint;

/** Nanoseconds in a millisecond. */
export const NANOS_PER_MILLI = 1_000_000n;

/** The largest precision whose values are epoch milliseconds (numbers); above it, {@link EpochNanos}. */
export const MAX_MILLIS_PRECISION = 3;

/** True for TIMESTAMP(p) and TIMESTAMP_LTZ(p) with p > 3, whose values are {@link EpochNanos}. */
export function isNanoTimestamp(type: SqlType): boolean {
  return (type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ') && type.precision > MAX_MILLIS_PRECISION;
}

/** Epoch nanos of epoch milliseconds (an integer) and the nanoseconds within that millisecond (0..999999). */
export function nanosOfMillis(millis: number, nanoOfMilli = 0): EpochNanos {
  return BigInt(millis) * NANOS_PER_MILLI + BigInt(nanoOfMilli);
}

/** The epoch milliseconds of epoch nanos, rounded down (towards the past, as Flink's TimestampData.getMillisecond). */
export function millisOfNanos(nanos: EpochNanos): number {
  const remainder = nanos % NANOS_PER_MILLI;
  const floor = remainder < 0n ? nanos - remainder - NANOS_PER_MILLI : nanos - remainder;
  return Number(floor / NANOS_PER_MILLI);
}

/** The nanoseconds within the millisecond of epoch nanos: 0..999999 (Flink's TimestampData.getNanoOfMillisecond). */
export function nanoOfMilliOf(nanos: EpochNanos): number {
  const remainder = Number(nanos % NANOS_PER_MILLI);
  return remainder < 0 ? remainder + 1_000_000 : remainder;
}

const UNITS: readonly bigint[] = [1_000_000_000n, 100_000_000n, 10_000_000n, 1_000_000n, 100_000n, 10_000n, 1000n, 100n, 10n, 1n];

/** Epoch nanos truncated (towards the past) to `precision` fraction digits of a second, as Flink's CAST to a lower precision. */
export function truncateNanos(nanos: EpochNanos, precision: number): EpochNanos {
  if (precision >= 9) return nanos;
  const unit = UNITS[Math.max(0, precision)]!;
  const remainder = nanos % unit;
  return remainder < 0n ? nanos - remainder - unit : nanos - remainder;
}

/** Epoch milliseconds truncated to `precision` (0..3) digits of a second, from epoch nanos. */
export function millisOfNanosAt(nanos: EpochNanos, precision: number): number {
  return millisOfNanos(truncateNanos(nanos, Math.min(precision, MAX_MILLIS_PRECISION)));
}

/** `yyyy-MM-dd HH:mm:ss[.fffffffff]` of epoch nanos with `precision` fraction digits (Flink's CAST to STRING). */
export function formatTimestampNanos(nanos: EpochNanos, precision: number): string {
  const millis = millisOfNanos(nanos);
  const base = formatTimestamp(millis, 0);
  if (precision <= 0) return base;
  const fraction = String(floorMod(millis, 1000)).padStart(3, '0') + String(nanoOfMilliOf(nanos)).padStart(6, '0');
  return `${base}.${fraction.slice(0, precision).padEnd(precision, '0')}`;
}

/**
 * Parses `yyyy-MM-dd[( |T)HH:mm[:ss[.fffffffff]]]` to epoch nanos (every fraction digit kept, up to
 * nine); undefined when invalid.
 */
export function parseTimestampNanos(text: string): EpochNanos | undefined {
  const parsed = parseTimestampFraction(text);
  return parsed === undefined ? undefined : nanosOfMillis(parsed.millis, parsed.nanoOfMilli);
}

/** The epoch nanos of a day number (midnight). */
export function nanosOfDays(days: number): EpochNanos {
  return nanosOfMillis(days * MILLIS_PER_DAY);
}

/** The day number of epoch nanos (rounded down). */
export function daysOfNanos(nanos: EpochNanos): number {
  return floorDiv(millisOfNanos(nanos), MILLIS_PER_DAY);
}

/**
 * The epoch milliseconds of a time column's value for operators that run on milliseconds (windows,
 * OVER ordering, which Flink also keeps at milliseconds): a number as it is, epoch nanos rounded
 * down to their millisecond; undefined for NULL (or anything else).
 */
export function timeMillisOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'bigint' ? millisOfNanos(value) : undefined;
}
