/**
 * Java SimpleDateFormat patterns (`yyyy-MM-dd HH:mm:ss.SSS`), compiled once per pattern into a
 * formatter of epoch milliseconds and a parser of text, both in UTC. Supported letters: G y Y M L
 * d D E u a H k K h m s S z Z X; text in single quotes is literal (`''` is a quote).
 */
import { civilFromDays, dateFromParts, daysFromCivil, isoDayOfWeek, MILLIS_PER_DAY, type MillisAndNanos } from '../../common/datetime.js';
import { WeirError } from '../../common/errors.js';

type Token = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'field'; readonly letter: string; readonly count: number };

const SUPPORTED = 'GyYMLdDEuaHkKhmsSzZX';
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal += "'";
        i += 2;
        continue;
      }
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) throw invalidPattern(pattern, 'unterminated quote');
      literal += pattern.slice(i + 1, end);
      i = end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!SUPPORTED.includes(c)) throw invalidPattern(pattern, `unsupported pattern letter '${c}'`);
      let count = 1;
      while (pattern[i + count] === c) count++;
      if (literal !== '') tokens.push({ kind: 'literal', text: literal });
      literal = '';
      tokens.push({ kind: 'field', letter: c, count });
      i += count;
    } else {
      literal += c;
      i++;
    }
  }
  if (literal !== '') tokens.push({ kind: 'literal', text: literal });
  return tokens;
}

function invalidPattern(pattern: string, reason: string): WeirError {
  return new WeirError('INVALID_ARGUMENT', `invalid date format '${pattern}': ${reason}`);
}

/** Left-pads a non-negative integer with zeros to `width` digits. */
function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : '0'.repeat(width - text.length) + text;
}

/** A JS expression for one pattern field over the locals of the generated formatter (y, mo, d, days, t). */
function fieldCode(letter: string, n: number): string {
  const padded = (value: string): string => (n <= 1 ? `"" + ${value}` : n === 2 ? `pad2(${value})` : `pad(${value}, ${n})`);
  switch (letter) {
    case 'G':
      return 'era';
    case 'y':
    case 'Y':
      return n === 2 ? `pad2(((y % 100) + 100) % 100)` : `pad(y, ${n})`;
    case 'M':
    case 'L':
      if (n >= 4) return 'MONTHS[mo - 1]';
      if (n === 3) return 'MONTHS[mo - 1].slice(0, 3)';
      return padded('mo');
    case 'd':
      return padded('d');
    case 'D':
      return padded('(days - daysFromCivil(y, 1, 1) + 1)');
    case 'E':
      return n >= 4 ? 'WEEKDAYS[isoDayOfWeek(days) - 1]' : 'WEEKDAYS[isoDayOfWeek(days) - 1].slice(0, 3)';
    case 'u':
      return padded('isoDayOfWeek(days)');
    case 'a':
      return '(t < 43200000 ? "AM" : "PM")';
    case 'H':
      return padded('Math.floor(t / 3600000)');
    case 'k':
      return padded('(Math.floor(t / 3600000) || 24)');
    case 'K':
      return padded('(Math.floor(t / 3600000) % 12)');
    case 'h':
      return padded('(Math.floor(t / 3600000) % 12 || 12)');
    case 'm':
      return padded('(Math.floor(t / 60000) % 60)');
    case 's':
      return padded('(Math.floor(t / 1000) % 60)');
    case 'S':
      // Fraction of the second (java.time's, as Flink's DATE_FORMAT): S is tenths, SSS milliseconds, SSSSSS micro (zeros past the milliseconds).
      // Digits past the milliseconds come from the nanoseconds within the millisecond (a TIMESTAMP(p > 3)), zeros past the ninth.
      if (n <= 3) return `pad(t % 1000, 3).slice(0, ${n})`;
      return n <= 9 ? `pad(t % 1000, 3) + pad(nanos, 6).slice(0, ${n - 3})` : `pad(t % 1000, 3) + pad(nanos, 6) + ${JSON.stringify('0'.repeat(n - 9))}`;
    case 'z':
      return '"UTC"';
    case 'Z':
      return '"+0000"';
    default:
      return '"Z"';
  }
}

/**
 * A function that renders epoch milliseconds (UTC) in the pattern; throws INVALID_ARGUMENT for an
 * unsupported pattern. The function is generated per pattern: straight-line arithmetic and one
 * string concatenation, no allocation besides the result; a stream's rows come many to a
 * millisecond, so the previous result is returned for the same milliseconds (and nanoseconds).
 * `S` beyond three letters renders the nanoseconds within the millisecond.
 */
export function compileDateFormatter(pattern: string): DateFormatter {
  const tokens = tokenize(pattern);
  const needsDate = tokens.some((t) => t.kind === 'field' && 'GyYMLdDEu'.includes(t.letter));
  const body = [
    'let lastMillis = NaN, lastNanos = 0, lastText = "";',
    'return function format(millis, nanoOfMilli) {',
    '  const nanos = nanoOfMilli === undefined ? 0 : nanoOfMilli;',
    '  if (millis === lastMillis && nanos === lastNanos) return lastText;',
    '  const r = millis % 86400000;',
    '  const t = r < 0 ? r + 86400000 : r + 0;',
    '  const days = (millis - t) / 86400000;',
    ...(needsDate ? ['  const c = civilFromDays(days);', '  const y = c.year, mo = c.month, d = c.day, era = y > 0 ? "AD" : "BC";'] : []),
    '  lastMillis = millis;',
    '  lastNanos = nanos;',
    `  return (lastText = ${concatenation(tokens)});`,
    '};',
  ].join('\n');
  return instantiate(body) as DateFormatter;
}

function concatenation(tokens: readonly Token[]): string {
  const parts = tokens.map((token) => (token.kind === 'literal' ? JSON.stringify(token.text) : fieldCode(token.letter, token.count)));
  return parts.length === 0 ? '""' : parts.join(' + ');
}

function instantiate(body: string): unknown {
  const pad2 = (value: number): string => (value < 10 ? `0${value}` : `${value}`);
  const factory = new Function('pad', 'pad2', 'civilFromDays', 'daysFromCivil', 'isoDayOfWeek', 'MONTHS', 'WEEKDAYS', body);
  return factory(pad, pad2, civilFromDays, daysFromCivil, isoDayOfWeek, MONTHS, WEEKDAYS);
}

/** A day's calendar fields as java.util.GregorianCalendar gives them: the year of its era (AD or BC), month and day. */
export interface JavaCalendarDate {
  readonly yearOfEra: number;
  readonly bc: boolean;
  readonly month: number;
  readonly day: number;
}

/** The epoch day of 1582-10-15, the first Gregorian day of java.util.GregorianCalendar (the days before are Julian). */
const GREGORIAN_CUTOVER_DAY = -141427;

/**
 * The calendar date of an epoch day as java.util.GregorianCalendar (SimpleDateFormat's calendar)
 * sees it: Gregorian from 1582-10-15 on, Julian before, years counted in eras (1 BC precedes AD 1).
 */
export function javaCalendarDate(days: number): JavaCalendarDate {
  let year: number;
  let month: number;
  let day: number;
  if (days >= GREGORIAN_CUTOVER_DAY) {
    ({ year, month, day } = civilFromDays(days));
  } else {
    // The Julian calendar from the Julian day number (Richards' algorithm).
    const c = days + 2440588 + 32082;
    const dd = Math.floor((4 * c + 3) / 1461);
    const e = c - Math.floor((1461 * dd) / 4);
    const m = Math.floor((5 * e + 2) / 153);
    day = e - Math.floor((153 * m + 2) / 5) + 1;
    month = m + 3 - 12 * Math.floor(m / 10);
    year = dd - 4800 + Math.floor(m / 10);
  }
  return year > 0 ? { yearOfEra: year, bc: false, month, day } : { yearOfEra: 1 - year, bc: true, month, day };
}

/**
 * A formatter of a wall-clock time given as its epoch day (any size) and milliseconds of the day,
 * with the date as {@link javaCalendarDate} labels it: SimpleDateFormat's rendering of any
 * java.util.Date (FROM_UNIXTIME), where years are those of their era and dates before 1582-10-15 Julian.
 */
export function compileJavaCalendarFormatter(pattern: string): (days: number, millisOfDay: number) => string {
  const tokens = tokenize(pattern);
  const body = [
    'return function format(days, t, date) {',
    '  const nanos = 0;',
    '  const y = date.yearOfEra, mo = date.month, d = date.day, era = date.bc ? "BC" : "AD";',
    `  return ${concatenation(tokens)};`,
    '};',
  ].join('\n');
  const format = instantiate(body) as (days: number, t: number, date: JavaCalendarDate) => string;
  return (days, t) => format(days, t, javaCalendarDate(days));
}

/** Renders epoch milliseconds (and, for a TIMESTAMP(p > 3), the nanoseconds within the millisecond, 0 when left out) in a pattern. */
export type DateFormatter = (millis: number, nanoOfMilli?: number) => string;

const NUMERIC_LETTERS = 'yYMLdDuHkKhmsS';

/**
 * A function that parses text in the pattern to epoch milliseconds (UTC), or undefined when the
 * whole text does not match or names an invalid date or time; throws INVALID_ARGUMENT for an
 * unsupported pattern. Adjacent numeric fields (`yyyyMMdd`) take exactly their width.
 */
export function compileDateParser(pattern: string): (text: string) => number | undefined {
  const parse = compileDateParserNanos(pattern);
  return (text) => parse(text)?.millis;
}

/**
 * {@link compileDateParser} keeping the fraction digits past the milliseconds (`SSSSSS`,
 * `SSSSSSSSS`): epoch milliseconds and the nanoseconds within the last millisecond.
 */
export function compileDateParserNanos(pattern: string, fractionLetters = false, lenient = false): (text: string) => MillisAndNanos | undefined {
  const tokens = tokenize(pattern);
  const setters: ((f: MutableFields, value: string) => boolean)[] = [];
  let source = '^';
  tokens.forEach((token, i) => {
    if (token.kind === 'literal') {
      source += token.text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
      return;
    }
    const next = tokens[i + 1];
    const numeric = NUMERIC_LETTERS.includes(token.letter) && !(token.count >= 3 && (token.letter === 'M' || token.letter === 'L'));
    if (numeric) {
      const fixed = next !== undefined && next.kind === 'field' && NUMERIC_LETTERS.includes(next.letter);
      source += fixed ? `(\\d{${token.count}})` : '(\\d+)';
    } else if (token.letter === 'M' || token.letter === 'L') {
      source += `(${MONTHS.map((m) => (token.count === 3 ? m.slice(0, 3) : m)).join('|')})`;
    } else if (token.letter === 'E') {
      source += `(${WEEKDAYS.map((d) => (token.count >= 4 ? d : d.slice(0, 3))).join('|')})`;
    } else if (token.letter === 'a') {
      source += '(AM|PM|am|pm)';
    } else if (token.letter === 'G') {
      source += '(AD|BC)';
    } else {
      source += '(Z|UTC|GMT|[+-]\\d{2}:?\\d{2})';
    }
    setters.push(fieldSetter(token.letter, fractionLetters && token.letter === 'S' ? 9 : token.count, lenient));
  });
  // A lenient parse reads a prefix of the text, as DateFormat.parse(String) does.
  const regex = new RegExp(lenient ? source : `${source}$`, 'i');
  return (text) => {
    const match = regex.exec(text);
    if (match === null) return undefined;
    const fields: MutableFields = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millis: 0, nanoOfMilli: 0, pm: undefined, offset: 0, dayOfYear: undefined };
    for (let i = 0; i < setters.length; i++) {
      if (!setters[i]!(fields, match[i + 1]!)) return undefined;
    }
    if (lenient) return lenientInstant(fields);
    const days = fields.dayOfYear !== undefined ? dateFromParts(fields.year, 1, 1)! + fields.dayOfYear - 1 : dateFromParts(fields.year, fields.month, fields.day);
    if (days === undefined) return undefined;
    let hour = fields.hour;
    if (fields.pm !== undefined) {
      if (hour > 12) return undefined;
      hour = (hour % 12) + (fields.pm ? 12 : 0);
    }
    if (hour > 23 || fields.minute > 59 || fields.second > 59) return undefined;
    return { millis: days * MILLIS_PER_DAY + ((hour * 60 + fields.minute) * 60 + fields.second) * 1000 + fields.millis - fields.offset, nanoOfMilli: fields.nanoOfMilli };
  };
}

/**
 * The fields as a lenient java.util.Calendar adds them up: a month past 12 moves into the next
 * year, a day past the month's end into the next month, an hour past 23 into the next day, and so on.
 */
function lenientInstant(f: MutableFields): MillisAndNanos {
  const year = f.year + Math.floor((f.month - 1) / 12);
  const month = (((f.month - 1) % 12) + 12) % 12 + 1;
  const days = f.dayOfYear !== undefined ? daysFromCivil(f.year, 1, 1) + f.dayOfYear - 1 : daysFromCivil(year, month, 1) + f.day - 1;
  const hour = f.pm === undefined ? f.hour : (f.hour % 12) + (f.pm ? 12 : 0);
  return { millis: days * MILLIS_PER_DAY + ((hour * 60 + f.minute) * 60 + f.second) * 1000 + f.millis - f.offset, nanoOfMilli: f.nanoOfMilli };
}

interface MutableFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
  nanoOfMilli: number;
  pm: boolean | undefined;
  offset: number;
  dayOfYear: number | undefined;
}

function fieldSetter(letter: string, count: number, lenient = false): (f: MutableFields, value: string) => boolean {
  switch (letter) {
    case 'y':
    case 'Y':
      return (f, v) => {
        f.year = count === 2 && v.length === 2 ? 2000 + Number(v) : Number(v);
        return true;
      };
    case 'M':
    case 'L':
      if (count >= 3) {
        return (f, v) => {
          f.month = MONTHS.findIndex((m) => m.toLowerCase().startsWith(v.toLowerCase())) + 1;
          return f.month > 0;
        };
      }
      return (f, v) => ((f.month = Number(v)), true);
    case 'd':
      return (f, v) => ((f.day = Number(v)), true);
    case 'D':
      return (f, v) => ((f.dayOfYear = Number(v)), true);
    case 'H':
    case 'K':
      return (f, v) => ((f.hour = Number(v)), true);
    case 'k':
      return (f, v) => ((f.hour = Number(v) % 24), true);
    case 'h':
      return (f, v) => ((f.hour = Number(v) % 12), true);
    case 'm':
      return (f, v) => ((f.minute = Number(v)), true);
    case 's':
      return (f, v) => ((f.second = Number(v)), true);
    case 'S':
      return (f, v) => {
        if (count < 3 || lenient) return (f.millis = Number(v)) < 1000 || lenient;
        if (v.length > 9) return false;
        const digits = v.padEnd(9, '0');
        f.millis = Number(digits.slice(0, 3));
        f.nanoOfMilli = Number(digits.slice(3, 9));
        return true;
      };
    case 'a':
      return (f, v) => ((f.pm = v.toUpperCase() === 'PM'), true);
    case 'z':
    case 'Z':
    case 'X':
      return (f, v) => {
        const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(v);
        if (offset !== null) f.offset = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000;
        return true;
      };
    default:
      return () => true;
  }
}

/** True when the pattern reads a zone or offset (z, Z, X), so that what it parses is an instant rather than a wall-clock time. */
export function patternHasZone(pattern: string): boolean {
  return tokenize(pattern).some((t) => t.kind === 'field' && 'zZX'.includes(t.letter));
}

const formatterCache = new Map<string, DateFormatter>();
const parserCache = new Map<string, (text: string) => number | undefined>();

/** What `compile` makes of `pattern`, kept in `cache` (at most 64 patterns: emptied when full). */
function cachedByPattern<T>(cache: Map<string, T>, pattern: string, compile: (pattern: string) => T): T {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = compile(pattern);
    if (cache.size >= 64) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** {@link compileDateFormatter}, cached by pattern, for patterns known only at run time. */
export function cachedDateFormatter(pattern: string): DateFormatter {
  return cachedByPattern(formatterCache, pattern, compileDateFormatter);
}

/** {@link compileDateParser}, cached by pattern, for patterns known only at run time. */
export function cachedDateParser(pattern: string): (text: string) => number | undefined {
  return cachedByPattern(parserCache, pattern, compileDateParser);
}

/** The number of fraction-of-second letters (`S`) of a pattern: 6 for `yyyy-MM-dd HH:mm:ss.SSSSSS`, 0 when it has none. */
export function patternFractionDigits(pattern: string): number {
  let digits = 0;
  for (const token of tokenize(pattern)) if (token.kind === 'field' && token.letter === 'S') digits = Math.max(digits, token.count);
  return digits;
}

/**
 * A parser of text in a java.time DateTimeFormatter pattern, as Flink's TO_TIMESTAMP(text, pattern)
 * reads it: the same letters as {@link compileDateParserNanos}, except that `S`, `SS`, `SSS`... are
 * always the fraction of the second (`.12` with `SS` is 120 ms, where SimpleDateFormat reads 12 ms).
 * Text the pattern does not match falls back, as Flink's DateTimeUtils.parseTimestampData does, to
 * java.sql.Timestamp.valueOf (text with a space) or java.sql.Date.valueOf (without).
 */
export function compileJavaTimeParser(pattern: string): (text: string) => MillisAndNanos | undefined {
  const parse = compileDateParserNanos(pattern, true);
  return (text) => parse(text) ?? sqlTimestampValueOf(text);
}

const NUMBER = /^[+-]?\d+$/;

/**
 * java.sql.Timestamp.valueOf (`yyyy-[m]m-[d]d hh:mm:ss[.f...]`, text with a space) or
 * java.sql.Date.valueOf (`yyyy-[m]m-[d]d`) of the trimmed text, as epoch milliseconds of the wall
 * time and the nanoseconds past them; lenient as Java's: a day up to 31 rolls over the month's end,
 * hours, minutes and seconds roll over too. Undefined when Java throws IllegalArgumentException.
 */
export function sqlTimestampValueOf(text: string): MillisAndNanos | undefined {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  const days = sqlDateDays(space >= 0 ? trimmed.slice(0, space) : trimmed);
  if (days === undefined) return undefined;
  if (space < 0) return { millis: days * MILLIS_PER_DAY, nanoOfMilli: 0 };
  const time = trimmed.slice(space + 1);
  const colon1 = time.indexOf(':');
  const colon2 = time.indexOf(':', colon1 + 1);
  if (colon1 <= 0 || colon2 <= 0 || colon2 >= time.length - 1) return undefined;
  const period = time.indexOf('.', colon2 + 1);
  const parts = [time.slice(0, colon1), time.slice(colon1 + 1, colon2), period > 0 ? time.slice(colon2 + 1, period) : time.slice(colon2 + 1)];
  if (!parts.every((part) => NUMBER.test(part))) return undefined;
  const [hour, minute, second] = parts.map(Number) as [number, number, number];
  let nanos = 0;
  if (period > 0) {
    const fraction = time.slice(period + 1);
    if (fraction.length === 0 || fraction.length > 9 || !/^\d+$/.test(fraction)) return undefined;
    nanos = Number(fraction.padEnd(9, '0'));
  }
  const millis = days * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + Math.floor(nanos / 1_000_000);
  return { millis, nanoOfMilli: nanos % 1_000_000 };
}

/** java.sql.Date.valueOf's reading of `yyyy-[m]m-[d]d` as epoch days (a day up to 31 rolls over the month's end), or undefined. */
function sqlDateDays(text: string): number | undefined {
  const dash1 = text.indexOf('-');
  const dash2 = text.indexOf('-', dash1 + 1);
  if (dash1 <= 0 || dash2 <= 0 || dash2 >= text.length - 1) return undefined;
  const [year, month, day] = [text.slice(0, dash1), text.slice(dash1 + 1, dash2), text.slice(dash2 + 1)];
  if (year.length !== 4 || month.length > 2 || day.length > 2 || ![year, month, day].every((part) => NUMBER.test(part))) return undefined;
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  return daysFromCivil(y, m, 1) + d - 1;
}

/**
 * A parser of text in a SimpleDateFormat pattern as Flink's UNIX_TIMESTAMP reads it (a lenient
 * java.text.SimpleDateFormat): the pattern must match a prefix of the text, the rest is ignored,
 * and out-of-range fields roll over (month 13 is January of the next year); `S` is milliseconds.
 */
export function cachedLenientDateParser(pattern: string): (text: string) => MillisAndNanos | undefined {
  return cachedByPattern(lenientParserCache, pattern, (p) => compileDateParserNanos(p, false, true));
}

const lenientParserCache = new Map<string, (text: string) => MillisAndNanos | undefined>();

const javaCalendarFormatterCache = new Map<string, (days: number, millisOfDay: number) => string>();

/** {@link compileJavaCalendarFormatter}, cached by pattern. */
export function cachedJavaCalendarFormatter(pattern: string): (days: number, millisOfDay: number) => string {
  return cachedByPattern(javaCalendarFormatterCache, pattern, compileJavaCalendarFormatter);
}

const nanoParserCache = new Map<string, (text: string) => MillisAndNanos | undefined>();
const javaTimeParserCache = new Map<string, (text: string) => MillisAndNanos | undefined>();

/** {@link compileJavaTimeParser}, cached by pattern. */
export function cachedJavaTimeParser(pattern: string): (text: string) => MillisAndNanos | undefined {
  return cachedByPattern(javaTimeParserCache, pattern, compileJavaTimeParser);
}

/** {@link compileDateParserNanos}, cached by pattern. */
export function cachedDateParserNanos(pattern: string): (text: string) => MillisAndNanos | undefined {
  return cachedByPattern(nanoParserCache, pattern, compileDateParserNanos);
}
