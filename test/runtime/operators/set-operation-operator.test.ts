/**
 * The set-operation operator (INTERSECT [ALL], EXCEPT [ALL]): output counts per distinct row under
 * inserts, updates and deletes on either input, NULLs equal to NULLs, one change per changed row
 * per batch, counts beyond the packed state form, retractions of rows an input does not hold, state
 * leaving with a row's last copy, snapshot and restore at another parallelism, and state TTL. The
 * property test drives random changelogs with duplicates and NULLs through every set operation at
 * parallelism 1 and 3 (records routed to subtasks by key group, as the runtime's hash exchange
 * does) and checks after every batch that the materialized output equals the set operation
 * recomputed from the materialized inputs by a plain model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeComponent, keyGroupOf, keySelector, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import type { SetOperationSpec } from '../../../src/dataflow/job-graph.js';
import { SET_OPERATION_COUNTS_STATE, SetOperationOperator } from '../../../src/runtime/operators/set-operation-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { GHOST, twoInputBatches, twoInputStep } from './two-input-changelog.js';

const LEFT = 0;
const RIGHT = 1;

const OPERATIONS: readonly Pick<SetOperationSpec, 'op' | 'all'>[] = [
  { op: 'INTERSECT', all: false },
  { op: 'INTERSECT', all: true },
  { op: 'EXCEPT', all: false },
  { op: 'EXCEPT', all: true },
];

const title = ({ op, all }: Pick<SetOperationSpec, 'op' | 'all'>): string => `${op}${all ? ' ALL' : ''}`;

async function open(op: SetOperationSpec['op'], all: boolean, arity = 2, options: Parameters<typeof OperatorHarness.open>[1] = {}): Promise<OperatorHarness> {
  return OperatorHarness.open(new SetOperationOperator({ kind: 'set-operation', op, all, arity }), options);
}

/** `n` copies of a change. */
const times = (n: number, change: Change): Change[] => Array.from({ length: n }, () => change);

/** A row's identity under SQL's set semantics (equal for -0 and 0, NaN and NaN, NULL and NULL). */
const rowId = (row: Row): string => row.map(encodeComponent).join('');

/** How many changes of each kind there are per first column: `{ '+I a': 3 }`. */
function tally(changes: readonly Change[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [kind, row] of changes) counts[`${kind} ${String(row[0])}`] = (counts[`${kind} ${String(row[0])}`] ?? 0) + 1;
  return counts;
}

/** The output count SQL gives a row held `l` times on the left and `r` times on the right. */
function expectedCount({ op, all }: Pick<SetOperationSpec, 'op' | 'all'>, l: number, r: number): number {
  if (op === 'INTERSECT') return all ? Math.min(l, r) : l > 0 && r > 0 ? 1 : 0;
  return all ? Math.max(l - r, 0) : l > 0 && r === 0 ? 1 : 0;
}

/** The set operation over two multisets of rows, as a batch query computes it (rows equal when their encodings are, NULLs included). */
function batchSetOperation(operation: Pick<SetOperationSpec, 'op' | 'all'>, left: readonly Row[], right: readonly Row[]): Change[] {
  const counts = new Map<string, { row: Row; l: number; r: number }>();
  for (const [rows, side] of [[left, 'l'], [right, 'r']] as const) {
    for (const row of rows) {
      const id = rowId(row);
      const entry = counts.get(id) ?? { row, l: 0, r: 0 };
      entry[side]++;
      counts.set(id, entry);
    }
  }
  return [...counts.values()].flatMap(({ row, l, r }) => times(expectedCount(operation, l, r), ['+I', row]));
}

describe('set operation operator', () => {
  it('INTERSECT ALL holds min(l, r) copies, following inserts and deletes on either side', async () => {
    const h = await open('INTERSECT', true);
    expect(h.push(times(3, ['+I', ['a', 1]]), LEFT)).toEqual([]);
    expect(h.push(times(2, ['+I', ['a', 1]]), RIGHT)).toEqual(times(2, ['+I', ['a', 1]]));
    expect(h.push([['-D', ['a', 1]]], LEFT)).toEqual([]);
    expect(h.push([['-D', ['a', 1]]], LEFT)).toEqual([['-D', ['a', 1]]]);
    expect(h.push(times(4, ['+I', ['a', 1]]), RIGHT)).toEqual([]);
    expect(h.push(times(2, ['+I', ['a', 1]]), LEFT)).toEqual(times(2, ['+I', ['a', 1]]));
    expect(h.push(times(6, ['-D', ['a', 1]]), RIGHT)).toEqual(times(3, ['-D', ['a', 1]]));
    expect(materialize(h.output)).toEqual([]);
    expect(h.warnings).toEqual([]);
  });

  it('EXCEPT ALL holds max(l - r, 0) copies: right rows cancel left ones, and their deletes bring them back', async () => {
    const h = await open('EXCEPT', true);
    expect(h.push([...times(3, ['+I', ['a', 1]] as Change), ['+I', ['b', 2]]], LEFT)).toEqual([...times(3, ['+I', ['a', 1]] as Change), ['+I', ['b', 2]]]);
    expect(h.push([['+I', ['a', 1]], ['+I', ['c', 3]]], RIGHT)).toEqual([['-D', ['a', 1]]]);
    expect(h.push(times(3, ['+I', ['a', 1]]), RIGHT)).toEqual(times(2, ['-D', ['a', 1]]));
    expect(h.push([['+I', ['c', 3]]], LEFT)).toEqual([]);
    expect(h.push([['+I', ['c', 3]]], LEFT)).toEqual([['+I', ['c', 3]]]);
    expect(h.push(times(2, ['-D', ['a', 1]]), RIGHT)).toEqual([['+I', ['a', 1]]]);
    expect(materialize(h.output)).toEqual([['a', 1], ['b', 2], ['c', 3]]);
  });

  it('INTERSECT and EXCEPT hold a row once or not at all, whatever its duplicates', async () => {
    const intersect = await open('INTERSECT', false);
    expect(intersect.push(times(3, ['+I', ['a', 1]]), LEFT)).toEqual([]);
    expect(intersect.push(times(2, ['+I', ['a', 1]]), RIGHT)).toEqual([['+I', ['a', 1]]]);
    expect(intersect.push(times(2, ['-D', ['a', 1]]), LEFT)).toEqual([]);
    expect(intersect.push([['-D', ['a', 1]]], RIGHT)).toEqual([]);
    expect(intersect.push([['-D', ['a', 1]]], RIGHT)).toEqual([['-D', ['a', 1]]]);

    const except = await open('EXCEPT', false);
    expect(except.push(times(2, ['+I', ['a', 1]]), LEFT)).toEqual([['+I', ['a', 1]]]);
    expect(except.push([['+I', ['a', 1]]], RIGHT)).toEqual([['-D', ['a', 1]]]);
    expect(except.push([['+I', ['a', 1]]], LEFT)).toEqual([]);
    expect(except.push([['-D', ['a', 1]]], RIGHT)).toEqual([['+I', ['a', 1]]]);
    expect(except.push(times(3, ['-D', ['a', 1]]), LEFT)).toEqual([['-D', ['a', 1]]]);
  });

  it('treats two NULLs as not distinct, and values that encode alike as one row (NaN, -0)', async () => {
    const h = await open('INTERSECT', true);
    h.push([['+I', [null, null]], ['+I', [null, 'x']], ['+I', [Number.NaN, 0]], ['+I', [1, 'x']]], LEFT);
    expect(h.push([['+I', [null, null]], ['+I', [null, 'x']], ['+I', [Number.NaN, -0]], ['+I', [1, null]]], RIGHT)).toEqual([
      ['+I', [null, null]],
      ['+I', [null, 'x']],
      ['+I', [Number.NaN, -0]],
    ]);
    const single = await open('EXCEPT', false, 1);
    single.push([['+I', [null]], ['+I', [null]], ['+I', [7]]], LEFT);
    expect(single.push([['+I', [null]]], RIGHT)).toEqual([['-D', [null]]]);
    expect(materialize(single.output)).toEqual([[7]]);
  });

  it('compares ARRAY, ROW and MAP values by value, also as the only column', async () => {
    const single = await open('INTERSECT', false, 1);
    single.push([['+I', [[1, 2]]], ['+I', [new Map([['a', 1]])]], ['+I', [[3]]]], LEFT);
    expect(single.push([['+I', [[1, 2]]], ['+I', [new Map([['a', 1]])]], ['+I', [[4]]]], RIGHT)).toEqual([['+I', [[1, 2]]], ['+I', [new Map([['a', 1]])]]]);
    expect(single.push([['-D', [[1, 2]]]], LEFT)).toEqual([['-D', [[1, 2]]]]);
    const pair = await open('EXCEPT', true);
    pair.push([['+I', [[1, 2], 'x']], ['+I', [[1, 2], 'x']]], LEFT);
    expect(pair.push([['+I', [[1, 2], 'x']]], RIGHT)).toEqual([['-D', [[1, 2], 'x']]]);
    expect(single.warnings).toEqual([]);
  });

  it('emits one change per changed row per batch: the net change, nothing for a row that comes back', async () => {
    const h = await open('EXCEPT', true);
    expect(h.push([['+I', ['a', 1]], ['+I', ['b', 2]], ['-D', ['a', 1]], ['+I', ['a', 1]], ['+I', ['a', 1]], ['-D', ['b', 2]]], LEFT)).toEqual(times(2, ['+I', ['a', 1]]));
    expect(h.push([['+I', ['a', 1]], ['-D', ['a', 1]], ['-U', ['z', 0]]], RIGHT)).toEqual([]);
    expect(h.push([['-U', ['a', 1]], ['+U', ['a', 1]]], LEFT)).toEqual([]);
  });

  it('follows an update (-U/+U) that moves a row on either input', async () => {
    const h = await open('EXCEPT', false);
    h.push([['+I', ['a', 1]], ['+I', ['b', 2]]], LEFT);
    expect(h.push([['+I', ['a', 1]]], RIGHT)).toEqual([['-D', ['a', 1]]]);
    expect(h.push([['-U', ['a', 1]], ['+U', ['b', 2]]], RIGHT)).toEqual([['+I', ['a', 1]], ['-D', ['b', 2]]]);
    expect(h.push([['-U', ['a', 1]], ['+U', ['c', 3]]], LEFT)).toEqual([['-D', ['a', 1]], ['+I', ['c', 3]]]);
    expect(materialize(h.output)).toEqual([['c', 3]]);
  });

  it('ignores a retraction of a row the input does not hold, with one warning, and keeps no state for it', async () => {
    const h = await open('INTERSECT', true);
    h.push([['+I', ['a', 1]]], RIGHT);
    expect(h.push([['-D', ['a', 1]], ['-D', ['b', 2]], ['-U', ['c', 3]]], LEFT)).toEqual([]);
    expect(h.push([['+I', ['a', 1]]], LEFT)).toEqual([['+I', ['a', 1]]]);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/ignored a retraction on input 0 of a row that input does not hold/);
    expect(h.state.keyCount()).toBe(1);
  });

  it('keeps state per distinct row only while an input holds a copy of it', async () => {
    const h = await open('INTERSECT', false);
    h.push([['+I', ['a', 1]], ['+I', ['a', 1]], ['+I', ['b', 2]]], LEFT);
    h.push([['+I', ['b', 2]], ['+I', ['c', 3]]], RIGHT);
    expect(h.state.keyCount()).toBe(3);
    const entries = [...h.state.entriesOf<unknown>({ name: SET_OPERATION_COUNTS_STATE })].map(([, counts]) => counts);
    expect(entries.every((counts) => typeof counts === 'number' && counts > 0)).toBe(true);
    h.push([['-D', ['a', 1]], ['-D', ['a', 1]], ['-D', ['b', 2]]], LEFT);
    h.push([['-D', ['b', 2]], ['-D', ['c', 3]]], RIGHT);
    expect(h.state.keyCount()).toBe(0);
    expect(materialize(h.output)).toEqual([]);
  });

  it('counts beyond the packed state form (2^15 copies) stay exact', async () => {
    const many = 40_000;
    const h = await open('EXCEPT', true);
    expect(tally(h.push(times(many, ['+I', ['a', 1]]), LEFT))).toEqual({ '+I a': many });
    expect(tally(h.push(times(many - 1, ['+I', ['a', 1]]), RIGHT))).toEqual({ '-D a': many - 1 });
    expect(h.push(times(2, ['+I', ['a', 1]]), RIGHT)).toEqual([['-D', ['a', 1]]]);
    expect(tally(h.push(times(many + 1, ['-D', ['a', 1]]), RIGHT))).toEqual({ '+I a': many });
    expect(tally(h.push(times(many - 3, ['-D', ['a', 1]]), LEFT))).toEqual({ '-D a': many - 3 });
    expect(tally(h.output.filter(([kind]) => kind === '+I'))['+I a']! - tally(h.output.filter(([kind]) => kind === '-D'))['-D a']!).toBe(3);
  });

  it('restores its state from a snapshot at another parallelism, split by key group', async () => {
    const maxParallelism = 128;
    const whole = await open('INTERSECT', true);
    const rowOf = (i: number): Row => [i % 17, i % 3 === 0 ? null : `v${i % 5}`];
    whole.push(Array.from({ length: 120 }, (_, i): Change => ['+I', rowOf(i)]), LEFT);
    whole.push(Array.from({ length: 90 }, (_, i): Change => ['+I', rowOf(i * 7)]), RIGHT);
    const snapshot = whole.state.snapshot()!;
    const initial = whole.output.slice();
    const later: Change[] = Array.from({ length: 60 }, (_, i): Change => [i % 2 === 0 ? '+I' : '-D', rowOf(i * 11)]);
    const laterRight: Change[] = Array.from({ length: 60 }, (_, i): Change => [i % 3 === 0 ? '+I' : '-D', rowOf(i * 5)]);
    const expected = [...whole.push(later, LEFT), ...whole.push(laterRight, RIGHT)];
    const keyOf = keySelector([0, 1]);
    const subtaskOf = (row: Row): number => subtaskOfKeyGroup(keyGroupOf(keyOf(row), maxParallelism), 2, maxParallelism);
    const parts = await Promise.all(
      [0, 1].map((subtask) =>
        open('INTERSECT', true, 2, { subtask, parallelism: 2, maxParallelism, restore: { snapshot, owns: (key) => subtaskOfKeyGroup(keyGroupOf(key, maxParallelism), 2, maxParallelism) === subtask } }),
      ),
    );
    const actual = [...later.flatMap((c) => parts[subtaskOf(c[1])]!.push([c], LEFT)), ...laterRight.flatMap((c) => parts[subtaskOf(c[1])]!.push([c], RIGHT))];
    expect(materialize([...initial, ...actual])).toEqual(materialize([...initial, ...expected]));
    expect(parts[0]!.state.keyCount() + parts[1]!.state.keyCount()).toBe(whole.state.keyCount());
    expect(parts[0]!.state.keyCount()).toBeGreaterThan(0);
    expect(parts[1]!.state.keyCount()).toBeGreaterThan(0);
  });

  it('drops the counts of a row idle for longer than the state TTL, so that the row starts afresh', async () => {
    let now = 0;
    const h = await open('EXCEPT', true, 2, { stateTtl: { ttlMillis: 1_000, clock: () => now } });
    h.push([['+I', ['a', 1]], ['+I', ['a', 1]], ['+I', ['b', 2]]], LEFT);
    now = 600;
    expect(h.push([['+I', ['b', 2]]], RIGHT)).toEqual([['-D', ['b', 2]]]);
    now = 1_200;
    expect(h.push([['+I', ['a', 1]]], RIGHT)).toEqual([]);
    expect(h.push([['-D', ['b', 2]]], RIGHT)).toEqual([['+I', ['b', 2]]]);
    expect(h.warnings).toEqual([]);
    now = 2_300;
    expect(h.push([['-D', ['a', 1]]], RIGHT)).toEqual([]);
    expect(h.warnings).toHaveLength(1);
    expect(h.state.keyCount()).toBe(0);
  });
});

/** Steps over rows `[key, key2, value]` with few distinct values, so that rows repeat; NULL keys and values are common. */
const step = twoInputStep({
  ops: ['insert', 'insert', 'insert', 'delete', 'delete', 'update', 'ghost'],
  maxKey: 2,
  values: fc.constantFrom<unknown>(null, 'x', 'y', 0, -0, Number.NaN, 5n),
});

/** The records of a batch sent to each of `parallelism` subtasks, by the key group of the whole row (the runtime's hash exchange). */
function route(changes: readonly Change[], parallelism: number, maxParallelism: number): Change[][] {
  const parts: Change[][] = Array.from({ length: parallelism }, () => []);
  if (changes.length === 0) return parts;
  const keyOf = keySelector(changes[0]![1].map((_, i) => i));
  for (const change of changes) parts[subtaskOfKeyGroup(keyGroupOf(keyOf(change[1]), maxParallelism), parallelism, maxParallelism)]!.push(change);
  return parts;
}

describe('set operation operator (property)', () => {
  for (const operation of OPERATIONS) {
    for (const parallelism of [1, 3]) {
      for (const width of [3, 1]) {
        it(`${title(operation)}, parallelism ${parallelism}, ${width} column(s): after every batch the output is the batch set operation of the inputs`, async () => {
          const maxParallelism = 128;
          await fc.assert(
            fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
              const subtasks = await Promise.all(
                Array.from({ length: parallelism }, (_, subtask) =>
                  OperatorHarness.open(new SetOperationOperator({ kind: 'set-operation', ...operation, arity: width }), { subtask, parallelism, maxParallelism }),
                ),
              );
              const inputs: [Change[], Change[]] = [[], []];
              const output: Change[] = [];
              for (const batch of twoInputBatches(steps)) {
                const changes = batch.changes.map(([kind, row]): Change => [kind, width === 1 ? [row[2]] : row]);
                route(changes, parallelism, maxParallelism).forEach((part, subtask) => {
                  if (part.length === 0) return;
                  const emitted = subtasks[subtask]!.push(part, batch.side);
                  const kinds = new Map<string, string>();
                  for (const [kind, row] of emitted) {
                    expect(kind === '+I' || kind === '-D').toBe(true);
                    expect(kinds.get(rowId(row)) ?? kind, 'a row is both inserted and deleted in one batch').toBe(kind);
                    kinds.set(rowId(row), kind);
                  }
                  output.push(...emitted);
                });
                inputs[batch.side].push(...changes.filter(([, row]) => row[row.length - 1] !== GHOST));
                const expected = batchSetOperation(operation, materialize(inputs[0]), materialize(inputs[1]));
                expect(materialize(output).map(rowId)).toEqual(materialize(expected).map(rowId));
              }
            }),
            { numRuns: 100 },
          );
        });
      }
    }
  }

});
