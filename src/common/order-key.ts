/**
 * One key of an ordering: a column, ascending or descending, with NULLs first or last; shared by
 * the plan and the job graph.
 *
 * The null order, when a query gives neither NULLS FIRST nor NULLS LAST, is Flink's: NULL is the
 * lowest value, so it comes first in an ascending order and last in a descending one. Flink's
 * planner configures Calcite's validator with `NullCollation.LOW`
 * (flink-table-planner, `org/apache/flink/table/planner/calcite/FlinkPlannerImpl.scala`:
 * `val defaultNullCollation: NullCollation = NullCollation.LOW`, passed to
 * `SqlValidator.Config.withDefaultNullCollation`), and its `SqlToRelConverter` resolves an
 * unspecified null direction from it both for a query's ORDER BY (`convertOrderItem`) and for an
 * OVER window's ORDER BY (`Blackboard.sortToRex`, a Flink modification): `defaultNullCollation()
 * .last(desc(direction)) ? LAST : FIRST`. (Calcite's own default, and PostgreSQL's, is the
 * opposite: NULLs last when ascending.)
 *
 * `nullsFirst` is present only when it differs from that default, so that an ordering written
 * without NULLS FIRST / LAST keeps the form (and a job graph the fingerprint) it had before null
 * orders were expressible. Read it through {@link nullsFirstOf}.
 */
export interface OrderKey {
  readonly index: number;
  readonly descending: boolean;
  /** Whether NULLs order before every value; absent: Flink's default, {@link defaultNullsFirst}. */
  readonly nullsFirst?: boolean;
}

/** Flink's default null order: NULLs first when ascending, last when descending (`NullCollation.LOW`). */
export function defaultNullsFirst(descending: boolean): boolean {
  return !descending;
}

/** An order key in canonical form: `nullsFirst` kept only when given and not the default. */
export function orderKey(index: number, descending: boolean, nullsFirst?: boolean): OrderKey {
  return nullsFirst === undefined || nullsFirst === defaultNullsFirst(descending) ? { index, descending } : { index, descending, nullsFirst };
}

/** Whether NULLs order first under `key`, explicitly or by default. */
export function nullsFirstOf(key: OrderKey): boolean {
  return key.nullsFirst ?? defaultNullsFirst(key.descending);
}

/** `name ASC` / `name DESC`, followed by the null order when it is not the default (as EXPLAIN shows it). */
export function formatOrderKey(key: OrderKey, name: string): string {
  const direction = `${name} ${key.descending ? 'DESC' : 'ASC'}`;
  return key.nullsFirst === undefined ? direction : `${direction} NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}`;
}
