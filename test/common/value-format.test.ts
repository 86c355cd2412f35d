import { describe, expect, it } from 'vitest';
import { SqlTypes as T } from '../../src/common/sql-type.js';
import { formatDouble, formatFloat, formatValue } from '../../src/common/value-format.js';

describe('formatDouble (Java Double.toString)', () => {
  it.each([
    [1, '1.0'],
    [0.5, '0.5'],
    [-2.25, '-2.25'],
    [100, '100.0'],
    [1234567, '1234567.0'],
    [1e7, '1.0E7'],
    [12345678.9, '1.23456789E7'],
    [0.001, '0.001'],
    [0.0001, '1.0E-4'],
    [1.234e-5, '1.234E-5'],
    [1e21, '1.0E21'],
    [0.1 + 0.2, '0.30000000000000004'],
    [0, '0.0'],
    [-0, '-0.0'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('%s → %s', (value, text) => {
    expect(formatDouble(value)).toBe(text);
  });

  it('renders FLOAT with the digits of the float', () => {
    expect(formatFloat(Math.fround(0.1))).toBe('0.1');
    expect(formatFloat(Math.fround(1.1))).toBe('1.1');
    expect(formatFloat(Math.fround(3.4e38))).toBe('3.4E38');
    expect(formatFloat(Math.fround(16777217))).toBe('1.6777216E7');
  });
});

describe('formatValue (CAST to STRING)', () => {
  it('renders scalars', () => {
    expect(formatValue(true, T.boolean())).toBe('TRUE');
    expect(formatValue(false, T.boolean())).toBe('FALSE');
    expect(formatValue(42, T.int())).toBe('42');
    expect(formatValue(9007199254740991, T.bigint())).toBe('9007199254740991');
    expect(formatValue(10500n, T.decimal(10, 3))).toBe('10.500');
    expect(formatValue(1e7, T.double())).toBe('1.0E7');
    expect(formatValue('abc', T.string())).toBe('abc');
  });

  it("renders binary strings as Flink prints them, x'..' with lower-case hex, also nested", () => {
    expect(formatValue(Uint8Array.from([0x0a, 0xff]), T.bytes())).toBe("x'0aff'");
    expect(formatValue(new Uint8Array(0), T.binary(1))).toBe("x''");
    expect(formatValue([Uint8Array.from([1]), null], T.array(T.varbinary(2)))).toBe("[x'01', NULL]");
  });

  it('renders temporal values in UTC with the type precision', () => {
    expect(formatValue(18262, T.date())).toBe('2020-01-01');
    expect(formatValue(43_200_000, T.time(0))).toBe('12:00:00');
    expect(formatValue(Date.UTC(2020, 0, 1, 12), T.timestamp(3))).toBe('2020-01-01 12:00:00.000');
    expect(formatValue(Date.UTC(2020, 0, 1, 12), T.timestamp(0))).toBe('2020-01-01 12:00:00');
    expect(formatValue(Date.UTC(2020, 0, 1, 12), T.timestampLtz(3))).toBe('2020-01-01 12:00:00.000');
  });

  it('renders intervals as Flink does', () => {
    expect(formatValue(4000, T.intervalDayTime())).toBe('+0 00:00:04.000');
    expect(formatValue(-(86_400_000 + 2 * 3_600_000), T.intervalDayTime())).toBe('-1 02:00:00.000');
    expect(formatValue(14, T.intervalYearMonth())).toBe('+1-02');
    expect(formatValue(-6, T.intervalYearMonth())).toBe('-0-06');
  });

  it('renders rows, arrays and maps, with nested NULLs as NULL', () => {
    const row = T.row([
      { name: 'a', type: T.int() },
      { name: 'b', type: T.string() },
      { name: 'c', type: T.decimal(3, 1) },
    ]);
    expect(formatValue([1, 'a', null], row)).toBe('(1, a, NULL)');
    expect(formatValue([1, 2, null], T.array(T.int()))).toBe('[1, 2, NULL]');
    expect(formatValue(new Map([['a', 1], ['b', 2]]), T.map(T.string(), T.int()))).toBe('{a=1, b=2}');
    expect(formatValue([[true]], T.array(T.array(T.boolean())))).toBe('[[TRUE]]');
  });

  it('refuses a top-level NULL: callers decide how to show it', () => {
    expect(() => formatValue(null, T.int())).toThrow(/NULL/);
  });
});
