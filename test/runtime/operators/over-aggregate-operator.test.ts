/**
 * The OVER aggregate operators. Insert-only (rowtime): rows wait for the watermark and are then
 * emitted once in time order with their frame's aggregates (ROWS and RANGE, peers together), late
 * rows (not after their key's last emitted time) are dropped and counted, state survives a restore.
 * Updating: (property) for random insert/update/delete changelogs with NULL times, cut into random
 * batches, the output applied as a changelog equals, for every frame kind and NULL times first or
 * last, a batch computation over the live rows written independently here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OverFrame } from '../../../src/common/over-frame.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec, OverAggregateSpec } from '../../../src/dataflow/job-graph.js';
import { OverAggregateOperator } from '../../../src/runtime/operators/over-aggregate-operator.js';
import { UpdatingOverAggregateOperator } from '../../../src/runtime/operators/updating-over-aggregate-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

const bigint = SqlTypes.bigint();
/** SUM(value), COUNT(*), MAX(value) over rows [partition, time, value, id]. */
const AGGREGATES: AggregateCallSpec[] = [
  { function: 'SUM', args: [2], argTypes: [bigint], distinct: false, filter: null, type: bigint },
  { function: 'COUNT', args: [], argTypes: [], distinct: false, filter: null, type: SqlTypes.bigint(false) },
  { function: 'MAX', args: [2], argTypes: [bigint], distinct: false, filter: null, type: bigint },
];

const spec = (frame: OverFrame, mode: OverAggregateSpec['mode'], nullsLast = false): OverAggregateSpec => ({
  kind: 'over-aggregate',
  partitionKeys: [0],
  timeIndex: 1,
  frame,
  aggregates: AGGREGATES,
  mode,
  ...(nullsLast ? { nullsLast } : {}),
});

const FRAMES: readonly OverFrame[] = [
  { unit: 'ROWS', preceding: 2 },
  { unit: 'ROWS', preceding: 0 },
  { unit: 'ROWS', preceding: null },
  { unit: 'RANGE', preceding: 2 },
  { unit: 'RANGE', preceding: null },
];

/**
 * The rows of `frame` for the row at `j` of a partition sorted by time (ties in arrival order,
 * NULL times first or, with `nullsLast`, last). A RANGE frame holds the rows whose time is within
 * reach of the current one and its peers; a NULL time is within reach only of NULL times, and
 * UNBOUNDED PRECEDING also takes every row sorted before.
 */
function frameRows(sorted: readonly Row[], j: number, frame: OverFrame, nullsLast: boolean): Row[] {
  const time = sorted[j]![1] as number | null;
  return sorted.filter((row, i) => {
    if (frame.unit === 'ROWS') return i <= j && (frame.preceding === null || i >= j - frame.preceding);
    const t = row[1] as number | null;
    if (t === null || time === null) {
      if (t === null && time === null) return true;
      // One of them is NULL: only UNBOUNDED PRECEDING reaches back over the other kind, when it sorts first.
      return frame.preceding === null && (t === null ? !nullsLast : nullsLast);
    }
    return t <= time && (frame.preceding === null || t >= time - frame.preceding);
  });
}

/** Every live row (in arrival order) followed by SUM, COUNT(*) and MAX over its frame. */
function batchOver(live: readonly Row[], frame: OverFrame, nullsLast = false): Row[] {
  const rank = (time: unknown): number => (time === null ? (nullsLast ? 1 : -1) : 0);
  const out: Row[] = [];
  for (const partition of new Set(live.map((r) => r[0]))) {
    const sorted = live
      .filter((r) => r[0] === partition)
      .map((row, arrival) => ({ row, arrival }))
      .sort((a, b) => rank(a.row[1]) - rank(b.row[1]) || ((a.row[1] as number) ?? 0) - ((b.row[1] as number) ?? 0) || a.arrival - b.arrival)
      .map((e) => e.row);
    sorted.forEach((row, j) => {
      const values = frameRows(sorted, j, frame, nullsLast).map((r) => r[2] as number);
      out.push([...row, values.reduce((a, b) => a + b, 0), values.length, Math.max(...values)]);
    });
  }
  return out;
}

describe('over aggregate operator (insert-only, rowtime)', () => {
  it('emits rows once the watermark passes them, in time order, with ROWS frames over the preceding rows', async () => {
    const h = await OperatorHarness.open(new OverAggregateOperator(spec({ unit: 'ROWS', preceding: 1 }, 'rowtime')));
    expect(h.push([['+I', ['a', 30, 3, 1]], ['+I', ['a', 10, 1, 2]], ['+I', ['b', 10, 7, 3]], ['+I', ['a', 20, 2, 4]]])).toEqual([]);
    h.watermark(20);
    expect(h.output).toEqual([
      ['+I', ['a', 10, 1, 2, 1, 1, 1]],
      ['+I', ['a', 20, 2, 4, 3, 2, 2]],
      ['+I', ['b', 10, 7, 3, 7, 1, 7]],
    ]);
    expect(h.watermarks).toEqual([20]);
    h.watermark(Infinity);
    expect(h.output.slice(3)).toEqual([['+I', ['a', 30, 3, 1, 5, 2, 3]]]);
  });

  it('gives the rows of one time the same RANGE results, and drops rows older than the frame', async () => {
    const h = await OperatorHarness.open(new OverAggregateOperator(spec({ unit: 'RANGE', preceding: 10 }, 'rowtime')));
    h.push([['+I', ['a', 0, 1, 1]], ['+I', ['a', 10, 2, 2]], ['+I', ['a', 10, 4, 3]], ['+I', ['a', 21, 8, 4]]]);
    h.watermark(Infinity);
    expect(h.output).toEqual([
      ['+I', ['a', 0, 1, 1, 1, 1, 1]],
      ['+I', ['a', 10, 2, 2, 7, 3, 4]],
      ['+I', ['a', 10, 4, 3, 7, 3, 4]],
      ['+I', ['a', 21, 8, 4, 8, 1, 8]],
    ]);
  });

  it('drops and counts rows not after the last time its key emitted (late), as Flink does', async () => {
    const h = await OperatorHarness.open(new OverAggregateOperator(spec({ unit: 'ROWS', preceding: null }, 'rowtime')));
    h.push([['+I', ['a', 10, 1, 1]]]);
    h.watermark(15);
    h.push([['+I', ['a', 10, 5, 2]], ['+I', ['a', 12, 4, 3]], ['+I', ['a', 9, 5, 4]], ['+I', ['b', 9, 2, 5]]]);
    h.watermark(Infinity);
    expect(h.output).toEqual([
      ['+I', ['a', 10, 1, 1, 1, 1, 1]],
      ['+I', ['b', 9, 2, 5, 2, 1, 2]],
      ['+I', ['a', 12, 4, 3, 5, 2, 4]],
    ]);
    expect((h.operator as OverAggregateOperator).lateRows).toBe(2);
    expect(h.warnings).toHaveLength(1);
  });

  it('restores waiting rows and the frame from a snapshot', async () => {
    const frame: OverFrame = { unit: 'ROWS', preceding: 1 };
    const h = await OperatorHarness.open(new OverAggregateOperator(spec(frame, 'rowtime')));
    h.push([['+I', ['a', 10, 1, 1]], ['+I', ['a', 20, 2, 2]]]);
    h.watermark(10);
    const restored = await OperatorHarness.open(new OverAggregateOperator(spec(frame, 'rowtime')), { restore: { snapshot: h.state.snapshot()! } });
    restored.push([['+I', ['a', 30, 4, 3]]]);
    restored.watermark(Infinity);
    expect(restored.output).toEqual([
      ['+I', ['a', 20, 2, 2, 3, 2, 2]],
      ['+I', ['a', 30, 4, 3, 6, 2, 4]],
    ]);
  });
});

describe('over aggregate operator with LAG (rowtime)', () => {
  it('gives each row the values of the rows processed before it in its key (peers apart), among the aggregates, across a restore', async () => {
    const lagSpec: OverAggregateSpec = {
      ...spec({ unit: 'RANGE', preceding: null }, 'rowtime'),
      lags: [
        { position: 0, arg: 2, offset: 1, default: null },
        { position: 2, arg: 2, offset: 2, default: 3 },
      ],
    };
    const h = await OperatorHarness.open(new OverAggregateOperator(lagSpec));
    h.push([['+I', ['a', 10, 1, 1]], ['+I', ['a', 20, 4, 3]], ['+I', ['a', 10, 2, 2]]]);
    h.watermark(15);
    // Output: row, LAG(v), SUM(v), LAG(v, 2, id), COUNT(*), MAX(v); peers at 10 share the aggregates.
    expect(h.output).toEqual([
      ['+I', ['a', 10, 1, 1, null, 3, 1, 2, 2]],
      ['+I', ['a', 10, 2, 2, 1, 3, 2, 2, 2]],
    ]);
    const restored = await OperatorHarness.open(new OverAggregateOperator(lagSpec), { restore: { snapshot: h.state.snapshot()! } });
    restored.push([['+I', ['a', 30, 8, 4]]]);
    restored.watermark(Infinity);
    expect(restored.output).toEqual([
      ['+I', ['a', 20, 4, 3, 2, 7, 1, 3, 4]],
      ['+I', ['a', 30, 8, 4, 4, 15, 2, 4, 8]],
    ]);
  });
});

describe('over aggregate operator (updating)', () => {
  it('an insert before other rows updates the rows whose frame it enters; a delete undoes it', async () => {
    const h = await OperatorHarness.open(new UpdatingOverAggregateOperator(spec({ unit: 'ROWS', preceding: 1 }, 'updating')));
    h.push([['+I', ['a', 10, 1, 1]], ['+I', ['a', 30, 3, 2]]]);
    expect(h.push([['+I', ['a', 20, 2, 3]]])).toEqual([
      ['+I', ['a', 20, 2, 3, 3, 2, 2]],
      ['-U', ['a', 30, 3, 2, 4, 2, 3]],
      ['+U', ['a', 30, 3, 2, 5, 2, 3]],
    ]);
    expect(h.push([['-D', ['a', 20, 2, 3]]])).toEqual([
      ['-D', ['a', 20, 2, 3, 3, 2, 2]],
      ['-U', ['a', 30, 3, 2, 5, 2, 3]],
      ['+U', ['a', 30, 3, 2, 4, 2, 3]],
    ]);
  });

  it('keeps its partitions across a snapshot and restore', async () => {
    const frame: OverFrame = { unit: 'RANGE', preceding: null };
    const h = await OperatorHarness.open(new UpdatingOverAggregateOperator(spec(frame, 'updating')));
    h.push([['+I', ['a', 10, 1, 1]], ['+I', ['a', 30, 3, 2]]]);
    const restored = await OperatorHarness.open(new UpdatingOverAggregateOperator(spec(frame, 'updating')), { restore: { snapshot: h.state.snapshot()! } });
    expect(restored.push([['-D', ['a', 10, 1, 1]]])).toEqual([
      ['-D', ['a', 10, 1, 1, 1, 1, 1]],
      ['-U', ['a', 30, 3, 2, 4, 2, 3]],
      ['+U', ['a', 30, 3, 2, 3, 1, 3]],
    ]);
  });
});

interface Step {
  readonly op: 'insert' | 'delete' | 'update';
  readonly partition: number;
  readonly time: number | null;
  readonly value: number;
  readonly pick: number;
  readonly batchEnd: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom('insert', 'insert', 'delete', 'update'),
  partition: fc.integer({ min: 0, max: 1 }),
  time: fc.option(fc.integer({ min: 0, max: 8 }), { freq: 6 }),
  value: fc.integer({ min: -5, max: 9 }),
  pick: fc.nat(),
  batchEnd: fc.boolean(),
});

describe('over aggregate operator (updating, property)', () => {
  for (const [frame, nullsLast] of FRAMES.flatMap((f) => [[f, false] as const, [f, true] as const])) {
    it(`${frame.unit} ${frame.preceding ?? 'UNBOUNDED'} PRECEDING, NULL times ${nullsLast ? 'last' : 'first'}: the output changelog materializes to the batch computation`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 50 }), async (steps) => {
          const h = await OperatorHarness.open(new UpdatingOverAggregateOperator(spec(frame, 'updating', nullsLast)));
          const live: Row[] = [];
          let batch: Change[] = [];
          let id = 0;
          for (const s of steps) {
            const op = live.length === 0 ? 'insert' : s.op;
            if (op !== 'insert') {
              const [old] = live.splice(s.pick % live.length, 1);
              batch.push([op === 'delete' ? '-D' : '-U', old!]);
            }
            if (op !== 'delete') {
              const row = [s.partition, s.time, s.value, id++];
              live.push(row);
              batch.push([op === 'insert' ? '+I' : '+U', row]);
            }
            if (s.batchEnd) {
              const emitted = h.push(batch);
              expect(emitted.filter(([kind]) => kind === '-U').length).toBe(emitted.filter(([kind]) => kind === '+U').length);
              batch = [];
            }
          }
          h.push(batch);
          expect(materialize(h.output)).toEqual(materialize(batchOver(live, frame, nullsLast).map((row) => ['+I', row] as Change)));
          expect(h.warnings).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
  }
});
