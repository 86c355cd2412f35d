/**
 * The window aggregate operator: a window's rows come out once, as +I, when the watermark passes
 * the window's end; rows of a window that has fired are late (dropped and counted); a HOP row
 * counts in every window it falls into; the state of fired windows is cleared.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import type { AlignedWindowSpec } from '../../../src/common/window-spec.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { WindowAggregateOperator } from '../../../src/runtime/operators/window-aggregate-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

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
    // Keys whose windows fire at one time come in no particular order (restored state is iterated by key group).
    expect(sortedChanges(restored.advanceTime(25))).toEqual([
      ['+I', ['a', 10, 20, 1]],
      ['+I', ['b', 10, 20, 5]],
    ]);
    restored.push([['+I', ['c', 7, 0]]]);
    expect(restored.output.slice(2)).toEqual([]);
    restored.watermark(Infinity);
    expect(restored.output.slice(2)).toEqual([['+I', ['c', 20, 30, 7]]]);
    expect(restored.state.keyCount()).toBe(0);
  });
});

type Window = { start: number; end: number };

/** The windows of `spec` holding time `t`, enumerated from their definitions (independently of the operator's slices). */
function windowsOf(spec: AlignedWindowSpec, t: number): Window[] {
  const out: Window[] = [];
  if (spec.kind === 'CUMULATE') {
    const base = Math.floor(t / spec.size) * spec.size;
    for (let end = base + spec.step; end <= base + spec.size; end += spec.step) if (end > t) out.push({ start: base, end });
    return out;
  }
  const [slide, size] = spec.kind === 'TUMBLE' ? [spec.size, spec.size] : [spec.slide, spec.size];
  for (let start = Math.ceil((t - size + 1) / slide) * slide; start <= t; start += slide) out.push({ start, end: start + size });
  return out;
}

/** [key, value, time] rows grouped by key, window_start, window_end: SUM(value), COUNT(*), MAX(value), and, when asked, MAX(window_start). */
function properties(window: AlignedWindowSpec, readsWindow: boolean): WindowAggregateOperator {
  const bigint = SqlTypes.bigint();
  const call = (fn: string, args: number[]) => ({ function: fn, args, distinct: false, filter: null, type: bigint, argTypes: args.map(() => bigint) });
  return new WindowAggregateOperator({
    kind: 'window-aggregate',
    window,
    timeIndex: 2,
    keys: [0, 3, 4],
    aggregates: [call('SUM', [1]), call('COUNT', []), call('MAX', [1]), ...(readsWindow ? [call('MAX', [3])] : [])],
  });
}

describe('window aggregate operator against a per-window recomputation', () => {
  const windows = fc.oneof(
    fc.integer({ min: 1, max: 30 }).map((size): AlignedWindowSpec => ({ kind: 'TUMBLE', size })),
    fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 5 })).map(([slide, n]): AlignedWindowSpec => ({ kind: 'HOP', slide, size: slide * n })),
    fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 5 })).map(([step, n]): AlignedWindowSpec => ({ kind: 'CUMULATE', step, size: step * n })),
  );
  const event = fc.record({ key: fc.constantFrom('x', 'y', 'z'), value: fc.integer({ min: -5, max: 5 }), time: fc.integer({ min: -40, max: 200 }) });
  const step = fc.record({ events: fc.array(event, { maxLength: 6 }), advance: fc.integer({ min: 0, max: 30 }), restore: fc.boolean() });

  it('emits, at each watermark, the windows it closes with the rows that arrived before they closed; counts the late ones', async () => {
    await fc.assert(
      fc.asyncProperty(windows, fc.boolean(), fc.array(step, { maxLength: 25 }), async (window, readsWindow, steps) => {
        let h = await OperatorHarness.open(properties(window, readsWindow));
        const open = new Map<string, Row>();
        let late = 0;
        let watermark = -50;
        const fire = (to: number): string[] => {
          const due = [...open.entries()].filter(([, r]) => (r[2] as number) - 1 <= to);
          for (const [id] of due) open.delete(id);
          return due.map(([, r]) => JSON.stringify(['+I', readsWindow ? r : r.slice(0, 6)])).sort();
        };
        h.watermark(watermark);
        for (const { events, advance, restore } of steps) {
          for (const e of events) {
            for (const w of windowsOf(window, e.time)) {
              if (w.end - 1 <= watermark) {
                late++;
                continue;
              }
              const id = JSON.stringify([e.key, w.start, w.end]);
              const r = open.get(id) ?? [e.key, w.start, w.end, 0, 0, -Infinity, w.start];
              open.set(id, [e.key, w.start, w.end, (r[3] as number) + e.value, (r[4] as number) + 1, Math.max(r[5] as number, e.value), w.start]);
            }
          }
          h.push(events.map((e) => ['+I', [e.key, e.value, e.time]] as Change));
          if (restore) {
            const snapshot = h.state.snapshot();
            late -= (h.operator as WindowAggregateOperator).lateRows;
            h = await OperatorHarness.open(properties(window, readsWindow), snapshot === undefined ? {} : { restore: { snapshot } });
            h.watermark(watermark);
          }
          watermark += advance;
          const start = h.output.length;
          h.watermark(watermark);
          expect(h.output.slice(start).map((c) => JSON.stringify(c)).sort()).toEqual(fire(watermark));
        }
        const start = h.output.length;
        h.watermark(Number.POSITIVE_INFINITY);
        expect(h.output.slice(start).map((c) => JSON.stringify(c)).sort()).toEqual(fire(Number.POSITIVE_INFINITY));
        expect((h.operator as WindowAggregateOperator).lateRows).toBe(late);
        expect(h.state.keyCount()).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

/** Changes in the order of their rows' first column (for keys that fire together). */
function sortedChanges(changes: readonly Change[]): Change[] {
  return [...changes].sort((x, y) => String(x[1][0]).localeCompare(String(y[1][0])));
}
