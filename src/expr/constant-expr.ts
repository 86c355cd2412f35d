/**
 * Constant scalar expressions: those that read no column and call only deterministic functions,
 * so that planning can evaluate them once (the optimizer's reduce-constant-expressions rule, the
 * binder's integer arguments such as LAG's offset).
 */
import { ExprCompiler } from './expr-compiler.js';
import type { FunctionRegistry } from './function-registry.js';
import type { ScalarExpr } from './scalar-expr.js';

/** True when the expression reads no column and every function in it is deterministic. */
export function isConstantExpr(expr: ScalarExpr, functions: FunctionRegistry): boolean {
  switch (expr.kind) {
    case 'literal':
      return true;
    case 'input-ref':
      return false;
    case 'call': {
      const definition = functions.lookup(expr.name);
      return definition?.kind === 'scalar' && definition.deterministic && expr.args.every((a) => isConstantExpr(a, functions));
    }
    case 'field':
    case 'cast':
      return isConstantExpr(expr.expr, functions);
    case 'case':
      return isConstantExpr(expr.else, functions) && expr.whens.every((w) => isConstantExpr(w.when, functions) && isConstantExpr(w.then, functions));
    default: {
      const never: never = expr;
      throw new Error(`unexpected expression ${(never as { kind: string }).kind}`);
    }
  }
}

/** The value of a constant expression ({@link isConstantExpr}), evaluated in `timeZone` (the session's); throws what evaluating it throws. */
export function evaluateConstantExpr(expr: ScalarExpr, functions: FunctionRegistry, timeZone?: string): unknown {
  return new ExprCompiler(functions, timeZone === undefined ? {} : { timeZone }).scalar(expr)([]);
}
