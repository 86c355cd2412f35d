/**
 * Flink's FilterIntoJoinRule for inner joins: the conjuncts of a filter over a join (the WHERE
 * clause, or the non-equi part of the ON condition) that read the columns of one input only move
 * below the join onto that input, so that the join neither stores nor matches rows that cannot
 * produce output. Conjuncts reading both inputs or none, and those calling a non-deterministic
 * function, stay above. Moved filters are pushed further when the input is itself a join.
 */
import type { FunctionRegistry } from '../../../expr/function-registry.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import type { LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';

/** The rule `push-filter-into-join`. */
export const pushFilterIntoJoin: RewriteRule = {
  name: 'push-filter-into-join',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'filter' || node.input.kind !== 'join') return node;
    const join = node.input;
    const leftArity = join.left.schema.length;
    const left: ScalarExpr[] = [];
    const right: ScalarExpr[] = [];
    const rest: ScalarExpr[] = [];
    for (const conjunct of conjunctsOf(node.condition)) {
      const columns = inputRefsOf(conjunct);
      if (columns.length === 0 || !isDeterministic(conjunct, context.functions)) rest.push(conjunct);
      else if (columns.every((c) => c < leftArity)) left.push(conjunct);
      else if (columns.every((c) => c >= leftArity)) right.push(remapInputs(conjunct, (ref) => Exprs.inputRef(ref.index - leftArity, ref.type)));
      else rest.push(conjunct);
    }
    if (left.length === 0 && right.length === 0) return node;
    const filtered = (input: LogicalNode, conjuncts: readonly ScalarExpr[]): LogicalNode =>
      conjuncts.length === 0 ? input : pushFilterIntoJoin.rewrite({ kind: 'filter', input, condition: conjunction(conjuncts), schema: input.schema }, context);
    const pushed: LogicalNode = { ...join, left: filtered(join.left, left), right: filtered(join.right, right) };
    return rest.length === 0 ? pushed : { ...node, input: pushed, condition: conjunction(rest) };
  },
};

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
