/**
 * The outer join operator: NULL-padded rows appear, are retracted when the first match arrives and
 * come back when the last one goes; the residual condition decides what a match is; NULL keys.
 * Property: for random insert/update/delete changelogs on both inputs, cut into random batches
 * and with a checkpoint and restore at a random point, the output applied as a changelog is
 * always valid (never retracts a row it does not hold) and after every batch equals a plain
 * nested-loop outer join of the inputs so far — for LEFT, RIGHT and FULL, with and without a
 * residual condition, single and composite keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JoinType } from '../../../src/common/join-type.js';
import { encodeComponent, keyGroupOf, keySelector, subtaskOfKeyGroup } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { JoinSpec } from '../../../src/dataflow/job-graph.js';
import { Exprs } from '../../../src/expr/scalar-expr.js';
import { OuterJoinOperator } from '../../../src/runtime/operators/outer-join-operator.js';
import { compiler } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { twoInputBatches, twoInputStep } from './two-input-changelog.js';

/** `left.v < right.v` over rows (k, k2, v) on each side. */
const LESS_THAN = Exprs.call('<', [Exprs.inputRef(2, SqlTypes.int()), Exprs.inputRef(5, SqlTypes.int())], SqlTypes.boolean());

const spec = (joinType: Exclude<JoinType, 'INNER'>, overrides: Partial<JoinSpec> = {}): JoinSpec => ({
  kind: 'join',
  joinType,
  leftKeys: [0],
  rightKeys: [0],
  leftArity: 3,
  rightArity: 3,
  leftRetracts: true,
  rightRetracts: true,
  ...overrides,
});

const open = (join: JoinSpec, restore?: Uint8Array): Promise<OperatorHarness> =>
  OperatorHarness.open(new OuterJoinOperator(join, compiler), restore === undefined ? {} : { restore: { snapshot: restore } });

describe('outer join operator', () => {
  it('LEFT: pads an unmatched row, retracts the padding at the first match and restores it after the last', async () => {
    const h = await open(spec('LEFT'));
    expect(h.push([['+I', [1, 0, 5]], ['+I', [1, 0, 5]]], 0)).toEqual([
      ['+I', [1, 0, 5, null, null, null]],
      ['+I', [1, 0, 5, null, null, null]],
    ]);
    expect(h.push([['+I', [1, 1, 7]]], 1)).toEqual([
      ['-D', [1, 0, 5, null, null, null]],
      ['+I', [1, 0, 5, 1, 1, 7]],
      ['-D', [1, 0, 5, null, null, null]],
      ['+I', [1, 0, 5, 1, 1, 7]],
    ]);
    expect(h.push([['+I', [1, 1, 8]]], 1)).toEqual([
      ['+I', [1, 0, 5, 1, 1, 8]],
      ['+I', [1, 0, 5, 1, 1, 8]],
    ]);
    h.push([['-D', [1, 1, 7]]], 1);
    expect(h.push([['-U', [1, 1, 8]], ['+U', [2, 1, 8]]], 1)).toEqual([
      ['-D', [1, 0, 5, 1, 1, 8]],
      ['+I', [1, 0, 5, null, null, null]],
      ['-D', [1, 0, 5, 1, 1, 8]],
      ['+I', [1, 0, 5, null, null, null]],
    ]);
    expect(h.push([['-D', [1, 0, 5]]], 0)).toEqual([['-D', [1, 0, 5, null, null, null]]]);
    expect(materialize(h.output)).toEqual([[1, 0, 5, null, null, null]]);
    expect(h.warnings).toEqual([]);
  });

  it('counts as a match only pairs that satisfy the residual condition', async () => {
    const h = await open(spec('FULL', { condition: LESS_THAN }));
    h.push([['+I', [1, 0, 5]]], 0);
    expect(h.push([['+I', [1, 0, 3]]], 1)).toEqual([['+I', [null, null, null, 1, 0, 3]]]);
    expect(h.push([['+I', [1, 0, 9]]], 1)).toEqual([
      ['-D', [1, 0, 5, null, null, null]],
      ['+I', [1, 0, 5, 1, 0, 9]],
    ]);
    expect(h.push([['+I', [1, 0, null]]], 0)).toEqual([['+I', [1, 0, null, null, null, null]]]);
  });

  it('pads rows of an outer input with a NULL key, and ignores those of an inner input', async () => {
    const h = await open(spec('LEFT'));
    expect(h.push([['+I', [null, 0, 1]]], 0)).toEqual([['+I', [null, 0, 1, null, null, null]]]);
    expect(h.push([['+I', [null, 0, 1]]], 1)).toEqual([]);
    expect(h.push([['-D', [null, 0, 1]]], 0)).toEqual([['-D', [null, 0, 1, null, null, null]]]);
    expect(h.push([['-D', [null, 0, 1]]], 0)).toEqual([]);
    expect(h.warnings).toHaveLength(1);
  });
});

describe('outer join operator (rescale)', () => {
  it('restores its state, association counts included, split by key group over two subtasks', async () => {
    const maxParallelism = 128;
    const join = spec('FULL', { condition: LESS_THAN });
    const whole = await open(join);
    whole.push(Array.from({ length: 40 }, (_, i): Change => ['+I', [i % 12, 0, i % 4]]), 0);
    whole.push(Array.from({ length: 30 }, (_, i): Change => ['+I', [i % 15, 0, i % 3]]), 1);
    whole.push([['+I', [null, 0, 1]]], 0);
    const snapshot = whole.state.snapshot()!;
    const later: [Change, 0 | 1][] = [
      [['-D', [3, 0, 3]], 0],
      [['-D', [5, 0, 2]], 1],
      [['+I', [7, 0, 3]], 1],
      [['-D', [null, 0, 1]], 0],
      [['+I', [14, 0, 0]], 0],
      [['-D', [1, 0, 1]], 0],
    ];
    const expected = later.flatMap(([change, side]) => whole.push([change], side));
    const parts = await Promise.all(
      [0, 1].map(async (subtask) => {
        const part = await OperatorHarness.open(new OuterJoinOperator(join, compiler), { subtask, parallelism: 2, maxParallelism });
        part.state.restore(snapshot, (key) => subtaskOfKeyGroup(keyGroupOf(key, maxParallelism), 2, maxParallelism) === subtask);
        return part;
      }),
    );
    const keyOf = keySelector([0]);
    const owner = (row: Row): OperatorHarness => parts[subtaskOfKeyGroup(keyGroupOf(keyOf(row), maxParallelism), 2, maxParallelism)]!;
    const actual = later.flatMap(([change, side]) => owner(change[1]).push([change], side));
    const ids = (changes: readonly Change[]): string[] => changes.map((c) => c[0] + c[1].map(encodeComponent).join('')).sort();
    expect(expected.length).toBeGreaterThan(4);
    expect(ids(actual)).toEqual(ids(expected));
    expect(parts[0]!.state.keyCount() + parts[1]!.state.keyCount()).toBe(whole.state.keyCount());
  });
});

/** A plain nested-loop outer join over rows (k, k2, v); keys compare with SQL equality (NULL matches nothing). */
function batchOuterJoin(left: readonly Row[], right: readonly Row[], join: JoinSpec, withCondition: boolean): Row[] {
  const keysEqual = (l: Row, r: Row): boolean => join.leftKeys.every((c, i) => l[c] !== null && l[c] === r[join.rightKeys[i]!]);
  const condition = (l: Row, r: Row): boolean => !withCondition || (l[2] !== null && r[2] !== null && (l[2] as number) < (r[2] as number));
  const out: Row[] = [];
  const rightMatched = right.map(() => false);
  for (const l of left) {
    let matched = false;
    right.forEach((r, j) => {
      if (!keysEqual(l, r) || !condition(l, r)) return;
      out.push([...l, ...r]);
      matched = rightMatched[j] = true;
    });
    if (!matched && join.joinType !== 'RIGHT') out.push([...l, null, null, null]);
  }
  if (join.joinType !== 'LEFT') right.forEach((r, j) => !rightMatched[j] && out.push([null, null, null, ...r]));
  return out;
}

const step = twoInputStep({ ops: ['insert', 'insert', 'delete', 'update'], maxKey: 2, values: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }) });

describe('outer join operator (property)', () => {
  for (const joinType of ['LEFT', 'RIGHT', 'FULL'] as const) {
    for (const withCondition of [false, true]) {
      for (const keys of [[0], [0, 1]]) {
        it(`${joinType}${withCondition ? ' with a residual condition' : ''}, key columns ${keys.join(',')}: the output after every batch is the batch outer join, across a restore`, async () => {
          const join = spec(joinType, { leftKeys: keys, rightKeys: keys, ...(withCondition ? { condition: LESS_THAN } : {}) });
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
                const expected = batchOuterJoin(materialize(inputs[0]), materialize(inputs[1]), join, withCondition);
                expect(materialize(output)).toEqual(materialize(expected.map((row): Change => ['+I', row])));
              }
              expect(h.warnings).toEqual([]);
            }),
            { numRuns: 100 },
          );
        });
      }
    }
  }
});
