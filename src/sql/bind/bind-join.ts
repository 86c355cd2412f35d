/**
 * Binds `left [INNER | LEFT | RIGHT | FULL [OUTER]] JOIN right ON condition`: the conjuncts of the
 * condition that equate a left column with a right column become the join keys (cast to a common
 * type where needed). A lower and an upper bound between two rowtime attributes make it an interval
 * join (also without an equality: then one subtask joins all rows, as in Flink), a key equating
 * the window ends of two window aggregations a window join (see interval-join-bounds.ts). The
 * rest filters the joined rows of an inner join, and is part of the match condition of an outer
 * join, whose NULL-padded columns become nullable (and, as in Flink, no column of an outer
 * join's output is a time attribute any more). A join with neither an equality between the sides
 * nor time bounds is refused.
 */
import { WeirError } from '../../common/errors.js';
import type { JoinType } from '../../common/join-type.js';
import type { Field } from '../../common/schema.js';
import { sameType, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { comparisonType } from '../../expr/type-coercion.js';
import { extractIntervalBounds, windowJoinBounds } from '../../plan/logical/interval-join-bounds.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { JoinRef } from '../parse/ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import type { BoundFrom } from './bind-query.js';
import { Scope } from './scope.js';

/** Binds an INNER or OUTER JOIN of two bound FROM items. */
export function bindJoin(ref: JoinRef, left: BoundFrom, right: BoundFrom, ctx: BinderContext): BoundFrom {
  if (ref.type === 'CROSS') throw new WeirError('UNSUPPORTED', 'CROSS JOIN is not supported yet; INNER, LEFT, RIGHT and FULL JOIN ... ON are', { span: ref.span });
  if (ref.on === undefined) throw new WeirError('UNSUPPORTED', 'a join needs an ON condition (USING and joins without a condition are not supported yet)', { span: ref.span });
  const joinType: JoinType = ref.type;
  const scope = left.scope.concat(right.scope);
  const condition = bindExpr(ref.on, { scope, functions: ctx.functions, clause: 'ON' });
  const width = left.scope.columns.length;
  const leftExprs: ScalarExpr[] = [];
  const rightExprs: ScalarExpr[] = [];
  const nonEqui: ScalarExpr[] = [];
  for (const conjunct of conjuncts(condition)) {
    const pair = equiPair(conjunct, width);
    if (pair === undefined) nonEqui.push(conjunct);
    else {
      leftExprs.push(pair[0]);
      rightExprs.push(remapInputs(pair[1], (r) => Exprs.inputRef(r.index - width, r.type)));
    }
  }
  const interval = extractIntervalBounds(nonEqui, width);
  if (leftExprs.length === 0 && interval === undefined) {
    throw new WeirError('UNSUPPORTED', 'the ON condition of a join needs an equality between a column of each side, or time bounds between their rowtime attributes', {
      span: ref.on.span,
      hint: 'cross joins and joins on other conditions alone are not supported yet',
    });
  }
  const residual = interval?.rest ?? nonEqui;
  const keyTypes = leftExprs.map((l, i) => {
    const r = rightExprs[i]!;
    if (sameType(l.type, r.type, { ignoreNullability: true })) return l.type;
    const common = comparisonType(l.type, r.type);
    if (common === undefined) throw new WeirError('TYPE_MISMATCH', `cannot join ${l.type.kind} with ${r.type.kind}`, { span: ref.on!.span });
    return common;
  });
  const bounds = interval?.bounds ?? windowJoinBounds(left.plan, right.plan, leftExprs, rightExprs);
  const leftSide = withKeys(left.plan, leftExprs.map((e, i) => castTo(e, keyTypes[i]!)));
  const rightSide = withKeys(right.plan, rightExprs.map((e, i) => castTo(e, keyTypes[i]!)));
  const leftWidth = leftSide.plan.schema.length;
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + leftWidth, r.type)));
  const residualCondition = residual.length === 0 ? null : residual.map(shift).reduce((a, b) => Exprs.call('AND', [a, b], { kind: 'BOOLEAN', nullable: true }));
  const outer = joinType !== 'INNER';
  const schema = [...outputFields(leftSide.plan.schema, joinType, 'RIGHT'), ...outputFields(rightSide.plan.schema, joinType, 'LEFT')];
  let plan: LogicalNode = {
    kind: 'join',
    joinType,
    left: leftSide.plan,
    right: rightSide.plan,
    leftKeys: leftSide.keys,
    rightKeys: rightSide.keys,
    condition: outer ? residualCondition : null,
    ...(bounds === undefined ? {} : { interval: bounds }),
    schema,
  };
  if (!outer && residualCondition !== null) plan = { kind: 'filter', input: plan, condition: residualCondition, schema };
  const visible = [...left.scope.columns.map((_, i) => i), ...right.scope.columns.map((_, i) => leftWidth + i)];
  const exprs = visible.map((i) => Exprs.inputRef(i, schema[i]!.type));
  const identity = exprs.length === schema.length;
  const projected: LogicalNode = identity ? plan : { kind: 'project', input: plan, exprs, schema: visible.map((i) => schema[i]!) };
  const columns = [...left.scope.columns, ...right.scope.columns];
  return { plan: projected, scope: new Scope(outer ? columns.map((c, i) => ({ ...c, type: schema[visible[i]!]!.type })) : columns) };
}

/** An input's columns in the join's output: nullable when `paddedBy` keeps unmatched rows of the other input, never a time attribute after an outer join. */
function outputFields(fields: readonly Field[], joinType: JoinType, paddedBy: JoinType): Field[] {
  if (joinType === 'INNER') return [...fields];
  const padded = joinType === 'FULL' || joinType === paddedBy;
  const type = (t: SqlType): SqlType => withoutTimeAttribute(padded ? withNullable(t, true) : t);
  return fields.map((f) => ({ ...f, type: type(f.type) }));
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
