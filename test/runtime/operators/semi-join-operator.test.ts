/**
 * The semi/anti join operator: a left row appears when its first match arrives and goes with its
 * last (inversely for ANTI), once per copy of itself; NULL keys match nothing; the residual
 * condition decides what a match is (the NOT IN condition `(l = r) IS NOT FALSE` included).
 * Property: for random insert/update/delete changelogs on both inputs (NULL keys and values,
 * duplicates), cut into random batches and with a checkpoint and restore at a random point, the
 * output applied as a changelog is always valid and after every batch equals a plain model (the
 * left rows with some / no matching right row) — for SEMI and ANTI, single, composite and no keys,
 * with and without a residual condition; and the null-aware anti join of NOT IN (a left row goes
 * when a right row of its key has its value or NULL, or, with a NULL value itself, when its key has
 * any right row) against the ANTI join on `(l.v = r.v) IS NOT FALSE`'s model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { SemiJoinSpec } from '../../../src/dataflow/job-graph.js';
import { Exprs, type ScalarExpr } from '../../../src/expr/scalar-expr.js';
import { NullAwareAntiJoinOperator } from '../../../src/runtime/operators/null-aware-anti-join-operator.js';
import { SemiJoinOperator } from '../../../src/runtime/operators/semi-join-operator.js';
import { compiler } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { twoInputBatches, twoInputStep } from './two-input-changelog.js';

const leftValue = Exprs.inputRef(2, SqlTypes.int());
const rightValue = Exprs.inputRef(5, SqlTypes.int());

/** The residual conditions over rows (k, k2, v) on each side, with their models. */
const CONDITIONS: Readonly<Record<string, { expr: ScalarExpr; holds: (l: unknown, r: unknown) => boolean }>> = {
  'l.v < r.v': {
    expr: Exprs.call('<', [leftValue, rightValue], SqlTypes.boolean()),
    holds: (l, r) => l !== null && r !== null && (l as number) < (r as number),
  },
  '(l.v = r.v) IS NOT FALSE': {
    expr: Exprs.call('IS NOT FALSE', [Exprs.call('=', [leftValue, rightValue], SqlTypes.boolean())], SqlTypes.boolean(false)),
    holds: (l, r) => l === null || r === null || l === r,
  },
};

const spec = (anti: boolean, overrides: Partial<SemiJoinSpec> = {}): SemiJoinSpec => ({ kind: 'semi-join', anti, leftKeys: [0], rightKeys: [0], leftArity: 3, rightArity: 3, ...overrides });

const open = (join: SemiJoinSpec, restore?: Uint8Array): Promise<OperatorHarness> =>
  OperatorHarness.open(join.nullAwareKey === undefined ? new SemiJoinOperator(join, compiler) : new NullAwareAntiJoinOperator(join), restore === undefined ? {} : { restore: { snapshot: restore } });

describe('semi join operator', () => {
  it('SEMI: emits a left row (each copy) at its first match, retracts it after its last', async () => {
    const h = await open(spec(false));
    expect(h.push([['+I', [1, 0, 5]], ['+I', [1, 0, 5]], ['+I', [2, 0, 6]]], 0)).toEqual([]);
    expect(h.push([['+I', [1, 1, 7]]], 1)).toEqual([
      ['+I', [1, 0, 5]],
      ['+I', [1, 0, 5]],
    ]);
    expect(h.push([['+I', [1, 1, 8]]], 1)).toEqual([]);
    expect(h.push([['-D', [1, 1, 7]]], 1)).toEqual([]);
    expect(h.push([['-U', [1, 1, 8]], ['+U', [2, 1, 8]]], 1)).toEqual([
      ['-D', [1, 0, 5]],
      ['-D', [1, 0, 5]],
      ['+I', [2, 0, 6]],
    ]);
    expect(h.push([['-D', [2, 0, 6]]], 0)).toEqual([['-D', [2, 0, 6]]]);
    expect(h.push([['+I', [2, 0, 9]]], 0)).toEqual([['+I', [2, 0, 9]]]);
    expect(materialize(h.output)).toEqual([[2, 0, 9]]);
    expect(h.warnings).toEqual([]);
  });

  it('ANTI: emits an unmatched left row, retracts it at its first match and restores it after its last', async () => {
    const h = await open(spec(true));
    expect(h.push([['+I', [1, 0, 5]], ['+I', [3, 0, 1]]], 0)).toEqual([
      ['+I', [1, 0, 5]],
      ['+I', [3, 0, 1]],
    ]);
    expect(h.push([['+I', [1, 1, 7]], ['+I', [1, 1, 7]]], 1)).toEqual([['-D', [1, 0, 5]]]);
    expect(h.push([['-D', [1, 1, 7]]], 1)).toEqual([]);
    expect(h.push([['-D', [1, 1, 7]]], 1)).toEqual([['+I', [1, 0, 5]]]);
    expect(materialize(h.output)).toEqual([
      [1, 0, 5],
      [3, 0, 1],
    ]);
  });

  it('never emits a left row with a NULL key from a semi join, always from an anti join; ignores right rows with one', async () => {
    const semi = await open(spec(false));
    expect(semi.push([['+I', [null, 0, 1]]], 1)).toEqual([]);
    expect(semi.push([['+I', [null, 0, 1]]], 0)).toEqual([]);
    const anti = await open(spec(true));
    expect(anti.push([['+I', [null, 0, 1]]], 1)).toEqual([]);
    expect(anti.push([['+I', [null, 0, 1]]], 0)).toEqual([['+I', [null, 0, 1]]]);
    expect(anti.push([['-D', [null, 0, 1]]], 0)).toEqual([['-D', [null, 0, 1]]]);
  });

  it('matches NULL with NULL under an IS NOT DISTINCT FROM key', async () => {
    const h = await open(spec(false, { nullSafe: [true] }));
    h.push([['+I', [null, 0, 1]]], 0);
    expect(h.push([['+I', [null, 1, 2]]], 1)).toEqual([['+I', [null, 0, 1]]]);
  });

  it('ignores, with one warning, the retraction of a row never inserted', async () => {
    const h = await open(spec(false));
    expect(h.push([['-D', [1, 0, 5]]], 0)).toEqual([]);
    expect(h.push([['-D', [1, 0, 5]]], 1)).toEqual([]);
    expect(h.warnings).toHaveLength(1);
  });
});

describe('null-aware anti join operator', () => {
  it('keeps x NOT IN (values): a NULL value excludes every row, a NULL x is kept only while the list is empty', async () => {
    const h = await open(spec(true, { leftKeys: [], rightKeys: [], nullAwareKey: [2, 2] }));
    expect(h.push([['+I', [1, 0, 5]], ['+I', [1, 0, null]], ['+I', [2, 0, 6]]], 0)).toEqual([
      ['+I', [1, 0, 5]],
      ['+I', [1, 0, null]],
      ['+I', [2, 0, 6]],
    ]);
    expect(h.push([['+I', [9, 0, 5]]], 1)).toEqual([
      ['-D', [1, 0, null]],
      ['-D', [1, 0, 5]],
    ]);
    expect(h.push([['+I', [9, 0, null]]], 1)).toEqual([['-D', [2, 0, 6]]]);
    expect(h.push([['-D', [9, 0, 5]]], 1)).toEqual([]);
    expect(h.push([['-D', [9, 0, null]]], 1)).toEqual([
      ['+I', [1, 0, null]],
      ['+I', [1, 0, 5]],
      ['+I', [2, 0, 6]],
    ]);
    expect(h.warnings).toEqual([]);
  });
});

/** The model: the left rows (with their copies) that have some (SEMI) or no (ANTI) matching right row. */
function batchSemiJoin(left: readonly Row[], right: readonly Row[], join: SemiJoinSpec, holds: ((l: unknown, r: unknown) => boolean) | undefined): Row[] {
  const keysEqual = (l: Row, r: Row): boolean => join.leftKeys.every((c, i) => (join.nullSafe?.[i] === true ? l[c] === r[join.rightKeys[i]!] : l[c] !== null && l[c] === r[join.rightKeys[i]!]));
  return left.filter((l) => right.some((r) => keysEqual(l, r) && (holds === undefined || holds(l[2], r[2]))) !== join.anti);
}

const step = twoInputStep({ ops: ['insert', 'insert', 'delete', 'update'], maxKey: 2, values: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 5 }) });

describe('semi join operator (property)', () => {
  for (const anti of [false, true]) {
    for (const condition of [undefined, ...Object.keys(CONDITIONS)]) {
      for (const keys of [[0], [0, 1], []]) {
        for (const nullSafe of keys.length === 1 ? [false, true] : [false]) {
          const name = `${anti ? 'ANTI' : 'SEMI'}${condition === undefined ? '' : ` on ${condition}`}, key columns [${keys.join(',')}]${nullSafe ? ' (IS NOT DISTINCT FROM)' : ''}`;
          it(`${name}: the output after every batch is the model's, across a restore`, async () => {
            const join = spec(anti, { leftKeys: keys, rightKeys: keys, ...(nullSafe ? { nullSafe: [true] } : {}), ...(condition === undefined ? {} : { condition: CONDITIONS[condition]!.expr }) });
            await fc.assert(
              fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.nat(), async (steps, restoreAt) => {
                const batches = twoInputBatches(steps);
                let h = await open(join);
                const output: Change[] = [];
                const inputs: [Change[], Change[]] = [[], []];
                for (const [i, { side, changes }] of batches.entries()) {
                  if (i === restoreAt % (batches.length + 1)) h = await open(join, h.state.snapshot());
                  output.push(...h.push(changes, side));
                  inputs[side].push(...changes);
                  const expected = batchSemiJoin(materialize(inputs[0]), materialize(inputs[1]), join, condition === undefined ? undefined : CONDITIONS[condition]!.holds);
                  expect(materialize(output)).toEqual(materialize(expected.map((row): Change => ['+I', row])));
                }
                expect(h.warnings).toEqual([]);
              }),
              { numRuns: 60 },
            );
          });
        }
      }
    }
  }
});

describe('null-aware anti join operator (property)', () => {
  for (const keys of [[0], [0, 1], []]) {
    it(`key columns [${keys.join(',')}]: the output after every batch is the anti join on (l.v = r.v) IS NOT FALSE, across a restore`, async () => {
      const join = spec(true, { leftKeys: keys, rightKeys: keys, nullAwareKey: [2, 2] });
      const holds = CONDITIONS['(l.v = r.v) IS NOT FALSE']!.holds;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.nat(), async (steps, restoreAt) => {
          const batches = twoInputBatches(steps);
          let h = await open(join);
          const output: Change[] = [];
          const inputs: [Change[], Change[]] = [[], []];
          for (const [i, { side, changes }] of batches.entries()) {
            if (i === restoreAt % (batches.length + 1)) h = await open(join, h.state.snapshot());
            output.push(...h.push(changes, side));
            inputs[side].push(...changes);
            const expected = batchSemiJoin(materialize(inputs[0]), materialize(inputs[1]), join, holds);
            expect(materialize(output)).toEqual(materialize(expected.map((row): Change => ['+I', row])));
          }
          expect(h.warnings).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });
  }
});
