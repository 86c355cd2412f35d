/**
 * The interval join operator: inclusive bounds, state kept only while a row can still match, late
 * rows dropped and counted, the output watermark held back by the bounds. Property: for random
 * insert-only rows on both inputs with random watermarks (some rows late), random bounds, every
 * join type, with and without a residual condition, and a checkpoint and restore at a random point,
 * the output equals a nested-loop interval join of the rows that were not late; no output row is
 * behind the output watermark emitted before it; and once the watermark passes everything, the
 * state is empty.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IntervalBounds, JoinType } from '../../../src/common/join-type.js';
import { encodeComponent, keyGroupOf, keySelector, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { IntervalJoinSpec } from '../../../src/dataflow/job-graph.js';
import { Exprs } from '../../../src/expr/scalar-expr.js';
import { IntervalJoinOperator } from '../../../src/runtime/operators/interval-join-operator.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { compiler } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

/** Rows are (k, t, v) on both sides; `left.v <> right.v`. */
const DIFFERENT = Exprs.call('<>', [Exprs.inputRef(2, SqlTypes.int()), Exprs.inputRef(5, SqlTypes.int())], SqlTypes.boolean());

const spec = (bounds: Omit<IntervalBounds, 'leftTimeIndex' | 'rightTimeIndex'>, joinType: JoinType = 'INNER', condition: IntervalJoinSpec['condition'] = null): IntervalJoinSpec => ({
  kind: 'interval-join',
  joinType,
  leftKeys: [0],
  rightKeys: [0],
  leftArity: 3,
  rightArity: 3,
  bounds: { leftTimeIndex: 1, rightTimeIndex: 1, ...bounds },
  condition,
});

const open = (join: IntervalJoinSpec, restore?: Uint8Array): Promise<OperatorHarness> =>
  OperatorHarness.open(new IntervalJoinOperator(join, compiler), restore === undefined ? {} : { restore: { snapshot: restore } });

const lateRows = (h: OperatorHarness): number => (h.operator as IntervalJoinOperator).lateRows;

describe('interval join operator', () => {
  it('matches within the inclusive bounds, in both directions', async () => {
    const h = await open(spec({ lower: -5, upper: 10 }));
    h.push([['+I', [1, 100, 'a']]], 0);
    expect(h.push([['+I', [1, 90, 'x']], ['+I', [1, 89, 'y']], ['+I', [1, 105, 'z']], ['+I', [1, 106, 'w']], ['+I', [2, 100, 'o']]], 1)).toEqual([
      ['+I', [1, 100, 'a', 1, 90, 'x']],
      ['+I', [1, 100, 'a', 1, 105, 'z']],
    ]);
    expect(h.push([['+I', [1, 111, 'b']], ['+I', [1, 116, 'c']], ['+I', [1, 117, 'd']]], 0)).toEqual([
      ['+I', [1, 111, 'b', 1, 105, 'z']],
      ['+I', [1, 111, 'b', 1, 106, 'w']],
      ['+I', [1, 116, 'c', 1, 106, 'w']],
    ]);
  });

  it('drops state once the watermark passes what rows could still match, and holds the output watermark back', async () => {
    const h = await open(spec({ lower: -5, upper: 10 }));
    h.push([['+I', [1, 100, 'a']], ['+I', [2, 100, 'b']]], 0);
    h.push([['+I', [1, 100, 'x']]], 1);
    expect(h.state.keyCount()).toBe(2);
    // A left row at 100 can match right rows up to 105; a right row at 100 left rows up to 110.
    expect(h.watermark(104)).toEqual([94]);
    expect(h.state.keyCount()).toBe(2);
    h.watermark(105);
    expect(h.state.keyCount()).toBe(1);
    h.watermark(110);
    expect(h.state.keyCount()).toBe(0);
    expect(h.push([['+I', [1, 110, 'late']]], 0)).toEqual([]);
    expect(lateRows(h)).toBe(1);
    expect(h.warnings).toHaveLength(1);
  });

  it('emits an outer row that matched nothing NULL-padded when it leaves state', async () => {
    const h = await open(spec({ lower: 0, upper: 0 }, 'FULL'));
    h.push([['+I', [1, 100, 'a']], ['+I', [1, 200, 'b']], ['+I', [null, 300, 'n']]], 0);
    h.push([['+I', [1, 200, 'x']]], 1);
    h.watermark(150);
    expect(h.output).toEqual([
      ['+I', [null, 300, 'n', null, null, null]],
      ['+I', [1, 200, 'b', 1, 200, 'x']],
      ['+I', [1, 100, 'a', null, null, null]],
    ]);
  });
});

describe('interval join operator (state of an earlier version)', () => {
  it('takes over the records a checkpoint of an earlier version kept as one value per key, matched flags included', async () => {
    const earlier = new MemoryStateBackend();
    const records = earlier.getValueState<{ row: Row; matched: boolean }[]>({ name: 'interval-join.left' });
    earlier.setCurrentKey(1);
    records.update([
      { row: [1, 100, 'seen'], matched: true },
      { row: [1, 104, 'unseen'], matched: false },
    ]);
    const h = await open(spec({ lower: 0, upper: 0 }, 'LEFT'), earlier.snapshot()!);
    expect([...h.state.entriesOf({ name: 'interval-join.left' })]).toEqual([]);
    expect(h.push([['+I', [1, 104, 'x']]], 1)).toEqual([['+I', [1, 104, 'unseen', 1, 104, 'x']]]);
    h.push([['+I', [1, 102, 'new']]], 0);
    // Expired in time order: 'seen' had matched before the upgrade, 'new' never did, 'unseen' just did.
    const before = h.output.length;
    h.watermark(200);
    expect(h.output.slice(before)).toEqual([['+I', [1, 102, 'new', null, null, null]]]);
    expect(h.state.keyCount()).toBe(0);
  });
});

describe('interval join operator (rescale)', () => {
  it('restores its state split by key group over two subtasks, timers included', async () => {
    const maxParallelism = 128;
    const join = spec({ lower: -10, upper: 5 }, 'FULL');
    const whole = await open(join);
    whole.push(Array.from({ length: 40 }, (_, i): Change => ['+I', [i % 9, 100 + i, `l${i}`]]), 0);
    whole.push(Array.from({ length: 30 }, (_, i): Change => ['+I', [i % 7, 100 + 2 * i, `r${i}`]]), 1);
    whole.watermark(120);
    const snapshot = whole.state.snapshot()!;
    const laterLeft: Change[] = Array.from({ length: 10 }, (_, i) => ['+I', [i % 9, 150 + i, `l${40 + i}`]]);
    const laterRight: Change[] = Array.from({ length: 10 }, (_, i) => ['+I', [i % 7, 155 + i, `r${30 + i}`]]);
    const start = whole.output.length;
    whole.push(laterLeft, 0);
    whole.push(laterRight, 1);
    whole.watermark(Infinity);
    const expected = whole.output.slice(start);
    const subtaskOf = (key: Parameters<typeof keyGroupOf>[0]): number => subtaskOfKeyGroup(keyGroupOf(key, maxParallelism), 2, maxParallelism);
    const parts = await Promise.all(
      [0, 1].map((subtask) =>
        OperatorHarness.open(new IntervalJoinOperator(join, compiler), { subtask, parallelism: 2, maxParallelism, restore: { snapshot, owns: (key) => subtaskOf(key) === subtask } }),
      ),
    );
    const keyOf = keySelector([0]);
    for (const [changes, side] of [[laterLeft, 0], [laterRight, 1]] as const) for (const change of changes) parts[subtaskOf(keyOf(change[1]))]!.push([change], side);
    for (const part of parts) part.watermark(Infinity);
    const ids = (changes: readonly Change[]): string[] => changes.map((c) => c[0] + c[1].map(encodeComponent).join('')).sort();
    expect(expected.some(([, row]) => row[0] === null) && expected.some(([, row]) => row[0] !== null && row[3] !== null)).toBe(true);
    expect(ids([...parts[0]!.output, ...parts[1]!.output])).toEqual(ids(expected));
    expect(parts[0]!.state.keyCount() + parts[1]!.state.keyCount()).toBe(0);
  });
});

interface RowStep {
  readonly kind: 'row';
  readonly side: 0 | 1;
  readonly key: number | null;
  readonly time: number;
  readonly value: number;
}
type Step = RowStep | { readonly kind: 'watermark'; readonly advance: number } | { readonly kind: 'restore' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('row' as const), side: fc.constantFrom(0 as const, 1 as const), key: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 10 }), time: fc.integer({ min: 0, max: 60 }), value: fc.integer({ min: 0, max: 2 }) }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('watermark' as const), advance: fc.integer({ min: 0, max: 8 }) }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'restore' as const }), weight: 1 },
);

/** A plain nested-loop interval join of the rows that arrived after the watermark passed their time. */
function batchIntervalJoin(left: readonly Row[], right: readonly Row[], join: IntervalJoinSpec): Row[] {
  const { lower, upper } = join.bounds;
  const matches = (l: Row, r: Row): boolean =>
    l[0] !== null && l[0] === r[0] && (r[1] as number) + lower <= (l[1] as number) && (l[1] as number) <= (r[1] as number) + upper && (join.condition === null || l[2] !== r[2]);
  const out: Row[] = [];
  const rightMatched = right.map(() => false);
  for (const l of left) {
    let matched = false;
    right.forEach((r, j) => {
      if (!matches(l, r)) return;
      out.push([...l, ...r]);
      matched = rightMatched[j] = true;
    });
    if (!matched && (join.joinType === 'LEFT' || join.joinType === 'FULL')) out.push([...l, null, null, null]);
  }
  if (join.joinType === 'RIGHT' || join.joinType === 'FULL') right.forEach((r, j) => !rightMatched[j] && out.push([null, null, null, ...r]));
  return out;
}

describe('interval join operator (property)', () => {
  for (const joinType of ['INNER', 'LEFT', 'RIGHT', 'FULL'] as const) {
    for (const withCondition of [false, true]) {
      it(`${joinType}${withCondition ? ' with a residual condition' : ''}: the output is the interval join of the rows that were not late`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 80 }), fc.integer({ min: -15, max: 8 }), fc.integer({ min: 0, max: 20 }), async (steps, lower, width) => {
            const join = spec({ lower, upper: lower + width }, joinType, withCondition ? DIFFERENT : null);
            let h = await open(join);
            const output: Change[] = [];
            const accepted: [Row[], Row[]] = [[], []];
            let late = 0;
            let lateBefore = 0;
            let watermark = -Infinity;
            let outputWatermark = -Infinity;
            const collect = (changes: readonly Change[]): void => {
              for (const [kind, row] of changes) {
                expect(kind).toBe('+I');
                for (const t of [row[1], row[4]]) if (t !== null) expect(t).toBeGreaterThan(outputWatermark);
                output.push([kind, row]);
              }
            };
            for (const s of steps) {
              if (s.kind === 'restore') {
                lateBefore += lateRows(h);
                h = await open(join, h.state.snapshot());
                // Timers are rebuilt from state; the restored operator learns the watermark from its inputs again.
                if (watermark > -Infinity) h.watermark(watermark);
              } else if (s.kind === 'watermark') {
                watermark = Math.max(watermark, 0) + s.advance;
                const start = h.output.length;
                const emitted = h.watermark(watermark);
                collect(h.output.slice(start));
                for (const w of emitted) outputWatermark = Math.max(outputWatermark, w);
              } else {
                const row: Row = [s.key, s.time, s.value];
                if (s.time <= watermark) late++;
                else accepted[s.side].push(row);
                collect(h.push([['+I', row]], s.side));
              }
            }
            const start = h.output.length;
            h.watermark(Infinity);
            collect(h.output.slice(start));
            expect(materialize(output)).toEqual(materialize(batchIntervalJoin(accepted[0], accepted[1], join).map((row): Change => ['+I', row])));
            expect(lateBefore + lateRows(h)).toBe(late);
            expect(h.state.keyCount()).toBe(0);
          }),
          { numRuns: 150 },
        );
      });
    }
  }
});
