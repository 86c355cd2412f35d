/**
 * The dynamic filter operator: rows enter and leave as the bound moves, NULL and NaN values and a
 * NULL or missing bound pass nothing, duplicates and retractions, state restored from a snapshot,
 * and a bound change visiting only the values between the old and the new bound.
 * Property: for random changelogs of rows (inserts, updates, deletes, duplicates, NULLs) and of the
 * one bound row (moving up and down, NULL, retracted), cut into random batches of one input each
 * and with a restore at a random point, the output applied as a changelog is valid and after every
 * batch equals the rows whose value compares with the bound — for each of `<`, `<=`, `>`, `>=`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Key } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import type { DynamicFilterSpec } from '../../../src/dataflow/job-graph.js';
import { DynamicFilterOperator } from '../../../src/runtime/operators/dynamic-filter-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

const spec = (comparison: DynamicFilterSpec['comparison']): DynamicFilterSpec => ({ kind: 'dynamic-filter', inputIndex: 1, comparison });

const open = (filter: DynamicFilterSpec, restore?: Uint8Array): Promise<OperatorHarness> =>
  OperatorHarness.open(new DynamicFilterOperator(filter), restore === undefined ? {} : { restore: { snapshot: restore } });

describe('dynamic filter operator', () => {
  it('emits the rows above the bound, and as the bound moves only those it passes over', async () => {
    const h = await open(spec('>'));
    expect(h.push([['+I', ['a', 5]], ['+I', ['b', 10]], ['+I', ['c', 15]], ['+I', ['c', 15]]], 0)).toEqual([]);
    expect(h.push([['+I', [7]]], 1)).toEqual([
      ['+I', ['b', 10]],
      ['+I', ['c', 15]],
      ['+I', ['c', 15]],
    ]);
    expect(h.push([['-U', [7]], ['+U', [12]]], 1)).toEqual([['-D', ['b', 10]]]);
    expect(h.push([['-U', [12]], ['+U', [10]]], 1)).toEqual([]);
    expect(h.push([['-U', [10]], ['+U', [1]]], 1)).toEqual([
      ['+I', ['a', 5]],
      ['+I', ['b', 10]],
    ]);
    expect(h.push([['+I', ['d', 0]], ['-U', ['c', 15]], ['+U', ['c', 2]]], 0)).toEqual([
      ['-D', ['c', 15]],
      ['+I', ['c', 2]],
    ]);
    expect(h.push([['-D', [1]]], 1)).toEqual([
      ['-D', ['c', 2]],
      ['-D', ['a', 5]],
      ['-D', ['b', 10]],
      ['-D', ['c', 15]],
    ]);
    expect(materialize(h.output)).toEqual([]);
    expect(h.warnings).toEqual([]);
  });

  it('passes nothing for a NULL or NaN value or a NULL bound, and ignores a retraction of a row never stored, with one warning', async () => {
    const h = await open(spec('<='));
    expect(h.push([['+I', ['a', null]], ['+I', ['b', Number.NaN]], ['+I', ['c', 3]]], 0)).toEqual([]);
    expect(h.push([['+I', [null]]], 1)).toEqual([]);
    expect(h.push([['+U', [Number.POSITIVE_INFINITY]]], 1)).toEqual([['+I', ['c', 3]]]);
    expect(h.push([['-D', ['a', null]], ['-D', ['x', 1]], ['-D', ['y', 2]]], 0)).toEqual([]);
    expect(h.warnings).toHaveLength(1);
    expect(h.push([['+U', [3]]], 1)).toEqual([]);
    expect(h.push([['+U', [2]]], 1)).toEqual([['-D', ['c', 3]]]);
  });

  it('compares strings, DECIMAL bigints and timestamps as the generated comparisons do', async () => {
    const strings = await open(spec('>='));
    strings.push([['+I', [1, 'apple']], ['+I', [2, 'pear']], ['+I', [3, 'Zebra']]], 0);
    expect(materialize(strings.push([['+I', ['b']]], 1))).toEqual([[2, 'pear']]);
    const decimals = await open(spec('<'));
    decimals.push([['+I', [1, 150n]], ['+I', [2, -20n]], ['+I', [3, 99999999999999999999n]]], 0);
    expect(materialize(decimals.push([['+I', [100n]]], 1))).toEqual([[2, -20n]]);
    expect(decimals.push([['+U', [10n ** 20n]]], 1)).toEqual([['+I', [1, 150n]], ['+I', [3, 99999999999999999999n]]]);
  });

  it('restores its rows and bound from a snapshot and goes on from them', async () => {
    const h = await open(spec('>'));
    h.push([['+I', ['a', 1]], ['+I', ['b', 2]], ['+I', ['c', 3]], ['+I', ['c', 3]]], 0);
    h.push([['+I', [1]]], 1);
    const restored = await open(spec('>'), h.state.snapshot());
    expect(restored.push([['-U', [1]], ['+U', [2]]], 1)).toEqual([['-D', ['b', 2]]]);
    expect(restored.push([['-D', ['c', 3]], ['+I', ['a', 0]]], 0)).toEqual([['-D', ['c', 3]]]);
    expect(restored.push([['+U', [-1]]], 1)).toEqual([['+I', ['a', 0]], ['+I', ['a', 1]], ['+I', ['b', 2]]]);
  });

  it('visits only the values between the old and the new bound when the bound moves', async () => {
    const h = await open(spec('>'));
    h.push(Array.from({ length: 10_000 }, (_, i): Change => ['+I', [i, i]]), 0);
    h.push([['+I', [5000]]], 1);
    let visited = 0;
    const setCurrentKey = h.state.setCurrentKey.bind(h.state);
    h.state.setCurrentKey = (key: Key): void => {
      visited++;
      setCurrentKey(key);
    };
    expect(h.push([['-U', [5000]], ['+U', [5010]]], 1)).toHaveLength(10);
    expect(visited).toBeLessThanOrEqual(12);
    visited = 0;
    expect(h.push([['-U', [5010]], ['+U', [4990]]], 1)).toHaveLength(20);
    expect(visited).toBeLessThanOrEqual(22);
  });
});

/** One random step: a row of input 0 inserted, deleted or updated, or the bound set, moved, set to NULL or retracted. */
interface Step {
  readonly op: 'insert' | 'delete' | 'update' | 'bound' | 'null-bound' | 'retract-bound';
  readonly name: number;
  readonly value: number | null;
  readonly pick: number;
  readonly batchEnd: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom('insert', 'insert', 'insert', 'delete', 'update', 'bound', 'bound', 'null-bound', 'retract-bound'),
  name: fc.integer({ min: 0, max: 2 }),
  value: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 6 }),
  pick: fc.nat(),
  batchEnd: fc.boolean(),
});

/** The steps as batches of one input each; an update of the bound is -U/+U, a first bound +I. */
function batches(steps: readonly Step[]): { input: 0 | 1; changes: Change[] }[] {
  const rows: Row[] = [];
  let bound: Row | undefined;
  const out: { input: 0 | 1; changes: Change[] }[] = [];
  let current: { input: 0 | 1; changes: Change[] } | undefined;
  for (const s of steps) {
    const input = s.op === 'bound' || s.op === 'null-bound' || s.op === 'retract-bound' ? 1 : 0;
    if (current === undefined || current.input !== input) out.push((current = { input, changes: [] }));
    if (input === 0) {
      const fresh: Row = [s.name, s.value];
      if (s.op === 'insert' || rows.length === 0) {
        rows.push(fresh);
        current.changes.push(['+I', fresh]);
      } else {
        const [old] = rows.splice(s.pick % rows.length, 1);
        if (s.op === 'delete') current.changes.push(['-D', old!]);
        else {
          rows.push(fresh);
          current.changes.push(['-U', old!], ['+U', fresh]);
        }
      }
    } else if (s.op === 'retract-bound') {
      if (bound !== undefined) current.changes.push(['-D', bound]);
      bound = undefined;
    } else {
      const next: Row = [s.op === 'null-bound' ? null : s.value];
      current.changes.push(...(bound === undefined ? [['+I', next] as Change] : [['-U', bound] as Change, ['+U', next] as Change]));
      bound = next;
    }
    if (s.batchEnd) current = undefined;
  }
  return out;
}

const PASSES: Readonly<Record<DynamicFilterSpec['comparison'], (value: number, bound: number) => boolean>> = {
  '<': (v, b) => v < b,
  '<=': (v, b) => v <= b,
  '>': (v, b) => v > b,
  '>=': (v, b) => v >= b,
};

describe('dynamic filter operator (property)', () => {
  for (const comparison of ['<', '<=', '>', '>='] as const) {
    it(`value ${comparison} bound: the output after every batch is the rows that compare with the current bound, across a restore`, async () => {
      const filter = spec(comparison);
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 80 }), fc.nat(), async (steps, restoreAt) => {
          const all = batches(steps);
          let h = await open(filter);
          const output: Change[] = [];
          const rows: Change[] = [];
          let bound: unknown = null;
          for (const [i, { input, changes }] of all.entries()) {
            if (i === restoreAt % (all.length + 1)) h = await open(filter, h.state.snapshot());
            output.push(...h.push(changes, input));
            if (input === 0) rows.push(...changes);
            else for (const [kind, row] of changes) bound = kind === '+I' || kind === '+U' ? row[0] : null;
            const expected = materialize(rows).filter((row) => row[1] !== null && bound !== null && PASSES[comparison](row[1] as number, bound as number));
            expect(materialize(output)).toEqual(materialize(expected.map((row): Change => ['+I', row])));
          }
          expect(h.warnings).toEqual([]);
        }),
        { numRuns: 200 },
      );
    });
  }
});
