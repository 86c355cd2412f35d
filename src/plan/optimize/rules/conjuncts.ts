/** Splitting a condition into its AND-ed parts and joining parts back, for rules that move filters. */
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';

/** The conjuncts of a condition: the operands of nested ANDs, or the condition itself. */
export function conjunctsOf(condition: ScalarExpr): ScalarExpr[] {
  return condition.kind === 'call' && condition.name === 'AND' ? condition.args.flatMap(conjunctsOf) : [condition];
}

/** The AND of one or more conjuncts (the conjunct itself when there is one). */
export function conjunction(conjuncts: readonly ScalarExpr[]): ScalarExpr {
  return conjuncts.reduce((a, b) => Exprs.call('AND', [a, b], { kind: 'BOOLEAN', nullable: true }));
}
