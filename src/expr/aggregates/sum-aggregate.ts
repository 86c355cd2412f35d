/**
 * SUM, and the running sum that AVG shares with it. The accumulator is `[sum, count of non-NULL
 * values]`: the count says when the result goes back to NULL under retraction. TINYINT, SMALLINT
 * and INT sums wrap around as Java's do (Flink's SUM(INT) is an INT computed with `+`; wrapping
 * commutes with retraction, so the result is the same in any order); BIGINT sums are exact 64-bit
 * values (common/int64.ts: numbers while they are safe integers) that wrap around as Java's long
 * does; INTERVAL sums are checked against the safe integers; DECIMAL sums are exact bigints checked against
 * the result precision; FLOAT/DOUBLE sums are plain numbers (a FLOAT one rounded to 32 bits after
 * every step), reset to 0 when their last value is retracted so that rounding residue does not
 * outlive the values.
 */
import { pow10 } from '../../common/decimal.js';
import { WeirError } from '../../common/errors.js';
import { int64Add, int64Subtract, int64ToNumber } from '../../common/int64.js';
import { formatType, isIntegerType, withNullable, type SqlType } from '../../common/sql-type.js';
import type { AggregateCodegen, AggregateFactory, SourceScope } from './aggregate-codegen.js';
import { unsupportedAggregate } from './aggregate-codegen.js';

/** How a numeric type is added up. */
export type NumericClass =
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly bits?: 8 | 16 | 32 }
  | { readonly kind: 'int64' }
  | { readonly kind: 'float'; readonly single?: boolean }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number };

const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  INTERVAL_DAY_TIME: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  INTERVAL_YEAR_MONTH: [-2147483648, 2147483647],
};

/** Integer types whose sums wrap around (two's complement of this many bits), as Java's do. */
const WRAPPING_BITS: Readonly<Record<string, 8 | 16 | 32>> = { TINYINT: 8, SMALLINT: 16, INT: 32 };

/** A JS expression wrapping the integer `value` to `bits` bits, as a Java narrowing does. */
export function wrapInteger(value: string, bits: 8 | 16 | 32): string {
  return bits === 32 ? `(${value}) | 0` : `((${value}) << ${32 - bits}) >> ${32 - bits}`;
}

/** The numeric class of a type, or null when it is not numeric. */
export function numericClass(type: SqlType): NumericClass | null {
  if (type.kind === 'BIGINT') return { kind: 'int64' };
  const range = INTEGER_RANGES[type.kind];
  const bits = WRAPPING_BITS[type.kind];
  if (range !== undefined) return bits === undefined ? { kind: 'integer', min: range[0], max: range[1] } : { kind: 'integer', min: range[0], max: range[1], bits };
  if (type.kind === 'FLOAT') return { kind: 'float', single: true };
  if (type.kind === 'DOUBLE') return { kind: 'float' };
  if (type.kind === 'DECIMAL') return { kind: 'decimal', precision: type.precision, scale: type.scale };
  return null;
}

/** A running sum over slots `[sum, count]`, minus the result expression. */
export type SumAccumulation = Omit<AggregateCodegen, 'result'>;

/**
 * The running sum of values of class `arg`, kept in class `sum` (whose range or precision is
 * checked after every change, and whose scale the sum has); overflow errors name `fn` and
 * `sumType`. Null when the combination is not supported.
 */
export function sumAccumulation(fn: string, arg: NumericClass, sum: NumericClass, sumType: SqlType, scope: SourceScope): SumAccumulation | null {
  const overflow = scope.bind(() => overflowError(fn, sumType), 'overflow');
  if (sum.kind === 'integer' && arg.kind === 'integer' && sum.bits !== undefined) {
    const bits = sum.bits;
    return {
      slots: 2,
      init: ([s, n]) => `${s} = 0; ${n} = 0;`,
      accumulate: ([s, n], [v]) => `${s} = ${wrapInteger(`${s} + ${v}`, bits)}; ${n}++;`,
      retract: ([s, n], [v]) => `${s} = ${wrapInteger(`${s} - ${v}`, bits)}; ${n}--;`,
      merge: ([s, n], [t, m]) => `${s} = ${wrapInteger(`${s} + ${t}`, bits)}; ${n} += ${m};`,
    };
  }
  if (sum.kind === 'int64' && (arg.kind === 'integer' || arg.kind === 'int64')) {
    const add = scope.bind(int64Add, 'int64Add');
    const subtract = scope.bind(int64Subtract, 'int64Subtract');
    return {
      slots: 2,
      init: ([s, n]) => `${s} = 0; ${n} = 0;`,
      accumulate: ([s, n], [v]) => `${s} = ${add}(${s}, ${v}); ${n}++;`,
      retract: ([s, n], [v]) => `${s} = ${subtract}(${s}, ${v}); ${n}--;`,
      merge: ([s, n], [t, m]) => `${s} = ${add}(${s}, ${t}); ${n} += ${m};`,
    };
  }
  if (sum.kind === 'integer' && arg.kind === 'integer') {
    const check = (s: string) => `if (${s} > ${sum.max} || ${s} < ${sum.min}) throw ${overflow}();`;
    return {
      slots: 2,
      init: ([s, n]) => `${s} = 0; ${n} = 0;`,
      accumulate: ([s, n], [v]) => `${s} += ${v}; ${n}++; ${check(s!)}`,
      retract: ([s, n], [v]) => `${s} -= ${v}; ${n}--; ${check(s!)}`,
      merge: ([s, n], [t, m]) => `${s} += ${t}; ${n} += ${m}; ${check(s!)}`,
    };
  }
  if (sum.kind === 'float' && arg.kind !== 'decimal') {
    // A FLOAT sum is a float, rounded after every step as Java's float arithmetic.
    const round = (e: string) => (sum.single === true ? `Math.fround(${e})` : e);
    const toNumber = arg.kind === 'int64' ? scope.bind(int64ToNumber, 'int64ToNumber') : '';
    return {
      slots: 2,
      init: ([s, n]) => `${s} = 0; ${n} = 0;`,
      accumulate: ([s, n], [v]) => `${s} = ${round(`${s} + ${toNumber}(${v})`)}; ${n}++;`,
      retract: ([s, n], [v]) => `if (--${n} === 0) ${s} = 0; else ${s} = ${round(`${s} - ${toNumber}(${v})`)};`,
      merge: ([s, n], [t, m]) => `${s} = ${round(`${s} + ${t}`)}; ${n} += ${m};`,
    };
  }
  if (sum.kind === 'decimal' && arg.kind === 'decimal' && sum.scale >= arg.scale) {
    const limit = `${pow10(sum.precision)}n`;
    const scaled = (v: string) => (sum.scale === arg.scale ? v : `${v} * ${pow10(sum.scale - arg.scale)}n`);
    const check = (s: string) => `if (${s} >= ${limit} || ${s} <= -${limit}) throw ${overflow}();`;
    return {
      slots: 2,
      init: ([s, n]) => `${s} = 0n; ${n} = 0;`,
      accumulate: ([s, n], [v]) => `${s} += ${scaled(v)}; ${n}++; ${check(s!)}`,
      retract: ([s, n], [v]) => `${s} -= ${scaled(v)}; ${n}--; ${check(s!)}`,
      merge: ([s, n], [t, m]) => `${s} += ${t}; ${n} += ${m}; ${check(s!)}`,
    };
  }
  return null;
}

/** SUM: the running sum, NULL while no non-NULL value is present. */
export const sumAggregate: AggregateFactory = (context) => {
  const { argTypes, type, scope } = context;
  const arg = argTypes.length === 1 ? numericClass(argTypes[0]!) : null;
  const result = numericClass(type);
  const sum = arg === null || result === null ? null : sumAccumulation('SUM', arg, result, type, scope);
  if (sum === null) throw unsupportedAggregate(context);
  return { ...sum, result: ([s, n]) => `(${n} === 0 ? null : ${s})` };
};

function overflowError(fn: string, type: SqlType): WeirError {
  const hint = isIntegerType(type) ? 'CAST the argument to DECIMAL(38, 0) to add up larger values.' : undefined;
  return new WeirError('ARITHMETIC_OVERFLOW', `${fn} overflowed: the sum is outside the range of ${formatType(withNullable(type, true))}`, hint === undefined ? {} : { hint });
}

