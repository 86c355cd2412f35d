/**
 * The append-only Top-N operator (ROW_NUMBER over an insert-only input) and the row order it and
 * the other Top-N operators sort by: NULLs first ascending and last descending unless the key
 * says otherwise; rank ranges (an OFFSET) emit only the rows numbered within them, renumbering
 * with -U/+U, inserting the row pushed into the range and deleting the one pushed out; without
 * the number only the rows entering and leaving the range; no order keys keep arrival order.
 */
import { describe, expect, it } from 'vitest';
import { orderKey, type OrderKey } from '../../../src/common/order-key.js';
import type { Row } from '../../../src/common/row.js';
import type { RankSpec } from '../../../src/dataflow/job-graph.js';
import { RankOperator } from '../../../src/runtime/operators/rank-operator.js';
import { rowComparator, rowOrder } from '../../../src/runtime/operators/row-order.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

/** Rows are [partition, score, id]. */
const spec = (overrides: Partial<RankSpec> = {}): RankSpec => ({ kind: 'rank', partitionKeys: [0], orderKeys: [orderKey(1, false)], limit: 3, ...overrides });

const inserts = (...rows: Row[]): Change[] => rows.map((row) => ['+I', row]);

const sortedIds = (rows: Row[], keys: readonly OrderKey[]): unknown[] => [...rows].sort(rowComparator(keys)).map((r) => r[2]);

describe('row order', () => {
  const rows: Row[] = [
    ['a', 3, 1],
    ['a', null, 2],
    ['a', -1, 3],
    ['a', undefined, 4],
    ['a', 0, 5],
  ];

  it("puts NULL (and a missing value) first ascending and last descending by default, as Flink's NullCollation.LOW", () => {
    expect(sortedIds(rows, [orderKey(1, false)])).toEqual([2, 4, 3, 5, 1]);
    expect(sortedIds(rows, [orderKey(1, true)])).toEqual([1, 5, 3, 2, 4]);
  });

  it('puts NULL where NULLS FIRST / NULLS LAST says, in both directions', () => {
    expect(sortedIds(rows, [orderKey(1, false, false)])).toEqual([3, 5, 1, 2, 4]);
    expect(sortedIds(rows, [orderKey(1, true, true)])).toEqual([2, 4, 1, 5, 3]);
    expect(sortedIds(rows, [orderKey(1, false, true)])).toEqual(sortedIds(rows, [orderKey(1, false)]));
    expect(sortedIds(rows, [orderKey(1, true, false)])).toEqual(sortedIds(rows, [orderKey(1, true)]));
  });

  it('orders strings and NULL strings, and ties NULL with NULL so later keys decide', () => {
    const texts: Row[] = [
      [null, 'b', 1],
      ['x', null, 2],
      [null, 'a', 3],
      ['w', 'z', 4],
    ];
    expect(sortedIds(texts, [orderKey(0, true), orderKey(1, false)])).toEqual([2, 4, 3, 1]);
    const before = rowOrder([orderKey(0, false)]);
    expect(before([null, 0, 0], [null, 0, 0])).toBe(false);
    expect(before([null, 0, 0], ['', 0, 0])).toBe(true);
    expect(before(['', 0, 0], [null, 0, 0])).toBe(false);
  });

  it('keeps the default null order out of the key, so that unchanged plans keep their job-graph form', () => {
    expect(orderKey(1, false, true)).toEqual({ index: 1, descending: false });
    expect(orderKey(1, true, false)).toEqual({ index: 1, descending: true });
    expect(orderKey(1, false, false)).toEqual({ index: 1, descending: false, nullsFirst: false });
    expect(orderKey(1, true, true)).toEqual({ index: 1, descending: true, nullsFirst: true });
  });
});

describe('append-only rank operator', () => {
  it('ranks NULL scores first ascending: a NULL newcomer pushes every kept row down', async () => {
    const h = await OperatorHarness.open(new RankOperator(spec({ limit: 2 })));
    h.push(inserts(['a', 5, 1], ['a', 7, 2]));
    expect(h.push(inserts(['a', null, 3]))).toEqual([
      ['-U', ['a', 5, 1, 1]],
      ['-D', ['a', 7, 2, 2]],
      ['+I', ['a', null, 3, 1]],
      ['+U', ['a', 5, 1, 2]],
    ]);
    expect(h.push(inserts(['a', 9, 4]))).toEqual([]);
  });

  it('ranks NULL scores last descending, and first with NULLS FIRST', async () => {
    const last = await OperatorHarness.open(new RankOperator(spec({ limit: 2, orderKeys: [orderKey(1, true)] })));
    last.push(inserts(['a', null, 1], ['a', 3, 2], ['a', 4, 3], ['a', null, 4]));
    expect(materialize(last.output)).toEqual(materialize(inserts(['a', 4, 3, 1], ['a', 3, 2, 2])));
    const first = await OperatorHarness.open(new RankOperator(spec({ limit: 2, orderKeys: [orderKey(1, true, true)] })));
    first.push(inserts(['a', 3, 1], ['a', null, 2], ['a', 4, 3], ['a', null, 4]));
    expect(materialize(first.output)).toEqual(materialize(inserts(['a', null, 2, 1], ['a', null, 4, 2])));
  });

  it('with an offset emits only rows 2..3: the row pushed into the range is inserted, the one pushed out deleted', async () => {
    const h = await OperatorHarness.open(new RankOperator(spec({ rankStart: 2, limit: 3 })));
    expect(h.push(inserts(['a', 5, 1]))).toEqual([]);
    expect(h.push(inserts(['a', 7, 2]))).toEqual([['+I', ['a', 7, 2, 2]]]);
    expect(h.push(inserts(['a', 1, 3]))).toEqual([
      ['-U', ['a', 7, 2, 2]],
      ['+I', ['a', 5, 1, 2]],
      ['+U', ['a', 7, 2, 3]],
    ]);
    expect(h.push(inserts(['a', 0, 4]))).toEqual([
      ['-U', ['a', 5, 1, 2]],
      ['-D', ['a', 7, 2, 3]],
      ['+I', ['a', 1, 3, 2]],
      ['+U', ['a', 5, 1, 3]],
    ]);
    expect(h.push(inserts(['a', 2, 5]))).toEqual([
      ['-D', ['a', 5, 1, 3]],
      ['+I', ['a', 2, 5, 3]],
    ]);
    expect(materialize(h.output)).toEqual(materialize(inserts(['a', 1, 3, 2], ['a', 2, 5, 3])));
  });

  it('without the number emits only the rows entering and leaving the range', async () => {
    const h = await OperatorHarness.open(new RankOperator(spec({ rankStart: 2, limit: 3, outputRankNumber: false })));
    expect(h.push(inserts(['a', 5, 1]))).toEqual([]);
    expect(h.push(inserts(['a', 7, 2]))).toEqual([['+I', ['a', 7, 2]]]);
    expect(h.push(inserts(['a', 1, 3]))).toEqual([['+I', ['a', 5, 1]]]);
    expect(h.push(inserts(['a', 6, 4]))).toEqual([
      ['-D', ['a', 7, 2]],
      ['+I', ['a', 6, 4]],
    ]);
    expect(h.push(inserts(['a', 0, 5]))).toEqual([
      ['-D', ['a', 6, 4]],
      ['+I', ['a', 1, 3]],
    ]);
    expect(h.push(inserts(['a', 9, 6]))).toEqual([]);
    expect(materialize(h.output)).toEqual(materialize(inserts(['a', 1, 3], ['a', 5, 1])));
  });

  it('without order keys keeps rows m+1 .. m+n in arrival order (LIMIT n OFFSET m)', async () => {
    const h = await OperatorHarness.open(new RankOperator(spec({ partitionKeys: [], orderKeys: [], rankStart: 3, limit: 4, outputRankNumber: false })));
    h.push(inserts(['a', 1, 1], ['b', 1, 2], ['a', 1, 3]));
    h.push(inserts(['c', 1, 4], ['d', 1, 5], ['e', 1, 6]));
    expect(h.output).toEqual([
      ['+I', ['a', 1, 3]],
      ['+I', ['c', 1, 4]],
    ]);
  });

  it('an empty range (start after end, or LIMIT 0) keeps and emits nothing', async () => {
    const empty = await OperatorHarness.open(new RankOperator(spec({ rankStart: 4, limit: 3 })));
    empty.push(inserts(['a', 1, 1], ['a', 2, 2], ['a', 3, 3], ['a', 0, 4]));
    expect(empty.output).toEqual([]);
    const zero = await OperatorHarness.open(new RankOperator(spec({ limit: 0, outputRankNumber: false })));
    zero.push(inserts(['a', 1, 1]));
    expect(zero.output).toEqual([]);
    expect(zero.state.keyCount()).toBe(0);
  });
});
