/**
 * The state contract across backends (DESIGN.md, "State"): a representative set of stateful
 * operators — group aggregate, inner (append-only and counted), outer, semi and anti joins, window
 * aggregate, OVER aggregate — run on random changelogs under the heap backend and under the
 * contract-checking copying backend (which copies every value on write and on read, as a
 * serialising backend does), each restored from a snapshot halfway; under both, the output must
 * materialize to the batch computation of the input. An operator that mutated what it read from
 * state without writing it back passes on the heap and fails here under `copying`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keySelector } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec, JoinSpec, SemiJoinSpec } from '../../../src/dataflow/job-graph.js';
import { GroupAggregateOperator } from '../../../src/runtime/operators/group-aggregate-operator.js';
import { JoinOperator } from '../../../src/runtime/operators/join-operator.js';
import { OuterJoinOperator } from '../../../src/runtime/operators/outer-join-operator.js';
import { OverAggregateOperator } from '../../../src/runtime/operators/over-aggregate-operator.js';
import { SemiJoinOperator } from '../../../src/runtime/operators/semi-join-operator.js';
import { WindowAggregateOperator } from '../../../src/runtime/operators/window-aggregate-operator.js';
import type { StateBackendKind } from '../../../src/runtime/state/state-backend-factory.js';
import type { StreamOperator } from '../../../src/runtime/stream-operator.js';
import { aggCall, groupSpec } from '../aggregates/aggregate-call.js';
import { compiler } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { GHOST, twoInputBatches, twoInputStep } from './two-input-changelog.js';

const BACKENDS: readonly StateBackendKind[] = ['hashmap', 'copying'];
const RUNS = 60;
const bigint = SqlTypes.bigint();

/** A batch for input `side`, or a watermark. */
type Step = { readonly side: 0 | 1; readonly changes: readonly Change[] } | { readonly watermark: number };

/**
 * Runs `steps` through the operator `create` makes, under `backend`; after step `cut`, snapshots
 * its keyed state and continues in a new instance restored from it. Returns everything emitted.
 */
async function run(create: () => StreamOperator, backend: StateBackendKind, steps: readonly Step[], cut: number): Promise<Change[]> {
  let h = await OperatorHarness.open(create(), { stateBackend: backend });
  const output: Change[] = [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if ('watermark' in step) h.watermark(step.watermark);
    else h.push(step.changes, step.side);
    if (i === cut) {
      output.push(...h.output);
      const snapshot = h.state.snapshot();
      h = await OperatorHarness.open(create(), { stateBackend: backend, ...(snapshot === undefined ? {} : { restore: { snapshot } }) });
    }
  }
  output.push(...h.output);
  expect(h.warnings).toEqual([]);
  return output;
}

const inserts = (rows: readonly Row[]): Change[] => rows.map((row): Change => ['+I', row]);
const joinStep = twoInputStep({ ops: ['insert', 'insert', 'insert', 'delete', 'update'], maxKey: 3, values: fc.integer({ min: 0, max: 3 }) });
const present = (changes: readonly Change[]): Row[] => materialize(changes.filter(([, row]) => row[2] !== GHOST));
const sameKey = (l: Row, r: Row): boolean => l[0] !== null && r[0] !== null && keySelector([0])(l) === keySelector([0])(r);

/** Two-input steps and where to cut them, from random join steps. */
const twoInputCase = fc.tuple(fc.array(joinStep, { maxLength: 60 }), fc.nat()).map(([steps, cut]) => {
  const batches: Step[] = twoInputBatches(steps);
  return { batches, cut: batches.length === 0 ? 0 : cut % batches.length };
});

describe.each(BACKENDS)('stateful operators under the %s state backend', (backend) => {
  it('group aggregate COUNT(*), SUM(v), MAX(v) over inserts, updates and deletes equals the batch GROUP BY', async () => {
    const spec = groupSpec([0], [aggCall('COUNT', []), aggCall('SUM', [[2, bigint]]), aggCall('MAX', [[2, bigint]])]);
    await fc.assert(
      fc.asyncProperty(twoInputCase, async ({ batches, cut }) => {
        // One input: both sides' batches go to input 0, rows [key, key2, value].
        const steps = batches.map((b) => ('changes' in b ? { side: 0 as const, changes: b.changes } : b));
        const output = await run(() => new GroupAggregateOperator(spec), backend, steps, cut);
        const input = present(steps.flatMap((s) => ('changes' in s ? s.changes : [])));
        const groups = new Map<unknown, Row[]>();
        for (const row of input) groups.set(row[0], [...(groups.get(row[0]) ?? []), row]);
        const expected = [...groups].map(([key, rows]): Change => ['+I', [key, rows.length, rows.reduce((s, r) => s + (r[2] as number), 0), Math.max(...rows.map((r) => r[2] as number))]]);
        expect(materialize(output)).toEqual(materialize(expected));
      }),
      { numRuns: RUNS },
    );
  });

  for (const retracts of [false, true]) {
    it(`inner join with ${retracts ? 'counted' : 'append-only'} inputs equals the batch join`, async () => {
      const spec: JoinSpec = { kind: 'join', leftKeys: [0], rightKeys: [0], leftArity: 3, rightArity: 3, leftRetracts: retracts, rightRetracts: retracts };
      const step = retracts ? joinStep : twoInputStep({ ops: ['insert'], maxKey: 3, values: fc.integer({ min: 0, max: 3 }) });
      const cases = fc.tuple(fc.array(step, { maxLength: 60 }), fc.nat()).map(([steps, cut]) => {
        const batches = twoInputBatches(steps);
        return { batches, cut: batches.length === 0 ? 0 : cut % batches.length };
      });
      await fc.assert(
        fc.asyncProperty(cases, async ({ batches, cut }) => {
          const output = await run(() => new JoinOperator(spec, compiler), backend, batches, cut);
          const left = present(batches.filter((b) => b.side === 0).flatMap((b) => b.changes));
          const right = present(batches.filter((b) => b.side === 1).flatMap((b) => b.changes));
          expect(materialize(output)).toEqual(materialize(inserts(left.flatMap((l) => right.filter((r) => sameKey(l, r)).map((r) => [...l, ...r])))));
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('LEFT outer join equals the batch left join', async () => {
    const spec: JoinSpec = { kind: 'join', joinType: 'LEFT', leftKeys: [0], rightKeys: [0], leftArity: 3, rightArity: 3, leftRetracts: true, rightRetracts: true };
    await fc.assert(
      fc.asyncProperty(twoInputCase, async ({ batches, cut }) => {
        const output = await run(() => new OuterJoinOperator(spec, compiler), backend, batches, cut);
        const steps = batches as { side: 0 | 1; changes: Change[] }[];
        const left = present(steps.filter((b) => b.side === 0).flatMap((b) => b.changes));
        const right = present(steps.filter((b) => b.side === 1).flatMap((b) => b.changes));
        const expected = left.flatMap((l): Row[] => {
          const matches = right.filter((r) => sameKey(l, r));
          return matches.length === 0 ? [[...l, null, null, null]] : matches.map((r) => [...l, ...r]);
        });
        expect(materialize(output)).toEqual(materialize(inserts(expected)));
      }),
      { numRuns: RUNS },
    );
  });

  for (const anti of [false, true]) {
    it(`${anti ? 'anti' : 'semi'} join equals the batch ${anti ? 'NOT EXISTS' : 'EXISTS'}`, async () => {
      const spec: SemiJoinSpec = { kind: 'semi-join', anti, leftKeys: [0], rightKeys: [0], leftArity: 3, rightArity: 3 };
      await fc.assert(
        fc.asyncProperty(twoInputCase, async ({ batches, cut }) => {
          const output = await run(() => new SemiJoinOperator(spec, compiler), backend, batches, cut);
          const steps = batches as { side: 0 | 1; changes: Change[] }[];
          const left = present(steps.filter((b) => b.side === 0).flatMap((b) => b.changes));
          const right = present(steps.filter((b) => b.side === 1).flatMap((b) => b.changes));
          expect(materialize(output)).toEqual(materialize(inserts(left.filter((l) => right.some((r) => sameKey(l, r)) !== anti))));
        }),
        { numRuns: RUNS },
      );
    });
  }

  /** Insert-only rows [key, value, time] in time order, cut into batches each followed by a watermark no later row is behind. */
  const timedRows = fc
    .array(fc.record({ key: fc.integer({ min: 0, max: 3 }), value: fc.integer({ min: 0, max: 9 }), gap: fc.integer({ min: 0, max: 6 }), batchEnd: fc.boolean() }), { maxLength: 80 })
    .chain((rows) => fc.tuple(fc.constant(rows), fc.nat()))
    .map(([rows, cut]) => {
      const steps: Step[] = [];
      let time = 0;
      let batch: Change[] = [];
      const timed = rows.map((r, i) => ({ ...r, time: (time += r.gap), id: i }));
      timed.forEach((r, i) => {
        batch.push(['+I', [r.key, r.value, r.time, r.id]]);
        if (r.batchEnd || i === timed.length - 1) {
          steps.push({ side: 0, changes: batch });
          // Rows not after the watermark would be late: the next row's time bounds it.
          steps.push({ watermark: i === timed.length - 1 ? Infinity : timed[i + 1]!.time - 1 });
          batch = [];
        }
      });
      return { rows: timed, steps, cut: steps.length === 0 ? 0 : cut % steps.length };
    });

  it('window aggregate TUMBLE(10) SUM(v) GROUP BY k equals the batch windowed GROUP BY', async () => {
    // Keys 3 and 4 are window_start and window_end (the columns after the time); the rows' id is not read.
    const create = (): WindowAggregateOperator =>
      new WindowAggregateOperator({ kind: 'window-aggregate', window: { kind: 'TUMBLE', size: 10 }, timeIndex: 2, keys: [0, 3, 4], aggregates: [aggCall('SUM', [[1, bigint]])] });
    await fc.assert(
      fc.asyncProperty(timedRows, async ({ rows, steps, cut }) => {
        const output = await run(create, backend, steps, cut);
        const windows = new Map<string, Row>();
        for (const r of rows) {
          const start = Math.floor(r.time / 10) * 10;
          const id = `${r.key}/${start}`;
          const window = windows.get(id) ?? [r.key, start, start + 10, 0];
          window[3] = (window[3] as number) + r.value;
          windows.set(id, window);
        }
        expect(materialize(output)).toEqual(materialize(inserts([...windows.values()])));
        expect(output.every(([kind]) => kind === '+I')).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('OVER (PARTITION BY k ORDER BY time ROWS 2 PRECEDING) SUM, COUNT, MAX equals the batch computation', async () => {
    const aggregates: AggregateCallSpec[] = [aggCall('SUM', [[1, bigint]]), aggCall('COUNT', []), aggCall('MAX', [[1, bigint]])];
    const create = (): OverAggregateOperator =>
      new OverAggregateOperator({ kind: 'over-aggregate', partitionKeys: [0], timeIndex: 2, frame: { unit: 'ROWS', preceding: 2 }, aggregates, mode: 'rowtime' });
    await fc.assert(
      fc.asyncProperty(timedRows, async ({ rows, steps, cut }) => {
        const output = await run(create, backend, steps, cut);
        const expected = rows.map((r): Change => {
          const earlier = rows.filter((o) => o.key === r.key && (o.time < r.time || (o.time === r.time && o.id <= r.id)));
          const frame = earlier.slice(-3).map((o) => o.value);
          return ['+I', [r.key, r.value, r.time, r.id, frame.reduce((s, v) => s + v, 0), frame.length, Math.max(...frame)]];
        });
        expect(materialize(output)).toEqual(materialize(expected));
      }),
      { numRuns: RUNS },
    );
  });
});
