/**
 * The window join operator: the rows of a key and window on both sides are joined once the
 * watermark passes the window's end (every left row with every right row), then purged, while
 * the key's later windows wait; rows of a fired window are late (dropped and counted); a NULL key
 * matches nothing; without keys besides the window, every row of a window joins; a restore from a
 * snapshot joins the restored rows with later ones. Compared with a nested-loop reference.
 */
import { describe, expect, it } from 'vitest';
import type { JoinType } from '../../../src/common/join-type.js';
import type { Row } from '../../../src/common/row.js';
import type { WindowJoinSpec } from '../../../src/dataflow/job-graph.js';
import { WindowJoinOperator } from '../../../src/runtime/operators/window-join-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

/** Left rows are [k, l, window_start, window_end], right rows [k, r, window_start, window_end]; the join equates k and the window. */
const spec: WindowJoinSpec = { kind: 'window-join', joinType: 'INNER', leftArity: 4, rightArity: 4, leftKeys: [0], rightKeys: [0], leftWindowEnd: 3, rightWindowEnd: 3 };

const inserts = (rows: readonly Row[]): Change[] => rows.map((r) => ['+I', r]);
const sorted = (rows: readonly Row[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

/** The join by nested loops: equal k (not NULL), equal window; unmatched rows of an outer side padded. */
function reference(left: readonly Row[], right: readonly Row[], joinType: JoinType = 'INNER'): Row[] {
  const matches = (l: Row, r: Row): boolean => l[0] !== null && l[0] === r[0] && l[2] === r[2] && l[3] === r[3];
  const nulls = [null, null, null, null];
  const pairs = left.flatMap((l) => right.filter((r) => matches(l, r)).map((r) => [...l, ...r]));
  const lonelyLeft = joinType === 'LEFT' || joinType === 'FULL' ? left.filter((l) => !right.some((r) => matches(l, r))).map((l) => [...l, ...nulls]) : [];
  const lonelyRight = joinType === 'RIGHT' || joinType === 'FULL' ? right.filter((r) => !left.some((l) => matches(l, r))).map((r) => [...nulls, ...r]) : [];
  return [...pairs, ...lonelyLeft, ...lonelyRight];
}

function generated(side: string, n: number): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const start = (i % 3) * 10;
    return [i % 7 === 0 ? null : i % 4, `${side}${i}`, start, start + 10];
  });
}

describe('window join operator', () => {
  it('joins each window once when the watermark passes its end, then purges its state', async () => {
    const h = await OperatorHarness.open(new WindowJoinOperator(spec));
    const left = generated('l', 30);
    const right = generated('r', 20);
    h.push(inserts(left), 0);
    h.push(inserts(right), 1);
    expect(h.output).toEqual([]);
    h.watermark(9);
    const first = h.output.map(([kind, row]) => (expect(kind).toBe('+I'), row));
    expect(sorted(first)).toEqual(sorted(reference(left.filter((r) => r[2] === 0), right.filter((r) => r[2] === 0))));
    h.watermark(Infinity);
    expect(sorted(h.output.map(([, row]) => row))).toEqual(sorted(reference(left, right)));
    expect(h.output.length).toBeGreaterThan(10);
    expect(h.state.keyCount()).toBe(0);
  });

  it('joins every row of a window with every other side\'s when the window is all the join equates', async () => {
    const h = await OperatorHarness.open(new WindowJoinOperator({ ...spec, leftKeys: [], rightKeys: [] }));
    const left = generated('l', 9);
    const right = generated('r', 6);
    h.push(inserts(left), 0);
    h.push(inserts(right), 1);
    h.watermark(19);
    const sameWindow = (end: number): Row[] => left.filter((l) => l[3] === end).flatMap((l) => right.filter((r) => r[3] === end).map((r) => [...l, ...r]));
    expect(sorted(h.output.map(([, row]) => row))).toEqual(sorted([...sameWindow(10), ...sameWindow(20)]));
    expect(h.state.keyCount()).toBe(1);
    h.watermark(Infinity);
    expect(h.output).toHaveLength(sameWindow(10).length + sameWindow(20).length + sameWindow(30).length);
    expect(h.state.keyCount()).toBe(0);
  });

  it.each(['LEFT', 'RIGHT', 'FULL'] as const)('%s: pads the rows of an outer side that match nothing in their window, NULL keys included, once', async (joinType) => {
    const h = await OperatorHarness.open(new WindowJoinOperator({ ...spec, joinType }));
    const left = generated('l', 30).map((r, i) => (i % 5 === 1 ? [9, ...r.slice(1)] : r));
    const right = generated('r', 20).map((r, i) => (i % 6 === 2 ? [8, ...r.slice(1)] : r));
    h.push(inserts(left), 0);
    h.push(inserts(right), 1);
    h.watermark(Infinity);
    expect(h.output.every(([kind]) => kind === '+I')).toBe(true);
    const expected = reference(left, right, joinType);
    expect(sorted(h.output.map(([, row]) => row))).toEqual(sorted(expected));
    expect(expected.length).toBeGreaterThan(reference(left, right).length);
    expect(h.state.keyCount()).toBe(0);
  });

  it('drops and counts rows of a window that has fired, on either side', async () => {
    const h = await OperatorHarness.open(new WindowJoinOperator(spec));
    h.push(inserts([[1, 'l', 0, 10]]), 0);
    h.watermark(9);
    h.push(inserts([[1, 'r-late', 0, 10]]), 1);
    h.push(inserts([[1, 'l-late', 0, 10]]), 0);
    expect((h.operator as WindowJoinOperator).lateRows).toBe(2);
    expect(h.warnings).toHaveLength(1);
    h.watermark(Infinity);
    expect(h.output).toEqual([]);
    expect(h.state.keyCount()).toBe(0);
  });

  it('resumes from a snapshot: restored rows join with rows that arrive after it', async () => {
    const before = await OperatorHarness.open(new WindowJoinOperator(spec));
    const left = generated('l', 12);
    before.push(inserts(left), 0);
    const snapshot = before.state.snapshot()!;
    const restored = await OperatorHarness.open(new WindowJoinOperator(spec), { restore: { snapshot } });
    const right = generated('r', 12);
    restored.push(inserts(right), 1);
    restored.watermark(Infinity);
    expect(sorted(restored.output.map(([, row]) => row))).toEqual(sorted(reference(left, right)));
    expect(restored.output.length).toBeGreaterThan(3);
    expect(restored.state.keyCount()).toBe(0);
  });
});
