/** Shared builders for expression tests: typed literals, calls typed by the registry (as the binder types them), evaluation. */
import { parseDecimal } from '../../src/common/decimal.js';
import { SqlTypes, type SqlType } from '../../src/common/sql-type.js';
import { ExprCompiler } from '../../src/expr/expr-compiler.js';
import type { ScalarFunctionDefinition } from '../../src/expr/function-definition.js';
import { FunctionRegistry } from '../../src/expr/function-registry.js';
import { Exprs, type CallExpr, type ScalarExpr } from '../../src/expr/scalar-expr.js';

export const registry = FunctionRegistry.withBuiltins();
export const compiler = new ExprCompiler(registry);

/** Literals typed as Flink types them. */
export const lit = {
  int: (value: number): ScalarExpr => Exprs.literal(value, SqlTypes.int(false)),
  bigint: (value: number): ScalarExpr => Exprs.literal(value, SqlTypes.bigint(false)),
  double: (value: number): ScalarExpr => Exprs.literal(value, SqlTypes.double(false)),
  bool: (value: boolean): ScalarExpr => Exprs.literal(value, SqlTypes.boolean(false)),
  str: (value: string): ScalarExpr => Exprs.literal(value, SqlTypes.char(Math.max(value.length, 1), false)),
  dec: (text: string): ScalarExpr => {
    const parsed = parseDecimal(text)!;
    return Exprs.literal(parsed.unscaled, SqlTypes.decimal(parsed.precision, parsed.scale, false));
  },
  null: (type: SqlType = SqlTypes.null()): ScalarExpr => Exprs.literal(null, type),
  of: (value: unknown, type: SqlType): ScalarExpr => Exprs.literal(value, type),
};

/** An input column reference. */
export const ref = (index: number, type: SqlType): ScalarExpr => Exprs.inputRef(index, type);

/** A call typed by the function's own resolution. */
export function call(name: string, ...args: ScalarExpr[]): CallExpr {
  const definition = registry.lookup(name) as ScalarFunctionDefinition;
  const literals = args.map((a) => (a.kind === 'literal' ? { value: a.value } : undefined));
  const signature = definition.resolve(args.map((a) => a.type), literals);
  return Exprs.call(definition.name, args, signature.returns);
}

/** The value of an expression over a row. */
export function evaluate(expr: ScalarExpr, row: unknown[] = []): unknown {
  return compiler.scalar(expr)(row);
}

/** The value of a call of literals. */
export function evalCall(name: string, ...args: ScalarExpr[]): unknown {
  return evaluate(call(name, ...args));
}

/** The SQL NULL of a type. */
export const NULL = (type: SqlType): ScalarExpr => Exprs.literal(null, type);

export { SqlTypes as T };
