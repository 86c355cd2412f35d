import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal, rescaleDecimal } from '../../src/common/decimal.js';
import { WeirError } from '../../src/common/errors.js';
import { formatType } from '../../src/common/sql-type.js';
import { formatValue } from '../../src/common/value-format.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

const error = (code: WeirError['code'], message: string) => new WeirError(code, message);

describe('integer arithmetic', () => {
  it('keeps the widest integer type', () => {
    expect(formatType(call('+', lit.int(1), lit.int(2)).type)).toBe('INT NOT NULL');
    expect(formatType(call('*', lit.int(1), ref(0, T.bigint())).type)).toBe('BIGINT');
    expect(evalCall('+', lit.int(1), lit.bigint(2))).toBe(3);
  });

  it('computes BIGINT results beyond the safe integers exactly, as bigints, and back to numbers inside them', () => {
    const x = ref(0, T.bigint(false));
    expect(evaluate(call('+', x, lit.int(1)), [9007199254740991])).toBe(9007199254740992n);
    expect(evaluate(call('*', x, lit.int(3)), [4000000000000000])).toBe(12000000000000000n);
    expect(evaluate(call('-', x, lit.int(2)), [-9007199254740990])).toBe(-9007199254740992n);
    expect(evaluate(call('-', x, lit.int(2)), [9007199254740993n])).toBe(9007199254740991);
    expect(evaluate(call('+', x, lit.int(-1)), [9007199254740991])).toBe(9007199254740990);
  });

  it('wraps BIGINT results around 64 bits as Java does', () => {
    const x = ref(0, T.bigint(false));
    expect(evaluate(call('+', x, lit.int(1)), [9223372036854775807n])).toBe(-9223372036854775808n);
    expect(evaluate(call('-', x, lit.int(1)), [-9223372036854775808n])).toBe(9223372036854775807n);
    expect(evaluate(call('NEGATE', x), [-9223372036854775808n])).toBe(-9223372036854775808n);
    expect(evaluate(call('/', x, lit.int(-1)), [-9223372036854775808n])).toBe(-9223372036854775808n);
    expect(evaluate(call('*', x, x), [4294967296])).toBe(0);
    expect(evaluate(call('MOD', x, lit.int(10)), [9223372036854775807n])).toBe(7);
    expect(evaluate(call('ABS', x), [-9223372036854775808n])).toBe(-9223372036854775808n);
    expect(evaluate(call('ABS', x), [-9007199254740993n])).toBe(9007199254740993n);
  });

  it('wraps TINYINT, SMALLINT and INT results around as Java does', () => {
    const x = ref(0, T.int(false));
    expect(evaluate(call('+', x, lit.int(1)), [2147483647])).toBe(-2147483648);
    expect(evaluate(call('NEGATE', x), [-2147483648])).toBe(-2147483648);
    expect(evaluate(call('/', x, lit.int(-1)), [-2147483648])).toBe(-2147483648);
    expect(evaluate(call('*', x, x), [2147483647])).toBe(1);
    expect(evaluate(call('*', x, x), [46341])).toBe(-2147479015);
    expect(evaluate(call('*', ref(0, T.smallint(false)), ref(0, T.smallint(false))), [300])).toBe(24464);
    expect(evaluate(call('-', ref(0, T.tinyint(false)), ref(0, T.tinyint(false))), [-128])).toBe(0);
    expect(evaluate(call('+', ref(0, T.tinyint(false)), ref(1, T.tinyint(false))), [-128, -1])).toBe(127);
  });

  it('divides truncating toward zero and takes the remainder with the dividend sign, like Java', () => {
    expect(evalCall('/', lit.int(7), lit.int(2))).toBe(3);
    expect(evalCall('/', lit.int(-7), lit.int(2))).toBe(-3);
    expect(evalCall('MOD', lit.int(-7), lit.int(3))).toBe(-1);
    expect(evalCall('%', lit.int(7), lit.int(-3))).toBe(1);
    expect(evalCall('/', lit.bigint(9007199254740991), lit.int(2))).toBe(4503599627370495);
    expect(Object.is(evalCall('/', lit.int(0), lit.int(-5)), 0)).toBe(true);
  });

  it('fails on a zero integer divisor', () => {
    expect(() => evaluate(call('/', ref(0, T.int(false)), lit.int(0)), [5])).toThrowError(error('EXECUTION_ERROR', 'division by zero in 5 / 0'));
    expect(() => evaluate(call('MOD', ref(0, T.int(false)), lit.int(0)), [5])).toThrowError(error('EXECUTION_ERROR', 'division by zero in MOD(5, 0)'));
  });

  it('gives MOD of integers the type of the divisor (Nexmark q2: MOD(auction, 123) = 0)', () => {
    const mod = call('MOD', ref(0, T.bigint(false)), lit.int(123));
    expect(formatType(mod.type)).toBe('INT NOT NULL');
    const q2 = compiler.predicate(call('=', mod, lit.int(0)));
    expect([1000, 1107, 1230].map((a) => q2([a]))).toEqual([false, true, true]);
  });

  it('computes MOD by a constant divisor inline, with the sign of the dividend and no -0', () => {
    const mod = compiler.scalar(call('MOD', ref(0, T.bigint()), lit.int(123)));
    expect(compiler.scalarSource(call('MOD', ref(0, T.bigint()), lit.int(123))).source).toContain('% 123 + 0');
    expect(compiler.scalarSource(call('MOD', ref(0, T.int()), lit.int(123))).source).not.toContain('integerMod');
    expect([1107, 1108, -1108, null, 9007199254740993n].map((a) => mod([a]))).toEqual([0, 1, -1, null, 9007199254740993n % 123n === 0n ? 0 : Number(9007199254740993n % 123n)]);
    expect(Object.is(mod([-246]), 0)).toBe(true);
  });

  it('propagates NULL', () => {
    expect(evalCall('+', lit.int(1), NULL(T.int()))).toBe(null);
    expect(evalCall('NEGATE', NULL(T.null()))).toBe(null);
  });
});

describe('DECIMAL arithmetic', () => {
  it('computes 0.908 * price exactly as DECIMAL(24, 3) (Nexmark q1)', () => {
    const expr = call('*', lit.dec('0.908'), ref(0, T.bigint(false)));
    expect(formatType(expr.type)).toBe('DECIMAL(24, 3) NOT NULL');
    expect(formatValue(evaluate(expr, [12345]), expr.type)).toBe('11209.260');
    expect(formatValue(evaluate(expr, [9007199254740991]), expr.type)).toBe('8178536923304819.828');
    // The exact product always fits DECIMAL(24, 3): a plain BigInt product, no helper.
    expect(compiler.scalarSource(expr).source).not.toContain('decimalMultiply');
    expect(compiler.scalarSource(call('*', ref(0, T.decimal(20, 10, false)), ref(1, T.decimal(20, 10, false)))).source).toContain('decimalMultiply');
  });

  it('adds with the larger scale and divides with Flink scale', () => {
    const sum = call('+', lit.dec('1.25'), lit.dec('10.5'));
    expect(formatType(sum.type)).toBe('DECIMAL(5, 2) NOT NULL');
    expect(formatValue(evaluate(sum), sum.type)).toBe('11.75');
    const quotient = call('/', lit.dec('1.00'), lit.int(3));
    expect(formatType(quotient.type)).toBe('DECIMAL(14, 13) NOT NULL');
    expect(formatValue(evaluate(quotient), quotient.type)).toBe('0.3333333333333');
    const twoThirds = call('/', lit.dec('2'), lit.dec('3'));
    expect(formatValue(evaluate(twoThirds), twoThirds.type)).toBe('0.666667');
  });

  it('rounds HALF_UP when the result scale is reduced', () => {
    const expr = call('*', ref(0, T.decimal(20, 10, false)), ref(1, T.decimal(20, 10, false)));
    expect(formatType(expr.type)).toBe('DECIMAL(38, 17) NOT NULL');
    expect(formatValue(evaluate(expr, [15n, 50n]), expr.type)).toBe('0.00000000000000001');
  });

  it('gives NULL on precision overflow (as Flink, keeping the type) and fails on a zero divisor', () => {
    const x = ref(0, T.decimal(38, 0, false));
    const sum = call('+', x, x);
    expect(formatType(sum.type)).toBe('DECIMAL(38, 0) NOT NULL');
    expect(evaluate(sum, [10n ** 37n * 9n])).toBeNull();
    expect(evaluate(call('IS NULL', sum), [10n ** 37n * 9n])).toBe(true);
    expect(() => evaluate(call('/', lit.dec('1.5'), ref(0, T.decimal(3, 1, false))), [0n])).toThrowError(error('EXECUTION_ERROR', 'division by zero in 1.5 / 0.0'));
  });

  it('takes remainders and negates', () => {
    expect(formatValue(evalCall('MOD', lit.dec('-7.5'), lit.int(2)), T.decimal(3, 1))).toBe('-1.5');
    expect(evalCall('NEGATE', lit.dec('1.5'))).toBe(-15n);
  });

  const decimals = fc.tuple(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), fc.integer({ min: 0, max: 6 }));

  it('adds exactly (property: against bigint arithmetic at the common scale)', () => {
    fc.assert(
      fc.property(decimals, decimals, ([a, sa], [b, sb]) => {
        const expr = call('+', ref(0, T.decimal(18, sa, false)), ref(1, T.decimal(18, sb, false)));
        const scale = Math.max(sa, sb);
        const expected = rescaleDecimal(a, sa, scale) + rescaleDecimal(b, sb, scale);
        expect(evaluate(expr, [a, b])).toBe(expected);
      }),
    );
  });

  it('multiplies exactly (property: against bigint arithmetic, rendered with the result scale)', () => {
    fc.assert(
      fc.property(decimals, decimals, ([a, sa], [b, sb]) => {
        const expr = call('*', ref(0, T.decimal(18, sa, false)), ref(1, T.decimal(18, sb, false)));
        expect(formatValue(evaluate(expr, [a, b]), expr.type)).toBe(formatDecimal(a * b, sa + sb));
      }),
    );
  });
});

describe('approximate arithmetic', () => {
  it('makes anything with a DOUBLE a DOUBLE', () => {
    const expr = call('*', lit.dec('0.5'), lit.double(3));
    expect(formatType(expr.type)).toBe('DOUBLE NOT NULL');
    expect(evaluate(expr)).toBe(1.5);
    expect(evalCall('/', lit.double(1), lit.int(0))).toBe(Number.POSITIVE_INFINITY);
    expect(evalCall('MOD', lit.double(7.5), lit.int(2))).toBe(1.5);
  });

  it('rounds FLOAT results to single precision', () => {
    const expr = call('+', ref(0, T.float(false)), ref(0, T.float(false)));
    expect(evaluate(expr, [Math.fround(0.1)])).toBe(Math.fround(Math.fround(0.1) * 2));
  });
});

describe('temporal arithmetic', () => {
  const ts = Date.UTC(2020, 0, 31, 10, 0, 0);
  it('moves timestamps by day-time intervals in milliseconds', () => {
    const plus = call('+', ref(0, T.timestamp(3, false)), lit.of(4000, T.intervalDayTime(false)));
    expect(formatType(plus.type)).toBe('TIMESTAMP(3) NOT NULL');
    expect(evaluate(plus, [ts])).toBe(ts + 4000);
    expect(evaluate(call('-', ref(0, T.timestamp(3, false)), lit.of(10_000, T.intervalDayTime(false))), [ts])).toBe(ts - 10_000);
    expect(evaluate(call('+', lit.of(1000, T.intervalDayTime(false)), ref(0, T.timestamp(3, false))), [ts])).toBe(ts + 1000);
  });

  it('drops the time attribute from the result', () => {
    const rowtime = { kind: 'TIMESTAMP', nullable: false, precision: 3, timeAttribute: 'rowtime' } as const;
    expect(call('-', ref(0, rowtime), lit.of(1000, T.intervalDayTime(false))).type).toEqual(T.timestamp(3, false));
  });

  it('moves by calendar months, clamping the day', () => {
    const expr = call('+', ref(0, T.timestamp(3, false)), lit.of(1, T.intervalYearMonth(false)));
    expect(formatValue(evaluate(expr, [ts]), expr.type)).toBe('2020-02-29 10:00:00.000');
    const date = call('-', ref(0, T.date(false)), lit.of(12, T.intervalYearMonth(false)));
    expect(formatValue(evaluate(date, [18262]), date.type)).toBe('2019-01-01');
  });

  it('moves dates by whole days and adds intervals', () => {
    const date = call('+', ref(0, T.date(false)), lit.of(2 * 86_400_000, T.intervalDayTime(false)));
    expect(formatType(date.type)).toBe('DATE NOT NULL');
    expect(evaluate(date, [18262])).toBe(18264);
    expect(evalCall('+', lit.of(1000, T.intervalDayTime(false)), lit.of(500, T.intervalDayTime(false)))).toBe(1500);
    expect(evalCall('*', lit.of(1000, T.intervalDayTime(false)), lit.int(3))).toBe(3000);
  });
});
