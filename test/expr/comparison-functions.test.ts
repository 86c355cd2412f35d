import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

describe('comparisons', () => {
  it('compares numbers of different types through their common type', () => {
    expect(evalCall('<', lit.int(1), lit.bigint(2))).toBe(true);
    expect(evalCall('=', lit.int(2), lit.dec('2.00'))).toBe(true);
    expect(evalCall('>', lit.dec('0.5'), lit.dec('0.49'))).toBe(true);
    expect(evalCall('<=', lit.double(0.5), lit.dec('0.5'))).toBe(true);
    expect(evalCall('<>', lit.int(3), lit.double(3))).toBe(false);
    expect(evaluate(call('>=', ref(0, T.decimal(23, 3)), lit.int(1000000)), [1000000000n])).toBe(true);
  });

  it('compares strings by UTF-16 code unit, as Java compareTo', () => {
    expect(evalCall('<', lit.str('Z'), lit.str('a'))).toBe(true);
    expect(evalCall('<', lit.str('abc'), lit.str('abd'))).toBe(true);
    expect(evalCall('<', lit.str('ab'), lit.str('abc'))).toBe(true);
    expect(evalCall('<', lit.str('\u{1F600}'), lit.str('\uFFFF'))).toBe(true);
    expect(evaluate(call('=', lit.str('apple'), ref(0, T.string())), [null])).toBe(null);
    expect(evaluate(call('=', ref(0, T.string()), lit.str('apple')), ['apple'])).toBe(true);
  });

  it('orders booleans FALSE < TRUE and temporal values by time', () => {
    expect(evalCall('<', lit.bool(false), lit.bool(true))).toBe(true);
    expect(evalCall('>', lit.of(18263, T.date(false)), lit.of(18262, T.date(false)))).toBe(true);
    expect(evalCall('<', lit.of(1000, T.timestamp(3, false)), lit.of(2000, T.timestamp(3, false)))).toBe(true);
  });

  it('casts a string compared with a number or a date', () => {
    expect(evalCall('<', lit.str('10'), lit.int(11))).toBe(true);
    expect(evalCall('IS NOT DISTINCT FROM', lit.str('10'), lit.int(10))).toBe(true);
    expect(evalCall('<', lit.of(18262, T.date(false)), lit.str('2020-01-02'))).toBe(true);
    expect(() => evalCall('<', lit.str('ten'), lit.int(10))).toThrow("cannot cast 'ten' to INT");
  });

  it('refuses = and <> between a string and a number, as Flink does', () => {
    expect(() => call('=', lit.str('10'), lit.int(10))).toThrow('implicit type conversion between CHAR and INTEGER is not supported now');
    expect(() => call('<>', lit.dec('1.5'), lit.str('1.5'))).toThrow('implicit type conversion between DECIMAL and CHAR is not supported now');
  });

  it('is NULL when either side is NULL', () => {
    for (const op of ['=', '<>', '<', '<=', '>', '>=']) {
      expect(evalCall(op, lit.int(1), NULL(T.int()))).toBe(null);
      expect(evalCall(op, NULL(T.null()), lit.int(1))).toBe(null);
    }
  });

  it('compares structured values for equality only', () => {
    const array = T.array(T.int());
    expect(evaluate(call('=', ref(0, array), ref(1, array)), [[1, null], [1, null]])).toBe(true);
    expect(evaluate(call('<>', ref(0, array), ref(1, array)), [[1, 2], [1, 3]])).toBe(true);
    expect(() => call('<', ref(0, array), ref(1, array))).toThrow(WeirError);
  });

  it('rejects incomparable types with a message naming the operator', () => {
    expect(() => call('=', lit.bool(true), lit.int(1))).toThrow('cannot apply = to (BOOLEAN, INT); supported: =(ANY, ANY)');
  });
});

describe('IS [NOT] DISTINCT FROM', () => {
  const cases: readonly [number | null, number | null, boolean][] = [
    [1, 1, false],
    [1, 2, true],
    [1, null, true],
    [null, 1, true],
    [null, null, false],
  ];
  it.each(cases)('%s IS DISTINCT FROM %s = %s', (a, b, distinct) => {
    const row = [a, b];
    const x = ref(0, T.int());
    const y = ref(1, T.int());
    expect(evaluate(call('IS DISTINCT FROM', x, y), row)).toBe(distinct);
    expect(evaluate(call('IS NOT DISTINCT FROM', x, y), row)).toBe(!distinct);
  });
});

describe('IN', () => {
  const x = ref(0, T.string());
  const list = ['apple', 'google', 'facebook', 'baidu'].map(lit.str);

  it('matches against a constant list with one Set lookup', () => {
    const expr = call('IN', x, ...list);
    expect(compiler.scalarSource(expr).source).toContain('.has(c0)');
    expect(evaluate(expr, ['google'])).toBe(true);
    expect(evaluate(expr, ['bing'])).toBe(false);
    expect(evaluate(expr, [null])).toBe(null);
  });

  it('is NULL rather than FALSE when the list holds a NULL', () => {
    const expr = call('IN', ref(0, T.int()), lit.int(1), NULL(T.int()));
    expect(evaluate(expr, [1])).toBe(true);
    expect(evaluate(expr, [2])).toBe(null);
  });

  it('works with non-constant elements and mixed numeric types', () => {
    const expr = call('IN', ref(0, T.int()), ref(1, T.bigint()), lit.dec('2.0'));
    expect(evaluate(expr, [2, 5])).toBe(true);
    expect(evaluate(expr, [5, 5])).toBe(true);
    expect(evaluate(expr, [3, 5])).toBe(false);
    expect(evaluate(expr, [3, null])).toBe(null);
  });

  it('accepts DECIMAL values in a constant set', () => {
    expect(evaluate(call('IN', ref(0, T.decimal(5, 2)), lit.dec('1.50'), lit.dec('2.5')), [150n])).toBe(true);
  });

  it('is resolved as a BOOLEAN nullable only when something is', () => {
    expect(call('IN', lit.int(1), lit.int(2)).type).toEqual(T.boolean(false));
    expect(call('IN', ref(0, T.int()), lit.int(2)).type).toEqual(T.boolean(true));
  });
});
