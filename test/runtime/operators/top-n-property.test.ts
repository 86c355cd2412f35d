/**
 * Property: for random changelogs — inserts, updates and deletes, NULL sort keys and NULL
 * partitions, exact duplicate rows — cut into random batches, a Top-N with a random rank range
 * (an OFFSET), random order keys with random directions and null orders, ROW_NUMBER, RANK or
 * DENSE_RANK, with or without its number, over an insert-only or an updating input, run at
 * parallelism 1 to 3 (each subtask its own operator, rows routed to it by key group as the
 * runtime routes them), gives an output changelog that materializes to what a plain model
 * computes in batch from the final input: sort each partition's live rows with the same null
 * order (ties in arrival order), number them, take the range; and applied by each key the planner
 * gives the output, as an upsert sink applies it (update-before dropped), it gives the same rows.
 *
 * The operators are built by the runtime's operator factory from a job-graph node, so the choice
 * between the append-only and the retractable Top-N is the one a job makes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyGroupOf, keySelector, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { OrderKey } from '../../../src/common/order-key.js';
import type { Row } from '../../../src/common/row.js';
import type { JobNode, RankSpec } from '../../../src/dataflow/job-graph.js';
import { ExprCompiler } from '../../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { createOperator, type ConnectorResolver } from '../../../src/runtime/operator-factory.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

const MAX_PARALLELISM = 128;

/** Rows are [partition, a, b, id]: partition 0, 1 or NULL; a in 0..3 or NULL; b in 0..2 or NULL. */
type RankType = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';

interface Shape {
  readonly rankType: RankType;
  readonly insertOnly: boolean;
  readonly numbered: boolean;
  readonly partitioned: boolean;
  readonly orderKeys: readonly OrderKey[];
  readonly start: number;
  readonly end: number;
  readonly parallelism: number;
}

const orderKeyArb: fc.Arbitrary<OrderKey> = fc
  .record({ index: fc.constantFrom(1, 2), descending: fc.boolean(), nulls: fc.constantFrom<boolean | undefined>(undefined, true, false) })
  .map(({ index, descending, nulls }) => (nulls === undefined ? { index, descending } : { index, descending, nullsFirst: nulls }));

const shapeArb = (insertOnly: boolean): fc.Arbitrary<Shape> =>
  fc
    .record({
      rankType: fc.constantFrom<RankType>('ROW_NUMBER', 'RANK', 'DENSE_RANK'),
      numbered: fc.boolean(),
      partitioned: fc.boolean(),
      orderKeys: fc.array(orderKeyArb, { minLength: 0, maxLength: 2 }),
      start: fc.integer({ min: 1, max: 4 }),
      length: fc.integer({ min: 0, max: 4 }),
      parallelism: fc.integer({ min: 1, max: 3 }),
    })
    // Without order keys only ROW_NUMBER is meaningful (Flink's Limit); RANK would tie every row.
    .map(({ length, ...s }) => ({ ...s, rankType: s.orderKeys.length === 0 ? 'ROW_NUMBER' : s.rankType, insertOnly, end: s.start + length - 1 }));

interface Step {
  readonly op: 'insert' | 'duplicate' | 'delete' | 'update';
  readonly partition: number | null;
  readonly a: number | null;
  readonly b: number | null;
  readonly pick: number;
  readonly batchEnd: boolean;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom('insert', 'insert', 'duplicate', 'delete', 'update'),
  partition: fc.option(fc.integer({ min: 0, max: 1 }), { freq: 5 }),
  a: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 4 }),
  b: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 4 }),
  pick: fc.nat(),
  batchEnd: fc.boolean(),
});

/** Plays steps as a changelog; `live` holds the rows present at the end, in the order they (last) arrived. */
function changelog(steps: readonly Step[], insertOnly: boolean): { batches: Change[][]; live: Row[]; duplicated: boolean } {
  const live: Row[] = [];
  const batches: Change[][] = [[]];
  let id = 0;
  let duplicated = false;
  for (const s of steps) {
    const batch = batches[batches.length - 1]!;
    const op = live.length === 0 ? 'insert' : insertOnly && (s.op === 'delete' || s.op === 'update') ? 'insert' : s.op;
    if (op === 'insert' || op === 'duplicate') {
      const row = op === 'duplicate' ? [...live[s.pick % live.length]!] : [s.partition, s.a, s.b, id++];
      if (op === 'duplicate') duplicated = true;
      live.push(row);
      batch.push(['+I', row]);
    } else {
      // Copies of a row are indistinguishable: retracting one removes the earliest, as the operators do.
      const target = live[s.pick % live.length]!;
      const [old] = live.splice(live.findIndex((r) => r.every((v, i) => v === target[i])), 1);
      batch.push([op === 'delete' ? '-D' : '-U', old!]);
      if (op === 'update') {
        const row = [old![0], s.a, s.b, id++];
        live.push(row);
        batch.push(['+U', row]);
      }
    }
    if (s.batchEnd) batches.push([]);
  }
  return { batches, live, duplicated };
}

/**
 * The keys the planner gives a Top-N's output (upsert-keys.ts), as functions of a row: the input's
 * (the id, unique while no row is duplicated); under ROW_NUMBER the partition and the number, and
 * the partition alone when the range is one number.
 */
function outputKeys(shape: Shape, duplicated: boolean): ((row: Row) => string)[] {
  const keys: ((row: Row) => string)[] = [];
  if (!duplicated) keys.push((row) => String(row[3]));
  if (shape.rankType === 'ROW_NUMBER' && shape.numbered) keys.push((row) => `${String(shape.partitioned ? row[0] : '')}/${String(row[4])}`);
  if (shape.rankType === 'ROW_NUMBER' && shape.start === shape.end) keys.push((row) => String(shape.partitioned ? row[0] : ''));
  return keys;
}

/** The rows left after applying `changes` by `key` as an upsert sink does: -U ignored, -D deletes the key, +I and +U write it. */
function upsertByKey(changes: readonly Change[], key: (row: Row) => string): Row[] {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    if (kind === '-D') table.delete(key(row));
    else if (kind === '+I' || kind === '+U') table.set(key(row), row);
  }
  return [...table.values()];
}

/** The model's comparison of two rows: each key's values, NULL placed by its null order (default: first ascending, last descending). */
function compare(x: Row, y: Row, keys: readonly OrderKey[]): number {
  for (const key of keys) {
    const a = x[key.index] as number | null;
    const b = y[key.index] as number | null;
    const nullsFirst = key.nullsFirst ?? !key.descending;
    if (a === null && b === null) continue;
    if (a === null) return nullsFirst ? -1 : 1;
    if (b === null) return nullsFirst ? 1 : -1;
    if (a !== b) return key.descending ? b - a : a - b;
  }
  return 0;
}

/** The batch Top-N of the live rows: per partition, sorted stably, numbered, kept within the range. */
function model(live: readonly Row[], shape: Shape): Row[] {
  const partitions = new Map<unknown, Row[]>();
  for (const row of live) {
    const key = shape.partitioned ? row[0] : 'all';
    partitions.set(key, [...(partitions.get(key) ?? []), row]);
  }
  const out: Row[] = [];
  for (const rows of partitions.values()) {
    const sorted = [...rows].sort((x, y) => compare(x, y, shape.orderKeys));
    let number = 0;
    sorted.forEach((row, i) => {
      const tie = i > 0 && compare(sorted[i - 1]!, row, shape.orderKeys) === 0;
      if (shape.rankType === 'ROW_NUMBER') number = i + 1;
      else if (!tie) number = shape.rankType === 'RANK' ? i + 1 : number + 1;
      if (number >= shape.start && number <= shape.end) out.push(shape.numbered ? [...row, number] : row);
    });
  }
  return out;
}

/** The rank node a job would run for the shape. */
function rankNode(shape: Shape): JobNode {
  const spec: RankSpec = {
    kind: 'rank',
    partitionKeys: shape.partitioned ? [0] : [],
    orderKeys: shape.orderKeys,
    limit: shape.end,
    ...(shape.start === 1 ? {} : { rankStart: shape.start }),
    ...(shape.numbered ? {} : { outputRankNumber: false }),
    ...(shape.rankType === 'ROW_NUMBER' ? {} : { rankType: shape.rankType }),
    ...(shape.insertOnly ? {} : { inputRetracts: true }),
  };
  return { id: 'rank', spec, parallelism: shape.parallelism, inputs: [], schema: [] };
}

const compiler = new ExprCompiler(FunctionRegistry.withBuiltins());
const noConnectors: ConnectorResolver = {
  source: () => {
    throw new Error('a rank reads no source');
  },
  sink: () => {
    throw new Error('a rank writes no sink');
  },
  lookup: () => {
    throw new Error('a rank looks nothing up');
  },
};

/**
 * Runs the batches through `parallelism` subtasks, each batch split by the subtask owning each
 * row's partition key (a global Top-N runs in one subtask, as its single exchange makes it); the
 * subtasks' outputs together.
 */
async function run(shape: Shape, batches: readonly Change[][]): Promise<{ output: Change[]; warnings: string[] }> {
  const node = rankNode(shape);
  const parallelism = shape.partitioned ? shape.parallelism : 1;
  const subtasks = await Promise.all(
    Array.from({ length: parallelism }, (_, subtask) => OperatorHarness.open(createOperator(node, compiler, noConnectors), { subtask, parallelism, maxParallelism: MAX_PARALLELISM })),
  );
  const partitionOf = keySelector(shape.partitioned ? [0] : []);
  for (const batch of batches) {
    const routed: Change[][] = subtasks.map(() => []);
    for (const change of batch) routed[subtaskOfKeyGroup(keyGroupOf(partitionOf(change[1]), MAX_PARALLELISM), parallelism, MAX_PARALLELISM)]!.push(change);
    routed.forEach((changes, subtask) => changes.length > 0 && subtasks[subtask]!.push(changes));
  }
  return { output: subtasks.flatMap((h) => h.output), warnings: subtasks.flatMap((h) => h.warnings) };
}

describe('Top-N (property)', () => {
  for (const insertOnly of [true, false]) {
    it(`over ${insertOnly ? 'an insert-only' : 'an updating'} input, any range, null order and parallelism: the output materializes to the batch Top-N`, async () => {
      await fc.assert(
        fc.asyncProperty(shapeArb(insertOnly), fc.array(stepArb, { maxLength: 50 }), async (shape, steps) => {
          const { batches, live, duplicated } = changelog(steps, insertOnly);
          const { output, warnings } = await run(shape, batches);
          const expected = materialize(model(live, shape).map((row) => ['+I', row] as Change));
          expect(materialize(output)).toEqual(expected);
          // Applied by any key of the output as an upsert sink applies it (update-before dropped).
          for (const key of outputKeys(shape, duplicated)) expect(materialize(upsertByKey(output, key).map((row) => ['+I', row] as Change))).toEqual(expected);
          expect(warnings).toEqual([]);
        }),
        { numRuns: 400 },
      );
    });
  }

  it('routes rows of different partitions to different subtasks at parallelism 3 (the property exercises them)', () => {
    const partitionOf = keySelector([0]);
    const owners = new Set([0, 1, null].map((p) => subtaskOfKeyGroup(keyGroupOf(partitionOf([p, 0, 0, 0]), MAX_PARALLELISM), 3, MAX_PARALLELISM)));
    expect(owners.size).toBeGreaterThan(1);
  });
});
