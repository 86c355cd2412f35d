/**
 * The retractable Top-N operator (ROW_NUMBER, RANK, DENSE_RANK): ties, a retraction that pulls a
 * row from beyond the limit into it, and (property) for random insert/update/delete changelogs
 * cut into random batches, the output applied as a changelog equals a batch Top-N of the live
 * input rows computed independently here. State survives a snapshot and a restore.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import type { RankSpec } from '../../../src/dataflow/job-graph.js';
import { RetractableRankOperator } from '../../../src/runtime/operators/retractable-rank-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

/** Rows are [partition, score, id]; ordered by score descending. */
const spec = (overrides: Partial<RankSpec> = {}): RankSpec => ({
  kind: 'rank',
  partitionKeys: [0],
  orderKeys: [{ index: 1, descending: true }],
  limit: 2,
  inputRetracts: true,
  ...overrides,
});

type RankType = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';

/** The batch Top-N: live rows (in arrival order) numbered per partition by descending score. */
function batchTopN(live: readonly Row[], rankType: RankType, limit: number): Row[] {
  const partitions = new Map<unknown, Row[]>();
  for (const row of live) partitions.set(row[0], [...(partitions.get(row[0]) ?? []), row]);
  const out: Row[] = [];
  for (const rows of partitions.values()) {
    const sorted = rows.map((row, arrival) => ({ row, arrival })).sort((a, b) => (b.row[1] as number) - (a.row[1] as number) || a.arrival - b.arrival);
    sorted.forEach(({ row }, i) => {
      const better = sorted.filter((s) => (s.row[1] as number) > (row[1] as number));
      const number = rankType === 'ROW_NUMBER' ? i + 1 : rankType === 'RANK' ? better.length + 1 : new Set(better.map((s) => s.row[1])).size + 1;
      if (number <= limit) out.push([...row, number]);
    });
  }
  return out;
}

describe('retractable rank operator', () => {
  it('RANK gives ties one number and skips after them; DENSE_RANK does not skip', async () => {
    const rank = await OperatorHarness.open(new RetractableRankOperator(spec({ rankType: 'RANK', limit: 2, inputRetracts: false })));
    rank.push([['+I', ['a', 5, 1]], ['+I', ['a', 5, 2]], ['+I', ['a', 3, 3]]]);
    expect(materialize(rank.output)).toEqual(materialize([['+I', ['a', 5, 1, 1]], ['+I', ['a', 5, 2, 1]]]));
    const dense = await OperatorHarness.open(new RetractableRankOperator(spec({ rankType: 'DENSE_RANK', limit: 2, inputRetracts: false })));
    dense.push([['+I', ['a', 5, 1]], ['+I', ['a', 5, 2]], ['+I', ['a', 3, 3]], ['+I', ['a', 1, 4]]]);
    expect(materialize(dense.output)).toEqual(materialize([['+I', ['a', 5, 1, 1]], ['+I', ['a', 5, 2, 1]], ['+I', ['a', 3, 3, 2]]]));
  });

  it('a retraction pulls the next row from beyond the limit into the top', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec()));
    h.push([['+I', ['a', 9, 1]], ['+I', ['a', 8, 2]], ['+I', ['a', 7, 3]]]);
    expect(h.push([['-D', ['a', 9, 1]]])).toEqual([
      ['-D', ['a', 9, 1, 1]],
      ['-D', ['a', 8, 2, 2]],
      ['+I', ['a', 8, 2, 1]],
      ['+I', ['a', 7, 3, 2]],
    ]);
    expect(materialize(h.output)).toEqual([['a', 7, 3, 2], ['a', 8, 2, 1]]);
  });

  it('keeps its partitions across a snapshot and restore', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec({ limit: 1 })));
    h.push([['+I', ['a', 9, 1]], ['+I', ['a', 8, 2]]]);
    const restored = await OperatorHarness.open(new RetractableRankOperator(spec({ limit: 1 })), { restore: { snapshot: h.state.snapshot()! } });
    expect(restored.push([['-D', ['a', 9, 1]]])).toEqual([['-D', ['a', 9, 1, 1]], ['+I', ['a', 8, 2, 1]]]);
  });

  it('orders NULL scores last descending (the default) and pulls a NULL into the top when a better row goes', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec()));
    h.push([['+I', ['a', null, 1]], ['+I', ['a', 9, 2]], ['+I', ['a', 8, 3]]]);
    expect(materialize(h.output)).toEqual(materialize([['+I', ['a', 9, 2, 1]], ['+I', ['a', 8, 3, 2]]]));
    expect(h.push([['-D', ['a', 9, 2]]])).toEqual([
      ['-D', ['a', 9, 2, 1]],
      ['-D', ['a', 8, 3, 2]],
      ['+I', ['a', 8, 3, 1]],
      ['+I', ['a', null, 1, 2]],
    ]);
    expect(h.push([['-U', ['a', null, 1]], ['+U', ['a', null, 4]]])).toEqual([
      ['-D', ['a', null, 1, 2]],
      ['+I', ['a', null, 4, 2]],
    ]);
  });

  it('orders NULL scores first with NULLS FIRST, ascending or descending', async () => {
    for (const descending of [false, true]) {
      const h = await OperatorHarness.open(new RetractableRankOperator(spec({ orderKeys: [{ index: 1, descending, nullsFirst: true }], limit: 1 })));
      h.push([['+I', ['a', 1, 1]], ['+I', ['a', null, 2]], ['+I', ['a', 5, 3]]]);
      expect(materialize(h.output)).toEqual([['a', null, 2, 1]]);
      h.push([['-D', ['a', null, 2]]]);
      expect(materialize(h.output)).toEqual([['a', descending ? 5 : 1, descending ? 3 : 1, 1]]);
    }
  });

  it('a range (rn > 1 AND rn <= 3) emits only rows 2 and 3; a retraction pulls row 4 in', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec({ rankStart: 2, limit: 3 })));
    h.push([['+I', ['a', 9, 1]], ['+I', ['a', 8, 2]], ['+I', ['a', 7, 3]], ['+I', ['a', 6, 4]]]);
    expect(materialize(h.output)).toEqual(materialize([['+I', ['a', 8, 2, 2]], ['+I', ['a', 7, 3, 3]]]));
    expect(h.push([['-D', ['a', 8, 2]]])).toEqual([
      ['-D', ['a', 8, 2, 2]],
      ['-D', ['a', 7, 3, 3]],
      ['+I', ['a', 7, 3, 2]],
      ['+I', ['a', 6, 4, 3]],
    ]);
    expect(h.push([['-D', ['a', 9, 1]]])).toEqual([
      ['-D', ['a', 7, 3, 2]],
      ['-D', ['a', 6, 4, 3]],
      ['+I', ['a', 6, 4, 2]],
    ]);
  });

  it('RANK renumbers a row as an update of it, after deleting the row that left: the changes apply by the input key', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec({ rankType: 'RANK', limit: 2 })));
    h.push([['+I', ['b', 5, 4]], ['+I', ['b', 50, 5]]]);
    expect(h.push([['-D', ['b', 50, 5]]])).toEqual([
      ['-D', ['b', 50, 5, 1]],
      ['-U', ['b', 5, 4, 2]],
      ['+U', ['b', 5, 4, 1]],
    ]);
    expect(h.push([['+I', ['b', 5, 8]]])).toEqual([['+I', ['b', 5, 8, 1]]]);
  });

  it('RANK and DENSE_RANK ranges count ties as SQL does: rank = 3 is the rows after two better ones', async () => {
    const ties: Change[] = [['+I', ['a', 9, 1]], ['+I', ['a', 9, 2]], ['+I', ['a', 8, 3]], ['+I', ['a', 8, 4]], ['+I', ['a', 7, 5]]];
    const rank = await OperatorHarness.open(new RetractableRankOperator(spec({ rankType: 'RANK', rankStart: 3, limit: 3 })));
    rank.push(ties);
    expect(materialize(rank.output)).toEqual(materialize([['+I', ['a', 8, 3, 3]], ['+I', ['a', 8, 4, 3]]]));
    const dense = await OperatorHarness.open(new RetractableRankOperator(spec({ rankType: 'DENSE_RANK', rankStart: 2, limit: 3 })));
    dense.push(ties);
    expect(materialize(dense.output)).toEqual(materialize([['+I', ['a', 8, 3, 2]], ['+I', ['a', 8, 4, 2]], ['+I', ['a', 7, 5, 3]]]));
    // One of the best goes: RANK renumbers the 8s to 2, out of the range; DENSE_RANK keeps them at 2.
    rank.push([['-D', ['a', 9, 1]]]);
    expect(materialize(rank.output)).toEqual([]);
    dense.push([['-D', ['a', 9, 2]]]);
    expect(materialize(dense.output)).toEqual(materialize([['+I', ['a', 8, 3, 2]], ['+I', ['a', 8, 4, 2]], ['+I', ['a', 7, 5, 3]]]));
  });

  it('without the number, a row that moves within the range emits nothing; rows entering and leaving emit +I and -D', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec({ limit: 2, outputRankNumber: false })));
    h.push([['+I', ['a', 5, 1]], ['+I', ['a', 4, 2]]]);
    expect(h.push([['-U', ['a', 4, 2]], ['+U', ['a', 6, 2]]])).toEqual([
      ['-D', ['a', 4, 2]],
      ['+I', ['a', 6, 2]],
    ]);
    expect(h.push([['+I', ['a', 1, 3]]])).toEqual([]);
    expect(h.push([['-D', ['a', 5, 1]]])).toEqual([
      ['-D', ['a', 5, 1]],
      ['+I', ['a', 1, 3]],
    ]);
    expect(materialize(h.output)).toEqual(materialize([['+I', ['a', 6, 2]], ['+I', ['a', 1, 3]]]));
  });

  it('ignores, with one warning, a retraction of a row it does not hold', async () => {
    const h = await OperatorHarness.open(new RetractableRankOperator(spec()));
    expect(h.push([['-D', ['a', 1, 1]], ['-U', ['b', 1, 1]]])).toEqual([]);
    expect(h.warnings).toHaveLength(1);
  });
});

interface Step {
  readonly op: 'insert' | 'delete' | 'update';
  readonly partition: number;
  readonly score: number;
  readonly pick: number;
  readonly batchEnd: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom('insert', 'insert', 'delete', 'update'),
  partition: fc.integer({ min: 0, max: 1 }),
  score: fc.integer({ min: 0, max: 4 }),
  pick: fc.nat(),
  batchEnd: fc.boolean(),
});

/** Plays steps as a changelog of [partition, score, id] rows: deletes and updates pick a live row. */
function changelog(steps: readonly Step[], insertOnly: boolean): { batches: Change[][]; live: Row[] } {
  const live: Row[] = [];
  const batches: Change[][] = [[]];
  let id = 0;
  for (const s of steps) {
    const batch = batches[batches.length - 1]!;
    const op = insertOnly || live.length === 0 ? 'insert' : s.op;
    if (op === 'insert') {
      const row = [s.partition, s.score, id++];
      live.push(row);
      batch.push(['+I', row]);
    } else {
      const [old] = live.splice(s.pick % live.length, 1);
      batch.push([op === 'delete' ? '-D' : '-U', old!]);
      if (op === 'update') {
        const row = [old![0], s.score, id++];
        live.push(row);
        batch.push(['+U', row]);
      }
    }
    if (s.batchEnd) batches.push([]);
  }
  return { batches, live };
}

/** The rows left after applying `changes` by `key` as an upsert sink does: -U ignored, -D deletes the key, +I and +U write it. */
function upsertByKey(changes: Iterable<Change>, key: (row: Row) => string): Row[] {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    if (kind === '-D') table.delete(key(row));
    else if (kind === '+I' || kind === '+U') table.set(key(row), row);
  }
  return [...table.values()];
}

function sortRows(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

describe('retractable rank operator (property)', () => {
  for (const rankType of ['ROW_NUMBER', 'RANK', 'DENSE_RANK'] as const) {
    for (const insertOnly of [false, true]) {
      it(`${rankType} over ${insertOnly ? 'an insert-only' : 'an updating'} input: the output changelog materializes to the batch Top-N`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), async (steps, limit) => {
            const operatorSpec = spec({ limit, inputRetracts: !insertOnly, ...(rankType === 'ROW_NUMBER' ? {} : { rankType }) });
            const h = await OperatorHarness.open(new RetractableRankOperator(operatorSpec));
            const { batches, live } = changelog(steps, insertOnly);
            for (const batch of batches) h.push(batch);
            const expected = batchTopN(live, rankType, limit);
            expect(materialize(h.output)).toEqual(materialize(expected.map((row) => ['+I', row] as Change)));
            // Applied as an upsert sink applies them (update-before dropped), by every key the planner
            // gives the output: the id, and under ROW_NUMBER the partition and the number.
            const keys: ((row: Row) => string)[] = [(row) => String(row[2])];
            if (rankType === 'ROW_NUMBER') keys.push((row) => `${String(row[0])}/${String(row[3])}`);
            for (const key of keys) expect(sortRows(upsertByKey(h.output, key))).toEqual(sortRows(expected));
            expect(h.warnings).toEqual([]);
          }),
          { numRuns: 150 },
        );
      });
    }
  }
});
