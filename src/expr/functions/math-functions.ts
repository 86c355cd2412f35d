/**
 * Numeric functions: ABS, SIGN, ROUND, TRUNCATE, FLOOR, CEIL, POWER, SQRT, logarithms,
 * trigonometry, constants, random numbers, UUID, BIN and HEX. Functions of doubles convert exact
 * arguments to DOUBLE and follow Java's Math (invalid arguments give NaN or ±Infinity, never an
 * error); ABS, SIGN, ROUND, TRUNCATE, FLOOR and CEIL keep exact types exact (DECIMAL results as
 * Flink types them, integer results wrapping as Java's do).
 */
import { pow10 } from '../../common/decimal.js';
import { MAX_DECIMAL_PRECISION, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import { JavaRandom } from '../runtime/numeric-lib.js';
import { temporalRounder } from '../runtime/temporal-lib.js';
import { isUtcZone } from '../../common/time-zone.js';
import { decimalRoundType } from '../type-coercion.js';
import { allTo, Arg, constantArg, defineScalar, integerResult, numberLiteral, type Literals, type Signature } from './define.js';

type DecimalType = Extract<SqlType, { kind: 'DECIMAL' }>;

const sameType = (types: readonly SqlType[]): SqlType => types[0]!;
const toDouble = (types: readonly SqlType[]): SqlType[] => allTo(types, SqlTypes.double());

/** A function of doubles computed by a JS expression of the argument codes. */
function doubleFunction(name: string, description: string, arity: number, generate: (...args: string[]) => string): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description,
    signatures: [
      {
        args: Array.from({ length: arity }, () => Arg.NUMERIC),
        coerce: toDouble,
        returns: SqlTypes.double(false),
        generate: (_ctx, args) => generate(...args.map((a) => a.code)),
      },
    ],
  });
}

function constantFunction(name: string, description: string, code: string, deterministic = true): ScalarFunctionDefinition {
  return defineScalar({ name, description, deterministic, signatures: [{ args: [], returns: SqlTypes.double(false), generate: () => code }] });
}

/** The digits argument of ROUND as a number when it is a literal, else undefined. */
function literalDigits(literals: Literals): number | undefined {
  const value = literals[1]?.value;
  return typeof value === 'number' ? value : undefined;
}

const digitsCode = (args: readonly ArgCode[]): string => args[1]?.code ?? '0';

/** ROUND or TRUNCATE (`helpers` name the integer, DECIMAL and double helpers), typed as Flink types ROUND. */
function roundLike(helpers: { readonly integer: string; readonly decimal: string; readonly double: string }): readonly Signature[] {
  return [
    {
      args: [Arg.INTEGER, Arg.INTEGER],
      optional: 1,
      returns: sameType,
      exactInt64: true,
      generate: (ctx, args) => {
        const value = args[0]!;
        if (args.length === 1) return value.code;
        const rounded = `${ctx.lib(helpers.integer)}(${value.code}, ${digitsCode(args)})`;
        return integerResult(value.type, rounded, rounded);
      },
    },
    {
      args: [Arg.DECIMAL, Arg.INTEGER],
      optional: 1,
      returns: (types, literals) => {
        const decimal = types[0] as DecimalType;
        const digits = types.length === 1 ? 0 : literalDigits(literals);
        if (digits === undefined) return SqlTypes.decimal(Math.min(MAX_DECIMAL_PRECISION, decimal.precision + 1), decimal.scale, false);
        return decimalRoundType(decimal, digits, false);
      },
      yieldsNull: true,
      generate: (ctx, args, call) => {
        const scale = (args[0]!.type as DecimalType).scale;
        const result = call.type as DecimalType;
        return `${ctx.lib(helpers.decimal)}(${args[0]!.code}, ${scale}, ${digitsCode(args)}, ${result.scale}, ${result.precision})`;
      },
    },
    {
      args: [Arg.APPROX, Arg.INTEGER],
      optional: 1,
      returns: sameType,
      generate: (ctx, args) => {
        const rounded = `${ctx.lib(helpers.double)}(${args[0]!.code}, ${digitsCode(args)})`;
        return args[0]!.type.kind === 'FLOAT' ? `Math.fround(${rounded})` : rounded;
      },
    },
  ];
}

/** FLOOR or CEIL: integers unchanged, DECIMAL(p, s) to DECIMAL(p - s + 1, 0), doubles by Math. */
function floorOrCeil(name: 'FLOOR' | 'CEIL'): ScalarFunctionDefinition {
  const helper = name === 'FLOOR' ? 'decimalFloor' : 'decimalCeil';
  const math = name === 'FLOOR' ? 'Math.floor' : 'Math.ceil';
  return defineScalar({
    name,
    description: `${name}(x): the ${name === 'FLOOR' ? 'largest integer not greater' : 'smallest integer not less'} than x; ${name}(t TO unit): the date, time or timestamp rounded ${name === 'FLOOR' ? 'down' : 'up'} to the unit`,
    signatures: [
      { args: [Arg.INTEGER], returns: sameType, exactInt64: true, generate: (_ctx, [a]) => a!.code },
      {
        args: [Arg.DECIMAL],
        returns: (types) => {
          const { precision, scale } = types[0] as DecimalType;
          return scale === 0 ? types[0]! : SqlTypes.decimal(Math.min(MAX_DECIMAL_PRECISION, precision - scale + 1), 0, false);
        },
        generate: (ctx, [a]) => `${ctx.lib(helper)}(${a!.code}, ${(a!.type as DecimalType).scale})`,
      },
      { args: [Arg.APPROX], returns: sameType, generate: (_ctx, [a]) => `${math}(${a!.code})` },
      temporalRounding(name, Arg.TIMESTAMP, 'TIMESTAMP'),
      temporalRounding(name, Arg.DATE, 'DATE'),
      temporalRounding(name, Arg.TIME, 'TIME'),
    ],
  });
}

/**
 * FLOOR/CEIL(x TO unit) of a temporal value (the grammar passes the unit as a literal string). A
 * TIMESTAMP(p > 3) is rounded on its epoch milliseconds, its digits below the millisecond dropped
 * first (towards the past), and keeps its type: Flink's generated code rounds
 * `TimestampData.getMillisecond()`, so CEIL(00:00:00.000000001 TO SECOND) is 00:00:00.
 */
function temporalRounding(name: 'FLOOR' | 'CEIL', family: (typeof Arg)[keyof typeof Arg], kind: 'DATE' | 'TIME' | 'TIMESTAMP'): Signature {
  return {
    args: [family, Arg.STRING],
    returns: (types, literals) => {
      const unit = literals[1]?.value;
      if (typeof unit === 'string') temporalRounder(unit, kind, name === 'CEIL');
      return types[0]!;
    },
    generate: (ctx, [value, unit]) => {
      const round = ctx.constant(temporalRounder(String(constantArg(name, unit, 'time unit')), kind, name === 'CEIL'), name.toLowerCase());
      if (value!.type.kind !== 'TIMESTAMP_LTZ' || isUtcZone(ctx.timeZone)) return `${round}(${value!.code})`;
      // A TIMESTAMP_LTZ is rounded on the session zone's wall clock (FLOOR(... TO DAY) is local midnight), as in Flink.
      return `${ctx.lib('roundInZone')}(${round}, ${value!.code}, ${JSON.stringify(ctx.timeZone)})`;
    },
  };
}

function absGenerate(ctx: CodegenContext, a: ArgCode): string {
  switch (a.type.kind) {
    case 'DECIMAL':
      return `${a.code} < 0n ? -${a.code} : ${a.code}`;
    case 'FLOAT':
    case 'DOUBLE':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return `Math.abs(${a.code})`;
    default:
      return integerResult(a.type, `Math.abs(${a.code})`, `${ctx.lib('int64Abs')}(${a.code})`);
  }
}

function signGenerate(a: ArgCode): string {
  if (a.type.kind === 'FLOAT' || a.type.kind === 'DOUBLE') return `Math.sign(${a.code})`;
  if (a.type.kind === 'BIGINT') return `(${a.code} > 0 ? 1 : ${a.code} < 0 ? -1 : 0)`;
  if (a.type.kind !== 'DECIMAL') return `Math.sign(${a.code}) + 0`;
  const one = `${pow10(a.type.scale)}n`;
  return `${a.code} > 0n ? ${one} : ${a.code} < 0n ? -${one} : 0n`;
}

const unaryNumeric = (generate: (ctx: CodegenContext, a: ArgCode) => string): Signature => ({
  args: [Arg.NUMERIC],
  returns: sameType,
  exactInt64: true,
  generate: (ctx, [a]) => generate(ctx, a!),
});

const TRIGONOMETRY: readonly (readonly [string, string])[] = [
  ['SIN', 'Math.sin'],
  ['COS', 'Math.cos'],
  ['TAN', 'Math.tan'],
  ['ASIN', 'Math.asin'],
  ['ACOS', 'Math.acos'],
  ['ATAN', 'Math.atan'],
  ['SINH', 'Math.sinh'],
  ['COSH', 'Math.cosh'],
  ['TANH', 'Math.tanh'],
];

/** The numeric functions. */
export const mathFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'ABS',
    description: 'ABS(x): the absolute value, of the type of x',
    signatures: [
      unaryNumeric(absGenerate),
      { args: [Arg.INTERVAL_DT], returns: sameType, generate: (ctx, [a]) => absGenerate(ctx, a!) },
      { args: [Arg.INTERVAL_YM], returns: sameType, generate: (ctx, [a]) => absGenerate(ctx, a!) },
    ],
  }),
  defineScalar({ name: 'SIGN', description: 'SIGN(x): -1, 0 or 1, of the type of x', signatures: [unaryNumeric((_ctx, a) => signGenerate(a))] }),
  defineScalar({
    name: 'ROUND',
    description: 'ROUND(x[, d]): x rounded HALF_UP to d fraction digits (default 0; negative rounds to tens)',
    signatures: roundLike({ integer: 'integerRound', decimal: 'decimalRound', double: 'doubleRound' }),
  }),
  defineScalar({
    name: 'TRUNCATE',
    description: 'TRUNCATE(x[, d]): x truncated toward zero to d fraction digits (default 0; negative zeroes tens)',
    signatures: roundLike({ integer: 'integerTruncate', decimal: 'decimalTruncate', double: 'doubleTruncate' }),
  }),
  floorOrCeil('FLOOR'),
  floorOrCeil('CEIL'),
  doubleFunction('POWER', 'POWER(x, y): x raised to y, as DOUBLE', 2, (x, y) => `Math.pow(${x}, ${y})`),
  doubleFunction('SQRT', 'SQRT(x): the square root, as DOUBLE (NaN for negatives)', 1, (x) => `Math.sqrt(${x})`),
  doubleFunction('EXP', 'EXP(x): e raised to x', 1, (x) => `Math.exp(${x})`),
  doubleFunction('LN', 'LN(x): the natural logarithm', 1, (x) => `Math.log(${x})`),
  doubleFunction('LOG10', 'LOG10(x): the base-10 logarithm', 1, (x) => `Math.log10(${x})`),
  doubleFunction('LOG2', 'LOG2(x): the base-2 logarithm (ln(x) / ln(2), as Flink computes it)', 1, (x) => `Math.log(${x}) / ${numberLiteral(Math.log(2))}`),
  defineScalar({
    name: 'LOG',
    description: 'LOG(x): the natural logarithm; LOG(b, x): the base-b logarithm',
    signatures: [
      { args: [Arg.NUMERIC], coerce: toDouble, returns: SqlTypes.double(false), generate: (_ctx, [x]) => `Math.log(${x!.code})` },
      { args: [Arg.NUMERIC, Arg.NUMERIC], coerce: toDouble, returns: SqlTypes.double(false), generate: (_ctx, [b, x]) => `Math.log(${x!.code}) / Math.log(${b!.code})` },
    ],
  }),
  ...TRIGONOMETRY.map(([name, fn]) => doubleFunction(name, `${name}(x): the ${name.toLowerCase()} of x (radians)`, 1, (x) => `${fn}(${x})`)),
  doubleFunction('COT', 'COT(x): the cotangent of x (radians), 1 / TAN(x)', 1, (x) => `1 / Math.tan(${x})`),
  doubleFunction('ATAN2', 'ATAN2(y, x): the angle of the point (x, y)', 2, (y, x) => `Math.atan2(${y}, ${x})`),
  doubleFunction('DEGREES', 'DEGREES(x): radians to degrees', 1, (x) => `${x} * ${numberLiteral(180 / Math.PI)}`),
  doubleFunction('RADIANS', 'RADIANS(x): degrees to radians', 1, (x) => `${x} * ${numberLiteral(Math.PI / 180)}`),
  constantFunction('PI', 'PI(): π', 'Math.PI'),
  constantFunction('E', 'E(): e', 'Math.E'),
  defineScalar({
    name: 'RAND',
    description: "RAND([seed]): a random DOUBLE in [0, 1); with a literal seed, java.util.Random's sequence for it (as Flink's)",
    deterministic: false,
    signatures: [
      { args: [], returns: SqlTypes.double(false), generate: () => 'Math.random()' },
      {
        args: [Arg.INTEGER],
        coerce: (types) => allTo(types, SqlTypes.int()),
        returns: SqlTypes.double(false),
        generate: (ctx, [seed]) => `${ctx.constant(new JavaRandom(Number(constantArg('RAND', seed, 'seed'))), 'random')}.nextDouble()`,
      },
    ],
  }),
  defineScalar({
    name: 'RAND_INTEGER',
    description: "RAND_INTEGER([seed, ]n): a random INT in [0, n) (n must be positive); with a literal seed, java.util.Random's sequence for it",
    deterministic: false,
    signatures: [
      { args: [Arg.INTEGER], coerce: (types) => allTo(types, SqlTypes.int()), returns: SqlTypes.int(false), generate: (ctx, [n]) => `${ctx.lib('randomInteger')}(${n!.code})` },
      {
        args: [Arg.INTEGER, Arg.INTEGER],
        coerce: (types) => allTo(types, SqlTypes.int()),
        returns: SqlTypes.int(false),
        generate: (ctx, [seed, n]) => `${ctx.constant(new JavaRandom(Number(constantArg('RAND_INTEGER', seed, 'seed'))), 'random')}.nextInt(${n!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'UUID',
    description: 'UUID(): a random (version 4) UUID string',
    deterministic: false,
    signatures: [{ args: [], returns: SqlTypes.char(36, false), generate: (ctx) => `${ctx.lib('uuid')}()` }],
  }),
  shiftFunction('SHIFTLEFT', true),
  shiftFunction('SHIFTRIGHT', false),
  defineScalar({
    name: 'BIN',
    description: 'BIN(n): n in binary (negative numbers as 64-bit two’s complement)',
    signatures: [{ args: [Arg.INTEGER], returns: SqlTypes.string(false), exactInt64: true, generate: (ctx, [n]) => `${ctx.lib('binaryString')}(${n!.code})` }],
  }),
  defineScalar({
    name: 'CONV',
    description: 'CONV(num, fromBase, toBase): an integer, or the text of one in fromBase, written in toBase (2..36; negative for a signed result); NULL for a base out of range or a character that is not a digit',
    signatures: [
      { args: [Arg.INTEGER, Arg.INTEGER, Arg.INTEGER], nullable: true, returns: SqlTypes.string(false), exactInt64: true, generate: (ctx, [n, from, to]) => `${ctx.lib('conv')}(String(${n!.code}), ${from!.code}, ${to!.code})` },
      { args: [Arg.STRING, Arg.INTEGER, Arg.INTEGER], nullable: true, returns: SqlTypes.string(false), exactInt64: true, generate: (ctx, [s, from, to]) => `${ctx.lib('conv')}(${s!.code}, ${from!.code}, ${to!.code})` },
    ],
  }),
  defineScalar({
    name: 'HEX',
    description: 'HEX(n), HEX(s) or HEX(b): an integer in upper-case hex (negative as 64-bit two’s complement), the UTF-8 bytes of a string, or a binary string',
    signatures: [
      { args: [Arg.INTEGER], returns: SqlTypes.string(false), exactInt64: true, generate: (ctx, [n]) => `${ctx.lib('hexOfInteger')}(${n!.code})` },
      { args: [Arg.STRING], returns: SqlTypes.string(false), generate: (ctx, [s]) => `${ctx.lib('hexOfString')}(${s!.code})` },
      { args: [Arg.BINARY], returns: SqlTypes.string(false), generate: (ctx, [b]) => `${ctx.lib('hexOfBytes')}(${b!.code})` },
    ],
  }),
];

/**
 * SHIFTLEFT(a, n) / SHIFTRIGHT(a, n): Java's `<<` / `>>` (arithmetic) of an integer, of the type
 * of `a`: the count is taken modulo the width (32 for TINYINT, SMALLINT and INT, which shift as
 * Java ints and then wrap to their type; 64 for BIGINT).
 */
function shiftFunction(name: 'SHIFTLEFT' | 'SHIFTRIGHT', left: boolean): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description: `${name}(a, n): a shifted ${left ? 'left' : 'right (keeping the sign)'} by n bits, as Java's ${left ? '<<' : '>>'} on the type of a`,
    signatures: [
      {
        args: [Arg.INTEGER, Arg.INTEGER],
        returns: (types) => withNullable(types[0]!, false),
        exactInt64: true,
        generate: (ctx, [a, n], call) => {
          const count = n!.type.kind === 'BIGINT' ? `${ctx.lib('int64ToNumber')}(${n!.code})` : n!.code;
          if (a!.type.kind === 'BIGINT') return `${ctx.lib('int64Shift')}(${a!.code}, ${count}, ${left})`;
          return integerResult(call.type, `${a!.code} ${left ? '<<' : '>>'} ${count}`, '');
        },
      },
    ],
  });
}
