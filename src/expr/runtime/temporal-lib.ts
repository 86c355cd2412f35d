/**
 * Run-time helpers for date/time functions, called by generated code with non-NULL arguments.
 * Everything is UTC (see common/datetime.ts).
 */
import { addMonthsToDays, addMonthsToMillis, civilFromDays, daysFromCivil, floorDiv, floorMod, isoDayOfWeek, MILLIS_PER_DAY, parseTimestamp } from '../../common/datetime.js';
import { parseDateText } from './date-text.js';
import { WeirError } from '../../common/errors.js';
import { INT64_MIN, type Int64 } from '../../common/int64.js';
import { instantOf, localOf } from '../../common/time-zone.js';
import { cachedDateFormatter, cachedDateParser, cachedJavaCalendarFormatter, cachedJavaTimeParser, cachedLenientDateParser, patternHasZone } from './date-format.js';

export { instantOf, localOf };

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
  MILLISECOND: (t) => t % 1000,
  MICROSECOND: (t) => (t % 1000) * 1000,
  NANOSECOND: (t) => (t % 1000) * 1_000_000,
};

function unknownUnit(unit: string, what: string): WeirError {
  const upper = unit.toUpperCase();
  return new WeirError('INVALID_ARGUMENT', `EXTRACT(${upper} FROM ${what}) is not supported: ${upper} can not be applied to a ${what}`);
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

/** TO_TIMESTAMP(text) in its default pattern: epoch milliseconds, or NULL when the text does not match (with a pattern: {@link toTimestampJavaTime}). */
export function toTimestamp(text: string): number | null {
  return parseTimestamp(text) ?? null;
}

/**
 * TO_TIMESTAMP(text, pattern) as Flink reads it (java.time letters, `S` a fraction of the second,
 * then java.sql.Timestamp/Date.valueOf when the pattern does not match): the wall-clock epoch
 * milliseconds, or NULL.
 */
export function toTimestampJavaTime(text: string, pattern: string): number | null {
  return cachedJavaTimeParser(pattern)(text)?.millis ?? null;
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
  if (pattern === undefined) return parseDateText(text) ?? null;
  // Flink's DateTimeUtils.parseDate(text, pattern): the lenient SimpleDateFormat UNIX_TIMESTAMP uses.
  const millis = cachedLenientDateParser(pattern)(text)?.millis;
  return millis === undefined ? null : floorDiv(millis, MILLIS_PER_DAY);
}

/** Long.MIN_VALUE, what Flink's UNIX_TIMESTAMP gives for text it cannot parse. */
const UNPARSEABLE_SECONDS: Int64 = INT64_MIN;

/**
 * UNIX_TIMESTAMP(text[, pattern]) in `zone`: the epoch seconds of the text read as a wall-clock
 * time of the zone (or of the offset the text carries, when the pattern has z, Z or X) by a lenient
 * SimpleDateFormat (default pattern yyyy-MM-dd HH:mm:ss; text after the match ignored, fields roll
 * over), as Flink's DateTimeUtils.unixTimestamp; Flink's Long.MIN_VALUE when the text does not match.
 */
export function unixTimestampIn(text: string, pattern: string | undefined, zone: string): Int64 {
  const millis = cachedLenientDateParser(pattern ?? 'yyyy-MM-dd HH:mm:ss')(text)?.millis;
  if (millis === undefined) return UNPARSEABLE_SECONDS;
  const instant = pattern !== undefined && patternHasZone(pattern) ? millis : instantOf(millis, zone);
  return floorDiv(instant, 1000);
}

/** The instants JavaScript can find a zone's offset for (±100,000,000 days), in epoch milliseconds. */
const JS_DATE_LIMIT = 8_640_000_000_000_000;

/**
 * FROM_UNIXTIME(seconds[, pattern]) in `zone`, as Flink's DateTimeUtils.formatUnixTimestamp: the
 * seconds times 1000 in 64-bit arithmetic (overflow wraps, as Java's long does), that instant's
 * wall-clock time rendered as SimpleDateFormat renders a java.util.Date (years of their era, Julian
 * dates before 1582-10-15). Beyond JavaScript's date range the zone's offset at the range's end is used.
 */
export function fromUnixtimeIn(seconds: Int64, zone: string, pattern = 'yyyy-MM-dd HH:mm:ss'): string {
  const millis = BigInt.asIntN(64, BigInt(seconds) * 1000n);
  const near = millis > BigInt(JS_DATE_LIMIT) ? JS_DATE_LIMIT : millis < -BigInt(JS_DATE_LIMIT) ? -JS_DATE_LIMIT : Number(millis);
  const wall = millis + BigInt(localOf(near, zone) - near);
  let days = wall / 86_400_000n;
  let t = wall % 86_400_000n;
  if (t < 0n) {
    t += 86_400_000n;
    days -= 1n;
  }
  return cachedJavaCalendarFormatter(pattern)(Number(days), Number(t));
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

/** The units FLOOR/CEIL(x TO unit) accepts, with the instants' milliseconds per unit below a day. */
const FLOOR_MILLIS: Readonly<Record<string, number>> = { MILLISECOND: 1, SECOND: 1000, MINUTE: 60_000, HOUR: 3_600_000, DAY: MILLIS_PER_DAY };

/** The units of a week or more, which FLOOR/CEIL round through the calendar. */
const CALENDAR_UNITS = new Set(['WEEK', 'MONTH', 'QUARTER', 'YEAR', 'DECADE', 'CENTURY', 'MILLENNIUM']);

/**
 * FLOOR or CEIL of a date (days) to DAY or a calendar unit, as Flink's julianDateFloor computes it:
 * weeks start on Sunday; CEIL moves to the next boundary unless the date is on one, except that
 * CEIL TO DAY is always the next day, CEIL TO QUARTER stays only on January 1 (April 1 goes to
 * July 1), and CEIL TO DECADE, CENTURY or MILLENNIUM always moves to the next one (a century starts
 * in a year ending in 01).
 */
function roundDays(days: number, unit: string, ceil: boolean): number {
  const { year, month, day } = civilFromDays(days);
  const pastFirstDay = month > 1 || day > 1;
  switch (unit) {
    case 'DAY':
      return ceil ? days + 1 : days;
    case 'WEEK': {
      const dayOfWeek = floorMod(days + 4, 7); // Sunday 0
      return ceil ? (dayOfWeek > 0 ? days + 7 - dayOfWeek : days) : days - dayOfWeek;
    }
    case 'MONTH': {
      const first = daysFromCivil(year, month, 1);
      return ceil && day > 1 ? addMonthsToDays(first, 1) : first;
    }
    case 'QUARTER': {
      const quarter = Math.trunc((month + 2) / 3) + (ceil && pastFirstDay ? 1 : 0);
      return addMonthsToDays(daysFromCivil(year, 1, 1), quarter * 3 - 3);
    }
    case 'YEAR':
      return daysFromCivil(ceil && pastFirstDay ? year + 1 : year, 1, 1);
    case 'DECADE':
      return daysFromCivil(10 * (Math.trunc(year / 10) + (ceil ? 1 : 0)), 1, 1);
    case 'CENTURY': {
      const end = 100 * Math.trunc((year + 99) / 100);
      return daysFromCivil(ceil ? end + 1 : end - 99, 1, 1);
    }
    case 'MILLENNIUM': {
      const end = 1000 * Math.trunc((year + 999) / 1000);
      return daysFromCivil(ceil ? end + 1 : end - 999, 1, 1);
    }
    default:
      throw new WeirError('INTERNAL_ERROR', `no calendar rounding to ${unit}`);
  }
}

/**
 * FLOOR or CEIL (`ceil`) of a temporal value to `unit`, as a function of the value's
 * representation: `kind` DATE (days), TIME (milliseconds of the day, units below DAY; CEIL may reach 24:00:00) or TIMESTAMP
 * (epoch milliseconds of the wall-clock time). As in Flink: a DATE is left as it is by units below
 * DAY; a TIMESTAMP is rounded arithmetically to DAY and below, and to a week or more by its date
 * alone (the date of the epoch day truncated toward zero, so CEIL('2018-03-01 21:00:01' TO MONTH)
 * is 2018-03-01). Throws INVALID_ARGUMENT for a unit the type has not.
 */
export function temporalRounder(unit: string, kind: 'DATE' | 'TIME' | 'TIMESTAMP', ceil: boolean): (value: number) => number {
  const upper = unit.toUpperCase();
  const name = ceil ? 'CEIL' : 'FLOOR';
  const unknown = (): WeirError => new WeirError('INVALID_ARGUMENT', `${name}(${kind} TO ${unit}) is not supported`);
  const millis = FLOOR_MILLIS[upper];
  const arithmetic = (size: number) => (t: number) => {
    const floor = t - floorMod(t, size);
    return ceil && floor !== t ? floor + size : floor;
  };
  switch (kind) {
    case 'TIME': {
      if (millis === undefined || upper === 'DAY') throw unknown();
      // Not wrapped at midnight: Flink rounds the int milliseconds of the day arithmetically, so
      // CEIL(TIME '23:30:00' TO HOUR) is 86,400,000 ms, which prints as 24:00:00.
      return arithmetic(millis);
    }
    case 'DATE':
      if (upper === 'DAY' || CALENDAR_UNITS.has(upper)) return (days) => roundDays(days, upper, ceil);
      if (millis === undefined) throw unknown();
      return (days) => days;
    case 'TIMESTAMP':
      if (millis !== undefined) return arithmetic(millis);
      if (!CALENDAR_UNITS.has(upper)) throw unknown();
      return (ts) => roundDays(Math.trunc(ts / MILLIS_PER_DAY), upper, ceil) * MILLIS_PER_DAY;
    default: {
      const never: never = kind;
      throw new WeirError('INTERNAL_ERROR', `unknown temporal kind ${String(never)}`);
    }
  }
}

/**
 * A rounding of wall-clock epoch milliseconds applied to a TIMESTAMP_LTZ instant in `zone`, as
 * Flink's timestampFloor/timestampCeil do: the zone's offset at the instant is added, the result
 * rounded, and the same offset taken off again (so a DST change between the two is not followed).
 */
export function roundInZone(round: (wall: number) => number, instant: number, zone: string): number {
  const offset = localOf(instant, zone) - instant;
  return round(instant + offset) - offset;
}

/** The EXTRACT function of `unit` for intervals: DAY TO SECOND (milliseconds) or YEAR TO MONTH (months), signed as the interval. */
export function intervalExtractor(unit: string, yearMonth: boolean): (value: number) => number {
  const upper = unit.toUpperCase();
  const signed = (f: (abs: number) => number) => (v: number) => (v < 0 ? -f(-v) : f(v)) + 0;
  if (yearMonth) {
    if (upper === 'YEAR') return signed((m) => Math.floor(m / 12));
    if (upper === 'MONTH') return signed((m) => m % 12);
    if (upper === 'QUARTER') return signed((m) => Math.floor((m % 12) / 3) + 1);
  } else {
    switch (upper) {
      case 'DAY':
        return signed((ms) => Math.floor(ms / MILLIS_PER_DAY));
      case 'HOUR':
        return signed((ms) => Math.floor(ms / 3_600_000) % 24);
      case 'MINUTE':
        return signed((ms) => Math.floor(ms / 60_000) % 60);
      case 'SECOND':
        return signed((ms) => Math.floor(ms / 1000) % 60);
      case 'MILLISECOND':
        return signed((ms) => ms % 60_000);
      case 'EPOCH':
        return (ms) => Math.trunc(ms / 1000) + 0;
    }
  }
  throw new WeirError('INVALID_ARGUMENT', `EXTRACT(${unit} FROM INTERVAL ${yearMonth ? 'YEAR TO MONTH' : 'DAY TO SECOND'}) is not supported`);
}

/** Java's short time-zone IDs (ZoneId.SHORT_IDS), which TimeZone.getTimeZone also accepts. */
const SHORT_ZONE_IDS: Readonly<Record<string, string>> = {
  ACT: 'Australia/Darwin', AET: 'Australia/Sydney', AGT: 'America/Argentina/Buenos_Aires', ART: 'Africa/Cairo', AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo', BST: 'Asia/Dhaka', CAT: 'Africa/Harare', CNT: 'America/St_Johns', CST: 'America/Chicago', CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa', ECT: 'Europe/Paris', IET: 'America/Indiana/Indianapolis', IST: 'Asia/Kolkata', JST: 'Asia/Tokyo',
  MIT: 'Pacific/Apia', NET: 'Asia/Yerevan', NST: 'Pacific/Auckland', PLT: 'Asia/Karachi', PNT: 'America/Phoenix', PRT: 'America/Puerto_Rico',
  PST: 'America/Los_Angeles', SST: 'Pacific/Guadalcanal', VST: 'Asia/Ho_Chi_Minh', EST: 'Etc/GMT+5', MST: 'Etc/GMT+7', HST: 'Etc/GMT+10',
};

const zoneFormats = new Map<string, Intl.DateTimeFormat | number>();

/** A zone's formatter, or its fixed offset in milliseconds (`GMT+08:00`, `UTC-5`, `+08:00`); unknown zones are GMT, as Java's TimeZone.getTimeZone makes them. */
function zoneOf(zone: string): Intl.DateTimeFormat | number {
  let known = zoneFormats.get(zone);
  if (known !== undefined) return known;
  const fixed = /^(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(zone);
  if (fixed !== null) known = (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 3_600_000 + Number(fixed[3] ?? 0) * 60_000);
  else {
    try {
      known = new Intl.DateTimeFormat('en-US', { timeZone: SHORT_ZONE_IDS[zone] ?? zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      known = 0;
    }
  }
  if (zoneFormats.size >= 256) zoneFormats.clear();
  zoneFormats.set(zone, known);
  return known;
}

/** The offset from UTC of `zone` at the instant `millis`, in milliseconds. */
export function zoneOffset(zone: string, millis: number): number {
  const format = zoneOf(zone);
  if (typeof format === 'number') return format;
  const parts = Object.fromEntries(format.formatToParts(new Date(millis)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - (millis - floorMod(millis, 1000));
}

/** The instant whose wall-clock time in `zone` is `wall` (epoch milliseconds of the local time); the earlier one in a gap or overlap. */
export function instantOfWallTime(wall: number, zone: string): number {
  const first = wall - zoneOffset(zone, wall);
  const second = wall - zoneOffset(zone, first);
  return Math.min(first, second);
}

/** CONVERT_TZ(text, from, to): the timestamp text (yyyy-MM-dd HH:mm:ss) read in zone `from` and written in zone `to`; NULL when it is not a timestamp. */
export function convertTz(text: string, from: string, to: string): string | null {
  const wall = parseTimestamp(text);
  if (wall === undefined) return null;
  const instant = instantOfWallTime(wall, from);
  return cachedDateFormatter('yyyy-MM-dd HH:mm:ss')(instant + zoneOffset(to, instant));
}

/** TO_TIMESTAMP_LTZ(epoch, precision): the epoch value in units of 10^-precision seconds as milliseconds (sub-millisecond digits cut); a precision outside [0, 9] is an error. */
export function epochToMillis(epoch: number, precision: number): number {
  if (!Number.isInteger(precision) || precision < 0 || precision > 9) {
    throw new WeirError('EXECUTION_ERROR', `TO_TIMESTAMP_LTZ: the precision must be between 0 and 9, got ${precision}`);
  }
  return Math.floor(precision <= 3 ? epoch * 10 ** (3 - precision) : epoch / 10 ** (precision - 3));
}

/** The epoch milliseconds of a TIMESTAMP_LTZ: 0000-01-01 00:00:00.000Z to 9999-12-31 23:59:59.999Z. */
export const MIN_LTZ_MILLIS = -62_167_219_200_000;
/** See {@link MIN_LTZ_MILLIS}. */
export const MAX_LTZ_MILLIS = 253_402_300_799_999;

/**
 * TO_TIMESTAMP_LTZ(epoch, precision) into epoch milliseconds (precision 0 seconds, 3
 * milliseconds, ...), or NULL for an instant outside the years 0000..9999 or a NaN or infinite
 * epoch, as Flink's DateTimeUtils.toTimestampData returns.
 */
export function epochToMillisOrNull(epoch: Int64, precision: number): number | null {
  if (typeof epoch === 'bigint') {
    if (!Number.isInteger(precision) || precision < 0 || precision > 9) return epochToMillis(Number(epoch), precision);
    const millis = precision <= 3 ? epoch * 10n ** BigInt(3 - precision) : bigFloorDiv(epoch, 10n ** BigInt(precision - 3));
    return millis < BigInt(MIN_LTZ_MILLIS) || millis > BigInt(MAX_LTZ_MILLIS) ? null : Number(millis);
  }
  if (!Number.isFinite(epoch)) return null;
  const millis = epochToMillis(epoch, precision);
  return millis < MIN_LTZ_MILLIS || millis > MAX_LTZ_MILLIS ? null : millis + 0;
}

function bigFloorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** TO_TIMESTAMP_LTZ(text[, pattern[, zone]]): the text read in the pattern (default yyyy-MM-dd HH:mm:ss) as a wall time of `zone` (default UTC); NULL when it does not match. */
export function textToTimestampLtz(text: string, pattern = 'yyyy-MM-dd HH:mm:ss', zone = 'UTC'): number | null {
  const wall = cachedDateParser(pattern)(text);
  return wall === undefined ? null : instantOfWallTime(wall, zone);
}

/** DATE_ADD(text, days) as Flink's (Hive's): the date text (yyyy-MM-dd, or a timestamp) moved by `days`, as yyyy-MM-dd; an error for other text. */
export function dateAddText(text: string, days: number): string {
  const match = /^\s*(\d{1,4})-(\d{1,2})-(\d{1,2})(?:$|[ T])/.exec(text);
  if (match === null) throw new WeirError('EXECUTION_ERROR', `DATE_ADD: unsupported datetime format '${text}', use 'yyyy-MM-dd' or 'yyyy-MM-dd HH:mm:ss'`);
  const start = daysFromCivil(Number(match[1]), Number(match[2]), 1) + Number(match[3]) - 1;
  const { year, month, day } = civilFromDays(start + days);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
