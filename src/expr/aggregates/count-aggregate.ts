/**
 * COUNT. COUNT(*) without FILTER is a group's row count, which the runtime keeps anyway (see the
 * runtime's group-aggregate code generator); every other COUNT keeps a counter of the rows whose
 * arguments are all non-NULL (and pass FILTER and DISTINCT).
 */
import type { AggregateFactory } from './aggregate-codegen.js';

/** COUNT as a counter slot. */
export const countAggregate: AggregateFactory = () => ({
  slots: 1,
  init: ([n]) => `${n} = 0;`,
  accumulate: ([n]) => `${n}++;`,
  retract: ([n]) => `${n}--;`,
  merge: ([n], [m]) => `${n} += ${m};`,
  result: ([n]) => n!,
});
