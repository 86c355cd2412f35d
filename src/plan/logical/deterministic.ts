/** Whether an expression gives the same value each time it is evaluated on the same row. */
import type { FunctionRegistry } from '../../expr/function-registry.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';

/** True when no function the expression calls is non-deterministic, so that evaluating it once or per copy of a row agrees. */
export function isDeterministic(expr: ScalarExpr, functions: FunctionRegistry): boolean {
  switch (expr.kind) {
    case 'input-ref':
    case 'literal':
      return true;
    case 'call': {
      const definition = functions.lookup(expr.name);
      if (definition?.kind === 'scalar' && !definition.deterministic) return false;
      return expr.args.every((a) => isDeterministic(a, functions));
    }
    case 'field':
    case 'cast':
      return isDeterministic(expr.expr, functions);
    case 'case':
      return expr.whens.every((w) => isDeterministic(w.when, functions) && isDeterministic(w.then, functions)) && isDeterministic(expr.else, functions);
  }
}
