/**
 * Binds `left [INNER] JOIN right ON condition`: the conjuncts of the condition that equate a
 * left column with a right column become the join keys (cast to a common type where needed);
 * the rest filters the joined rows. A join without such a conjunct, and outer joins, are refused.
 */
import { WeirError } from '../../common/errors.js';
import { sameType } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { comparisonType } from '../../expr/type-coercion.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { JoinRef } from '../parse/ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import type { BoundFrom } from './bind-query.js';
import { Scope } from './scope.js';

/** Binds an INNER JOIN of two bound FROM items. */
export function bindJoin(ref: JoinRef, left: BoundFrom, right: BoundFrom, ctx: BinderContext): BoundFrom {
  if (ref.type !== 'INNER') throw new WeirError('UNSUPPORTED', `${ref.type} JOIN is not supported yet; INNER JOIN is`, { span: ref.span });
  if (ref.on === undefined) throw new WeirError('UNSUPPORTED', 'a join needs an ON condition (USING and joins without a condition are not supported yet)', { span: ref.span });
  const scope = left.scope.concat(right.scope);
  const condition = bindExpr(ref.on, { scope, functions: ctx.functions, clause: 'ON' });
  const width = left.scope.columns.length;
  const leftExprs: ScalarExpr[] = [];
  const rightExprs: ScalarExpr[] = [];
  const residual: ScalarExpr[] = [];
  for (const conjunct of conjuncts(condition)) {
    const pair = equiPair(conjunct, width);
    if (pair === undefined) residual.push(conjunct);
    else {
      leftExprs.push(pair[0]);
      rightExprs.push(remapInputs(pair[1], (r) => Exprs.inputRef(r.index - width, r.type)));
    }
  }
  if (leftExprs.length === 0) {
    throw new WeirError('UNSUPPORTED', 'the ON condition of a join needs an equality between a column of each side', { span: ref.on.span });
  }
  const keyTypes = leftExprs.map((l, i) => {
    const r = rightExprs[i]!;
    if (sameType(l.type, r.type, { ignoreNullability: true })) return l.type;
    const common = comparisonType(l.type, r.type);
    if (common === undefined) throw new WeirError('TYPE_MISMATCH', `cannot join ${l.type.kind} with ${r.type.kind}`, { span: ref.on!.span });
    return common;
  });
  const leftSide = withKeys(left.plan, leftExprs.map((e, i) => castTo(e, keyTypes[i]!)));
  const rightSide = withKeys(right.plan, rightExprs.map((e, i) => castTo(e, keyTypes[i]!)));
  const schema = [...leftSide.plan.schema, ...rightSide.plan.schema];
  let plan: LogicalNode = { kind: 'join', left: leftSide.plan, right: rightSide.plan, leftKeys: leftSide.keys, rightKeys: rightSide.keys, schema };
  const leftWidth = leftSide.plan.schema.length;
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + leftWidth, r.type)));
  if (residual.length > 0) {
    const filter = residual.map(shift).reduce((a, b) => Exprs.call('AND', [a, b], { kind: 'BOOLEAN', nullable: true }));
    plan = { kind: 'filter', input: plan, condition: filter, schema };
  }
  const visible = [...left.scope.columns.map((_, i) => i), ...right.scope.columns.map((_, i) => leftWidth + i)];
  const exprs = visible.map((i) => Exprs.inputRef(i, schema[i]!.type));
  const identity = exprs.length === schema.length;
  const projected: LogicalNode = identity ? plan : { kind: 'project', input: plan, exprs, schema: visible.map((i) => schema[i]!) };
  return { plan: projected, scope: new Scope([...left.scope.columns, ...right.scope.columns]) };
}

/** The key columns of one side: plain column references where possible, computed columns appended otherwise. */
function withKeys(plan: LogicalNode, keys: readonly ScalarExpr[]): { plan: LogicalNode; keys: number[] } {
  const extra: ScalarExpr[] = [];
  const indexes = keys.map((k) => {
    if (k.kind === 'input-ref') return k.index;
    extra.push(k);
    return plan.schema.length + extra.length - 1;
  });
  if (extra.length === 0) return { plan, keys: indexes };
  const exprs = [...plan.schema.map((f, i) => Exprs.inputRef(i, f.type)), ...extra];
  const schema = [...plan.schema, ...extra.map((e, i) => ({ name: `$key${i}`, type: e.type }))];
  return { plan: { kind: 'project', input: plan, exprs, schema }, keys: indexes };
}

function conjuncts(expr: ScalarExpr): ScalarExpr[] {
  return expr.kind === 'call' && expr.name === 'AND' ? expr.args.flatMap(conjuncts) : [expr];
}

/** `l = r` with `l` reading only left columns and `r` only right ones (either order). */
function equiPair(expr: ScalarExpr, width: number): [ScalarExpr, ScalarExpr] | undefined {
  if (expr.kind !== 'call' || expr.name !== '=' || expr.args.length !== 2) return undefined;
  const [a, b] = expr.args as [ScalarExpr, ScalarExpr];
  const side = (e: ScalarExpr): 'left' | 'right' | 'both' | 'none' => {
    const refs = inputRefsOf(e);
    if (refs.length === 0) return 'none';
    if (refs.every((r) => r < width)) return 'left';
    if (refs.every((r) => r >= width)) return 'right';
    return 'both';
  };
  if (side(a) === 'left' && side(b) === 'right') return [a, b];
  if (side(a) === 'right' && side(b) === 'left') return [b, a];
  return undefined;
}
