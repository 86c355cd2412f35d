/**
 * BIGINT over the whole signed 64-bit range: compiled arithmetic, comparisons, casts and SUM
 * checked against a model of Java's long (`BigInt.asIntN(64, ...)`) on random values that cluster
 * where the representation changes (±2^53) and where Java wraps (±2^63), and the wrap facts Flink
 * shows. Every value is checked to come back in the normalized form (a number exactly when it is a
 * safe integer).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, isInt64, normalizeInt64, parseInt64 } from '../../src/common/int64.js';
import { formatType } from '../../src/common/sql-type.js';
import { Exprs } from '../../src/expr/scalar-expr.js';
import { call, compiler, evaluate, lit, ref, T } from './expr-test-helpers.js';

const long = (value: bigint): bigint => BigInt.asIntN(64, value);
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Any 64-bit value, with extra weight near 0, ±2^53 and ±2^63. */
const int64 = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: -5n, max: 5n }).chain((d) => fc.constantFrom(SAFE + d, -SAFE + d, INT64_MAX - (d < 0n ? -d : d), INT64_MIN + (d < 0n ? -d : d))),
  fc.bigInt({ min: -(2n ** 32n), max: 2n ** 32n }),
);

const x = ref(0, T.bigint(false));
const y = ref(1, T.bigint(false));

function run(name: string, a: bigint, b?: bigint): unknown {
  const args = b === undefined ? [x] : [x, y];
  return evaluate(call(name, ...args), [normalizeInt64(a), ...(b === undefined ? [] : [normalizeInt64(b)])]);
}

function expectLong(actual: unknown, expected: bigint): void {
  expect(isInt64(actual)).toBe(true);
  expect(BigInt(actual as number | bigint)).toBe(expected);
  expect(typeof actual).toBe(expected >= -SAFE && expected <= SAFE ? 'number' : 'bigint');
}

describe('BIGINT arithmetic against a 64-bit model', () => {
  it('+, -, *, NEGATE and ABS equal Java long arithmetic, in normalized form', () => {
    fc.assert(
      fc.property(int64, int64, (a, b) => {
        expectLong(run('+', a, b), long(a + b));
        expectLong(run('-', a, b), long(a - b));
        expectLong(run('*', a, b), long(a * b));
        expectLong(run('NEGATE', a), long(-a));
        expectLong(run('ABS', a), long(a < 0n ? -a : a));
      }),
      { numRuns: 2000 },
    );
  });

  it('/ truncates and MOD keeps the dividend sign, as Java', () => {
    fc.assert(
      fc.property(int64, int64.filter((b) => b !== 0n), (a, b) => {
        expectLong(run('/', a, b), long(a / b));
        expectLong(run('MOD', a, b), a % b);
      }),
      { numRuns: 2000 },
    );
  });

  it('compares across the two forms as the values order', () => {
    fc.assert(
      fc.property(int64, int64, (a, b) => {
        expect(run('<', a, b)).toBe(a < b);
        expect(run('=', a, b)).toBe(a === b);
        expect(run('>=', a, b)).toBe(a >= b);
      }),
      { numRuns: 2000 },
    );
  });

  it('casts to DECIMAL, STRING and DOUBLE and back exactly', () => {
    fc.assert(
      fc.property(int64, (a) => {
        const value = normalizeInt64(a);
        expect(evaluate(Exprs.cast(x, T.decimal(19, 0, false)), [value])).toBe(a);
        const text = evaluate(Exprs.cast(x, T.string(false)), [value]);
        expect(text).toBe(a.toString());
        expectLong(evaluate(Exprs.cast(ref(0, T.string(false)), T.bigint(false)), [text]), a);
        expectLong(evaluate(Exprs.cast(ref(0, T.decimal(19, 0, false)), T.bigint(false)), [a]), a);
        expect(evaluate(Exprs.cast(x, T.double(false)), [value])).toBe(Number(a));
      }),
      { numRuns: 1000 },
    );
  });

  it('parses integer text exactly, refusing text beyond 64 bits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (a) => {
        const parsed = parseInt64(` ${a} `);
        if (a < INT64_MIN || a > INT64_MAX) expect(parsed).toBeUndefined();
        else expectLong(parsed, a);
      }),
    );
  });
});

describe('BIGINT wrap facts (as Flink computes them)', () => {
  it('wraps at the bounds of a Java long', () => {
    const max = lit.of(9223372036854775807n, T.bigint(false));
    const min = lit.of(-9223372036854775808n, T.bigint(false));
    const one = lit.int(1);
    expect(evaluate(call('+', max, one))).toBe(-9223372036854775808n);
    expect(evaluate(call('-', min, one))).toBe(9223372036854775807n);
    expect(evaluate(call('*', max, lit.int(2)))).toBe(-2);
    expect(evaluate(call('*', min, lit.int(-1)))).toBe(-9223372036854775808n);
    expect(evaluate(call('/', min, lit.int(-1)))).toBe(-9223372036854775808n);
    expect(evaluate(call('NEGATE', min))).toBe(-9223372036854775808n);
    expect(evaluate(call('ABS', min))).toBe(-9223372036854775808n);
    expect(evaluate(call('MOD', min, lit.int(-1)))).toBe(0);
  });

  it('keeps the type BIGINT and the safe part as numbers', () => {
    expect(formatType(call('+', x, lit.int(1)).type)).toBe('BIGINT NOT NULL');
    expect(evaluate(call('+', x, lit.int(-2)), [9007199254740993n])).toBe(9007199254740991);
    expect(evaluate(call('-', x, y), [8821808526777993777n, 8821808526777993770n])).toBe(7);
  });

  it('hands a BIGINT beyond 2^53 to functions of doubles and of positions as a double (Java widening), never a bigint', () => {
    expect(evaluate(call('POWER', x, lit.int(2)), [2n ** 62n])).toBe(2 ** 124);
    expect(evaluate(call('SQRT', x), [2n ** 62n])).toBe(2 ** 31);
    expect(evaluate(call('SUBSTRING', lit.str('abc'), x), [9007199254740993n])).toBe('');
    expect(evaluate(call('BIN', x), [-9223372036854775808n])).toBe('1' + '0'.repeat(63));
    expect(evaluate(call('HEX', x), [8821808526777993777n])).toBe(8821808526777993777n.toString(16).toUpperCase());
    expect(evaluate(call('SIGN', x), [-9007199254740993n])).toBe(-1);
  });

  it('groups bigint keys by value: one IN set, one Map entry per value', () => {
    const inList = compiler.predicate(Exprs.call('IN', [x, lit.of(8821808526777993777n, T.bigint(false)), lit.of(3, T.bigint(false))], T.boolean(false)));
    expect([8821808526777993777n, 3, 8821808526777993776n].map((v) => inList([v]))).toEqual([true, true, false]);
  });
});
