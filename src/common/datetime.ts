/**
 * Calendar arithmetic for the temporal value representation (sql-type.ts): DATE = days since
 * 1970-01-01, TIME = milliseconds of the day, TIMESTAMP = epoch milliseconds. All arithmetic is
 * UTC and proleptic Gregorian; TIMESTAMP has no time zone. A TIMESTAMP_LTZ is an instant (epoch
 * milliseconds), read as a wall-clock time of the session zone through common/time-zone.ts.
 * TIMESTAMP(p)/TIMESTAMP_LTZ(p) with p > 3 are epoch nanoseconds instead (epoch-nanos.ts).
 */

/** Milliseconds in a day. */
export const MILLIS_PER_DAY = 86_400_000;

/** Floor division of integers (rounds towards negative infinity); exact for safe integers. */
export function floorDiv(a: number, b: number): number {
  return (a - floorMod(a, b)) / b;
}

/** The remainder of {@link floorDiv}: always in `[0, b)` for positive `b`. */
export function floorMod(a: number, b: number): number {
  const m = a % b;
  return m < 0 ? m + b : m + 0;
}

/** A calendar date. `month` and `day` count from 1. */
export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** The calendar date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** The day number of a calendar date; the inverse of {@link civilFromDays}. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** True in leap years of the Gregorian calendar. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of days of a month (1–12) of a year. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!;
}

/** Day of the week of a day number: 1 = Monday … 7 = Sunday (ISO). */
export function isoDayOfWeek(days: number): number {
  return floorMod(days + 3, 7) + 1;
}

/** Adds calendar months to a day number, clamping the day to the end of the month (Jan 31 + 1 month = Feb 28/29). */
export function addMonthsToDays(days: number, months: number): number {
  const { year, month, day } = civilFromDays(days);
  const total = year * 12 + (month - 1) + months;
  const newYear = Math.floor(total / 12);
  const newMonth = total - newYear * 12 + 1;
  return daysFromCivil(newYear, newMonth, Math.min(day, daysInMonth(newYear, newMonth)));
}

/** Adds calendar months to epoch milliseconds, keeping the time of day. */
export function addMonthsToMillis(millis: number, months: number): number {
  const days = floorDiv(millis, MILLIS_PER_DAY);
  return addMonthsToDays(days, months) * MILLIS_PER_DAY + (millis - days * MILLIS_PER_DAY);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** `yyyy-MM-dd` for a day number (years before 1 or after 9999 get a sign or more digits). */
export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** `HH:mm:ss` plus `precision` fraction digits (milliseconds, then zeros) for milliseconds of the day. */
export function formatTimeOfDay(millisOfDay: number, precision: number): string {
  const hours = Math.floor(millisOfDay / 3_600_000);
  const minutes = Math.floor(millisOfDay / 60_000) % 60;
  const seconds = Math.floor(millisOfDay / 1000) % 60;
  const text = `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
  if (precision <= 0) return text;
  const fraction = pad(millisOfDay % 1000, 3);
  return `${text}.${precision <= 3 ? fraction.slice(0, precision) : fraction.padEnd(precision, '0')}`;
}

/** `yyyy-MM-dd HH:mm:ss[.fff]` for epoch milliseconds, with `precision` fraction digits. */
export function formatTimestamp(millis: number, precision: number): string {
  const days = floorDiv(millis, MILLIS_PER_DAY);
  return `${formatDate(days)} ${formatTimeOfDay(millis - days * MILLIS_PER_DAY, precision)}`;
}

/** Truncates epoch (or day) milliseconds to `precision` fraction digits of a second (no-op for 3 and more). */
export function truncateMillis(millis: number, precision: number): number {
  if (precision >= 3) return millis;
  const unit = precision <= 0 ? 1000 : precision === 1 ? 100 : 10;
  return millis - floorMod(millis, unit);
}

const DATE_TEXT = /^([+-]?\d{1,9})-(\d{1,2})-(\d{1,2})$/;
const TIME_TEXT = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?$/;

/** The day number of a valid `yyyy-MM-dd` date, else undefined. */
export function dateFromParts(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day);
}

/** Parses `yyyy-MM-dd` (surrounding spaces allowed, one-digit month and day accepted); undefined when invalid. */
export function parseDate(text: string): number | undefined {
  const match = DATE_TEXT.exec(text.trim());
  if (match === null) return undefined;
  return dateFromParts(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** Parses `HH:mm[:ss[.fffffffff]]` to milliseconds of the day (digits past milliseconds are dropped); undefined when invalid. */
export function parseTime(text: string): number | undefined {
  return parseTimeFraction(text)?.millis;
}

/** Milliseconds (of the day, or since the epoch) and the nanoseconds within the last millisecond (0..999999). */
export interface MillisAndNanos {
  readonly millis: number;
  readonly nanoOfMilli: number;
}

/** Parses `HH:mm[:ss[.fffffffff]]` to milliseconds of the day and the nanoseconds past them; undefined when invalid. */
export function parseTimeFraction(text: string): MillisAndNanos | undefined {
  const match = TIME_TEXT.exec(text.trim());
  if (match === null) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  const seconds = match[3] === undefined ? 0 : Number(match[3]);
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const digits = (match[4] ?? '').padEnd(9, '0');
  const millis = ((hours * 60 + minutes) * 60 + seconds) * 1000 + Number(digits.slice(0, 3));
  return { millis, nanoOfMilli: Number(digits.slice(3)) };
}

/**
 * Parses `yyyy-MM-dd[( |T)HH:mm[:ss[.fffffffff]]]` to epoch milliseconds (a date alone is
 * midnight; digits past milliseconds are dropped); undefined when invalid.
 */
export function parseTimestamp(text: string): number | undefined {
  return parseTimestampFraction(text)?.millis;
}

/** {@link parseTimestamp} keeping the digits past milliseconds: epoch milliseconds and the nanoseconds past them. */
export function parseTimestampFraction(text: string): MillisAndNanos | undefined {
  const trimmed = text.trim();
  const separator = trimmed.search(/[ T]/);
  const days = parseDate(separator < 0 ? trimmed : trimmed.slice(0, separator));
  if (days === undefined) return undefined;
  if (separator < 0) return { millis: days * MILLIS_PER_DAY, nanoOfMilli: 0 };
  const time = parseTimeFraction(trimmed.slice(separator + 1));
  return time === undefined ? undefined : { millis: days * MILLIS_PER_DAY + time.millis, nanoOfMilli: time.nanoOfMilli };
}
