/**
 * The session window aggregate operator: rows within the gap of each other (inclusive) share a
 * session, a row that bridges two sessions merges them (accumulators included), a session comes
 * out once, as +I, when the watermark reaches its end (last row + gap), rows arriving out of order
 * within the watermark count, late rows are dropped and counted, state is cleared after firing and
 * survives a snapshot restored at another parallelism. A property test checks the output against
 * a batch sessionization of the same rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyGroupOf, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec } from '../../../src/dataflow/job-graph.js';
import { SessionWindowAggregateOperator } from '../../../src/runtime/operators/session-window-aggregate-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

const GAP = 10;
const bigint = SqlTypes.bigint();
const call = (fn: string, args: number[], distinct = false): AggregateCallSpec => ({ function: fn, args, distinct, filter: null, type: bigint, argTypes: args.map(() => bigint) });

/**
 * Input rows are [key, value, time]; output rows are [key, window_start, window_end, COUNT(*),
 * SUM(value), MAX(value), COUNT(DISTINCT value)].
 */
function operator(): SessionWindowAggregateOperator {
  return new SessionWindowAggregateOperator({
    kind: 'window-aggregate',
    window: { kind: 'SESSION', gap: GAP },
    timeIndex: 2,
    keys: [0, 3, 4],
    aggregates: [call('COUNT', []), call('SUM', [1]), call('MAX', [1]), call('COUNT', [1], true)],
  });
}

const insert = (key: string, value: number, time: number): Change => ['+I', [key, value, time]];

describe('session window aggregate operator', () => {
  it('merges the sessions a row bridges and fires each when the watermark reaches its end', async () => {
    const h = await OperatorHarness.open(operator());
    expect(h.push([insert('a', 1, 1), insert('a', 2, 20), insert('b', 5, 3)])).toEqual([]);
    h.watermark(10);
    expect(h.output).toEqual([]);
    expect(h.push([insert('a', 2, 11)])).toEqual([]);
    h.watermark(12);
    expect(h.output).toEqual([]);
    h.watermark(13);
    expect(h.output).toEqual([['+I', ['b', 3, 13, 1, 5, 5, 1]]]);
    h.watermark(29);
    expect(h.output).toHaveLength(1);
    h.watermark(30);
    expect(h.output.slice(1)).toEqual([['+I', ['a', 1, 30, 3, 5, 2, 2]]]);
    expect(h.state.keyCount()).toBe(0);
    expect(h.watermarks, 'one millisecond behind, so that no emitted rowtime (end - 1) is behind it').toEqual([9, 11, 12, 28, 29]);
  });

  it('keeps rows more than the gap apart in separate sessions, and extends a session by rows that arrive out of order', async () => {
    const h = await OperatorHarness.open(operator());
    h.push([insert('k', 1, 50), insert('k', 1, 70)]);
    h.watermark(45);
    h.push([insert('k', 7, 47), insert('k', 3, 62)]);
    h.watermark(100);
    expect(h.output).toEqual([
      ['+I', ['k', 47, 60, 2, 8, 7, 2]],
      ['+I', ['k', 62, 80, 2, 4, 3, 2]],
    ]);
    expect((h.operator as SessionWindowAggregateOperator).lateRows).toBe(0);
  });

  it('drops and counts rows behind the watermark unless they fall within an open session of their key', async () => {
    const h = await OperatorHarness.open(operator());
    h.push([insert('a', 1, 10), insert('b', 1, 30)]);
    h.watermark(25);
    expect(h.output).toEqual([['+I', ['a', 10, 20, 1, 1, 1, 1]]]);
    h.push([insert('a', 100, 19), insert('b', 100, 22), insert('b', 2, 31), insert('a', 100, 25)]);
    expect(h.warnings).toHaveLength(1);
    expect((h.operator as SessionWindowAggregateOperator).lateRows).toBe(3);
    h.watermark(50);
    expect(h.output.slice(1)).toEqual([['+I', ['b', 30, 41, 2, 3, 2, 2]]]);
    expect(h.state.keyCount()).toBe(0);
  });

  it('restores its open sessions and their timers from a snapshot, split by key group', async () => {
    const maxParallelism = 128;
    const rows = Array.from({ length: 40 }, (_, i) => insert(`k${i % 7}`, i, 3 * i));
    const later = Array.from({ length: 20 }, (_, i) => insert(`k${i % 5}`, 100 + i, 60 + 4 * i));
    const whole = await OperatorHarness.open(operator());
    whole.push(rows);
    whole.watermark(50);
    const snapshot = whole.state.snapshot()!;
    const before = whole.output.length;
    whole.push(later);
    whole.watermark(Number.POSITIVE_INFINITY);
    const expected = whole.output.slice(before);

    const owner = (key: unknown): number => subtaskOfKeyGroup(keyGroupOf(key as string, maxParallelism), 2, maxParallelism);
    const parts = await Promise.all(
      [0, 1].map((subtask) =>
        OperatorHarness.open(operator(), { subtask, parallelism: 2, maxParallelism, restore: { snapshot, owns: (key) => owner(key) === subtask } }),
      ),
    );
    for (const change of later) parts[owner(change[1][0])]!.push([change]);
    for (const part of parts) part.watermark(Number.POSITIVE_INFINITY);
    const actual = parts.flatMap((p) => p.output);
    expect(sorted(actual)).toEqual(sorted(expected));
    expect(expected.length).toBeGreaterThan(5);
    expect(parts.map((p) => p.state.keyCount())).toEqual([0, 0]);
  });

  it('emits the sessions a batch computation finds, for rows out of order within the watermark', async () => {
    const event = fc.record({ key: fc.constantFrom('x', 'y', 'z'), value: fc.integer({ min: -5, max: 5 }), time: fc.integer({ min: 0, max: 200 }) });
    const step = fc.record({ events: fc.array(event, { maxLength: 6 }), lag: fc.integer({ min: 0, max: 40 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const h = await OperatorHarness.open(operator());
        const accepted: Row[] = [];
        let maxTime = Number.NEGATIVE_INFINITY;
        let watermark = Number.NEGATIVE_INFINITY;
        for (const { events, lag } of steps) {
          const onTime = events.filter((e) => e.time > watermark).map((e) => [e.key, e.value, e.time] as Row);
          accepted.push(...onTime);
          h.push(onTime.map((row) => ['+I', row] as Change));
          maxTime = Math.max(maxTime, ...onTime.map((r) => r[2] as number));
          if (maxTime - lag > watermark) h.watermark((watermark = maxTime - lag));
        }
        h.watermark(Number.POSITIVE_INFINITY);
        expect((h.operator as SessionWindowAggregateOperator).lateRows).toBe(0);
        expect(sorted(h.output)).toEqual(sorted(batchSessions(accepted).map((row) => ['+I', row] as Change)));
        expect(h.state.keyCount()).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});

/** Sessionizes [key, value, time] rows as a batch query would: per key, by time, split where two rows are more than GAP apart. */
function batchSessions(rows: readonly Row[]): Row[] {
  const byKey = new Map<string, Row[]>();
  for (const row of rows) byKey.set(row[0] as string, [...(byKey.get(row[0] as string) ?? []), row]);
  const out: Row[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => (a[2] as number) - (b[2] as number));
    let session: Row[] = [];
    const close = (): void => {
      const values = session.map((r) => r[1] as number);
      out.push([key, session[0]![2], (session[session.length - 1]![2] as number) + GAP, session.length, values.reduce((a, b) => a + b, 0), Math.max(...values), new Set(values).size]);
    };
    for (const row of list) {
      if (session.length > 0 && (row[2] as number) - (session[session.length - 1]![2] as number) > GAP) {
        close();
        session = [];
      }
      session.push(row);
    }
    close();
  }
  return out;
}

function sorted(changes: readonly Change[]): string[] {
  return changes.map((c) => JSON.stringify(c)).sort();
}
