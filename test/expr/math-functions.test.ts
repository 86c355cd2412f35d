import { describe, expect, it } from 'vitest';
import { formatType } from '../../src/common/sql-type.js';
import { formatValue } from '../../src/common/value-format.js';
import { call, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

const show = (name: string, ...args: Parameters<typeof call>[1][]) => {
  const expr = call(name, ...args);
  return `${formatValue(evaluate(expr), expr.type)} ${formatType(expr.type)}`;
};

describe('math functions', () => {
  it('ABS keeps the type and wraps on INT overflow, as Java', () => {
    expect(evalCall('ABS', lit.int(-3))).toBe(3);
    expect(show('ABS', lit.dec('-1.50'))).toBe('1.50 DECIMAL(3, 2) NOT NULL');
    expect(evalCall('ABS', lit.double(-0.5))).toBe(0.5);
    expect(evaluate(call('ABS', ref(0, T.int(false))), [-2147483648])).toBe(-2147483648);
  });

  it('ROUND rounds HALF_UP with Flink result types', () => {
    expect(show('ROUND', lit.dec('2.345'), lit.int(2))).toBe('2.35 DECIMAL(4, 2) NOT NULL');
    expect(show('ROUND', lit.dec('-2.345'), lit.int(2))).toBe('-2.35 DECIMAL(4, 2) NOT NULL');
    expect(show('ROUND', lit.dec('2.5'))).toBe('3 DECIMAL(2, 0) NOT NULL');
    expect(show('ROUND', lit.dec('1234.5'), lit.int(-2))).toBe('1200 DECIMAL(5, 0) NOT NULL');
    expect(show('ROUND', lit.dec('1.5'), lit.int(3))).toBe('1.5 DECIMAL(2, 1) NOT NULL');
    expect(evalCall('ROUND', lit.int(125), lit.int(-1))).toBe(130);
    expect(evalCall('ROUND', lit.int(-125), lit.int(-1))).toBe(-130);
    expect(evalCall('ROUND', lit.double(1.005), lit.int(2))).toBe(1.01);
    expect(evalCall('ROUND', lit.double(-2.5))).toBe(-3);
    expect(evalCall('ROUND', lit.double(1234.5678), lit.int(-2))).toBe(1200);
    expect(evaluate(call('ROUND', ref(0, T.decimal(10, 4)), ref(1, T.int())), [123456n, 2])).toBe(123500n);
  });

  it('FLOOR and CEIL of decimals drop the scale', () => {
    expect(show('FLOOR', lit.dec('-9.5'))).toBe('-10 DECIMAL(2, 0) NOT NULL');
    expect(show('CEIL', lit.dec('9.1'))).toBe('10 DECIMAL(2, 0) NOT NULL');
    expect(show('CEILING', lit.dec('-9.1'))).toBe('-9 DECIMAL(2, 0) NOT NULL');
    expect(evalCall('FLOOR', lit.double(-1.5))).toBe(-2);
    expect(evalCall('FLOOR', lit.int(7))).toBe(7);
  });

  it('computes doubles', () => {
    expect(evalCall('POWER', lit.int(2), lit.int(10))).toBe(1024);
    expect(evalCall('POW', lit.dec('1.5'), lit.int(2))).toBe(2.25);
    expect(evalCall('SQRT', lit.int(16))).toBe(4);
    expect(evalCall('SQRT', lit.int(-1))).toBeNaN();
    expect(evalCall('LN', lit.double(Math.E))).toBe(1);
    expect(evalCall('LOG10', lit.int(1000))).toBe(3);
    expect(evalCall('LOG', lit.int(2), lit.int(8))).toBeCloseTo(3);
    expect(evalCall('SIGN', lit.dec('-0.5'))).toBe(-10n);
    expect(evalCall('SIGN', lit.int(0))).toBe(0);
    expect(evalCall('PI')).toBe(Math.PI);
    expect(evalCall('SQRT', NULL(T.double()))).toBe(null);
  });

  it('RAND is not deterministic and never reused', () => {
    const rand = call('RAND');
    const values = evaluate(call('ARRAY', rand, rand)) as number[];
    expect(values[0]).not.toBe(values[1]);
  });
});
