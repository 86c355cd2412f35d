/**
 * Comparisons: `= <> < <= > >=`, IS [NOT] DISTINCT FROM and IN. Operands are converted to their
 * comparison type first (see type-coercion.ts), so generated code compares values of one type:
 * numbers, bigints (DECIMAL of one scale), strings by UTF-16 code unit (as Java's compareTo),
 * booleans (FALSE < TRUE), temporal values as numbers, binary strings by unsigned bytes
 * (lexicographic, a prefix first, as Flink); ROW/ARRAY/MAP only for equality.
 */
import { isBinaryType, isNumericType, isStringType, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import { WeirError } from '../../common/errors.js';
import { castConverter, generateCast } from '../cast.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import { comparisonType } from '../type-coercion.js';
import { Arg, booleanType, defineScalar, type Signature } from './define.js';

type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

const JS_OPERATOR: Readonly<Record<ComparisonOp, string>> = { '=': '===', '<>': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

const isStructured = (type: SqlType): boolean => type.kind === 'ROW' || type.kind === 'ARRAY' || type.kind === 'MAP';

/** A JS expression comparing two non-NULL values `a` and `b` of the same type with `op`. */
export function comparisonCode(ctx: CodegenContext, op: ComparisonOp, a: ArgCode, b: ArgCode): string {
  if (isStructured(a.type)) {
    const equals = `${ctx.lib('valueEquals')}(${a.code}, ${b.code})`;
    return op === '=' ? equals : `!${equals}`;
  }
  if (isBinaryType(a.type)) {
    if (op === '=' || op === '<>') return `${op === '=' ? '' : '!'}${ctx.lib('equalBytes')}(${a.code}, ${b.code})`;
    return `${ctx.lib('orderBytes')}(${a.code}, ${b.code}) ${JS_OPERATOR[op]} 0`;
  }
  if (a.type.kind === 'DECIMAL' && b.type.kind === 'DECIMAL' && a.type.scale !== b.type.scale) {
    return `${ctx.lib('compareDecimals')}(${a.code}, ${a.type.scale}, ${b.code}, ${b.type.scale}) ${JS_OPERATOR[op]} 0`;
  }
  return `${a.code} ${JS_OPERATOR[op]} ${b.code}`;
}

/** Both operands converted to their comparison type (each keeping its nullability); undefined when not comparable with `op`. */
function comparedTypes(types: readonly SqlType[], ordering: boolean): readonly SqlType[] | undefined {
  const common = comparisonType(types[0]!, types[1]!);
  if (common === undefined || (ordering && isStructured(common))) return undefined;
  return types.map((t) => withNullable(common, t.nullable));
}

const isTimePoint = (type: SqlType): boolean => type.kind === 'DATE' || type.kind === 'TIME' || type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ';

/**
 * `=` and `<>` between a date/time value and a string: the string is converted to the date/time
 * type. A string that does not convert makes the result NULL (not an error), as Flink's equality
 * does; but a literal string is converted once when compiling, as Flink's code generator converts
 * it, and one that does not convert fails the query (`DATE '2024-01-31' = 'tomorrow'`).
 */
function timePointTextEquality(op: '=' | '<>'): Signature {
  return {
    args: [Arg.ANY, Arg.ANY],
    coerce: (types) => ((isTimePoint(types[0]!) && isStringType(types[1]!)) || (isStringType(types[0]!) && isTimePoint(types[1]!)) ? types : undefined),
    nullable: true,
    returns: booleanType(false),
    generate: (ctx, [a, b]) => {
      const textFirst = isStringType(a!.type);
      const [text, time] = textFirst ? [a!, b!] : [b!, a!];
      const type = withNullable(withoutTimeAttribute(time.type), false);
      if (text.constant !== undefined && text.constant.value !== null) checkTimeLiteral(ctx, text.constant.value, text.type, type);
      const parsed = generateCast(ctx, text.code, text.type, type, true);
      const converted: ArgCode = { code: 'v', type };
      const compared = textFirst ? comparisonCode(ctx, op, converted, time) : comparisonCode(ctx, op, time, converted);
      return `((v) => (v === null ? null : ${compared}))(${parsed})`;
    },
  };
}

/** Flink's name of a character string or numeric type (its LogicalTypeRoot), for the message below. */
function typeRoot(type: SqlType): string {
  return type.kind === 'INT' ? 'INTEGER' : type.kind;
}

/**
 * `=` and `<>` refuse a character string against a number, as Flink's code generator does (Calcite
 * converts the string only for the ordering comparisons, IS [NOT] DISTINCT FROM and IN, never for
 * these two; FLINK-24914): `'1' = 1` fails instead of comparing. NULLIF, which Calcite rewrites
 * to a CASE over `=`, refuses them too.
 */
export function refuseTextNumberEquality(types: readonly SqlType[]): void {
  const [a, b] = types as [SqlType, SqlType];
  if ((isStringType(a) && isNumericType(b)) || (isNumericType(a) && isStringType(b))) {
    throw new WeirError('TYPE_MISMATCH', `implicit type conversion between ${typeRoot(a)} and ${typeRoot(b)} is not supported now`);
  }
}

/** A literal string compared with a date/time value must convert to it: Flink's "Error when casting literal" otherwise. */
function checkTimeLiteral(ctx: CodegenContext, text: unknown, from: SqlType, to: SqlType): void {
  try {
    castConverter(withNullable(from, false), to, ctx.timeZone)?.(text);
  } catch (error) {
    if (!(error instanceof WeirError)) throw error;
    throw new WeirError('INVALID_ARGUMENT', `Error when casting literal. java.time.DateTimeException: For input string: '${String(text)}'.`);
  }
}

function comparison(op: ComparisonOp, description: string): ScalarFunctionDefinition {
  const ordering = op !== '=' && op !== '<>';
  return defineScalar({
    name: op,
    description,
    signatures: [
      ...(op === '=' || op === '<>' ? [timePointTextEquality(op)] : []),
      {
        args: [Arg.ANY, Arg.ANY],
        coerce: (types) => {
          if (!ordering) refuseTextNumberEquality(types);
          return comparedTypes(types, ordering);
        },
        returns: booleanType(false),
        generate: (ctx, [a, b]) => comparisonCode(ctx, op, a!, b!),
      },
    ],
  });
}

function distinctFrom(name: string, distinct: boolean): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description: `a ${name} b: ${distinct ? 'TRUE when the values differ' : 'TRUE when the values are equal'}, treating NULLs as equal to each other; never NULL`,
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY, Arg.ANY],
        coerce: (types) => comparedTypes(types, false),
        returns: booleanType(false),
        generate: (ctx, [a, b]) => {
          const differ = `${a!.code} === null ? ${b!.code} !== null : ${b!.code} === null || ${comparisonCode(ctx, '<>', a!, b!)}`;
          return distinct ? `(${differ})` : `!(${differ})`;
        },
      },
    ],
  });
}

const inSignature: Signature = {
  args: [Arg.ANY, Arg.ANY],
  variadic: true,
  coerce: (types) => {
    const common = types.slice(1).reduce<SqlType | undefined>((acc, t) => (acc === undefined ? undefined : comparisonType(acc, t)), types[0]);
    if (common === undefined) return undefined;
    return types.map((t) => withNullable(common, t.nullable));
  },
  returns: (types) => booleanType(types.some((t) => t.nullable)),
  generate: generateIn,
};

/**
 * `value IN (list)`: TRUE on a match; otherwise NULL when the value or any list element is NULL;
 * otherwise FALSE. A list of constants becomes one Set lookup.
 */
function generateIn(ctx: CodegenContext, args: readonly ArgCode[]): string {
  const [value, ...list] = args as [ArgCode, ...ArgCode[]];
  const nullableItems = list.filter((item) => item.constant === undefined ? item.type.nullable : item.constant.value === null);
  const valueNull = value.type.nullable ? `${value.code} === null ? null : ` : '';
  if (!isStructured(value.type) && !isBinaryType(value.type) && list.every((item) => item.constant !== undefined)) {
    const values = list.map((item) => item.constant!.value).filter((v) => v !== null);
    const test = `${ctx.constant(new Set(values), 'in_set')}.has(${value.code})`;
    return `${valueNull}${nullableItems.length > 0 ? `${test} ? true : null` : test}`;
  }
  const matches = list.map((item) => comparisonCode(ctx, '=', value, item)).join(' || ');
  if (nullableItems.length === 0) return `${valueNull}${matches}`;
  const anyNull = nullableItems.map((item) => `${item.code} === null`).join(' || ');
  return `${valueNull}${matches} ? true : ${anyNull} ? null : false`;
}

/** The comparison operators and IN. */
export const comparisonFunctions: readonly ScalarFunctionDefinition[] = [
  comparison('=', 'a = b: equality; NULL when either is NULL'),
  comparison('<>', 'a <> b: inequality; NULL when either is NULL'),
  comparison('<', 'a < b: less than; strings by UTF-16 code unit'),
  comparison('<=', 'a <= b: less than or equal'),
  comparison('>', 'a > b: greater than'),
  comparison('>=', 'a >= b: greater than or equal'),
  distinctFrom('IS DISTINCT FROM', true),
  distinctFrom('IS NOT DISTINCT FROM', false),
  defineScalar({
    name: 'IN',
    description: 'x IN (a, b, ...): TRUE on a match, NULL when there is none and a NULL is involved, else FALSE',
    nulls: 'custom',
    signatures: [inSignature],
  }),
];
