/**
 * Zone resolution and instant ⇄ wall-clock conversion, checked against a plain model of the
 * zones' rules written from their definitions (not from Intl): Asia/Shanghai is UTC+8 without
 * daylight saving since 1992; America/New_York is UTC−5, UTC−4 from the second Sunday of March
 * 02:00 to the first Sunday of November 02:00 local time (the rule since 2007); Europe/Berlin is
 * UTC+1, UTC+2 from the last Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysFromCivil, isoDayOfWeek, MILLIS_PER_DAY } from '../../src/common/datetime.js';
import { instantOf, localOf, offsetAt, processTimeZone, resolveTimeZone } from '../../src/common/time-zone.js';

const HOUR = 3_600_000;

/** The day number of the n-th (1-based) Sunday of a month, or the last one for n = -1. */
function sunday(year: number, month: number, n: number): number {
  if (n > 0) {
    const first = daysFromCivil(year, month, 1);
    return first + ((7 - isoDayOfWeek(first)) % 7) + (n - 1) * 7;
  }
  const last = daysFromCivil(year, month + 1, 1) - 1;
  return last - (isoDayOfWeek(last) % 7);
}

/** The model's UTC offset of a zone at an instant (years 2008–2035). */
function modelOffset(zone: string, instant: number): number {
  const year = new Date(instant).getUTCFullYear();
  switch (zone) {
    case 'Asia/Shanghai':
      return 8 * HOUR;
    case 'America/New_York': {
      // 02:00 local: 07:00 UTC in winter time (start), 06:00 UTC in summer time (end).
      const start = sunday(year, 3, 2) * MILLIS_PER_DAY + 7 * HOUR;
      const end = sunday(year, 11, 1) * MILLIS_PER_DAY + 6 * HOUR;
      return instant >= start && instant < end ? -4 * HOUR : -5 * HOUR;
    }
    case 'Europe/Berlin': {
      const start = sunday(year, 3, -1) * MILLIS_PER_DAY + HOUR;
      const end = sunday(year, 10, -1) * MILLIS_PER_DAY + HOUR;
      return instant >= start && instant < end ? 2 * HOUR : HOUR;
    }
    case 'GMT-08:00':
      return -8 * HOUR;
    default:
      throw new Error(`no model of ${zone}`);
  }
}

const ZONES = ['Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'GMT-08:00'];
const FROM = Date.UTC(2008, 0, 2);
const TO = Date.UTC(2035, 11, 30);

describe('time zones', () => {
  it('resolves session zone ids as Flink accepts them and refuses the others', () => {
    expect(resolveTimeZone('Asia/Shanghai')).toBe('Asia/Shanghai');
    expect(resolveTimeZone(' UTC ')).toBe('UTC');
    expect(resolveTimeZone('GMT+8')).toBe('GMT+08:00');
    expect(resolveTimeZone('GMT-0830')).toBe('GMT-08:30');
    expect(resolveTimeZone('GMT+00:00')).toBe('GMT');
    expect(resolveTimeZone('default')).toBe(processTimeZone());
    for (const bad of ['Mars/Olympus', 'PST', 'UTC+8', '', 'GMT+25:00']) {
      expect(() => resolveTimeZone(bad), bad).toThrow(/'table.local-time-zone' must be a zone id/);
    }
  });

  it('gives the offsets of the zone rules at random instants', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO }), (zone, instant) => {
        expect(offsetAt(zone, instant)).toBe(modelOffset(zone, instant));
        expect(localOf(instant, zone)).toBe(instant + modelOffset(zone, instant));
      }),
      { numRuns: 2000 },
    );
  });

  it('maps wall-clock times back to instants: the earlier one in an overlap, moved by the gap in a gap', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO }), (zone, wall) => {
        const candidates = [-5, -4, 1, 2, 8, -8].map((h) => wall - h * HOUR).filter((i) => i + modelOffset(zone, i) === wall);
        const instant = instantOf(wall, zone);
        if (candidates.length > 0) expect(instant).toBe(Math.min(...candidates));
        else {
          // A gap of one hour: the wall time is read with the offset before the gap, so it lands an hour later.
          expect(localOf(instant, zone)).toBe(wall + HOUR);
        }
      }),
      { numRuns: 2000 },
    );
    // The transitions themselves, by hand.
    expect(instantOf(Date.UTC(2021, 2, 14, 2, 30), 'America/New_York')).toBe(Date.UTC(2021, 2, 14, 7, 30));
    expect(instantOf(Date.UTC(2021, 10, 7, 1, 30), 'America/New_York')).toBe(Date.UTC(2021, 10, 7, 5, 30));
    expect(instantOf(Date.UTC(2021, 2, 28, 2, 30), 'Europe/Berlin')).toBe(Date.UTC(2021, 2, 28, 1, 30));
    expect(instantOf(Date.UTC(2021, 9, 31, 2, 30), 'Europe/Berlin')).toBe(Date.UTC(2021, 9, 31, 0, 30));
  });

  it('reads instants before 1900 and before year 1 in region zones (local mean time, BC years)', () => {
    // Shanghai's local mean time was +8:05:43 until 1901.
    expect(offsetAt('Asia/Shanghai', Date.UTC(1850, 0, 1))).toBe((8 * 3600 + 5 * 60 + 43) * 1000);
    const bc = Date.UTC(-100, 5, 1);
    expect(localOf(bc, 'GMT-08:00')).toBe(bc - 8 * HOUR);
    expect(instantOf(localOf(bc, 'Europe/Berlin'), 'Europe/Berlin')).toBe(bc);
    // Past JavaScript's last date the offset is the one at the edge, not an error.
    expect(localOf(9e15, 'Asia/Shanghai')).toBe(9e15 + 8 * HOUR);
    expect(localOf(-9e15, 'GMT-08:00')).toBe(-9e15 - 8 * HOUR);
  });
});
