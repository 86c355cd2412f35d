/**
 * The window aggregate operator: a window's rows come out once, as +I, when the watermark passes
 * the window's end; rows of a window that has fired are late (dropped and counted); a HOP row
 * counts in every window it falls into; the state of fired windows is cleared.
 */
import { describe, expect, it } from 'vitest';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { WindowAggregateOperator } from '../../../src/runtime/operators/window-aggregate-operator.js';
import { OperatorHarness } from '../operator-harness.js';

/** Input rows are [key, value, time]; the expanded row adds window_start (3) and window_end (4). */
function operator(window: ConstructorParameters<typeof WindowAggregateOperator>[0]['window'], processingTime?: true): WindowAggregateOperator {
  return new WindowAggregateOperator({
    ...(processingTime === undefined ? {} : { processingTime }),
    kind: 'window-aggregate',
    window,
    timeIndex: 2,
    keys: [0, 3, 4],
    aggregates: [{ function: 'SUM', args: [1], distinct: false, filter: null, type: SqlTypes.bigint(), argTypes: [SqlTypes.bigint()] }],
  });
}

describe('window aggregate operator', () => {
  it('emits each tumbling window once, when the watermark passes its end, and drops late rows', async () => {
    const harness = await OperatorHarness.open(operator({ kind: 'TUMBLE', size: 10 }));
    expect(harness.push([['+I', ['a', 1, 3]], ['+I', ['a', 2, 9]], ['+I', ['b', 5, 12]]])).toEqual([]);
    harness.watermark(8);
    expect(harness.output).toEqual([]);
    harness.watermark(9);
    expect(harness.output).toEqual([['+I', ['a', 0, 10, 3]]]);
    expect(harness.push([['+I', ['a', 100, 4]]])).toEqual([]);
    expect(harness.warnings).toHaveLength(1);
    expect((harness.operator as WindowAggregateOperator).lateRows).toBe(1);
    harness.push([['+I', ['b', 1, 15]]]);
    harness.watermark(30);
    expect(harness.output.slice(1)).toEqual([['+I', ['b', 10, 20, 6]]]);
    expect(harness.state.keyCount()).toBe(0);
    expect(harness.watermarks).toEqual([8, 9, 30]);
  });

  it('counts a hopping row in every window that contains it', async () => {
    const harness = await OperatorHarness.open(operator({ kind: 'HOP', slide: 5, size: 10 }));
    harness.push([['+I', ['k', 1, 7]]]);
    harness.watermark(100);
    expect(harness.output).toEqual([
      ['+I', ['k', 0, 10, 1]],
      ['+I', ['k', 5, 15, 1]],
    ]);
  });

  it('over processing time, assigns rows by the clock, fires windows on timers (not watermarks), re-arms them after a restore, and fires the rest at the end', async () => {
    const harness = await OperatorHarness.open(operator({ kind: 'TUMBLE', size: 10 }, true));
    harness.advanceTime(3);
    harness.push([['+I', ['a', 1, 999]]]);
    harness.advanceTime(8);
    harness.push([['+I', ['a', 2, -5]]]);
    expect(harness.watermark(500)).toEqual([500]);
    expect(harness.output).toEqual([]);
    expect(harness.advanceTime(9)).toEqual([['+I', ['a', 0, 10, 3]]]);
    harness.advanceTime(12);
    harness.push([['+I', ['b', 5, 0]], ['+I', ['a', 1, 0]]]);

    const restored = await OperatorHarness.open(operator({ kind: 'TUMBLE', size: 10 }, true), { restore: { snapshot: harness.state.snapshot()! } });
    expect(restored.advanceTime(18)).toEqual([]);
    expect(restored.advanceTime(25)).toEqual([
      ['+I', ['b', 10, 20, 5]],
      ['+I', ['a', 10, 20, 1]],
    ]);
    restored.push([['+I', ['c', 7, 0]]]);
    expect(restored.output.slice(2)).toEqual([]);
    restored.watermark(Infinity);
    expect(restored.output.slice(2)).toEqual([['+I', ['c', 20, 30, 7]]]);
    expect(restored.state.keyCount()).toBe(0);
  });
});
