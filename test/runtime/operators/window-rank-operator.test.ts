/**
 * The window rank operator: each partition's top N of a window comes out once, as +I with row
 * numbers, when the watermark passes the window's end; rows of a fired window are late (dropped
 * and counted); the state of fired windows is purged; a restore from a snapshot resumes the timers;
 * a rank range emits only its rows, with or without numbers, NULLs ordered as the key says.
 */
import { describe, expect, it } from 'vitest';
import { WindowRankOperator } from '../../../src/runtime/operators/window-rank-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

/** Rows are [item, price, window_start, window_end]; partitioned by window, top `limit` by price DESC. */
function operator(limit: number, partitionKeys: readonly number[] = [2, 3]): WindowRankOperator {
  return new WindowRankOperator({ kind: 'window-rank', partitionKeys, orderKeys: [{ index: 1, descending: true }], limit, windowEnd: 3 });
}

const rows = (...items: [string, number, number][]): Change[] => items.map(([item, price, start]) => ['+I', [item, price, start, start + 10]]);

describe('window rank operator', () => {
  it('emits the top N of each window once its end passes, ties in arrival order, and purges the window', async () => {
    const h = await OperatorHarness.open(operator(2));
    expect(h.push(rows(['a', 5, 0], ['b', 9, 0], ['c', 7, 10], ['d', 9, 0], ['e', 1, 0]))).toEqual([]);
    expect(h.state.keyCount()).toBe(2);
    h.watermark(8);
    expect(h.output).toEqual([]);
    h.watermark(9);
    expect(h.output).toEqual([
      ['+I', ['b', 9, 0, 10, 1]],
      ['+I', ['d', 9, 0, 10, 2]],
    ]);
    expect(h.state.keyCount()).toBe(1);
    h.watermark(100);
    expect(h.output.slice(2)).toEqual([['+I', ['c', 7, 10, 20, 1]]]);
    expect(h.state.keyCount()).toBe(0);
    expect(h.watermarks).toEqual([8, 9, 100]);
  });

  it('drops and counts rows whose window has fired', async () => {
    const h = await OperatorHarness.open(operator(3));
    h.watermark(9);
    expect(h.push(rows(['late', 100, 0], ['on-time', 1, 10]))).toEqual([]);
    expect((h.operator as WindowRankOperator).lateRows).toBe(1);
    expect(h.warnings).toHaveLength(1);
    h.watermark(19);
    expect(h.output).toEqual([['+I', ['on-time', 1, 10, 20, 1]]]);
  });

  it('partitions by further keys within a window', async () => {
    const h = await OperatorHarness.open(operator(1, [0, 2, 3]));
    h.push(rows(['a', 1, 0], ['a', 3, 0], ['b', 2, 0]));
    h.watermark(Infinity);
    expect(h.output).toEqual([
      ['+I', ['a', 3, 0, 10, 1]],
      ['+I', ['b', 2, 0, 10, 1]],
    ]);
  });

  it('resumes from a snapshot: the restored windows fire with the rows that arrive after it', async () => {
    const before = await OperatorHarness.open(operator(2));
    before.push(rows(['a', 5, 0], ['b', 3, 10]));
    const snapshot = before.state.snapshot()!;
    const restored = await OperatorHarness.open(operator(2), { restore: { snapshot } });
    restored.push(rows(['c', 8, 0], ['d', 1, 0]));
    restored.watermark(9);
    expect(restored.output).toEqual([
      ['+I', ['c', 8, 0, 10, 1]],
      ['+I', ['a', 5, 0, 10, 2]],
    ]);
    restored.watermark(19);
    expect(restored.output.slice(2)).toEqual([['+I', ['b', 3, 10, 20, 1]]]);
    expect(restored.state.keyCount()).toBe(0);
  });

  it('emits only the rows of its range, with or without their numbers, NULL prices last descending', async () => {
    const spec = { kind: 'window-rank' as const, partitionKeys: [2, 3], orderKeys: [{ index: 1, descending: true }], limit: 3, windowEnd: 3 };
    const input = [...rows(['a', 5, 0], ['b', 9, 0], ['e', 1, 0]), ['+I', ['n', null, 0, 10]] as Change, ...rows(['c', 7, 0], ['d', 8, 0])];
    const numbered = await OperatorHarness.open(new WindowRankOperator({ ...spec, rankStart: 2 }));
    numbered.push(input);
    numbered.watermark(9);
    expect(numbered.output).toEqual([
      ['+I', ['d', 8, 0, 10, 2]],
      ['+I', ['c', 7, 0, 10, 3]],
    ]);
    const bare = await OperatorHarness.open(new WindowRankOperator({ ...spec, rankStart: 3, limit: 6, outputRankNumber: false }));
    bare.push(input);
    bare.watermark(9);
    expect(bare.output).toEqual([
      ['+I', ['c', 7, 0, 10]],
      ['+I', ['a', 5, 0, 10]],
      ['+I', ['e', 1, 0, 10]],
      ['+I', ['n', null, 0, 10]],
    ]);
    const nullsFirst = await OperatorHarness.open(new WindowRankOperator({ ...spec, orderKeys: [{ index: 1, descending: true, nullsFirst: true }], limit: 1 }));
    nullsFirst.push(input);
    nullsFirst.watermark(9);
    expect(nullsFirst.output).toEqual([['+I', ['n', null, 0, 10, 1]]]);
  });
});
