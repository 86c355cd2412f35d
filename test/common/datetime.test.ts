import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addMonthsToDays,
  addMonthsToMillis,
  civilFromDays,
  daysFromCivil,
  floorDiv,
  floorMod,
  formatDate,
  formatTimeOfDay,
  formatTimestamp,
  isoDayOfWeek,
  parseDate,
  parseTime,
  parseTimestamp,
  truncateMillis,
} from '../../src/common/datetime.js';

const day = (text: string): number => Date.UTC(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10))) / 86_400_000;

describe('calendar arithmetic', () => {
  it('agrees with Date.UTC over a wide range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (days) => {
        const { year, month, day: d } = civilFromDays(days);
        const date = new Date(days * 86_400_000);
        expect([year, month, d]).toEqual([date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]);
        expect(daysFromCivil(year, month, d)).toBe(days);
      }),
    );
  });

  it('floors toward negative infinity', () => {
    expect(floorDiv(-1, 86_400_000)).toBe(-1);
    expect(floorMod(-1, 86_400_000)).toBe(86_399_999);
    expect(Object.is(floorMod(-86_400_000, 86_400_000), 0)).toBe(true);
    expect(floorDiv(7, 2)).toBe(3);
  });

  it('adds months clamping to the end of the month', () => {
    expect(formatDate(addMonthsToDays(day('2020-01-31'), 1))).toBe('2020-02-29');
    expect(formatDate(addMonthsToDays(day('2021-01-31'), 1))).toBe('2021-02-28');
    expect(formatDate(addMonthsToDays(day('2020-03-15'), -14))).toBe('2019-01-15');
    expect(formatTimestamp(addMonthsToMillis(Date.UTC(2020, 0, 31, 10, 30), 13), 3)).toBe('2021-02-28 10:30:00.000');
  });

  it('numbers ISO weekdays from Monday', () => {
    expect(isoDayOfWeek(day('2024-01-01'))).toBe(1);
    expect(isoDayOfWeek(day('2024-01-07'))).toBe(7);
    expect(isoDayOfWeek(0)).toBe(4);
  });
});

describe('formatting', () => {
  it('renders dates, times and timestamps with the requested fraction digits', () => {
    expect(formatDate(day('2020-01-01'))).toBe('2020-01-01');
    expect(formatTimeOfDay(43_200_000, 0)).toBe('12:00:00');
    expect(formatTimeOfDay(43_200_123, 3)).toBe('12:00:00.123');
    expect(formatTimeOfDay(43_200_123, 1)).toBe('12:00:00.1');
    expect(formatTimeOfDay(43_200_123, 6)).toBe('12:00:00.123000');
    expect(formatTimestamp(Date.UTC(2020, 0, 1, 12), 3)).toBe('2020-01-01 12:00:00.000');
    expect(formatTimestamp(-1, 3)).toBe('1969-12-31 23:59:59.999');
  });

  it('truncates to a precision', () => {
    expect(truncateMillis(1234, 0)).toBe(1000);
    expect(truncateMillis(1234, 2)).toBe(1230);
    expect(truncateMillis(-1, 0)).toBe(-1000);
    expect(truncateMillis(1234, 3)).toBe(1234);
  });
});

describe('parsing', () => {
  it('parses dates and rejects invalid ones', () => {
    expect(parseDate('2020-02-29')).toBe(day('2020-02-29'));
    expect(parseDate(' 2020-1-5 ')).toBe(day('2020-01-05'));
    expect(parseDate('2021-02-29')).toBeUndefined();
    expect(parseDate('2020-13-01')).toBeUndefined();
    expect(parseDate('20200101')).toBeUndefined();
  });

  it('parses times to milliseconds of the day', () => {
    expect(parseTime('12:34:56.789')).toBe(((12 * 60 + 34) * 60 + 56) * 1000 + 789);
    expect(parseTime('12:34')).toBe((12 * 60 + 34) * 60_000);
    expect(parseTime('12:00:00.5')).toBe(43_200_500);
    expect(parseTime('24:00:00')).toBeUndefined();
  });

  it('parses timestamps with a space or T, fraction digits past milliseconds dropped', () => {
    expect(parseTimestamp('2020-01-01 12:00:00')).toBe(Date.UTC(2020, 0, 1, 12));
    expect(parseTimestamp('2020-01-01T12:00:00.123456')).toBe(Date.UTC(2020, 0, 1, 12, 0, 0, 123));
    expect(parseTimestamp('2020-01-01')).toBe(Date.UTC(2020, 0, 1));
    expect(parseTimestamp('2020-01-01 25:00:00')).toBeUndefined();
    expect(parseTimestamp('yesterday')).toBeUndefined();
  });
});
