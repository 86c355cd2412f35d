/**
 * Run-time helpers for date/time functions, called by generated code with non-NULL arguments.
 * Everything is UTC (see common/datetime.ts).
 */
import { addMonthsToDays, addMonthsToMillis, civilFromDays, daysFromCivil, floorDiv, floorMod, isoDayOfWeek, MILLIS_PER_DAY, parseDate, parseTimestamp } from '../../common/datetime.js';
import { WeirError } from '../../common/errors.js';
import { cachedDateFormatter, cachedDateParser } from './date-format.js';

/** The units EXTRACT accepts for DATE values (and the date part of timestamps). */
export const DATE_UNITS = ['MILLENNIUM', 'CENTURY', 'DECADE', 'YEAR', 'ISOYEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'DOY', 'DOW', 'ISODOW', 'EPOCH'] as const;
/** The units EXTRACT accepts for TIME values (and the time part of timestamps). */
export const TIME_UNITS = ['HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const;

function isoWeek(days: number): { year: number; week: number } {
  const thursday = days - isoDayOfWeek(days) + 4;
  const year = civilFromDays(thursday).year;
  return { year, week: Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1 };
}

const dateExtractors: Readonly<Record<string, (days: number) => number>> = {
  MILLENNIUM: (d) => Math.floor((civilFromDays(d).year + 999) / 1000),
  CENTURY: (d) => Math.floor((civilFromDays(d).year + 99) / 100),
  DECADE: (d) => Math.floor(civilFromDays(d).year / 10),
  YEAR: (d) => civilFromDays(d).year,
  ISOYEAR: (d) => isoWeek(d).year,
  QUARTER: (d) => Math.floor((civilFromDays(d).month + 2) / 3),
  MONTH: (d) => civilFromDays(d).month,
  WEEK: (d) => isoWeek(d).week,
  DAY: (d) => civilFromDays(d).day,
  DOY: (d) => d - daysFromCivil(civilFromDays(d).year, 1, 1) + 1,
  DOW: (d) => (isoDayOfWeek(d) % 7) + 1,
  ISODOW: (d) => isoDayOfWeek(d),
  EPOCH: (d) => d * 86_400,
};

const timeExtractors: Readonly<Record<string, (millisOfDay: number) => number>> = {
  HOUR: (t) => Math.floor(t / 3_600_000),
  MINUTE: (t) => Math.floor(t / 60_000) % 60,
  SECOND: (t) => Math.floor(t / 1000) % 60,
  MILLISECOND: (t) => t % 60_000,
  MICROSECOND: (t) => (t % 60_000) * 1000,
  NANOSECOND: (t) => (t % 60_000) * 1_000_000,
};

function unknownUnit(unit: string, what: string): WeirError {
  return new WeirError('INVALID_ARGUMENT', `EXTRACT(${unit} FROM ${what}) is not supported`);
}

/** The EXTRACT function of `unit` for DATE values (days); throws INVALID_ARGUMENT for units a date has not. */
export function dateExtractor(unit: string): (days: number) => number {
  const extractor = dateExtractors[unit.toUpperCase()];
  if (extractor === undefined) throw unknownUnit(unit, 'DATE');
  return extractor;
}

/** The EXTRACT function of `unit` for TIME values (milliseconds of the day). */
export function timeExtractor(unit: string): (millisOfDay: number) => number {
  const extractor = timeExtractors[unit.toUpperCase()];
  if (extractor === undefined) throw unknownUnit(unit, 'TIME');
  return extractor;
}

/** The EXTRACT function of `unit` for TIMESTAMP values (epoch milliseconds); SECOND and smaller units as for TIME, EPOCH in seconds. */
export function timestampExtractor(unit: string): (millis: number) => number {
  const upper = unit.toUpperCase();
  if (upper === 'EPOCH') return (ms) => floorDiv(ms, 1000);
  if (upper === 'HOUR') return (ms) => Math.floor(floorMod(ms, MILLIS_PER_DAY) / 3_600_000);
  const time = timeExtractors[upper];
  if (time !== undefined) return (ms) => time(floorMod(ms, MILLIS_PER_DAY));
  const date = dateExtractors[upper];
  if (date !== undefined) return (ms) => date(floorDiv(ms, MILLIS_PER_DAY));
  throw unknownUnit(unit, 'TIMESTAMP');
}

/** Adds months to a DATE (days); see common/datetime.ts for the end-of-month rule. */
export function addMonthsToDate(days: number, months: number): number {
  return addMonthsToDays(days, months);
}

/** Adds months to a TIMESTAMP (epoch milliseconds). */
export function addMonthsToTimestamp(millis: number, months: number): number {
  return addMonthsToMillis(millis, months);
}

/** DATE_FORMAT with a pattern known only at run time. */
export function dateFormat(millis: number, pattern: string): string {
  return cachedDateFormatter(pattern)(millis);
}

/** DATE_FORMAT(string, pattern): the text read as a timestamp first; NULL when it is not one. */
export function dateFormatText(text: string, pattern: string): string | null {
  const millis = parseTimestamp(text);
  return millis === undefined ? null : cachedDateFormatter(pattern)(millis);
}

/** TO_TIMESTAMP(text[, pattern]): epoch milliseconds, or NULL when the text does not match. */
export function toTimestamp(text: string, pattern?: string): number | null {
  const millis = pattern === undefined ? parseTimestamp(text) : cachedDateParser(pattern)(text);
  return millis ?? null;
}

const UNIT_MILLIS: Readonly<Record<string, number>> = {
  MILLISECOND: 1,
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: MILLIS_PER_DAY,
  WEEK: 7 * MILLIS_PER_DAY,
};
const UNIT_MONTHS: Readonly<Record<string, number>> = { MONTH: 1, QUARTER: 3, YEAR: 12 };

/** The TIMESTAMPDIFF function for `unit`: whole units from `a` to `b` (epoch milliseconds), truncated toward zero. */
export function timestampDiffFunction(unit: string): (a: number, b: number) => number {
  const upper = unit.toUpperCase();
  const millis = UNIT_MILLIS[upper];
  if (millis !== undefined) return (a, b) => Math.trunc((b - a) / millis) + 0;
  const months = UNIT_MONTHS[upper];
  if (months === undefined) throw new WeirError('INVALID_ARGUMENT', `TIMESTAMPDIFF does not support unit ${unit}`);
  return (a, b) => Math.trunc(monthsBetween(a, b) / months) + 0;
}

function monthsBetween(a: number, b: number): number {
  const from = civilFromDays(floorDiv(a, MILLIS_PER_DAY));
  const to = civilFromDays(floorDiv(b, MILLIS_PER_DAY));
  let months = (to.year - from.year) * 12 + (to.month - from.month);
  const restA = (from.day - 1) * MILLIS_PER_DAY + floorMod(a, MILLIS_PER_DAY);
  const restB = (to.day - 1) * MILLIS_PER_DAY + floorMod(b, MILLIS_PER_DAY);
  if (months > 0 && restB < restA) months--;
  if (months < 0 && restB > restA) months++;
  return months;
}

/** The TIMESTAMPADD function for `unit`: adds `amount` units to epoch milliseconds. */
export function timestampAddFunction(unit: string): (amount: number, millis: number) => number {
  const upper = unit.toUpperCase();
  const millis = UNIT_MILLIS[upper];
  if (millis !== undefined) return (amount, ts) => ts + amount * millis;
  const months = UNIT_MONTHS[upper];
  if (months === undefined) throw new WeirError('INVALID_ARGUMENT', `TIMESTAMPADD does not support unit ${unit}`);
  return (amount, ts) => addMonthsToMillis(ts, amount * months);
}

/** TO_DATE(text[, pattern]): days, or NULL when the text does not match. */
export function toDate(text: string, pattern?: string): number | null {
  if (pattern === undefined) return parseDate(text) ?? null;
  const millis = cachedDateParser(pattern)(text);
  return millis === undefined ? null : floorDiv(millis, MILLIS_PER_DAY);
}

/** UNIX_TIMESTAMP(text[, pattern]): epoch seconds, or NULL when the text does not match. */
export function unixTimestamp(text: string, pattern?: string): number | null {
  const millis = toTimestamp(text, pattern);
  return millis === null ? null : floorDiv(millis, 1000);
}

/** FROM_UNIXTIME(seconds[, pattern]): epoch seconds rendered in the pattern (default `yyyy-MM-dd HH:mm:ss`). */
export function fromUnixtime(seconds: number, pattern = 'yyyy-MM-dd HH:mm:ss'): string {
  return cachedDateFormatter(pattern)(seconds * 1000);
}

/**
 * `(s0, e0) OVERLAPS (s1, e1)` of comparable instants (NULL for an unknown one): each period's ends
 * put in order, then `e0 >= s1 AND e1 >= s0` with SQL's three-valued AND, as Calcite rewrites it.
 */
export function overlaps(s0: number | null, e0: number | null, s1: number | null, e1: number | null): boolean | null {
  const [a0, b0] = s0 !== null && e0 !== null && e0 < s0 ? [e0, s0] : [s0, e0];
  const [a1, b1] = s1 !== null && e1 !== null && e1 < s1 ? [e1, s1] : [s1, e1];
  const first = b0 === null || a1 === null ? null : b0 >= a1;
  const second = b1 === null || a0 === null ? null : b1 >= a0;
  if (first === false || second === false) return false;
  return first === null || second === null ? null : true;
}
