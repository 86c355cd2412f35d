/**
 * AND, OR and NOT with SQL's three-valued logic, and the IS [NOT] NULL/TRUE/FALSE tests.
 * AND/OR evaluate their operands lazily: an operand after a decisive one is never computed.
 */
import type { ScalarFunctionDefinition, StatementContext, LazyArg } from '../function-definition.js';
import { Arg, booleanType, defineScalar, type Signature } from './define.js';

function anyNullable(types: readonly { nullable: boolean }[]): boolean {
  return types.some((t) => t.nullable);
}

/**
 * Lazy AND (`decisive` false) or OR (`decisive` true): the result local holds the value so far,
 * and each further operand is evaluated only while the result is not yet decided.
 */
function junction(decisive: boolean) {
  return (ctx: StatementContext, args: readonly LazyArg[]): string => {
    const result = ctx.local();
    ctx.emit(`let ${result} = ${args[0]!.evaluate()};`);
    let nullable = args[0]!.type.nullable;
    for (const arg of args.slice(1)) {
      ctx.block(`if (${result} !== ${decisive})`, () => {
        const value = arg.evaluate();
        if (!nullable && !arg.type.nullable) ctx.emit(`${result} = ${value};`);
        else if (!arg.type.nullable) ctx.emit(`if (${value} === ${decisive}) ${result} = ${decisive};`);
        else ctx.emit(`if (${value} !== ${!decisive}) ${result} = ${value};`);
      });
      nullable ||= arg.type.nullable;
    }
    return result;
  };
}

const junctionSignature = (helper: string): Signature => ({
  args: [Arg.BOOLEAN, Arg.BOOLEAN],
  variadic: true,
  returns: (types) => booleanType(anyNullable(types)),
  generate: (ctx, args) => args.slice(1).reduce((acc, arg) => `${ctx.lib(helper)}(${acc}, ${arg.code})`, args[0]!.code),
});

const isTest = (name: string, test: (code: string) => string, family = Arg.BOOLEAN): ScalarFunctionDefinition =>
  defineScalar({
    name,
    description: `x ${name}: never NULL`,
    nulls: 'custom',
    signatures: [{ args: [family], returns: booleanType(false), generate: (_ctx, [a]) => test(a!.code) }],
  });

/** The logical operators and truth tests. */
export const logicalFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'AND',
    description: 'a AND b: FALSE if any operand is FALSE, else NULL if any is NULL, else TRUE',
    nulls: 'custom',
    signatures: [junctionSignature('and3')],
    generateStatements: junction(false),
  }),
  defineScalar({
    name: 'OR',
    description: 'a OR b: TRUE if any operand is TRUE, else NULL if any is NULL, else FALSE',
    nulls: 'custom',
    signatures: [junctionSignature('or3')],
    generateStatements: junction(true),
  }),
  defineScalar({
    name: 'NOT',
    description: 'NOT b: the negation; NULL stays NULL',
    signatures: [{ args: [Arg.BOOLEAN], returns: booleanType(false), generate: (_ctx, [a]) => `!${a!.code}` }],
  }),
  isTest('IS NULL', (a) => `${a} === null`, Arg.ANY),
  isTest('IS NOT NULL', (a) => `${a} !== null`, Arg.ANY),
  isTest('IS TRUE', (a) => `${a} === true`),
  isTest('IS NOT TRUE', (a) => `${a} !== true`),
  isTest('IS FALSE', (a) => `${a} === false`),
  isTest('IS NOT FALSE', (a) => `${a} !== false`),
];
