/**
 * Time zones for TIMESTAMP_LTZ (Flink's `table.local-time-zone`): checking and resolving a zone
 * id, and moving between an instant (epoch milliseconds, UTC) and the wall-clock time of a zone
 * (epoch milliseconds of the local date and time read as if UTC, the TIMESTAMP representation).
 * Region zones go through `Intl` (the IANA database of the Node runtime); fixed offsets
 * (`GMT+08:00`) are computed. A resolved id is what a job graph stores, so a job restored from a
 * checkpoint computes in the same zone whatever the process's own zone is then.
 */
import { millisOfNanos, NANOS_PER_MILLI, type EpochNanos } from './epoch-nanos.js';
import { WeirError } from './errors.js';

/** The zone every job graph without a zone computes in. */
export const UTC_ZONE = 'UTC';

/** True for the ids of UTC itself (a graph in UTC records no zone). */
export function isUtcZone(zone: string): boolean {
  return zone === UTC_ZONE || zone === 'GMT' || zone === 'Etc/UTC' || zone === 'Etc/GMT';
}

/** Java's three-letter zone abbreviations (ZoneId.SHORT_IDS), which Flink refuses for `table.local-time-zone`. */
const SHORT_IDS = new Set(['ACT', 'AET', 'AGT', 'ART', 'AST', 'BET', 'BST', 'CAT', 'CNT', 'CST', 'CTT', 'EAT', 'ECT', 'IET', 'IST', 'JST', 'MIT', 'NET', 'NST', 'PLT', 'PNT', 'PRT', 'PST', 'SST', 'VST', 'EST', 'MST', 'HST']);

/** `GMT+8`, `GMT+08:00`, `GMT-0830`: a custom zone id as Java's ZoneId reads it. */
const CUSTOM_OFFSET = /^GMT([+-])(\d{1,2})(?::?(\d{2}))?$/;

/** The fixed offset in milliseconds of a custom id (`GMT+08:00`), or undefined for another id. */
export function fixedOffsetOf(zone: string): number | undefined {
  const match = CUSTOM_OFFSET.exec(zone);
  if (match === null) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 18 || minutes > 59) return undefined;
  return (match[1] === '-' ? -1 : 1) * (hours * 3_600_000 + minutes * 60_000);
}

/** The zone of this process (the `TZ` environment or the system's), as Flink uses the JVM's. */
export function processTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? UTC_ZONE;
}

/**
 * The canonical id of a `table.local-time-zone` value: `default` is the process's zone, a region id
 * (`Asia/Shanghai`, `UTC`) keeps the spelling `Intl` gives it, a custom id is normalised to
 * `GMT+08:00`. Throws INVALID_OPTION for anything else, as Flink refuses abbreviations (`PST`)
 * and `UTC+8`.
 */
export function resolveTimeZone(value: string, key = 'table.local-time-zone'): string {
  const zone = value.trim();
  if (zone.toLowerCase() === 'default') return processTimeZone();
  const offset = fixedOffsetOf(zone);
  if (offset !== undefined) return formatOffsetZone(offset);
  const refuse = (): WeirError =>
    new WeirError('INVALID_OPTION', `'${key}' must be a zone id such as 'Asia/Shanghai', 'UTC' or 'GMT+08:00', got '${value}'`, {
      hint: "use a full region name ('America/Los_Angeles') or a custom offset ('GMT-08:00'), not an abbreviation or 'UTC+8'",
    });
  if (zone === '' || SHORT_IDS.has(zone) || /^UTC[+-]/.test(zone)) throw refuse();
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch (error) {
    if (error instanceof RangeError) throw refuse();
    throw error;
  }
}

function formatOffsetZone(offset: number): string {
  if (offset === 0) return 'GMT';
  const abs = Math.abs(offset);
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor(abs / 60_000) % 60;
  return `GMT${offset < 0 ? '-' : '+'}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
}

const formatters = new Map<string, Intl.DateTimeFormat | number>();

/** A resolved zone's formatter, or its fixed offset; zones are resolved ids (see {@link resolveTimeZone}). */
function zoneRule(zone: string): Intl.DateTimeFormat | number {
  let rule = formatters.get(zone);
  if (rule !== undefined) return rule;
  if (isUtcZone(zone)) rule = 0;
  else {
    rule = fixedOffsetOf(zone) ?? new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  }
  if (formatters.size >= 256) formatters.clear();
  formatters.set(zone, rule);
  return rule;
}

const BUCKET = 900_000;
const MAX_DATE = 8_640_000_000_000_000;
const bucketOffsets = new Map<string, Map<number, number>>();

/** The offset from UTC of `zone` at the instant `millis`, in milliseconds (whole seconds, as the zone database has them). */
export function offsetAt(zone: string, instant: number): number {
  const rule = zoneRule(zone);
  if (typeof rule === 'number') return rule;
  // Beyond JavaScript's dates (±100,000,000 days) a zone keeps the offset it has at their edge.
  const millis = Math.min(MAX_DATE - 86_400_000, Math.max(-MAX_DATE + 86_400_000, instant));
  // Offsets are cached per quarter hour of the instant when both ends of it have the same one.
  const bucket = Math.floor(millis / BUCKET);
  let cache = bucketOffsets.get(zone);
  const cached = cache?.get(bucket);
  if (cached !== undefined) return cached;
  const first = formattedOffset(rule, bucket * BUCKET);
  if (first !== formattedOffset(rule, bucket * BUCKET + BUCKET - 1000)) return formattedOffset(rule, millis);
  if (cache === undefined || cache.size >= 4096) {
    cache = new Map();
    bucketOffsets.set(zone, cache);
  }
  cache.set(bucket, first);
  return first;
}

function formattedOffset(rule: Intl.DateTimeFormat, millis: number): number {
  const seconds = Math.floor(millis / 1000) * 1000;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const part of rule.formatToParts(new Date(seconds))) {
    switch (part.type) {
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value);
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'second':
        second = Number(part.value);
        break;
      case 'era':
        bc = part.value.startsWith('B');
        break;
      default:
        break;
    }
  }
  const wall = new Date(0);
  wall.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
  wall.setUTCHours(hour, minute, second, 0);
  return wall.getTime() - seconds;
}

/** The wall-clock time in `zone` of the instant `millis` (the TIMESTAMP a TIMESTAMP_LTZ casts to). */
export function localOf(millis: number, zone: string): number {
  return millis + offsetAt(zone, millis);
}

/** {@link localOf} for epoch nanos (a TIMESTAMP_LTZ(p > 3)): zone offsets are whole milliseconds, so the nanoseconds carry over. */
export function localOfNanos(nanos: EpochNanos, zone: string): EpochNanos {
  return nanos + BigInt(offsetAt(zone, millisOfNanos(nanos))) * NANOS_PER_MILLI;
}

/** {@link instantOf} for epoch nanos: the instant of a wall-clock TIMESTAMP(p > 3), keeping its nanoseconds. */
export function instantOfNanos(wall: EpochNanos, zone: string): EpochNanos {
  const millis = millisOfNanos(wall);
  return wall + BigInt(instantOf(millis, zone) - millis) * NANOS_PER_MILLI;
}

/**
 * The instant whose wall-clock time in `zone` is `wall` (the TIMESTAMP_LTZ a TIMESTAMP casts to).
 * In a gap (spring forward) the time is moved forward by the gap, in an overlap (fall back) the
 * earlier instant is taken — Java's `LocalDateTime.atZone` rules, which Flink uses.
 */
export function instantOf(wall: number, zone: string): number {
  const rule = zoneRule(zone);
  if (typeof rule === 'number') return wall - rule;
  const before = offsetAt(zone, wall - 86_400_000);
  const after = offsetAt(zone, wall + 86_400_000);
  const candidates = before === after ? [before] : [before, after];
  const valid = candidates.map((offset) => wall - offset).filter((instant) => localOf(instant, zone) === wall);
  if (valid.length > 0) return Math.min(...valid);
  // A gap: the wall time does not exist; Java moves it later by the length of the gap.
  return wall - before;
}

/** How far ahead {@link localWatermark} looks for a clock set back (more than any daylight saving shift). */
const LOOKAHEAD = 6 * 3_600_000;

/**
 * The latest instant whose wall-clock time in `zone` is at or before `wall`: in an overlap (fall
 * back) the later of the two, in a gap (spring forward) the last instant before it. A window
 * ending (exclusively) at wall-clock `end` holds no instant after `lastInstantAtOrBefore(end - 1)`:
 * it is the window's `window_time` and the watermark that closes it.
 */
export function lastInstantAtOrBefore(wall: number, zone: string): number {
  if (!Number.isFinite(wall)) return wall;
  const rule = zoneRule(zone);
  if (typeof rule === 'number') return wall - rule;
  let best = -Infinity;
  for (const offset of [offsetAt(zone, wall - 86_400_000), offsetAt(zone, wall + 86_400_000)]) {
    const candidate = wall - offset;
    if (localOf(candidate, zone) <= wall && candidate > best) best = candidate;
  }
  return best;
}

/**
 * The wall-clock watermark in `zone` of the (UTC) watermark `instant`: the latest wall-clock time
 * `w` such that every instant reading `w` or earlier is at or before `instant` — so a window of
 * wall-clock bounds whose last millisecond is at or before it has seen all its rows. It is the
 * wall-clock time of `instant` except just before a fall back, when the hour about to repeat is
 * not complete yet. Infinite watermarks stay as they are.
 */
export function localWatermark(instant: number, zone: string): number {
  if (!Number.isFinite(instant)) return instant;
  const rule = zoneRule(zone);
  if (typeof rule === 'number') return instant + rule;
  const next = instant + 1;
  const offset = offsetAt(zone, next);
  let lowest = next + offset;
  if (offsetAt(zone, next + LOOKAHEAD) < offset) {
    // The clock is set back within the look-ahead: find the first instant of the lower offset.
    let low = next;
    let high = next + LOOKAHEAD;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(zone, middle) < offset) high = middle;
      else low = middle;
    }
    lowest = Math.min(lowest, high + offsetAt(zone, high));
  }
  return lowest - 1;
}
