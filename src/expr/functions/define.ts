/**
 * The one way built-in scalar functions are declared: a name, a description and a list of
 * signatures, each a list of argument type families with the result type and a code generator.
 * `defineScalar` turns that into a {@link ScalarFunctionDefinition}: resolution tries the
 * signatures in order, gives NULL literals the family's type, and makes the result nullable when
 * a strict function has a nullable argument.
 */
import { isNanoTimestamp, MAX_MILLIS_PRECISION, millisOfNanos } from '../../common/epoch-nanos.js';
import { WeirError } from '../../common/errors.js';
import {
  formatType,
  isBinaryType,
  isIntegerType,
  isNumericType,
  isStringType,
  SqlTypes,
  withNullable,
  withoutTimeAttribute,
  type SqlType,
} from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, LazyArg, LiteralArg, ScalarFunctionDefinition, StatementContext } from '../function-definition.js';
import type { CallExpr } from '../scalar-expr.js';
import { flinkSignatureTexts } from './flink-signature-texts.js';

/** A family of argument types accepted at one position of a signature. */
export interface ArgFamily {
  /** How the family is shown in messages: `STRING`, `NUMERIC`. */
  readonly name: string;
  readonly accepts: (type: SqlType) => boolean;
  /** The type a NULL literal at this position takes. */
  readonly nullType: SqlType;
}

const family = (name: string, accepts: (type: SqlType) => boolean, nullType: SqlType): ArgFamily => ({ name, accepts, nullType });
const isTimestamp = (t: SqlType): boolean => t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ';

/** The argument families signatures are written with. */
export const Arg = {
  ANY: family('ANY', () => true, SqlTypes.null()),
  BOOLEAN: family('BOOLEAN', (t) => t.kind === 'BOOLEAN', SqlTypes.boolean()),
  STRING: family('STRING', isStringType, SqlTypes.string()),
  BINARY: family('BINARY', isBinaryType, SqlTypes.bytes()),
  INTEGER: family('INTEGER', isIntegerType, SqlTypes.int()),
  DECIMAL: family('DECIMAL', (t) => t.kind === 'DECIMAL', SqlTypes.decimal(10, 0)),
  EXACT: family('EXACT_NUMERIC', (t) => isIntegerType(t) || t.kind === 'DECIMAL', SqlTypes.int()),
  APPROX: family('APPROXIMATE_NUMERIC', (t) => t.kind === 'FLOAT' || t.kind === 'DOUBLE', SqlTypes.double()),
  NUMERIC: family('NUMERIC', isNumericType, SqlTypes.int()),
  DATE: family('DATE', (t) => t.kind === 'DATE', SqlTypes.date()),
  TIME: family('TIME', (t) => t.kind === 'TIME', SqlTypes.time()),
  TIMESTAMP: family('TIMESTAMP', isTimestamp, SqlTypes.timestamp()),
  DATETIME: family('DATETIME', (t) => t.kind === 'DATE' || isTimestamp(t), SqlTypes.timestamp()),
  INTERVAL_DT: family('INTERVAL DAY TO SECOND', (t) => t.kind === 'INTERVAL_DAY_TIME', SqlTypes.intervalDayTime()),
  INTERVAL_YM: family('INTERVAL YEAR TO MONTH', (t) => t.kind === 'INTERVAL_YEAR_MONTH', SqlTypes.intervalYearMonth()),
  ARRAY: family('ARRAY', (t) => t.kind === 'ARRAY', SqlTypes.array(SqlTypes.null())),
  ROW: family('ROW', (t) => t.kind === 'ROW', SqlTypes.row([])),
  MAP: family('MAP', (t) => t.kind === 'MAP', SqlTypes.map(SqlTypes.null(), SqlTypes.null())),
} as const;

/** Literal values known at resolution, by argument position. */
export type Literals = readonly (LiteralArg | undefined)[];

/** The argument part of a signature, shared by scalar and aggregate functions. */
export interface ArgumentForm {
  readonly args: readonly ArgFamily[];
  /** How many trailing arguments may be left out. */
  readonly optional?: number;
  /** The last family may repeat any number of times. */
  readonly variadic?: boolean;
  /**
   * The types the arguments are converted to (default: as they are), or undefined when the
   * signature does not apply after all. Its output must match this signature again.
   */
  readonly coerce?: (types: readonly SqlType[]) => readonly SqlType[] | undefined;
}

/** One accepted form of a scalar function. */
export interface Signature extends ArgumentForm {
  /** The result may be NULL even when no argument is (SUBSTRING with a negative length). */
  readonly nullable?: boolean;
  /** The result may be NULL (a DECIMAL overflow) while its type stays as Flink types it; see ScalarFunctionDefinition.yieldsNull. */
  readonly yieldsNull?: boolean;
  /** The result is nullable when the type `returns` gives is (a ROW field's), even when no argument is. */
  readonly keepsNullable?: boolean;
  /** The result type for the (coerced) argument types; strict functions add nullability themselves. */
  readonly returns: SqlType | ((types: readonly SqlType[], literals: Literals) => SqlType);
  /** A JS expression for the result (see ScalarFunctionDefinition.generate). */
  readonly generate: (ctx: CodegenContext, args: readonly ArgCode[], call: CallExpr) => string;
  /**
   * The generator handles BIGINT arguments in both forms (a number, or a bigint beyond 2^53: see
   * common/int64.ts). Without it, a BIGINT argument at a numeric position reaches the generator as
   * a number (rounded to a double beyond 2^53, as Java's long-to-double widening does), so that
   * helpers written for numbers never meet a bigint.
   */
  readonly exactInt64?: boolean;
  /**
   * The generator handles TIMESTAMP(p)/TIMESTAMP_LTZ(p) arguments with p > 3 as they are (epoch
   * nanos, common/epoch-nanos.ts). Without it, such an argument at a TIMESTAMP or DATETIME position
   * reaches the generator as epoch milliseconds typed at precision 3 (the nanoseconds dropped,
   * towards the past), and a result typed TIMESTAMP(p > 3) is taken back to epoch nanos, so that
   * helpers written for milliseconds never meet a bigint.
   */
  readonly exactNanos?: boolean;
}

/** What a built-in scalar function is made of. */
export interface ScalarSpec {
  readonly name: string;
  readonly description: string;
  readonly signatures: readonly Signature[];
  /** Default 'strict': NULL when any argument is NULL. */
  readonly nulls?: 'strict' | 'custom';
  /** Default true. */
  readonly deterministic?: boolean;
  readonly generateStatements?: (ctx: StatementContext, args: readonly LazyArg[], call: CallExpr) => string;
}

/** `NAME(STRING, INTEGER[, INTEGER])`, for messages. */
export function describeForm(name: string, signature: ArgumentForm): string {
  const names = signature.args.map((a) => a.name);
  const required = names.slice(0, names.length - (signature.optional ?? 0));
  const optional = names.slice(required.length);
  let text = required.join(', ');
  if (optional.length > 0) text += `${required.length > 0 ? '[, ' : '['}${optional.join(', ')}]`;
  if (signature.variadic) text += ', ...';
  return `${name}(${text})`;
}

function familiesFor(signature: ArgumentForm, count: number): readonly ArgFamily[] | undefined {
  const declared = signature.args.length;
  if (signature.variadic) {
    if (count < declared) return undefined;
    return Array.from({ length: count }, (_, i) => signature.args[Math.min(i, declared - 1)]!);
  }
  if (count > declared || count < declared - (signature.optional ?? 0)) return undefined;
  return signature.args.slice(0, count);
}

/** The first form that accepts `types`, with the argument types to use; undefined when none does. */
export function matchForm<F extends ArgumentForm>(signatures: readonly F[], types: readonly SqlType[]): { signature: F; args: readonly SqlType[] } | undefined {
  for (const signature of signatures) {
    const families = familiesFor(signature, types.length);
    if (families === undefined) continue;
    if (!types.every((t, i) => t.kind === 'NULL' || families[i]!.accepts(t))) continue;
    const typed = types.map((t, i) => (t.kind === 'NULL' && families[i] !== Arg.ANY ? families[i]!.nullType : t));
    const args = signature.coerce === undefined ? typed : signature.coerce(typed);
    if (args !== undefined) return { signature, args };
  }
  return undefined;
}

/**
 * The TYPE_MISMATCH error for a call no signature accepts. A function's reads as Flink's type
 * inference words it: `Invalid function call:` with the call's argument types (nullability
 * included, as Flink prints them), then `Invalid input arguments. Expected signatures are:` with
 * one form a line, in Flink's words where flink-signature-texts.ts has them, else weir's (its
 * argument families name the types). An operator's (`=`, `||`) keeps one
 * line naming the operand types and the forms.
 */
export function noMatchingSignature(name: string, types: readonly SqlType[], forms: readonly string[]): WeirError {
  if (!/^[A-Z_][A-Z0-9_]*$/i.test(name)) {
    const given = types.map((t) => formatType(withNullable(t, true))).join(', ');
    return new WeirError('TYPE_MISMATCH', `cannot apply ${name} to (${given}); supported: ${forms.join(', ')}`);
  }
  const call = `${name}(${types.map((t) => formatType(t)).join(', ')})`;
  const expected = flinkSignatureTexts(name) ?? forms;
  return new WeirError('TYPE_MISMATCH', `Invalid function call:\n${call}\nInvalid input arguments. Expected signatures are:\n${expected.join('\n')}`);
}

/** Builds a scalar function definition from its signatures. */
export function defineScalar(spec: ScalarSpec): ScalarFunctionDefinition {
  const strict = (spec.nulls ?? 'strict') === 'strict';
  const forms = spec.signatures.map((s) => describeForm(spec.name, s));
  const definition: ScalarFunctionDefinition = {
    kind: 'scalar',
    name: spec.name,
    description: spec.description,
    deterministic: spec.deterministic ?? true,
    nulls: strict ? 'strict' : 'custom',
    resolve(argTypes, literals = []) {
      const found = matchForm(spec.signatures, argTypes);
      if (found === undefined) throw noMatchingSignature(spec.name, argTypes, forms);
      const { signature, args } = found;
      const returns = withoutTimeAttribute(typeof signature.returns === 'function' ? signature.returns(args, literals) : signature.returns);
      if (!strict) return { args, returns };
      const nullable = signature.nullable === true || (signature.keepsNullable === true && returns.nullable) || argTypes.some((t) => t.nullable);
      return { args, returns: withNullable(returns, nullable) };
    },
    generate(ctx, args, call) {
      const found = matchForm(spec.signatures, args.map((a) => a.type));
      if (found === undefined) throw noMatchingSignature(spec.name, args.map((a) => a.type), forms);
      const { signature } = found;
      const families = familiesFor(signature, args.length)!;
      const int64Args = signature.exactInt64 === true ? args : widenedInt64(ctx, args, families);
      const timeArgs = signature.exactNanos === true ? int64Args : millisTimestamps(ctx, int64Args, families);
      const result = signature.generate(ctx, timeArgs, call);
      return timeArgs !== int64Args && isNanoTimestamp(call.type) ? `${ctx.lib('nanosOfMillisOrNull')}(${result})` : result;
    },
    yieldsNull(argTypes) {
      return matchForm(spec.signatures, argTypes)?.signature.yieldsNull === true;
    },
  };
  return spec.generateStatements === undefined ? definition : { ...definition, generateStatements: spec.generateStatements };
}

const NUMBER_FAMILIES: ReadonlySet<ArgFamily> = new Set([Arg.INTEGER, Arg.EXACT, Arg.NUMERIC]);

/** `args` with every BIGINT argument at a numeric position converted to a number (see Signature.exactInt64); the same array when there is none. */
function widenedInt64(ctx: CodegenContext, args: readonly ArgCode[], families: readonly ArgFamily[]): readonly ArgCode[] {
  if (!args.some((a, i) => a.type.kind === 'BIGINT' && NUMBER_FAMILIES.has(families[i]!))) return args;
  return args.map((a, i) => {
    if (a.type.kind !== 'BIGINT' || !NUMBER_FAMILIES.has(families[i]!)) return a;
    const value = a.constant?.value;
    if (a.constant !== undefined) return typeof value === 'bigint' ? { ...a, code: numberLiteral(Number(value)), constant: { value: Number(value) } } : a;
    return { ...a, code: `${ctx.lib('int64ToNumber')}(${a.code})` };
  });
}

const TIMESTAMP_FAMILIES: ReadonlySet<ArgFamily> = new Set([Arg.TIMESTAMP, Arg.DATETIME]);

/** `args` with every TIMESTAMP(p > 3) argument at a timestamp position as epoch milliseconds of precision 3 (see Signature.exactNanos); the same array when there is none. */
function millisTimestamps(ctx: CodegenContext, args: readonly ArgCode[], families: readonly ArgFamily[]): readonly ArgCode[] {
  if (!args.some((a, i) => isNanoTimestamp(a.type) && TIMESTAMP_FAMILIES.has(families[i]!))) return args;
  return args.map((a, i) => {
    if (!isNanoTimestamp(a.type) || !TIMESTAMP_FAMILIES.has(families[i]!)) return a;
    const type = { ...(a.type as Extract<SqlType, { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' }>), precision: MAX_MILLIS_PRECISION };
    const value = a.constant?.value;
    if (typeof value === 'bigint') return { code: numberLiteral(millisOfNanos(value)), type, constant: { value: millisOfNanos(value) } };
    return { code: `${ctx.lib('millisOfNanosOrNull')}(${a.code})`, type };
  });
}

/** The value of a literal argument that must be constant (an EXTRACT unit, a TRIM mode), or a TYPE_MISMATCH naming the function. */
export function constantArg(fn: string, arg: ArgCode | LazyArg | undefined, what: string): unknown {
  if (arg?.constant === undefined) throw new WeirError('TYPE_MISMATCH', `${fn} needs a literal ${what}`);
  return arg.constant.value;
}

/** A JS literal for a number, safe to splice into generated code (`(-1)`, `NaN`, `(-0)`). */
export function numberLiteral(value: number): string {
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${value})` : String(value);
}

/** A JS string literal. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/** Each of `types` replaced by `target`, keeping its own nullability (a coercion to a common type). */
export function allTo(types: readonly SqlType[], target: SqlType): SqlType[] {
  return types.map((t) => withNullable(target, t.nullable));
}

const WRAP_SHIFT: Readonly<Record<string, number>> = { TINYINT: 24, SMALLINT: 16 };

/**
 * A JS expression narrowing the integer result `result` to `type` as Java does: TINYINT, SMALLINT
 * and INT wrap around (two's complement), as Flink's generated Java does. `result` must be exact
 * (below 2^53 in magnitude) for the wrap to be exact: INT products go through Math.imul. BIGINT
 * results are not computed here: their operands may be bigints (see common/int64.ts), so BIGINT
 * operations call the `int64*` helpers, which wrap to 64 bits themselves; `bigint` is that call.
 */
export function integerResult(type: SqlType, result: string, bigint: string): string {
  if (type.kind === 'INT') return `(${result}) | 0`;
  const shift = WRAP_SHIFT[type.kind];
  if (shift !== undefined) return `((${result}) << ${shift}) >> ${shift}`;
  return bigint;
}

/** BOOLEAN, nullable as told. */
export function booleanType(nullable: boolean): SqlType {
  return SqlTypes.boolean(nullable);
}
