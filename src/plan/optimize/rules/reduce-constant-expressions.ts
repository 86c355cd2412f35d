/**
 * Evaluates deterministic sub-expressions that read no column once, at planning time (Flink's
 * ReduceExpressionsRule): `CAST(2 AS BIGINT)` becomes the literal 2, `1 + 2` becomes 3. An
 * expression whose evaluation fails is left as it is, so that the error surfaces where the
 * query runs, with the row that caused it.
 */
import { evaluateConstantExpr, isConstantExpr } from '../../../expr/constant-expr.js';
import type { FunctionRegistry } from '../../../expr/function-registry.js';
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { LogicalFilter, LogicalProject, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';

/** The rule `reduce-constant-expressions`. */
export const reduceConstantExpressions: RewriteRule = {
  name: 'reduce-constant-expressions',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    switch (node.kind) {
      case 'project': {
        const exprs = node.exprs.map((e) => reduce(e, context.functions, context.timeZone));
        return exprs.every((e, i) => e === node.exprs[i]) ? node : LogicalProject.create({ input: node.input, exprs, names: node.schema.map((f) => f.name) });
      }
      case 'filter': {
        const condition = reduce(node.condition, context.functions, context.timeZone);
        return condition === node.condition ? node : LogicalFilter.create({ input: node.input, condition });
      }
      default:
        return node;
    }
  },
};

/**
 * `expr` with its deterministic sub-expressions that read no column evaluated (an expression that
 * fails to evaluate stays as it is), in `timeZone` (the session's, for casts of TIMESTAMP_LTZ).
 */
export function reduce(expr: ScalarExpr, functions: FunctionRegistry, timeZone?: string): ScalarExpr {
  if (expr.kind === 'literal' || expr.kind === 'input-ref') return expr;
  if (isConstantExpr(expr, functions)) {
    try {
      return Exprs.literal(evaluateConstantExpr(expr, functions, timeZone), expr.type);
    } catch {
      return expr;
    }
  }
  switch (expr.kind) {
    case 'call': {
      const args = expr.args.map((a) => reduce(a, functions, timeZone));
      return args.every((a, i) => a === expr.args[i]) ? expr : { ...expr, args };
    }
    case 'field':
    case 'cast': {
      const inner = reduce(expr.expr, functions, timeZone);
      return inner === expr.expr ? expr : { ...expr, expr: inner };
    }
    case 'case': {
      const whens = expr.whens.map(({ when, then }) => ({ when: reduce(when, functions, timeZone), then: reduce(then, functions, timeZone) }));
      const otherwise = reduce(expr.else, functions, timeZone);
      const same = otherwise === expr.else && whens.every((w, i) => w.when === expr.whens[i]!.when && w.then === expr.whens[i]!.then);
      return same ? expr : { ...expr, whens, else: otherwise };
    }
  }
}
