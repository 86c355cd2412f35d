/**
 * Generates, once per operator, the accumulator functions of an OVER aggregate: a frame slides
 * over a partition's ordered rows, so rows are added at its end and retracted at its start. The
 * aggregate parts are those of the group aggregation (same families, FILTER and NULL handling,
 * see {@link aggregateCodegen} and {@link guarded}), spliced into monomorphic functions.
 *
 * An accumulator is a plain array `[rowCount, ...aggregateSlots]` (snapshot-safe data); it is
 * initialised by the first row added while empty, so it may be emptied and refilled.
 */
import type { Row } from '../../common/row.js';
import type { AggregateCallSpec } from '../../dataflow/job-graph.js';
import { SourceScope } from '../../expr/aggregates/aggregate-codegen.js';
import { aggregateCodegen, guarded } from './group-aggregate-codegen.js';

/** The generated functions over sliding accumulators. */
export interface SlidingAggregateProgram {
  /** An empty accumulator. */
  create(): unknown[];
  /** Adds `row` to the accumulator. */
  accumulate(acc: unknown[], row: Row): void;
  /** Removes `row`, which was added before. */
  retract(acc: unknown[], row: Row): void;
  /** The aggregate results, in call order. */
  results(acc: unknown[]): unknown[];
  /** The results over no rows (an empty frame): COUNT's 0, NULL for most others. */
  empty(): unknown[];
}

/** Generates the program for `aggregates` (throws a WeirError for an unsupported call). */
export function generateSlidingAggregate(aggregates: readonly AggregateCallSpec[]): SlidingAggregateProgram {
  const scope = new SourceScope();
  const rowCount = 'acc[0]';
  let next = 1;
  const parts = aggregates.map((call) => {
    const codegen = aggregateCodegen(call, scope, true, rowCount);
    const slots = Array.from({ length: codegen.slots }, (_, i) => `acc[${next + i}]`);
    next += codegen.slots;
    return { call, codegen, slots };
  });
  const update = (method: 'accumulate' | 'retract') =>
    parts.map(({ call, codegen, slots }) => guarded(call, codegen, scope, (args) => codegen[method](slots, args))).join('\n');
  const source = `
    function create() {
      return [0${', null'.repeat(next - 1)}];
    }
    function accumulate(acc, row) {
      if (${rowCount}++ === 0) { ${parts.map((p) => p.codegen.init(p.slots)).join(' ')} }
      ${update('accumulate')}
    }
    function retract(acc, row) {
      ${rowCount}--;
      ${update('retract')}
    }
    function results(acc) {
      return [${parts.map(({ codegen, slots }) => codegen.result(slots)).join(', ')}];
    }
    function empty() {
      const acc = create();
      ${parts.map((p) => p.codegen.init(p.slots)).join(' ')}
      return results(acc);
    }
    return { create, accumulate, retract, results, empty };`;
  return scope.instantiate<SlidingAggregateProgram>(source);
}
