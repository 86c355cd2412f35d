/**
 * `+ - * /`, MOD (`%`) and NEGATE. Integer operands share their widest type; TINYINT, SMALLINT,
 * INT and BIGINT results wrap around as Java's do (Flink's generated code; BIGINT values are exact
 * 64-bit, see common/int64.ts, so `9223372036854775807 + 1` is `-9223372036854775808`); `/` on integers truncates like
 * Java and a zero integer divisor is an error, as Java's ArithmeticException. An exact operand with
 * a DECIMAL makes the operation DECIMAL with Flink's result precision and scale, NULL when the
 * result does not fit it (Flink's DECIMAL overflow); a FLOAT/DOUBLE operand makes it approximate.
 * Timestamps and dates move by intervals (milliseconds, or calendar months for YEAR TO MONTH).
 */
import { MILLIS_PER_DAY } from '../../common/datetime.js';
import { isNanoTimestamp } from '../../common/epoch-nanos.js';
import { isIntegerType, type SqlType } from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import { asDecimalType, decimalDivideType, decimalModType, decimalPlusType, decimalTimesType, leastRestrictive } from '../type-coercion.js';
import { allTo, Arg, defineScalar, integerResult, type Signature } from './define.js';

type DecimalType = Extract<SqlType, { kind: 'DECIMAL' }>;

const sameType = (types: readonly SqlType[]): SqlType => types[0]!;

/** An integer operation: `compute` for TINYINT/SMALLINT/INT (wrapped), the `int64` helper for BIGINT (whose operands may be bigints). */
function integerSignature(int64: string, compute: (ctx: CodegenContext, a: string, b: string, type: SqlType) => string): Signature {
  return {
    args: [Arg.INTEGER, Arg.INTEGER],
    coerce: (types) => allTo(types, leastRestrictive(types)!),
    returns: sameType,
    exactInt64: true,
    generate: (ctx, [a, b]) =>
      a!.type.kind === 'BIGINT' ? `${ctx.lib(int64)}(${a!.code}, ${b!.code})` : integerResult(a!.type, compute(ctx, a!.code, b!.code, a!.type), ''),
  };
}

type DecimalRule = (a: DecimalType, b: DecimalType, nullable: boolean) => SqlType;

function decimalSignature(helper: string, rule: DecimalRule): Signature {
  return {
    args: [Arg.EXACT, Arg.EXACT],
    yieldsNull: true,
    coerce: (types) => (types.some((t) => t.kind === 'DECIMAL') ? types.map((t) => asDecimalType(t)!) : undefined),
    returns: (types) => rule(types[0] as DecimalType, types[1] as DecimalType, false),
    generate: (ctx, [a, b], call) => decimalCall(ctx, helper, a!, b!, call.type as DecimalType),
  };
}

function decimalCall(ctx: CodegenContext, helper: string, a: ArgCode, b: ArgCode, result: DecimalType): string {
  const sa = (a.type as DecimalType).scale;
  const sb = (b.type as DecimalType).scale;
  return `${ctx.lib(helper)}(${a.code}, ${sa}, ${b.code}, ${sb}, ${result.precision}, ${result.scale})`;
}

/**
 * DECIMAL `*`: the BigInt product itself when it always fits the result type (scale the sum of
 * the operands', precision at least the sum of theirs), so there is nothing to round or check.
 */
function decimalTimesSignature(): Signature {
  return {
    ...decimalSignature('decimalMultiply', decimalTimesType),
    generate: (ctx, [a, b], call) => {
      const [ta, tb, result] = [a!.type as DecimalType, b!.type as DecimalType, call.type as DecimalType];
      const exact = result.scale === ta.scale + tb.scale && result.precision >= ta.precision + tb.precision;
      return exact ? `${a!.code} * ${b!.code}` : decimalCall(ctx, 'decimalMultiply', a!, b!, result);
    },
  };
}

function approximateSignature(op: string): Signature {
  return {
    args: [Arg.NUMERIC, Arg.NUMERIC],
    coerce: (types) => (types.some((t) => t.kind === 'FLOAT' || t.kind === 'DOUBLE') ? allTo(types, leastRestrictive(types)!) : undefined),
    returns: sameType,
    generate: (_ctx, [a, b]) => (a!.type.kind === 'FLOAT' ? `Math.fround(${a!.code} ${op} ${b!.code})` : `${a!.code} ${op} ${b!.code}`),
  };
}

/** An interval operation whose result must stay a safe integer. */
function intervalSignature(args: Signature['args'], op: string, resultIndex: number): Signature {
  return {
    args,
    returns: (types) => types[resultIndex]!,
    generate: (ctx, [a, b]) => `${ctx.lib('intervalResult')}(${a!.code} ${op} ${b!.code}, ${a!.code}, '${op}', ${b!.code})`,
  };
}

/** A temporal form: the result has the type of argument `resultIndex`; `generate` gets the operand codes. */
function temporalSignature(args: Signature['args'], resultIndex: number, generate: (ctx: CodegenContext, a: string, b: string) => string): Signature {
  return { args, returns: (types) => types[resultIndex]!, generate: (ctx, [a, b]) => generate(ctx, a!.code, b!.code) };
}

const daysOf = (ctx: CodegenContext, millis: string): string => `${ctx.lib('floorDiv')}(${millis}, ${MILLIS_PER_DAY})`;
const timeOfDay = (ctx: CodegenContext, millis: string): string => `${ctx.lib('floorMod')}(${millis}, ${MILLIS_PER_DAY})`;

/**
 * A timestamp ± interval form that keeps the nanoseconds of a TIMESTAMP(p > 3) operand (epoch
 * nanos): `millis` generates the millisecond form (operand codes in order), `nanos` the epoch-nanos
 * one (the timestamp's code first, then the interval's).
 */
function timestampSignature(
  args: Signature['args'],
  resultIndex: number,
  millis: (ctx: CodegenContext, a: string, b: string) => string,
  nanos: (ctx: CodegenContext, ts: string, interval: string) => string,
): Signature {
  return {
    args,
    exactNanos: true,
    returns: (types) => types[resultIndex]!,
    generate: (ctx, [a, b]) => {
      if (!isNanoTimestamp([a!, b!][resultIndex]!.type)) return millis(ctx, a!.code, b!.code);
      return resultIndex === 0 ? nanos(ctx, a!.code, b!.code) : nanos(ctx, b!.code, a!.code);
    },
  };
}

const plusDayTime = (ctx: CodegenContext, ts: string, interval: string): string => `${ctx.lib('addMillisToNanos')}(${ts}, ${interval}, 1)`;
const minusDayTime = (ctx: CodegenContext, ts: string, interval: string): string => `${ctx.lib('addMillisToNanos')}(${ts}, ${interval}, -1)`;
const plusMonths = (ctx: CodegenContext, ts: string, interval: string): string => `${ctx.lib('addMonthsToNanos')}(${ts}, ${interval})`;
const minusMonths = (ctx: CodegenContext, ts: string, interval: string): string => `${ctx.lib('addMonthsToNanos')}(${ts}, -${interval})`;

const plusTemporal: readonly Signature[] = [
  timestampSignature([Arg.TIMESTAMP, Arg.INTERVAL_DT], 0, (_ctx, a, b) => `${a} + ${b}`, plusDayTime),
  timestampSignature([Arg.INTERVAL_DT, Arg.TIMESTAMP], 1, (_ctx, a, b) => `${a} + ${b}`, plusDayTime),
  temporalSignature([Arg.DATE, Arg.INTERVAL_DT], 0, (ctx, a, b) => `${a} + ${daysOf(ctx, b)}`),
  temporalSignature([Arg.INTERVAL_DT, Arg.DATE], 1, (ctx, a, b) => `${b} + ${daysOf(ctx, a)}`),
  temporalSignature([Arg.TIME, Arg.INTERVAL_DT], 0, (ctx, a, b) => timeOfDay(ctx, `${a} + ${b}`)),
  temporalSignature([Arg.INTERVAL_DT, Arg.TIME], 1, (ctx, a, b) => timeOfDay(ctx, `${b} + ${a}`)),
  // Months do not move a time of day (Flink's code generator keeps the TIME as it is).
  temporalSignature([Arg.TIME, Arg.INTERVAL_YM], 0, (_ctx, a) => a),
  temporalSignature([Arg.INTERVAL_YM, Arg.TIME], 1, (_ctx, _a, b) => b),
  timestampSignature([Arg.TIMESTAMP, Arg.INTERVAL_YM], 0, (ctx, a, b) => `${ctx.lib('addMonthsToTimestamp')}(${a}, ${b})`, plusMonths),
  timestampSignature([Arg.INTERVAL_YM, Arg.TIMESTAMP], 1, (ctx, a, b) => `${ctx.lib('addMonthsToTimestamp')}(${b}, ${a})`, plusMonths),
  temporalSignature([Arg.DATE, Arg.INTERVAL_YM], 0, (ctx, a, b) => `${ctx.lib('addMonthsToDate')}(${a}, ${b})`),
  temporalSignature([Arg.INTERVAL_YM, Arg.DATE], 1, (ctx, a, b) => `${ctx.lib('addMonthsToDate')}(${b}, ${a})`),
  intervalSignature([Arg.INTERVAL_DT, Arg.INTERVAL_DT], '+', 0),
  intervalSignature([Arg.INTERVAL_YM, Arg.INTERVAL_YM], '+', 0),
];

const minusTemporal: readonly Signature[] = [
  timestampSignature([Arg.TIMESTAMP, Arg.INTERVAL_DT], 0, (_ctx, a, b) => `${a} - ${b}`, minusDayTime),
  temporalSignature([Arg.DATE, Arg.INTERVAL_DT], 0, (ctx, a, b) => `${a} - ${daysOf(ctx, b)}`),
  temporalSignature([Arg.TIME, Arg.INTERVAL_DT], 0, (ctx, a, b) => timeOfDay(ctx, `${a} - ${b}`)),
  temporalSignature([Arg.TIME, Arg.INTERVAL_YM], 0, (_ctx, a) => a),
  timestampSignature([Arg.TIMESTAMP, Arg.INTERVAL_YM], 0, (ctx, a, b) => `${ctx.lib('addMonthsToTimestamp')}(${a}, -${b})`, minusMonths),
  temporalSignature([Arg.DATE, Arg.INTERVAL_YM], 0, (ctx, a, b) => `${ctx.lib('addMonthsToDate')}(${a}, -${b})`),
  intervalSignature([Arg.INTERVAL_DT, Arg.INTERVAL_DT], '-', 0),
  intervalSignature([Arg.INTERVAL_YM, Arg.INTERVAL_YM], '-', 0),
];

const timesInterval: readonly Signature[] = [
  intervalSignature([Arg.INTERVAL_DT, Arg.INTEGER], '*', 0),
  intervalSignature([Arg.INTEGER, Arg.INTERVAL_DT], '*', 1),
  intervalSignature([Arg.INTERVAL_YM, Arg.INTEGER], '*', 0),
  intervalSignature([Arg.INTEGER, Arg.INTERVAL_YM], '*', 1),
];

const modSignatures: readonly Signature[] = [
  {
    args: [Arg.INTEGER, Arg.INTEGER],
    returns: (types) => types[1]!,
    exactInt64: true,
    // A constant non-zero divisor cannot fail: inline (`+ 0` turns JS's -0 into 0); a BIGINT dividend beyond 2^53 (a bigint) takes the helper.
    generate: (ctx, [a, b]) => {
      if (typeof b!.constant?.value !== 'number' || b!.constant.value === 0) return `${ctx.lib('integerMod')}(${a!.code}, ${b!.code})`;
      const inline = `(${a!.code} % ${b!.code} + 0)`;
      return a!.type.kind === 'BIGINT' ? `(typeof ${a!.code} === 'number' ? ${inline} : ${ctx.lib('integerMod')}(${a!.code}, ${b!.code}))` : inline;
    },
  },
  decimalSignature('decimalMod', decimalModType),
  approximateSignature('%'),
];

const negateForms = (family: (typeof Arg)[keyof typeof Arg]): Signature => ({
  args: [family],
  returns: sameType,
  exactInt64: true,
  generate: (ctx, [a]) => (isIntegerType(a!.type) ? integerResult(a!.type, `-${a!.code}`, `${ctx.lib('int64Negate')}(${a!.code})`) : `-${a!.code}`),
});

/** The arithmetic operators. */
export const arithmeticFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: '+',
    description: 'a + b: numeric addition; timestamp or date plus an interval; interval sum',
    signatures: [
      integerSignature('int64Add', (_ctx, a, b) => `${a} + ${b}`),
      decimalSignature('decimalAdd', decimalPlusType),
      approximateSignature('+'),
      ...plusTemporal,
    ],
  }),
  defineScalar({
    name: '-',
    description: 'a - b: numeric subtraction; timestamp or date minus an interval; interval difference',
    signatures: [
      integerSignature('int64Subtract', (_ctx, a, b) => `${a} - ${b}`),
      decimalSignature('decimalSubtract', decimalPlusType),
      approximateSignature('-'),
      ...minusTemporal,
    ],
  }),
  defineScalar({
    name: '*',
    description: 'a * b: numeric multiplication; an interval times an integer',
    signatures: [
      integerSignature('int64Multiply', (_ctx, a, b, type) => (type.kind === 'INT' ? `Math.imul(${a}, ${b})` : `${a} * ${b}`)),
      decimalTimesSignature(),
      approximateSignature('*'),
      ...timesInterval,
    ],
  }),
  defineScalar({
    name: '/',
    description: 'a / b: division; integers truncate toward zero; a zero integer or DECIMAL divisor is an error (a DOUBLE one gives ±Infinity or NaN)',
    signatures: [
      integerSignature('integerDivide', (ctx, a, b) => `${ctx.lib('integerDivide')}(${a}, ${b})`),
      decimalSignature('decimalDivide', decimalDivideType),
      approximateSignature('/'),
    ],
  }),
  defineScalar({
    name: 'MOD',
    description: 'MOD(a, b) or a % b: the remainder, with the sign of a; integer MOD has the type of b',
    signatures: modSignatures,
  }),
  defineScalar({
    name: 'NEGATE',
    description: '-a: the negation',
    signatures: [negateForms(Arg.INTEGER), negateForms(Arg.DECIMAL), negateForms(Arg.APPROX), negateForms(Arg.INTERVAL_DT), negateForms(Arg.INTERVAL_YM)],
  }),
];
