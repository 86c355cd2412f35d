/**
 * Joins without keys (nested loops, as the planner runs CROSS JOIN and ON conditions without an
 * equality) and joins on `IS NOT DISTINCT FROM` keys, through the regular join operators.
 * Examples: a cross join, a band join and an outer join on `<` under retractions of both inputs.
 * Property: for random changelogs of rows `[k, k2, v]` on both inputs (inserts, updates, deletes,
 * duplicates, NULLs), cut into random batches and with a restore at a random point, the output
 * applied as a changelog is always valid and after every batch equals a plain nested-loop join of
 * the inputs so far — inner, LEFT, RIGHT and FULL, on `l.v < r.v`, on `l.v BETWEEN r.k AND r.v`,
 * with no condition at all, and on `l.k IS NOT DISTINCT FROM r.k` (NULL matching NULL).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JoinType } from '../../../src/common/join-type.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { JoinSpec } from '../../../src/dataflow/job-graph.js';
import { Exprs, type ScalarExpr } from '../../../src/expr/scalar-expr.js';
import { JoinOperator } from '../../../src/runtime/operators/join-operator.js';
import { OuterJoinOperator } from '../../../src/runtime/operators/outer-join-operator.js';
import { compiler } from '../../expr/expr-test-helpers.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { twoInputBatches, twoInputStep } from './two-input-changelog.js';

const int = SqlTypes.int();
const bool = SqlTypes.boolean();
/** `left.v < right.v` over rows (k, k2, v) on each side. */
const LESS_THAN = Exprs.call('<', [Exprs.inputRef(2, int), Exprs.inputRef(5, int)], bool);
/** `left.v BETWEEN right.k AND right.v`. */
const BETWEEN = Exprs.call('AND', [Exprs.call('>=', [Exprs.inputRef(2, int), Exprs.inputRef(3, int)], bool), Exprs.call('<=', [Exprs.inputRef(2, int), Exprs.inputRef(5, int)], bool)], bool);

/** A keyless join of rows (k, k2, v) on `condition`. */
const nestedLoop = (joinType: JoinType, condition: ScalarExpr | undefined): JoinSpec => ({
  kind: 'join',
  leftKeys: [],
  rightKeys: [],
  leftArity: 3,
  rightArity: 3,
  leftRetracts: true,
  rightRetracts: true,
  ...(joinType === 'INNER' ? {} : { joinType }),
  ...(condition === undefined ? {} : { condition }),
});

const open = (spec: JoinSpec, restore?: Uint8Array): Promise<OperatorHarness> => {
  const operator = spec.joinType === undefined ? new JoinOperator(spec, compiler) : new OuterJoinOperator(spec, compiler);
  return OperatorHarness.open(operator, restore === undefined ? {} : { restore: { snapshot: restore } });
};

describe('nested-loop join', () => {
  it('CROSS: every row meets every row of the other input, duplicates and retractions included', async () => {
    const h = await open(nestedLoop('INNER', undefined));
    h.push([['+I', [1, 0, 1]], ['+I', [1, 0, 1]]], 0);
    expect(h.push([['+I', [2, 0, 2]]], 1)).toEqual([
      ['+I', [1, 0, 1, 2, 0, 2]],
      ['+I', [1, 0, 1, 2, 0, 2]],
    ]);
    expect(h.push([['-U', [1, 0, 1]], ['+U', [3, 0, 3]]], 0)).toEqual([
      ['-D', [1, 0, 1, 2, 0, 2]],
      ['+I', [3, 0, 3, 2, 0, 2]],
    ]);
    expect(materialize(h.output)).toEqual([
      [1, 0, 1, 2, 0, 2],
      [3, 0, 3, 2, 0, 2],
    ]);
  });

  it('a band join (BETWEEN) matches each change against the rows of the other input it falls in', async () => {
    const h = await open(nestedLoop('INNER', BETWEEN));
    h.push([['+I', [0, 0, 0]], ['+I', [0, 0, 5]], ['+I', [0, 0, 9]], ['+I', [0, 0, null]]], 0);
    expect(materialize(h.push([['+I', [4, 0, 9]]], 1))).toEqual([
      [0, 0, 5, 4, 0, 9],
      [0, 0, 9, 4, 0, 9],
    ]);
    expect(h.push([['-D', [4, 0, 9]], ['+I', [null, 0, 9]]], 1)).toEqual([
      ['-D', [0, 0, 5, 4, 0, 9]],
      ['-D', [0, 0, 9, 4, 0, 9]],
    ]);
  });

  it('FULL on <: padded rows leave when the first match comes and return when the last goes', async () => {
    const h = await open(nestedLoop('FULL', LESS_THAN));
    expect(h.push([['+I', [0, 0, 5]]], 0)).toEqual([['+I', [0, 0, 5, null, null, null]]]);
    expect(h.push([['+I', [0, 0, 3]]], 1)).toEqual([['+I', [null, null, null, 0, 0, 3]]]);
    expect(h.push([['+I', [1, 0, 8]]], 1)).toEqual([
      ['-D', [0, 0, 5, null, null, null]],
      ['+I', [0, 0, 5, 1, 0, 8]],
    ]);
    expect(h.push([['-U', [0, 0, 5]], ['+U', [0, 0, 1]]], 0)).toEqual([
      ['-D', [0, 0, 5, 1, 0, 8]],
      ['+I', [null, null, null, 1, 0, 8]],
      ['-D', [null, null, null, 0, 0, 3]],
      ['+I', [0, 0, 1, 0, 0, 3]],
      ['-D', [null, null, null, 1, 0, 8]],
      ['+I', [0, 0, 1, 1, 0, 8]],
    ]);
    expect(materialize(h.output)).toEqual([
      [0, 0, 1, 0, 0, 3],
      [0, 0, 1, 1, 0, 8],
    ]);
    expect(h.warnings).toEqual([]);
  });
});

describe('join on IS NOT DISTINCT FROM', () => {
  it('matches NULL with NULL under a NULL-safe key, and not under an SQL equality', async () => {
    const spec: JoinSpec = { kind: 'join', leftKeys: [0, 1], rightKeys: [0, 1], nullSafe: [true, false], leftArity: 3, rightArity: 3, leftRetracts: true, rightRetracts: true };
    const h = await open(spec);
    h.push([['+I', [null, 1, 'a']], ['+I', [null, null, 'b']], ['+I', [2, 1, 'c']]], 0);
    expect(h.push([['+I', [null, 1, 'x']], ['+I', [null, null, 'y']], ['+I', [2, 1, 'z']]], 1)).toEqual([
      ['+I', [null, 1, 'a', null, 1, 'x']],
      ['+I', [2, 1, 'c', 2, 1, 'z']],
    ]);
    const left = await open({ ...spec, joinType: 'LEFT', nullSafe: [true, true] });
    left.push([['+I', [null, null, 'b']]], 0);
    expect(left.push([['+I', [null, null, 'y']]], 1)).toEqual([
      ['-D', [null, null, 'b', null, null, null]],
      ['+I', [null, null, 'b', null, null, 'y']],
    ]);
  });
});

/** A plain nested-loop join of rows (k, k2, v): pairs for which `matches` holds, unmatched rows padded as `joinType` says. */
function batchJoin(left: readonly Row[], right: readonly Row[], joinType: JoinType, matches: (l: Row, r: Row) => boolean): Row[] {
  const out: Row[] = [];
  const rightMatched = right.map(() => false);
  for (const l of left) {
    let matched = false;
    right.forEach((r, j) => {
      if (!matches(l, r)) return;
      out.push([...l, ...r]);
      matched = rightMatched[j] = true;
    });
    if (!matched && (joinType === 'LEFT' || joinType === 'FULL')) out.push([...l, null, null, null]);
  }
  if (joinType === 'RIGHT' || joinType === 'FULL') right.forEach((r, j) => !rightMatched[j] && out.push([null, null, null, ...r]));
  return out;
}

const lessThan = (a: unknown, b: unknown): boolean => a !== null && b !== null && (a as number) < (b as number);

/** The conditions of the property, with their plain models. */
const CONDITIONS: readonly { name: string; spec: (joinType: JoinType) => JoinSpec; matches: (l: Row, r: Row) => boolean }[] = [
  { name: 'l.v < r.v', spec: (t) => nestedLoop(t, LESS_THAN), matches: (l, r) => lessThan(l[2], r[2]) },
  { name: 'l.v BETWEEN r.k AND r.v', spec: (t) => nestedLoop(t, BETWEEN), matches: (l, r) => !lessThan(l[2], r[0]) && !lessThan(r[2], l[2]) && l[2] !== null && r[0] !== null && r[2] !== null },
  { name: 'no condition (CROSS)', spec: (t) => nestedLoop(t, undefined), matches: () => true },
  {
    name: 'l.k IS NOT DISTINCT FROM r.k AND l.v < r.v',
    spec: (t) => ({ ...nestedLoop(t, LESS_THAN), leftKeys: [0], rightKeys: [0], nullSafe: [true] }),
    matches: (l, r) => l[0] === r[0] && lessThan(l[2], r[2]),
  },
];

const step = twoInputStep({ ops: ['insert', 'insert', 'delete', 'update'], maxKey: 3, values: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 5 }) });

describe('nested-loop join (property)', () => {
  for (const joinType of ['INNER', 'LEFT', 'RIGHT', 'FULL'] as const) {
    for (const condition of CONDITIONS) {
      it(`${joinType} on ${condition.name}: the output after every batch is the nested-loop join of the inputs, across a restore`, async () => {
        const spec = condition.spec(joinType);
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 50 }), fc.nat(), async (steps, restoreAt) => {
            const batches = twoInputBatches(steps);
            let h = await open(spec);
            const output: Change[] = [];
            const inputs: [Change[], Change[]] = [[], []];
            for (const [i, { side, changes }] of batches.entries()) {
              if (i === restoreAt % (batches.length + 1)) h = await open(spec, h.state.snapshot());
              output.push(...h.push(changes, side));
              inputs[side].push(...changes);
              const expected = batchJoin(materialize(inputs[0]), materialize(inputs[1]), joinType, condition.matches);
              expect(materialize(output)).toEqual(materialize(expected.map((row): Change => ['+I', row])));
            }
            expect(h.warnings).toEqual([]);
          }),
          { numRuns: 80 },
        );
      });
    }
  }
});
