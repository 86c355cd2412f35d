/**
 * Random two-input changelogs for the property tests of joins: steps insert, delete or update a
 * row `[key, key2, value]` on either input, and are cut into batches of one input each. A delete
 * or update retracts a row that is present (a random one of its input); an optional `ghost` step
 * retracts a row that was never inserted (value {@link GHOST}), which a join must ignore.
 */
import fc from 'fast-check';
import type { Row } from '../../../src/common/row.js';
import type { Change } from '../operator-harness.js';

/** The value of a ghost row: a retraction of something never inserted. */
export const GHOST = 'never inserted';

/** One random step of a two-input changelog. */
export interface TwoInputStep {
  readonly side: 0 | 1;
  readonly op: 'insert' | 'delete' | 'update' | 'ghost';
  readonly key: number | null;
  readonly key2: number;
  readonly value: unknown;
  readonly pick: number;
  readonly batchEnd: boolean;
}

/** What the steps draw from: the ops (repeat one to weigh it), the largest key (NULL keys are rare), and the values. */
export interface TwoInputShape {
  readonly ops: readonly TwoInputStep['op'][];
  readonly maxKey: number;
  readonly values: fc.Arbitrary<unknown>;
}

/** Steps of the given shape. */
export function twoInputStep(shape: TwoInputShape): fc.Arbitrary<TwoInputStep> {
  return fc.record({
    side: fc.constantFrom(0 as const, 1 as const),
    op: fc.constantFrom(...shape.ops),
    key: fc.option(fc.integer({ min: 0, max: shape.maxKey }), { freq: 8 }),
    key2: fc.integer({ min: 0, max: 1 }),
    value: shape.values,
    pick: fc.nat(),
    batchEnd: fc.boolean(),
  });
}

/** The steps as batches of changes, each batch of one input; the first step on an empty input inserts. */
export function twoInputBatches(steps: readonly TwoInputStep[]): { side: 0 | 1; changes: Change[] }[] {
  const present: [Row[], Row[]] = [[], []];
  const batches: { side: 0 | 1; changes: Change[] }[] = [];
  let current: { side: 0 | 1; changes: Change[] } | undefined;
  for (const s of steps) {
    if (current === undefined || current.side !== s.side) batches.push((current = { side: s.side, changes: [] }));
    const rows = present[s.side];
    const fresh: Row = [s.key, s.key2, s.value];
    if (s.op === 'insert' || rows.length === 0) {
      rows.push(fresh);
      current.changes.push(['+I', fresh]);
    } else if (s.op === 'ghost') {
      current.changes.push(['-D', [s.key, s.key2, GHOST]]);
    } else {
      const [old] = rows.splice(s.pick % rows.length, 1);
      if (s.op === 'delete') current.changes.push(['-D', old!]);
      else {
        rows.push(fresh);
        current.changes.push(['-U', old!], ['+U', fresh]);
      }
    }
    if (s.batchEnd) current = undefined;
  }
  return batches;
}
