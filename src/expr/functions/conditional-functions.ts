/**
 * Conditional functions: COALESCE and IFNULL (lazy: later arguments are evaluated only while the
 * earlier ones are NULL), IF (only the chosen branch is evaluated), NULLIF, GREATEST and LEAST
 * (NULL when any argument is NULL, as Flink).
 */
import { isBinaryType, withNullable, type SqlType } from '../../common/sql-type.js';
import type { LazyArg, ScalarFunctionDefinition, StatementContext } from '../function-definition.js';
import { comparisonType, leastRestrictive } from '../type-coercion.js';
import { comparisonCode, refuseTextNumberEquality } from './comparison-functions.js';
import { allTo, Arg, defineScalar } from './define.js';

/** All arguments converted to their least restrictive type; undefined when there is none. */
function toCommon(types: readonly SqlType[]): readonly SqlType[] | undefined {
  const common = leastRestrictive(types);
  return common === undefined ? undefined : allTo(types, common);
}

function coalesceStatements(ctx: StatementContext, args: readonly LazyArg[]): string {
  const result = ctx.local();
  ctx.emit(`let ${result} = ${args[0]!.evaluate()};`);
  const next = (i: number): void => {
    if (i >= args.length || !args[i - 1]!.type.nullable) return;
    ctx.block(`if (${result} === null)`, () => {
      ctx.emit(`${result} = ${args[i]!.evaluate()};`);
      next(i + 1);
    });
  };
  next(1);
  return result;
}

function coalesceLike(name: string, description: string, minimum: number): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description,
    nulls: 'custom',
    signatures: [
      {
        args: Array.from({ length: minimum }, () => Arg.ANY),
        variadic: name === 'COALESCE',
        coerce: toCommon,
        // Nullable only when every argument is (IFNULL: a NOT NULL first argument or replacement makes it NOT NULL, as Flink's).
        returns: (types) => withNullable(types[0]!, types.every((t) => t.nullable)),
        generate: (ctx, args) => `${ctx.lib('coalesce')}(${args.map((a) => a.code).join(', ')})`,
      },
    ],
    generateStatements: coalesceStatements,
  });
}

function ifStatements(ctx: StatementContext, [condition, then, otherwise]: readonly LazyArg[]): string {
  const test = condition!.evaluate();
  const result = ctx.local();
  ctx.emit(`let ${result};`);
  ctx.block(`if (${test} === true)`, () => ctx.emit(`${result} = ${then!.evaluate()};`));
  ctx.block('else', () => ctx.emit(`${result} = ${otherwise!.evaluate()};`));
  return result;
}

function extreme(name: 'GREATEST' | 'LEAST'): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description: `${name}(a, b, ...): the ${name === 'GREATEST' ? 'largest' : 'smallest'} argument; NULL when any is NULL`,
    signatures: [
      {
        args: [Arg.ANY],
        variadic: true,
        coerce: (types) => {
          const common = toCommon(types);
          return common === undefined || ['ROW', 'ARRAY', 'MAP'].includes(common[0]!.kind) ? undefined : common;
        },
        returns: (types) => types[0]!,
        generate: (ctx, args) => {
          const helper = name === 'GREATEST' ? 'greatest' : 'least';
          return `${ctx.lib(isBinaryType(args[0]!.type) ? `${helper}Bytes` : helper)}(${args.map((a) => a.code).join(', ')})`;
        },
      },
    ],
  });
}

/** The conditional functions. */
export const conditionalFunctions: readonly ScalarFunctionDefinition[] = [
  coalesceLike('COALESCE', 'COALESCE(a, b, ...): the first argument that is not NULL', 1),
  coalesceLike('IFNULL', 'IFNULL(a, b): a unless it is NULL, else b', 2),
  defineScalar({
    name: 'IF',
    description: 'IF(condition, a, b): a when the condition is TRUE, else b',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.BOOLEAN, Arg.ANY, Arg.ANY],
        coerce: (types) => {
          const branches = toCommon(types.slice(1));
          return branches === undefined ? undefined : [types[0]!, ...branches];
        },
        returns: (types) => withNullable(types[1]!, types[1]!.nullable || types[2]!.nullable),
        generate: (_ctx, [c, a, b]) => `${c!.code} === true ? ${a!.code} : ${b!.code}`,
      },
    ],
    generateStatements: ifStatements,
  }),
  defineScalar({
    name: 'NULLIF',
    description: 'NULLIF(a, b): NULL when a equals b, else a',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY, Arg.ANY],
        coerce: (types) => {
          refuseTextNumberEquality(types);
          const common = comparisonType(types[0]!, types[1]!);
          return common === undefined ? undefined : allTo(types, common);
        },
        returns: (types) => withNullable(types[0]!, true),
        generate: (ctx, [a, b]) => `${a!.code} === null ? null : ${b!.code} !== null && ${comparisonCode(ctx, '=', a!, b!)} ? null : ${a!.code}`,
      },
    ],
  }),
  extreme('GREATEST'),
  extreme('LEAST'),
];
