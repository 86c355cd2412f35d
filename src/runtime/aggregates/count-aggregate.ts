/**
 * COUNT. COUNT(*) without FILTER is the group's row count, which every group keeps anyway, so it
 * needs no slot; every other COUNT keeps a counter of the (non-NULL, filtered, distinct) values
 * it is shown.
 */
import type { AggregateCodegen, AggregateFactory } from './aggregate-codegen.js';

/** COUNT as a counter slot. */
export const countAggregate: AggregateFactory = () => ({
  slots: 1,
  init: ([n]) => `${n} = 0;`,
  accumulate: ([n]) => `${n}++;`,
  retract: ([n]) => `${n}--;`,
  merge: ([n], [m]) => `${n} += ${m};`,
  result: ([n]) => n!,
});

/** COUNT(*) answered by the group's row count held in `rowCount` (an lvalue of the generated code, merged by its owner). */
export function rowCountAggregate(rowCount: string): AggregateCodegen {
  return { slots: 0, init: () => '', accumulate: () => '', retract: () => '', merge: () => '', result: () => rowCount };
}
