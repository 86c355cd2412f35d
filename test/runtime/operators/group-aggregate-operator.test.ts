import { serialize, deserialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { SqlTypes as T } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec, GroupAggregateSpec } from '../../../src/dataflow/job-graph.js';
import { GROUP_ACCUMULATOR_STATE, GroupAggregateOperator } from '../../../src/runtime/operators/group-aggregate-operator.js';
import { aggCall, groupSpec } from '../aggregates/aggregate-call.js';
import { OperatorHarness, materialize, type Change, type HarnessOptions } from '../operator-harness.js';

const COUNT_STAR = aggCall('COUNT', []);

/** Rows are `[k, v]` with k STRING and v BIGINT unless a test says otherwise. */
function open(spec: GroupAggregateSpec, options: HarnessOptions = {}): Promise<OperatorHarness> {
  return OperatorHarness.open(new GroupAggregateOperator(spec), options);
}

function byKey(...aggregates: AggregateCallSpec[]): GroupAggregateSpec {
  return groupSpec([0], aggregates);
}

describe('GroupAggregateOperator', () => {
  it('emits +I for new groups and folds a batch into one change per group, in first-touch order', async () => {
    const h = await open(byKey(COUNT_STAR, aggCall('SUM', [[1, T.bigint()]])));
    expect(h.push([['+I', ['b', 1]], ['+I', ['a', 2]], ['+I', ['b', 3]]])).toEqual([
      ['+I', ['b', 2, 4]],
      ['+I', ['a', 1, 2]],
    ]);
    expect(h.push([['+I', ['a', 5]], ['+I', ['c', 1]]])).toEqual([
      ['-U', ['a', 1, 2]],
      ['+U', ['a', 2, 7]],
      ['+I', ['c', 1, 1]],
    ]);
  });

  it('applies -U/+U input pairs as updates', async () => {
    const h = await open(byKey(COUNT_STAR, aggCall('SUM', [[1, T.bigint()]])));
    h.push([['+I', ['a', 1]], ['+I', ['a', 2]]]);
    expect(h.push([['-U', ['a', 2]], ['+U', ['a', 10]]])).toEqual([
      ['-U', ['a', 2, 3]],
      ['+U', ['a', 2, 11]],
    ]);
  });

  it('emits -D when a group loses its last row and clears its state', async () => {
    const h = await open(byKey(COUNT_STAR, aggCall('SUM', [[1, T.bigint()]])));
    h.push([['+I', ['a', 1]], ['+I', ['a', 2]], ['+I', ['b', 3]]]);
    expect(h.push([['-D', ['a', 1]]])).toEqual([
      ['-U', ['a', 2, 3]],
      ['+U', ['a', 1, 2]],
    ]);
    expect(h.push([['-D', ['a', 2]], ['-D', ['b', 3]]])).toEqual([
      ['-D', ['a', 1, 2]],
      ['-D', ['b', 1, 3]],
    ]);
    expect(h.state.keyCount()).toBe(0);
    expect(h.push([['+I', ['a', 7]]])).toEqual([['+I', ['a', 1, 7]]]);
  });

  it('emits nothing for a group that appears and disappears within one batch', async () => {
    const h = await open(byKey(COUNT_STAR));
    expect(h.push([['+I', ['a', 1]], ['-D', ['a', 1]]])).toEqual([]);
    expect(h.state.keyCount()).toBe(0);
  });

  it('turns a delete and re-insert within one batch into an update', async () => {
    const h = await open(byKey(COUNT_STAR, aggCall('SUM', [[1, T.bigint()]])));
    h.push([['+I', ['a', 1]]]);
    expect(h.push([['-D', ['a', 1]], ['+I', ['a', 5]]])).toEqual([
      ['-U', ['a', 1, 1]],
      ['+U', ['a', 1, 5]],
    ]);
  });

  it('emits only +U when emitUpdateBefore is false', async () => {
    const h = await open(groupSpec([0], [COUNT_STAR], { emitUpdateBefore: false }));
    h.push([['+I', ['a', 1]]]);
    expect(h.push([['+I', ['a', 2]]])).toEqual([['+U', ['a', 2]]]);
    expect(h.push([['-D', ['a', 1]], ['-D', ['a', 2]]])).toEqual([['-D', ['a', 2]]]);
  });

  it('suppresses updates that do not change the output row', async () => {
    const h = await open(byKey(aggCall('MAX', [[1, T.bigint()]])));
    h.push([['+I', ['a', 5]]]);
    expect(h.push([['+I', ['a', 3]]])).toEqual([]);
    expect(h.push([['-U', ['a', 3]], ['+U', ['a', 4]]])).toEqual([]);
  });

  it('ignores a retraction of a group without rows and warns once', async () => {
    const h = await open(byKey(COUNT_STAR));
    expect(h.push([['-D', ['a', 1]], ['-U', ['b', 1]]])).toEqual([]);
    h.push([['+I', ['a', 1]], ['-D', ['a', 1]], ['-D', ['a', 1]]]);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain('ignored a retraction');
    expect(h.state.keyCount()).toBe(0);
  });

  describe('MIN and MAX over a retracting input', () => {
    it('MIN survives the retraction of the current minimum', async () => {
      const h = await open(byKey(aggCall('MIN', [[1, T.bigint()]])));
      h.push([['+I', ['a', 3]], ['+I', ['a', 1]], ['+I', ['a', 1]], ['+I', ['a', 2]]]);
      expect(h.push([['-D', ['a', 1]]])).toEqual([]);
      expect(h.push([['-D', ['a', 1]]])).toEqual([
        ['-U', ['a', 1]],
        ['+U', ['a', 2]],
      ]);
      expect(h.push([['-D', ['a', 2]], ['+I', ['a', 0]]])).toEqual([
        ['-U', ['a', 2]],
        ['+U', ['a', 0]],
      ]);
    });

    it('MAX survives the retraction of the current maximum, over strings compared by UTF-16 code units', async () => {
      const h = await open(byKey(aggCall('MAX', [[1, T.string()]])));
      h.push([['+I', ['a', 'b']], ['+I', ['a', '\uFFFF']], ['+I', ['a', '\u{1F600}']]]);
      expect(h.output.at(-1)).toEqual(['+I', ['a', '\uFFFF']]);
      expect(h.push([['-D', ['a', '\uFFFF']]])).toEqual([
        ['-U', ['a', '\uFFFF']],
        ['+U', ['a', '\u{1F600}']],
      ]);
    });

    it('keeps MIN over many values in O(log n) per change', async () => {
      // On the heap backend: MIN with retraction keeps every value in the group's accumulator, which
      // a copying (serialising) backend copies whole on every change — O(n) per change there.
      const h = await open(byKey(aggCall('MIN', [[1, T.int()]])), { stateBackend: 'hashmap' });
      const n = 20_000;
      h.push(Array.from({ length: n }, (_, i): Change => ['+I', ['a', (i * 7919) % n]]));
      for (let i = 0; i < n - 1; i++) h.push([['-D', ['a', i]]]);
      expect(h.output.at(-1)).toEqual(['+U', ['a', n - 1]]);
    });
  });

  it('orders NaN above every other DOUBLE in MIN and MAX, with and without retraction', async () => {
    for (const inputRetracts of [true, false]) {
      const h = await open(groupSpec([0], [aggCall('MIN', [[1, T.double()]]), aggCall('MAX', [[1, T.double()]])], { inputRetracts }));
      expect(h.push([['+I', ['a', 2]], ['+I', ['a', NaN]], ['+I', ['a', 1]]])).toEqual([['+I', ['a', 1, NaN]]]);
      expect(h.push([['+I', ['a', NaN]]])).toEqual([]);
      if (inputRetracts) {
        h.push([['-D', ['a', NaN]]]);
        expect(h.push([['-D', ['a', NaN]]])).toEqual([
          ['-U', ['a', 1, NaN]],
          ['+U', ['a', 1, 2]],
        ]);
      }
    }
  });

  describe('insert-only input', () => {
    const spec = groupSpec([0], [aggCall('MIN', [[1, T.bigint()]]), aggCall('MAX', [[1, T.bigint()]])], { inputRetracts: false });

    it('keeps just the extremes', async () => {
      const h = await open(spec);
      h.push([['+I', ['a', 3]], ['+I', ['a', 1]], ['+I', ['a', null]]]);
      expect(h.push([['+I', ['a', 5]]])).toEqual([
        ['-U', ['a', 1, 3]],
        ['+U', ['a', 1, 5]],
      ]);
      const accumulator = new Map(h.state.entriesOf<unknown[]>({ name: GROUP_ACCUMULATOR_STATE })).get('a')!;
      expect(accumulator.some((slot) => typeof slot === 'object' && slot !== null)).toBe(false);
    });

    it('rejects a retraction reaching MIN/MAX as an internal error', async () => {
      const h = await open(spec);
      h.push([['+I', ['a', 3]]]);
      expect(() => h.push([['-D', ['a', 3]]])).toThrow(/MIN received a retraction/);
    });
  });

  it('SUM, AVG, MIN and MAX return NULL once every non-NULL value is retracted, while the group exists', async () => {
    const h = await open(
      byKey(COUNT_STAR, aggCall('SUM', [[1, T.bigint()]]), aggCall('AVG', [[1, T.bigint()]]), aggCall('MIN', [[1, T.bigint()]]), aggCall('MAX', [[1, T.bigint()]])),
    );
    h.push([['+I', ['a', 4]], ['+I', ['a', null]]]);
    expect(h.push([['-D', ['a', 4]]])).toEqual([
      ['-U', ['a', 2, 4, 4, 4, 4]],
      ['+U', ['a', 1, null, null, null, null]],
    ]);
  });

  it('COUNT(*) counts rows with NULLs, COUNT(x) only non-NULL values', async () => {
    const h = await open(byKey(COUNT_STAR, aggCall('COUNT', [[1, T.bigint()]])));
    expect(h.push([['+I', ['a', null]], ['+I', ['a', 1]], ['+I', ['a', null]]])).toEqual([['+I', ['a', 3, 1]]]);
  });

  it('COUNT(DISTINCT x) and SUM(DISTINCT x) see a value on its first occurrence and lose it with its last', async () => {
    const h = await open(byKey(aggCall('COUNT', [[1, T.bigint()]], { distinct: true }), aggCall('SUM', [[1, T.bigint()]], { distinct: true })));
    expect(h.push([['+I', ['a', 1]], ['+I', ['a', 1]], ['+I', ['a', 2]], ['+I', ['a', null]]])).toEqual([['+I', ['a', 2, 3]]]);
    expect(h.push([['-D', ['a', 1]]])).toEqual([]);
    expect(h.push([['-D', ['a', 1]]])).toEqual([
      ['-U', ['a', 2, 3]],
      ['+U', ['a', 1, 2]],
    ]);
    expect(h.push([['+I', ['a', 2]], ['-D', ['a', 2]]])).toEqual([]);
  });

  it('COUNT(DISTINCT a, b) counts distinct non-NULL combinations', async () => {
    const h = await open(byKey(aggCall('COUNT', [[1, T.string()], [2, T.string()]], { distinct: true })));
    expect(h.push([['+I', ['k', 'a;', 'b']], ['+I', ['k', 'a', ';b']], ['+I', ['k', 'a;', 'b']], ['+I', ['k', 'a', null]]])).toEqual([['+I', ['k', 2]]]);
  });

  it('FILTER lets only rows whose filter column is TRUE reach the aggregate, while every row keeps the group alive', async () => {
    const h = await open(
      byKey(COUNT_STAR, aggCall('COUNT', [], { filter: 2 }), aggCall('SUM', [[1, T.bigint()]], { filter: 2 }), aggCall('COUNT', [[1, T.bigint()]], { distinct: true, filter: 2 })),
    );
    expect(h.push([['+I', ['a', 1, true]], ['+I', ['a', 2, false]], ['+I', ['a', 3, null]], ['+I', ['a', 1, true]]])).toEqual([['+I', ['a', 4, 2, 2, 1]]]);
    expect(h.push([['-D', ['a', 1, true]], ['-D', ['a', 1, true]]])).toEqual([
      ['-U', ['a', 4, 2, 2, 1]],
      ['+U', ['a', 2, 0, null, 0]],
    ]);
  });

  describe('DECIMAL', () => {
    const decimal = T.decimal(10, 2);

    it('SUM is exact and AVG is DECIMAL(38, 6) rounded HALF_UP', async () => {
      const h = await open(byKey(aggCall('SUM', [[1, decimal]]), aggCall('AVG', [[1, decimal]])));
      // (0.10 + 0.20 + 0.01) / 3 = 0.103333…
      expect(h.push([['+I', ['a', 10n]], ['+I', ['a', 20n]], ['+I', ['a', 1n]]])).toEqual([['+I', ['a', 31n, 103333n]]]);
      expect(h.push([['-D', ['a', 1n]]])).toEqual([
        ['-U', ['a', 31n, 103333n]],
        ['+U', ['a', 30n, 150000n]],
      ]);
      // (0.02 - 0.01 + 0.00) / 3 = 0.003333…
      expect(h.push([['+I', ['b', 2n]], ['+I', ['b', -1n]], ['+I', ['b', 0n]]])).toEqual([['+I', ['b', 1n, 3333n]]]);
    });

    it('AVG rounds ties away from zero', async () => {
      const h = await open(byKey(aggCall('AVG', [[1, T.decimal(10, 6)]])));
      // (0.000001 + 0.000002) / 2 = 0.0000015 → 0.000002; negated → -0.000002
      expect(h.push([['+I', ['a', 1n]], ['+I', ['a', 2n]], ['+I', ['b', -1n]], ['+I', ['b', -2n]]])).toEqual([
        ['+I', ['a', 2n]],
        ['+I', ['b', -2n]],
      ]);
    });

    it('SUM beyond DECIMAL(38) is an overflow error', async () => {
      const h = await open(byKey(aggCall('SUM', [[1, T.decimal(38, 0)]])));
      const big = 10n ** 38n - 1n;
      expect(() => h.push([['+I', ['a', big]], ['+I', ['a', 1n]]])).toThrow(/SUM overflowed/);
    });
  });

  it('AVG over integers truncates toward zero', async () => {
    const h = await open(byKey(aggCall('AVG', [[1, T.int()]])));
    expect(h.push([['+I', ['a', 1]], ['+I', ['a', 2]], ['+I', ['b', -1]], ['+I', ['b', -2]], ['+I', ['c', -7]], ['+I', ['c', 3]], ['+I', ['c', 1]]])).toEqual([
      ['+I', ['a', 1]],
      ['+I', ['b', -1]],
      ['+I', ['c', -1]],
    ]);
  });

  it('AVG over DOUBLE divides', async () => {
    const h = await open(byKey(aggCall('AVG', [[1, T.double()]])));
    expect(h.push([['+I', ['a', 1]], ['+I', ['a', 2]]])).toEqual([['+I', ['a', 1.5]]]);
  });

  it('SUM(BIGINT) beyond the safe-integer range is exact (a bigint), wraps at 2^63 as Java’s long sum, and retracts back to a number', async () => {
    const h = await open(byKey(aggCall('SUM', [[1, T.bigint()]])));
    expect(h.push([['+I', ['a', Number.MAX_SAFE_INTEGER]], ['+I', ['a', 2]]])).toEqual([['+I', ['a', 9007199254740993n]]]);
    expect(h.push([['+I', ['a', 9223372036854775807n]]])).toEqual([['-U', ['a', 9007199254740993n]], ['+U', ['a', BigInt.asIntN(64, 9007199254740993n + 9223372036854775807n)]]]);
    expect(h.push([['-D', ['a', 9223372036854775807n]], ['-D', ['a', 2]]])).toEqual([['-U', ['a', BigInt.asIntN(64, 9007199254740993n + 9223372036854775807n)]], ['+U', ['a', Number.MAX_SAFE_INTEGER]]]);
  });

  it('keeps BIGINT keys, sums and MIN/MAX beyond 2^53 exactly through a state snapshot and restore', async () => {
    const spec = groupSpec([0], [COUNT_STAR, aggCall('SUM', [[1, T.bigint()]]), aggCall('MIN', [[1, T.bigint()]]), aggCall('MAX', [[1, T.bigint()]])]);
    const first = await OperatorHarness.open(new GroupAggregateOperator(spec));
    const big = 8821808526777993777n;
    first.push([['+I', [big, 9007199254740993n]], ['+I', [big, -9223372036854775808n]], ['+I', [9007199254740991, 2]], ['+I', [9007199254740992n, 9223372036854775807n]]]);
    const snapshot = first.state.snapshot()!;
    const second = await OperatorHarness.open(new GroupAggregateOperator(spec), { restore: { snapshot } });
    expect(second.push([['-D', [big, -9223372036854775808n]], ['+I', [9007199254740992n, 1]], ['+I', [9007199254740991, 3]]])).toEqual([
      ['-U', [big, 2, BigInt.asIntN(64, 9007199254740993n - 9223372036854775808n), -9223372036854775808n, 9007199254740993n]],
      ['+U', [big, 1, 9007199254740993n, 9007199254740993n, 9007199254740993n]],
      ['-U', [9007199254740992n, 1, 9223372036854775807n, 9223372036854775807n, 9223372036854775807n]],
      ['+U', [9007199254740992n, 2, -9223372036854775808n, 1, 9223372036854775807n]],
      ['-U', [9007199254740991, 1, 2, 2, 2]],
      ['+U', [9007199254740991, 2, 5, 2, 3]],
    ]);
  });

  it('SUM(INT) beyond the INT range wraps around as Flink’s Java sum does, and retracts back', async () => {
    const h = await open(byKey(aggCall('SUM', [[1, T.int()]])));
    expect(h.push([['+I', ['a', 2147483647]], ['+I', ['a', 1]]])).toEqual([['+I', ['a', -2147483648]]]);
    expect(h.push([['-D', ['a', 1]]])).toEqual([
      ['-U', ['a', -2147483648]],
      ['+U', ['a', 2147483647]],
    ]);
  });

  it('groups by composite keys with NULL components and strings that contain separators', async () => {
    const h = await open(groupSpec([0, 1], [COUNT_STAR]));
    const rows: [unknown, unknown][] = [
      ['a', null],
      ['a', 'null'],
      [null, 'a'],
      ['s1:a', ''],
      ['s', '1:a'],
      ['a;', 'b'],
      ['a', ';b'],
      ['a', null],
    ];
    expect(h.push(rows.map((r): Change => ['+I', r]))).toEqual([
      ['+I', ['a', null, 2]],
      ['+I', ['a', 'null', 1]],
      ['+I', [null, 'a', 1]],
      ['+I', ['s1:a', '', 1]],
      ['+I', ['s', '1:a', 1]],
      ['+I', ['a;', 'b', 1]],
      ['+I', ['a', ';b', 1]],
    ]);
    expect(h.push([['-D', ['a', null]]])).toEqual([
      ['-U', ['a', null, 2]],
      ['+U', ['a', null, 1]],
    ]);
  });

  it('a global aggregate (no keys) is one row, inserted by its first rows, updated in place, back to the empty row when its rows go', async () => {
    const h = await open(groupSpec([], [COUNT_STAR, aggCall('MAX', [[0, T.string()]])]));
    expect(h.output).toEqual([]);
    expect(h.push([['+I', ['w']], ['-D', ['w']]])).toEqual([]);
    expect(h.push([['+I', ['x']], ['+I', ['y']]])).toEqual([['+I', [2, 'y']]]);
    expect(h.push([['-D', ['y']]])).toEqual([['-U', [2, 'y']], ['+U', [1, 'x']]]);
    expect(h.push([['-D', ['x']]])).toEqual([['-U', [1, 'x']], ['+U', [0, null]]]);
    expect(h.push([['+I', ['z']], ['-D', ['z']]])).toEqual([]);
    expect(h.state.keyCount()).toBe(0);
  });

  it('a global aggregate that received no row emits its empty row before the first barrier, or when its input ends, once', async () => {
    for (const end of ['barrier', 'input'] as const) {
      const h = await open(groupSpec([], [COUNT_STAR, aggCall('SUM', [[0, T.int()]])]));
      expect(h.output).toEqual([]);
      if (end === 'barrier') h.operator.snapshotState?.(1);
      else expect(await h.endInput()).toEqual([['+I', [0, null]]]);
      expect(h.output).toEqual([['+I', [0, null]]]);
      h.operator.snapshotState?.(2);
      expect(h.push([['+I', [5]]])).toEqual([['-U', [0, null]], ['+U', [1, 5]]]);
      expect(h.output).toHaveLength(3);
    }
    // Only the first subtask has the row.
    const other = await open(groupSpec([], [COUNT_STAR]), { subtask: 1, parallelism: 2 });
    other.operator.snapshotState?.(1);
    expect(await other.endInput()).toEqual([]);
  });

  it('a restored global aggregate does not emit its row again', async () => {
    const operator = new GroupAggregateOperator(groupSpec([], [COUNT_STAR]));
    operator.initializeState({ isRestored: () => true, restoredCheckpointId: 1, operatorState: [] });
    const h = await OperatorHarness.open(operator);
    expect(h.output).toEqual([]);
    expect(h.push([['+I', ['x']]])).toEqual([['-U', [0]], ['+U', [1]]]);
  });

  it('an aggregate over an aggregate changelog equals the direct batch answer', async () => {
    // SELECT cnt, COUNT(*), SUM(total), MAX(total) FROM (SELECT user, COUNT(*) cnt, SUM(amount) total FROM t GROUP BY user) GROUP BY cnt
    const first = await open(groupSpec([0], [COUNT_STAR, aggCall('SUM', [[2, T.bigint()]])]));
    const second = await open(groupSpec([1], [COUNT_STAR, aggCall('SUM', [[2, T.bigint()]]), aggCall('MAX', [[2, T.bigint()]])]));
    const random = lcg(7);
    const present: [string, string, number][] = [];
    for (let b = 0; b < 200; b++) {
      const batch: Change[] = [];
      for (let i = 0, size = 1 + (random() % 20); i < size; i++) {
        if (present.length > 0 && random() % 3 === 0) {
          batch.push(['-D', present.splice(random() % present.length, 1)[0]!]);
        } else {
          const row: [string, string, number] = [`u${random() % 15}`, `r${random() % 3}`, random() % 100];
          present.push(row);
          batch.push(['+I', row]);
        }
      }
      second.push(first.push(batch));
    }
    const perUser = new Map<string, { cnt: number; total: number }>();
    for (const [user, , amount] of present) {
      const entry = perUser.get(user) ?? { cnt: 0, total: 0 };
      entry.cnt++;
      entry.total += amount;
      perUser.set(user, entry);
    }
    const perCount = new Map<number, { n: number; sum: number; max: number }>();
    for (const { cnt, total } of perUser.values()) {
      const entry = perCount.get(cnt) ?? { n: 0, sum: 0, max: -Infinity };
      perCount.set(cnt, { n: entry.n + 1, sum: entry.sum + total, max: Math.max(entry.max, total) });
    }
    const expected = [...perCount].map(([cnt, { n, sum, max }]): Change => ['+I', [cnt, n, sum, max]]);
    expect(materialize(second.output)).toEqual(materialize(expected));
    expect(second.warnings).toEqual([]);
  });

  it('keeps state as plain data that survives v8 serialization and resumes from it', async () => {
    const spec = byKey(COUNT_STAR, aggCall('MIN', [[1, T.bigint()]]), aggCall('COUNT', [[1, T.bigint()]], { distinct: true }), aggCall('SUM', [[2, T.decimal(5, 1)]]));
    const h = await open(spec);
    h.push([['+I', ['a', 3, 10n]], ['+I', ['a', 1, 5n]], ['+I', ['b', 2, null]]]);
    const entries = [...h.state.entriesOf<unknown[]>({ name: GROUP_ACCUMULATOR_STATE })];
    expect(entries.map(([key]) => key).sort()).toEqual(['a', 'b']);
    const restored = deserialize(serialize(entries)) as [string, unknown[]][];

    const resumed = await open(spec);
    const accumulators = resumed.state.getValueState<unknown[]>({ name: GROUP_ACCUMULATOR_STATE });
    for (const [key, acc] of restored) {
      resumed.state.setCurrentKey(key);
      accumulators.update(acc);
    }
    const next: Change[] = [['-D', ['a', 1, 5n]], ['+I', ['b', 2, 1n]]];
    expect(resumed.push(next)).toEqual(h.push(next));
    expect(resumed.push([['-D', ['a', 3, 10n]]])).toEqual([['-D', ['a', 1, 3, 1, 10n]]]);
  });

  it('rejects unsupported aggregate calls when it is constructed', () => {
    expect(() => new GroupAggregateOperator(byKey({ ...COUNT_STAR, function: 'MEDIAN' }))).toThrow(/MEDIAN is not supported/);
    expect(() => new GroupAggregateOperator(byKey({ ...aggCall('SUM', [[1, T.int()]]), argTypes: [T.string()] }))).toThrow(WeirError);
    expect(() => new GroupAggregateOperator(byKey({ ...aggCall('MIN', [[1, T.int()]]), argTypes: [T.array(T.int())] }))).toThrow(/MIN\(ARRAY<INT>\)/);
  });
});

/** A deterministic pseudo-random sequence of non-negative integers. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state >>> 4;
  };
}
