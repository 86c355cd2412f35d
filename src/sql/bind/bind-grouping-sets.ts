/**
 * GROUP BY with GROUPING SETS, ROLLUP and CUBE (Flink's ExpandRule, PostgreSQL's semantics).
 *
 * The GROUP BY's elements give a list of grouping sets (the cross product of each element's sets:
 * `GROUP BY a, ROLLUP(b, c)` is `(a, b, c), (a, b), (a)`; a set listed twice gives its rows twice,
 * as in PostgreSQL). The plan is then:
 *
 * - the non-empty sets: an Expand over the pre-projection emits each input row once per set, the
 *   grouping columns outside the set NULL, the pre-projection's columns that the calls read after them,
 *   unchanged (an aggregate argument sees the real value even of a grouping column), and the
 *   set's number `$e` (one set alone is a Calc); one aggregation groups by the grouping columns and `$e`;
 * - each empty set `()`: a global aggregation over the pre-projection, its grouping columns NULL and
 *   `$e` its number, so that, as in SQL, it has its row over no input (COUNT 0) and goes back to it
 *   when every row is retracted;
 * - a UNION ALL of those, laid out as the grouping columns, `$e`, then the aggregate calls.
 *
 * Everything stays incremental: the Expand is a function of each row, and each aggregation is an
 * ordinary group (or global) aggregation, correct under retraction.
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, withNullable } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { LogicalAggregate, LogicalExpand, LogicalProject, LogicalUnion, type AggregateCall, type LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, GroupingElement } from '../parse/ast.js';

/** PostgreSQL's limit on the number of grouping sets, which CUBE reaches quickly (2^n sets). */
const MAX_GROUPING_SETS = 4096;

/** The name of the column holding a row's grouping-set number, as in Flink's plans. */
export const GROUPING_ID_COLUMN = '$e';

/**
 * The grouping sets of a GROUP BY, each as sorted indexes of distinct grouping expressions
 * (`keyOf` binds one and returns its index); undefined when no element is GROUPING SETS, ROLLUP or
 * CUBE (a plain GROUP BY, one set of every expression).
 */
export function groupingSetsOf(elements: readonly GroupingElement[], keyOf: (expr: Expr) => number): (readonly number[])[] | undefined {
  if (!elements.some((e) => e.kind === 'grouping-sets')) {
    for (const element of elements) if (element.kind === 'group-expr') keyOf(element.expr);
    return undefined;
  }
  let sets: number[][] = [[]];
  for (const element of elements) {
    const options = element.kind === 'group-expr' ? [[keyOf(element.expr)]] : elementSets(element, keyOf);
    if (sets.length * options.length > MAX_GROUPING_SETS) {
      throw new WeirError('UNSUPPORTED', `the GROUP BY has more than ${MAX_GROUPING_SETS} grouping sets`, {
        span: element.span,
        hint: 'a CUBE of n expressions has 2^n sets: list the sets needed with GROUPING SETS',
      });
    }
    sets = sets.flatMap((prefix) => options.map((set) => sortedUnion(prefix, set)));
  }
  return sets;
}

function elementSets(element: Extract<GroupingElement, { kind: 'grouping-sets' }>, keyOf: (expr: Expr) => number): number[][] {
  const items = element.sets.map((set) => sortedUnion([], set.map(keyOf)));
  switch (element.type) {
    case 'GROUPING SETS':
      return items;
    case 'ROLLUP':
      // ROLLUP(a, b, c) = (a, b, c), (a, b), (a), ().
      return Array.from({ length: items.length + 1 }, (_, n) => sortedUnion([], items.slice(0, items.length - n).flat()));
    case 'CUBE': {
      if (items.length > 12) {
        throw new WeirError('UNSUPPORTED', `CUBE of ${items.length} elements has ${2 ** items.length} grouping sets, more than ${MAX_GROUPING_SETS}`, { span: element.span });
      }
      // Every subset, largest first, in PostgreSQL's order: CUBE(a, b) = (a, b), (a), (b), ().
      const subsets: number[][] = [];
      for (let size = items.length; size >= 0; size--) {
        const choose = (start: number, chosen: number[][]): void => {
          if (chosen.length === size) {
            subsets.push(sortedUnion([], chosen.flat()));
            return;
          }
          for (let i = start; i < items.length; i++) choose(i + 1, [...chosen, items[i]!]);
        };
        choose(0, []);
      }
      return subsets;
    }
  }
}

function sortedUnion(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/**
 * `GROUPING(k1, ..., kn)` of a row of grouping set `set`: bit n-1-i is 1 when ki is not in the set
 * (aggregated over), as in SQL.
 */
export function groupingValue(set: readonly number[], args: readonly number[]): number {
  return args.reduce((value, key) => value * 2 + (set.includes(key) ? 0 : 1), 0);
}

/**
 * `GROUP_ID()` of a row of grouping set number `index`: how many times the same set occurs before it
 * in the GROUP BY (0 for a set's first occurrence, 1 for its second, ...), as Flink (after Calcite
 * and Oracle) defines it; 0 for every row when no set is listed twice.
 */
export function groupIdValue(sets: readonly (readonly number[])[], index: number): number {
  const set = sets[index]!;
  const same = (other: readonly number[]): boolean => other.length === set.length && other.every((k, i) => k === set[i]);
  return sets.slice(0, index).filter(same).length;
}

/**
 * The expression of `GROUPING(args)` over the aggregation's output, whose column `idIndex` holds the
 * grouping-set number: a constant when every set gives the same value, else a CASE over `$e`.
 */
export function groupingExpr(sets: readonly (readonly number[])[], args: readonly number[], idIndex: number, span: SourceSpan): ScalarExpr {
  if (args.length > 53) throw new WeirError('INVALID_ARGUMENT', 'GROUPING takes at most 53 arguments', { span });
  return perSetExpr(sets.map((set) => groupingValue(set, args)), idIndex);
}

/** The expression of `GROUP_ID()` over the aggregation's output (see groupIdValue), as groupingExpr. */
export function groupIdExpr(sets: readonly (readonly number[])[], idIndex: number): ScalarExpr {
  return perSetExpr(sets.map((_, i) => groupIdValue(sets, i)), idIndex);
}

/** A BIGINT NOT NULL that is `values[i]` on the rows of grouping set i: a constant, or a CASE over `$e`. */
function perSetExpr(values: readonly number[], idIndex: number): ScalarExpr {
  const type = SqlTypes.bigint(false);
  const last = values[values.length - 1]!;
  if (values.every((v) => v === last)) return Exprs.literal(last, type);
  const id = Exprs.inputRef(idIndex, SqlTypes.int(false));
  const whens = values.slice(0, -1).flatMap((value, i) => (value === last ? [] : [{ when: Exprs.call('=', [id, Exprs.literal(i, SqlTypes.int(false))], SqlTypes.boolean(false)), then: Exprs.literal(value, type) }]));
  return { kind: 'case', whens, else: Exprs.literal(last, type), type };
}

/**
 * The plan computing every grouping set (see the module comment) over `pre`, whose first
 * `keyCount` columns are the grouping expressions; `calls` read `pre`'s columns. The output is the
 * grouping columns (nullable), `$e` (INT), then one column per call.
 */
export function groupingSetsAggregate(pre: LogicalNode, keyCount: number, sets: readonly (readonly number[])[], calls: readonly AggregateCall[]): LogicalNode {
  const keyFields: Field[] = pre.schema.slice(0, keyCount).map((f) => ({ name: f.name, type: withNullable(f.type, true) }));
  const idType = SqlTypes.int(false);
  const idField: Field = { name: GROUPING_ID_COLUMN, type: idType };
  const callFields: Field[] = calls.map((c) => ({ name: c.name, type: c.type }));
  const schema: Field[] = [...keyFields, idField, ...callFields];
  const nullKey = (k: number): ScalarExpr => Exprs.literal(null, keyFields[k]!.type);
  const branches: LogicalNode[] = [];

  const grouped = sets.map((set, id) => ({ set, id })).filter(({ set }) => set.length > 0);
  if (grouped.length > 0) {
    // Keys (NULL outside the set), the pre-projection's columns the calls read (unchanged), then $e.
    const read = [...new Set(calls.flatMap((c) => (c.filter === null ? c.args : [...c.args, c.filter])))].sort((a, b) => a - b);
    const projects = grouped.map(({ set, id }) => [
      // A key in the set reads its column as nullable: other sets null it out.
      ...keyFields.map((_, k) => (set.includes(k) ? Exprs.inputRef(k, keyFields[k]!.type) : nullKey(k))),
      ...read.map((i) => Exprs.inputRef(i, pre.schema[i]!.type)),
      Exprs.literal(id, idType),
    ]);
    const expandSchema: Field[] = [...keyFields, ...read.map((i) => ({ name: i < keyCount ? `${pre.schema[i]!.name}_0` : pre.schema[i]!.name, type: pre.schema[i]!.type })), idField];
    const idIndex = keyCount + read.length;
    const names = expandSchema.map((f) => f.name);
    const input: LogicalNode = projects.length === 1 ? LogicalProject.create({ input: pre, exprs: projects[0]!, names }) : LogicalExpand.create({ input: pre, projects, idIndex, names });
    const position = (column: number): number => keyCount + read.indexOf(column);
    const shifted = calls.map((c) => ({ ...c, args: c.args.map(position), filter: c.filter === null ? null : position(c.filter) }));
    const keys = [...keyFields.map((_, k) => k), idIndex];
    branches.push(LogicalAggregate.create({ input, keys, calls: shifted }));
  }
  for (const [id, set] of sets.entries()) {
    if (set.length > 0) continue;
    const global: LogicalNode = LogicalAggregate.create({ input: pre, keys: [], calls });
    const exprs = [...keyFields.map((_, k) => nullKey(k)), Exprs.literal(id, idType), ...calls.map((c, i) => Exprs.inputRef(i, c.type))];
    branches.push(LogicalProject.create({ input: global, exprs, names: schema.map((f) => f.name) }));
  }
  return branches.length === 1 ? branches[0]! : LogicalUnion.create({ inputs: branches });
}
