/**
 * Generates, once per operator, the accumulator functions of windows that merge (sessions): unlike
 * a group aggregation's, these accumulators are not one per key in keyed state but runs of slots
 * inside the caller's window records, so that a key can hold several windows and two windows can
 * be merged into one. The aggregate parts are those of the group aggregation (same families, same
 * FILTER and NULL handling, see {@link aggregateCodegen} and {@link guarded}), spliced into
 * monomorphic functions.
 *
 * An accumulator occupies `[rowCount, ...aggregateSlots]` from index `base` of its record; the
 * caller creates it with `rowCount` 0 and `null` slots, and it is initialised by its first row.
 * Input is insert-only: nothing is ever retracted.
 */
import type { AggregateCallSpec } from '../../dataflow/job-graph.js';
import type { Row } from '../../common/row.js';
import { SourceScope } from '../../expr/aggregates/aggregate-codegen.js';
import { aggregateCodegen, guarded } from './group-aggregate-codegen.js';

/** The generated functions over accumulators embedded in window records. */
export interface MergingAggregateProgram {
  /** Slots an accumulator occupies from `base` (the row count included). */
  readonly slots: number;
  /** Adds `row` to the accumulator in `record`. */
  accumulate(record: unknown[], row: Row): void;
  /** Adds everything the accumulator in `from` holds to the one in `into`; `from` is then discarded. */
  merge(into: unknown[], from: unknown[]): void;
  /** The aggregate results of the accumulator in `record`, in call order. */
  results(record: unknown[]): unknown[];
  /**
   * An output row built as one array literal: the program's leading columns (see
   * {@link OutputColumn}) taken from `record` or the window bounds, then the results of the
   * accumulator in `acc`.
   */
  row(record: unknown[], acc: unknown[], start: number, end: number): Row;
}

/** A leading column of an output row: a slot of the key's record, or a bound of the window being emitted. */
export type OutputColumn = number | 'window_start' | 'window_end';

/**
 * Generates the program for `aggregates` over accumulators starting at index `base` of their
 * records, whose output rows start with `columns`.
 */
export function generateMergingAggregate(aggregates: readonly AggregateCallSpec[], base: number, columns: readonly OutputColumn[] = []): MergingAggregateProgram {
  const scope = new SourceScope();
  const rowCount = `acc[${base}]`;
  let next = base + 1;
  const parts = aggregates.map((call) => {
    const codegen = aggregateCodegen(call, scope, false, rowCount);
    const offsets = Array.from({ length: codegen.slots }, (_, i) => next + i);
    next += codegen.slots;
    return { call, codegen, slots: offsets.map((o) => `acc[${o}]`), from: offsets.map((o) => `from[${o}]`) };
  });
  const init = parts.map((p) => p.codegen.init(p.slots)).join(' ');
  const results = parts.map(({ codegen, slots }) => codegen.result(slots));
  const column = (c: OutputColumn): string => (c === 'window_start' ? 'start' : c === 'window_end' ? 'end' : `record[${c}]`);
  const source = `
    function accumulate(acc, row) {
      if (${rowCount}++ === 0) { ${init} }
      ${parts.map(({ call, codegen, slots }) => guarded(call, codegen, scope, (args) => codegen.accumulate(slots, args))).join('\n')}
    }
    function merge(acc, from) {
      if (from[${base}] === 0) return;
      if (${rowCount} === 0) { ${init} }
      ${rowCount} += from[${base}];
      ${parts.map(({ codegen, slots, from }) => codegen.merge(slots, from)).join('\n')}
    }
    function results(acc) {
      return [${results.join(', ')}];
    }
    function row(record, acc, start, end) {
      return [${[...columns.map(column), ...results].join(', ')}];
    }
    return { slots: ${next - base}, accumulate, merge, results, row };`;
  return scope.instantiate<MergingAggregateProgram>(source);
}
