/**
 * The regular join operator: matches in both directions, multiset rows, retractions, NULL keys,
 * and (property) for random changelogs on both inputs, cut into random batches, every batch's
 * output equals, as a multiset, what a plain row-keyed model emits, and the materialized output
 * equals the join of the materialized inputs — for both state layouts (append-only and counted),
 * single and composite keys, with and without a condition besides the keys. State survives a
 * snapshot, a restore and a rescale.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeComponent, hashRow, keyGroupOf, keySelector, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import type { JoinSpec } from '../../../src/dataflow/job-graph.js';
import { JoinOperator } from '../../../src/runtime/operators/join-operator.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { call, compiler, ref } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { GHOST, twoInputBatches, twoInputStep } from './two-input-changelog.js';

const spec = (overrides: Partial<JoinSpec> = {}): JoinSpec => ({ kind: 'join', leftKeys: [0], rightKeys: [0], leftArity: 2, rightArity: 2, ...overrides });

const LAYOUTS = [
  { name: 'append-only inputs', leftRetracts: false, rightRetracts: false },
  { name: 'counted inputs', leftRetracts: true, rightRetracts: true },
  { name: 'counted left, append-only right', leftRetracts: true, rightRetracts: false },
] as const;

const id = (change: Change): string => change[0] + change[1].map(encodeComponent).join('');
const multiset = (changes: readonly Change[]): string[] => changes.map(id).sort();

describe('join operator', () => {
  for (const layout of LAYOUTS) {
    describe(layout.name, () => {
      it('matches each change against the other side, keeping duplicates', async () => {
        const h = await OperatorHarness.open(new JoinOperator(spec(layout), compiler));
        expect(h.push([['+I', [1, 'a']], ['+I', [1, 'a']], ['+I', [2, 'b']]], 0)).toEqual([]);
        expect(h.push([['+I', [1, 'x']]], 1)).toEqual([
          ['+I', [1, 'a', 1, 'x']],
          ['+I', [1, 'a', 1, 'x']],
        ]);
        expect(h.push([['+I', [2, 'c']]], 0)).toEqual([]);
        expect(multiset(h.push([['+I', [2, 'y']], ['+I', [3, 'z']]], 1))).toEqual(multiset([['+I', [2, 'b', 2, 'y']], ['+I', [2, 'c', 2, 'y']]]));
      });

      it('retracts one copy per -U/-D and emits -D per match', async () => {
        const h = await OperatorHarness.open(new JoinOperator(spec(layout), compiler));
        h.push([['+I', [1, 'a']], ['+I', [1, 'a']]], 0);
        h.push([['+I', [1, 'x']], ['+I', [1, 'y']]], 1);
        expect(multiset(h.push([['-U', [1, 'a']]], 0))).toEqual(multiset([['-D', [1, 'a', 1, 'x']], ['-D', [1, 'a', 1, 'y']]]));
        expect(h.push([['-D', [1, 'x']]], 1)).toEqual([['-D', [1, 'a', 1, 'x']]]);
        expect(h.push([['+U', [1, 'b']]], 0)).toEqual([['+I', [1, 'b', 1, 'y']]]);
        expect(materialize(h.output)).toEqual(materialize([['+I', [1, 'a', 1, 'y']], ['+I', [1, 'b', 1, 'y']]]));
        expect(h.warnings).toEqual([]);
      });

      it('ignores rows with a NULL key, and warns once about retractions of rows it does not hold', async () => {
        const h = await OperatorHarness.open(new JoinOperator(spec({ ...layout, leftKeys: [0, 1], rightKeys: [0, 1] }), compiler));
        h.push([['+I', [1, null]], ['+I', [1, 2]]], 0);
        expect(h.push([['+I', [1, null]], ['+I', [1, 2]]], 1)).toEqual([['+I', [1, 2, 1, 2]]]);
        expect(h.push([['-D', [1, 3]], ['-D', [2, 2]], ['-D', [1, null]]], 0)).toEqual([]);
        expect(h.warnings).toHaveLength(1);
      });

      it('treats values that encode alike as the same row (NaN, -0, bigint vs number)', async () => {
        const h = await OperatorHarness.open(new JoinOperator(spec(layout), compiler));
        h.push([['+I', [1, Number.NaN]], ['+I', [1, 0]], ['+I', [1, 5n]]], 0);
        h.push([['+I', [1, 'x']]], 1);
        expect(h.push([['-D', [1, Number.NaN]], ['-D', [1, -0]], ['-D', [1, 5]]], 0)).toHaveLength(2);
        expect(h.warnings).toHaveLength(1);
        expect(h.push([['-D', [1, 5n]]], 0)).toEqual([['-D', [1, 5n, 1, 'x']]]);
      });
    });
  }

  it('keeps rows whose hashes collide apart in the counted layout', async () => {
    const seen = new Map<number, number>();
    let pair: [number, number] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const h = hashRow([1, i]);
      const j = seen.get(h);
      if (j !== undefined) pair = [j, i];
      seen.set(h, i);
    }
    const [a, b] = pair;
    const h = await OperatorHarness.open(new JoinOperator(spec({ leftRetracts: true, rightRetracts: true }), compiler));
    h.push([['+I', [1, a]], ['+I', [1, b]], ['+I', [1, b]], ['+I', [1, a]]], 0);
    expect(h.push([['+I', [1, 'x']]], 1)).toEqual([
      ['+I', [1, a, 1, 'x']],
      ['+I', [1, a, 1, 'x']],
      ['+I', [1, b, 1, 'x']],
      ['+I', [1, b, 1, 'x']],
    ]);
    h.push([['-D', [1, a]], ['-D', [1, a]], ['-D', [1, b]]], 0);
    expect(h.push([['+I', [1, 'y']]], 1)).toEqual([['+I', [1, b, 1, 'y']]]);
    h.push([['+I', [1, a]], ['-D', [1, b]]], 0);
    expect(h.push([['+I', [1, 'z']]], 1)).toEqual([['+I', [1, a, 1, 'z']]]);
    expect(h.warnings).toEqual([]);
  });

  it('restores its state from a snapshot at another parallelism, split by key group', async () => {
    const maxParallelism = 128;
    for (const layout of LAYOUTS) {
      const whole = await OperatorHarness.open(new JoinOperator(spec(layout), compiler));
      const left: Change[] = Array.from({ length: 60 }, (_, i) => ['+I', [i % 20, `l${i}`]]);
      const right: Change[] = Array.from({ length: 40 }, (_, i) => ['+I', [i % 25, `r${i}`]]);
      whole.push(left, 0);
      whole.push(right, 1);
      const snapshot = whole.state.snapshot()!;
      const later: Change[] = [['-D', [3, 'l3']], ['+I', [3, 'l60']], ['-D', [4, 'l24']]];
      const laterRight: Change[] = [['+I', [3, 'r40']], ['-D', [4, 'r4']], ['+I', [19, 'r41']]];
      const expected = [...whole.push(later, 0), ...whole.push(laterRight, 1)];
      const parts = await Promise.all([0, 1].map(async (subtask) => {
        const part = await OperatorHarness.open(new JoinOperator(spec(layout), compiler), { subtask, parallelism: 2, maxParallelism });
        part.state.restore(snapshot, (key) => subtaskOfKeyGroup(keyGroupOf(key, maxParallelism), 2, maxParallelism) === subtask);
        return part;
      }));
      const owner = (row: Row): OperatorHarness => parts[subtaskOfKeyGroup(keyGroupOf(row[0] as number, maxParallelism), 2, maxParallelism)]!;
      const actual = [...later.flatMap((c) => owner(c[1]).push([c], 0)), ...laterRight.flatMap((c) => owner(c[1]).push([c], 1))];
      expect(multiset(actual)).toEqual(multiset(expected));
      expect(parts[0]!.state.keyCount() + parts[1]!.state.keyCount()).toBe(whole.state.keyCount());
    }
  });
});

/** The condition of the property tests besides the keys: the left row's second column at most the right row's (NULL never matches). */
const CONDITION = call('<=', ref(1, SqlTypes.int()), ref(4, SqlTypes.int()));
const conditionHolds = (joined: Row): boolean => joined[1] !== null && joined[4] !== null && (joined[1] as number) <= (joined[4] as number);

/** The join as a plain model: per side and join key, a Map from encoded row to [row, count]. */
class ModelJoin {
  private readonly sides = [new Map<unknown, Map<string, [Row, number]>>(), new Map<unknown, Map<string, [Row, number]>>()];
  private readonly keys: readonly [readonly number[], readonly number[]];

  constructor(private readonly join: JoinSpec) {
    this.keys = [join.leftKeys, join.rightKeys] as const;
  }

  push(changes: readonly Change[], side: 0 | 1): Change[] {
    const out: Change[] = [];
    const keyOf = keySelector(this.keys[side]);
    for (const [kind, row] of changes) {
      if (this.keys[side].some((c) => row[c] === null)) continue;
      const key = keyOf(row);
      const own = this.sides[side]!.get(key) ?? new Map<string, [Row, number]>();
      this.sides[side]!.set(key, own);
      const rowId = row.map(encodeComponent).join('');
      const stored = own.get(rowId);
      const accumulate = kind === '+I' || kind === '+U';
      if (accumulate) own.set(rowId, [row, (stored?.[1] ?? 0) + 1]);
      else if (stored === undefined) continue;
      else if (stored[1] === 1) own.delete(rowId);
      else stored[1]--;
      for (const [match, count] of this.sides[1 - side]!.get(key)?.values() ?? []) {
        const joined = side === 0 ? [...row, ...match] : [...match, ...row];
        if (this.join.condition !== undefined && !conditionHolds(joined)) continue;
        for (let c = 0; c < count; c++) out.push([accumulate ? '+I' : '-D', joined]);
      }
    }
    return out;
  }
}

const VALUES: readonly unknown[] = [0, -0, 1.5, Number.NaN, 1_700_000_000_123, 'a', 'b', '', 7n, true, null];

const step = twoInputStep({ ops: ['insert', 'insert', 'insert', 'delete', 'update', 'ghost'], maxKey: 3, values: fc.constantFrom(...VALUES) });

function batchJoin(left: readonly Row[], right: readonly Row[], join: JoinSpec): Row[] {
  const keyOf = [keySelector(join.leftKeys), keySelector(join.rightKeys)];
  const valid = (row: Row, keys: readonly number[]): boolean => keys.every((c) => row[c] !== null);
  return left
    .filter((l) => valid(l, join.leftKeys))
    .flatMap((l) => right.filter((r) => valid(r, join.rightKeys) && keyOf[1]!(r) === keyOf[0]!(l)).map((r) => [...l, ...r]))
    .filter((joined) => join.condition === undefined || conditionHolds(joined));
}

describe('join operator (property)', () => {
  for (const layout of LAYOUTS) {
    for (const [keys, condition] of [[[0], undefined], [[0, 1], undefined], [[0], CONDITION]] as const) {
      const title = `${layout.name}, key columns ${keys.join(',')}${condition === undefined ? '' : ', a condition'}`;
      it(`${title}: each batch emits what the row-keyed model emits, and the output is the batch join`, async () => {
        const join = spec({ ...layout, leftKeys: keys, rightKeys: keys, leftArity: 3, rightArity: 3, ...(condition === undefined ? {} : { condition }) });
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
            const h = await OperatorHarness.open(new JoinOperator(join, compiler));
            const model = new ModelJoin(join);
            const inputs: [Change[], Change[]] = [[], []];
            for (const { side, changes } of twoInputBatches(steps)) {
              expect(multiset(h.push(changes, side))).toEqual(multiset(model.push(changes, side)));
              inputs[side].push(...changes.filter(([, row]) => row[2] !== GHOST));
            }
            expect(materialize(h.output)).toEqual(materialize(batchJoin(materialize(inputs[0]), materialize(inputs[1]), join).map((row): Change => ['+I', row])));
          }),
          { numRuns: 150 },
        );
      });
    }
  }
});
