import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { SqlTypes as T, type SqlType } from '../../src/common/sql-type.js';
import { Exprs } from '../../src/expr/scalar-expr.js';
import { compiler, evaluate, lit, ref } from './expr-test-helpers.js';

/** CAST of column 0 (of type `from`) to `to`, evaluated for `value`. */
const cast = (value: unknown, from: SqlType, to: SqlType, tryCast = false): unknown => evaluate(Exprs.cast(ref(0, from), to, tryCast), [value]);

describe('CAST from strings', () => {
  it('parses integers (trimmed, fraction truncated) and fails with the value', () => {
    expect(cast(' 42 ', T.string(), T.int())).toBe(42);
    expect(cast('-7.9', T.string(), T.int())).toBe(-7);
    expect(cast('+12', T.string(), T.bigint())).toBe(12);
    expect(() => cast('abc', T.string(), T.int())).toThrowError(new WeirError('EXECUTION_ERROR', "cannot cast 'abc' to INT"));
    expect(() => cast('3000000000', T.string(), T.int())).toThrowError(new WeirError('ARITHMETIC_OVERFLOW', "INT overflow in CAST('3000000000' AS INT)"));
    expect(cast('9007199254740993', T.string(), T.bigint())).toBe(9007199254740993n);
    expect(cast(' -9223372036854775808 ', T.string(), T.bigint())).toBe(-9223372036854775808n);
    expect(cast('9007199254740991', T.string(), T.bigint())).toBe(9007199254740991);
    expect(() => cast('9223372036854775808', T.string(), T.bigint())).toThrowError(new WeirError('ARITHMETIC_OVERFLOW', "BIGINT overflow in CAST('9223372036854775808' AS BIGINT)"));
  });

  it('parses doubles, decimals and booleans', () => {
    expect(cast('1e3', T.string(), T.double())).toBe(1000);
    expect(cast('-Infinity', T.string(), T.double())).toBe(Number.NEGATIVE_INFINITY);
    expect(cast('1.005', T.string(), T.decimal(3, 2))).toBe(101n);
    expect(cast('-0.125', T.string(), T.decimal(5, 2))).toBe(-13n);
    // Text that does not fit the precision is NULL, as a number that does not fit; text that is no number is an error.
    expect(cast('123.45', T.string(), T.decimal(4, 2))).toBeNull();
    expect(() => cast('12a', T.string(), T.decimal(4, 2))).toThrowError(new WeirError('EXECUTION_ERROR', "cannot cast '12a' to DECIMAL(4, 2)"));
    expect(cast(' YES ', T.string(), T.boolean())).toBe(true);
    expect(cast('0', T.string(), T.boolean())).toBe(false);
    expect(() => cast('maybe', T.string(), T.boolean())).toThrow("cannot cast 'maybe' to BOOLEAN");
  });

  it('parses dates, times and timestamps', () => {
    expect(cast('2020-01-01', T.string(), T.date())).toBe(18262);
    expect(cast('12:30:00', T.string(), T.time())).toBe(45_000_000);
    expect(cast('2020-01-01 00:00:01.999', T.string(), T.timestamp(3))).toBe(Date.UTC(2020, 0, 1, 0, 0, 1, 999));
    expect(cast('2020-01-01 00:00:01.999', T.string(), T.timestamp(0))).toBe(Date.UTC(2020, 0, 1, 0, 0, 1));
    expect(() => cast('2020-02-30', T.string(), T.date())).toThrow("cannot cast '2020-02-30' to DATE");
  });
});

describe('CAST between numbers', () => {
  it('truncates toward zero into integers, narrowing as Java casts do', () => {
    expect(cast(2.9, T.double(), T.int())).toBe(2);
    expect(cast(-2.9, T.double(), T.int())).toBe(-2);
    expect(cast(-199n, T.decimal(5, 2), T.int())).toBe(-1);
    expect(cast(3e9, T.double(), T.int())).toBe(2147483647);
    expect(cast(-3e9, T.double(), T.smallint())).toBe(0);
    expect(cast(40000.5, T.double(), T.smallint())).toBe(-25536);
    expect(cast(Number.NaN, T.double(), T.bigint())).toBe(0);
    expect(cast(1e300, T.double(), T.bigint())).toBe(9223372036854775807n);
    expect(cast(-1e300, T.double(), T.bigint())).toBe(-9223372036854775808n);
    expect(cast(2 ** 60, T.double(), T.bigint())).toBe(2n ** 60n);
    expect(cast(9223372036854775807n, T.bigint(), T.int())).toBe(-1);
    expect(cast(9007199254740993n, T.bigint(), T.double())).toBe(9007199254740992);
    expect(cast(-9223372036854775808n, T.bigint(), T.decimal(19, 0))).toBe(-9223372036854775808n);
    expect(cast(12345678901234567890123n, T.decimal(23, 0), T.bigint())).toBe(BigInt.asIntN(64, 12345678901234567890123n));
    expect(cast(-9223372036854775807n, T.bigint(), T.string())).toBe('-9223372036854775807');
    expect(cast(300, T.int(), T.tinyint())).toBe(44);
    expect(cast(3000000000, T.bigint(), T.int())).toBe(-1294967296);
    expect(cast(3000000012n, T.decimal(12, 2), T.tinyint())).toBe(-128);
    expect(cast(5, T.int(), T.bigint())).toBe(5);
  });

  it('rounds into DECIMAL HALF_UP, NULL when the precision is exceeded', () => {
    expect(cast(0.125, T.double(), T.decimal(5, 2))).toBe(13n);
    expect(cast(12345n, T.decimal(10, 3), T.decimal(10, 1))).toBe(123n);
    expect(cast(12355n, T.decimal(10, 3), T.decimal(10, 2))).toBe(1236n);
    expect(cast(7, T.int(), T.decimal(5, 2))).toBe(700n);
    expect(cast(1000, T.int(), T.decimal(5, 2))).toBeNull();
    expect(cast(99995n, T.decimal(5, 3), T.decimal(4, 2))).toBeNull();
    expect(cast(Number.NaN, T.double(), T.decimal(4, 2))).toBeNull();
    expect(cast(true, T.boolean(), T.decimal(3, 1))).toBe(10n);
  });

  it('converts to doubles and booleans', () => {
    expect(cast(15n, T.decimal(3, 1), T.double())).toBe(1.5);
    expect(cast(16777217, T.int(), T.float())).toBe(16777216);
    expect(cast(2, T.int(), T.boolean())).toBe(true);
    expect(cast(0n, T.decimal(3, 1), T.boolean())).toBe(false);
    expect(cast(true, T.boolean(), T.int())).toBe(1);
  });
});

describe('CAST to strings and between temporal types', () => {
  it('renders values as Flink and applies CHAR/VARCHAR lengths', () => {
    expect(cast(1e7, T.double(), T.string())).toBe('1.0E7');
    expect(cast(10500n, T.decimal(10, 3), T.string())).toBe('10.500');
    expect(cast(true, T.boolean(), T.string())).toBe('TRUE');
    expect(cast(Date.UTC(2020, 0, 1), T.timestamp(3), T.string())).toBe('2020-01-01 00:00:00.000');
    expect(cast('abcdef', T.string(), T.varchar(3))).toBe('abc');
    expect(cast('ab', T.string(), T.char(4))).toBe('ab  ');
    expect(cast(12345, T.int(), T.varchar(3))).toBe('123');
  });

  it('moves between dates, times and timestamps', () => {
    const at = Date.UTC(2020, 0, 2, 3, 4, 5, 678);
    expect(cast(at, T.timestamp(3), T.date())).toBe(18263);
    expect(cast(at, T.timestamp(3), T.time(0))).toBe((3 * 3600 + 4 * 60 + 5) * 1000);
    expect(cast(18263, T.date(), T.timestamp(3))).toBe(Date.UTC(2020, 0, 2));
    expect(cast(at, T.timestamp(3), T.timestampLtz(3))).toBe(at);
    expect(cast(-1, T.timestamp(3), T.date())).toBe(-1);
  });

  it('casts structured values element-wise', () => {
    const from = T.row([{ name: 'a', type: T.int() }, { name: 'b', type: T.string() }]);
    const to = T.row([{ name: 'a', type: T.string() }, { name: 'b', type: T.int() }]);
    expect(cast([1, '2'], from, to)).toEqual(['1', 2]);
    expect(cast([1, null], T.array(T.int()), T.array(T.string()))).toEqual(['1', null]);
  });

  it('refuses casts that are not allowed when compiling', () => {
    expect(() => compiler.scalar(Exprs.cast(ref(0, T.date()), T.int()))).toThrowError(new WeirError('TYPE_MISMATCH', 'Cast function cannot convert value of type DATE to type INT'));
  });
});

describe('TRY_CAST and constants', () => {
  it('gives NULL where CAST fails', () => {
    expect(cast('abc', T.string(), T.int(), true)).toBe(null);
    expect(cast('12', T.string(), T.int(), true)).toBe(12);
    expect(cast('3000000000', T.string(), T.int(), true)).toBe(null);
    expect(cast(3e9, T.double(), T.int(), true)).toBe(2147483647);
    expect(cast(null, T.string(), T.int(), true)).toBe(null);
  });

  it('folds casts of literals at compile time, but leaves a failing one to run time', () => {
    const folded = compiler.scalarSource(Exprs.cast(lit.str('2020-01-01'), T.date()));
    expect(folded.source).toContain('return 18262;');
    const failing = Exprs.cast(lit.str('x'), T.int());
    expect(() => compiler.scalar(failing)).not.toThrow();
    expect(() => evaluate(failing)).toThrow("cannot cast 'x' to INT");
  });
});
