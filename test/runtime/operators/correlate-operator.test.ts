/**
 * The Correlate operator (UNNEST, table functions): each record's kind passes to every row it
 * gives, LEFT pads a row that gives none (or none passing the condition), WITH ORDINALITY numbers
 * from 1, MAP entries in order, NULL elements of an ARRAY of ROWs give NULL fields. The property
 * drives random changelogs (inserts, updates that change a row's array, deletes) in random batches
 * and checks after every batch that the materialized output equals the function applied to the
 * materialized input, by a plain model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { CorrelateSpec } from '../../../src/dataflow/job-graph.js';
import type { CorrelateFunction } from '../../../src/expr/correlate-function.js';
import { ExprCompiler } from '../../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { Exprs } from '../../../src/expr/scalar-expr.js';
import { CorrelateOperator } from '../../../src/runtime/operators/correlate-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

const INT_ARRAY = SqlTypes.array(SqlTypes.int());
const POINTS = SqlTypes.array(SqlTypes.row([{ name: 'x', type: SqlTypes.int() }, { name: 'y', type: SqlTypes.int() }]));
const MAP = SqlTypes.map(SqlTypes.string(), SqlTypes.int());

function spec(fn: CorrelateFunction, joinType: 'INNER' | 'LEFT', functionArity: number, condition: CorrelateSpec['condition'] = null): CorrelateSpec {
  return { kind: 'correlate', fn, joinType, inputArity: 2, functionArity, condition };
}

async function open(s: CorrelateSpec, registry = FunctionRegistry.withBuiltins()): Promise<OperatorHarness> {
  return OperatorHarness.open(new CorrelateOperator(s, new ExprCompiler(registry)));
}

describe('CorrelateOperator', () => {
  it('unnests arrays with their row kind, WITH ORDINALITY, and LEFT pads empty and NULL arrays', async () => {
    const unnest: CorrelateFunction = { kind: 'unnest', expr: Exprs.inputRef(1, INT_ARRAY), source: 'array', withOrdinality: true };
    const inner = await open(spec(unnest, 'INNER', 2));
    expect(inner.push([['+I', [1, [7, null]]], ['-U', [1, [7, null]]], ['+U', [1, [8]]], ['+I', [2, []]], ['-D', [3, null]]])).toEqual([
      ['+I', [1, [7, null], 7, 1]],
      ['+I', [1, [7, null], null, 2]],
      ['-U', [1, [7, null], 7, 1]],
      ['-U', [1, [7, null], null, 2]],
      ['+U', [1, [8], 8, 1]],
    ]);
    const left = await open(spec(unnest, 'LEFT', 2));
    expect(left.push([['+I', [2, []]], ['-D', [3, null]], ['+I', [4, [5]]]])).toEqual([
      ['+I', [2, [], null, null]],
      ['-D', [3, null, null, null]],
      ['+I', [4, [5], 5, 1]],
    ]);
  });

  it('unnests MAP entries and the fields of ROW elements, and tests a condition before LEFT pads', async () => {
    const map = await open(spec({ kind: 'unnest', expr: Exprs.inputRef(1, MAP), source: 'map', withOrdinality: false }, 'INNER', 2));
    expect(map.push([['+I', [1, new Map([['b', 2], ['a', null]])]]])).toEqual([
      ['+I', [1, new Map([['b', 2], ['a', null]]), 'b', 2]],
      ['+I', [1, new Map([['b', 2], ['a', null]]), 'a', null]],
    ]);
    const greater = Exprs.call('>', [Exprs.inputRef(2, SqlTypes.int()), Exprs.literal(1, SqlTypes.int(false))], SqlTypes.boolean());
    const points = await open(spec({ kind: 'unnest', expr: Exprs.inputRef(1, POINTS), source: 'array-of-rows', withOrdinality: false }, 'LEFT', 2, greater));
    expect(points.push([['+I', [1, [[1, 2], null, [3, 4]]]], ['+I', [2, [[0, 0]]]]])).toEqual([
      ['+I', [1, [[1, 2], null, [3, 4]], 3, 4]],
      ['+I', [2, [[0, 0]], null, null]],
    ]);
  });

  it('calls a table function per record and fails naming it when a row does not fit', async () => {
    const registry = FunctionRegistry.withBuiltins();
    registry.registerTable('repeat_n', { fn: (n: number | null) => (n === null ? null : Array.from({ length: n }, (_, i) => [i])), resultType: SqlTypes.row([{ name: 'i', type: SqlTypes.int() }]) });
    registry.registerTable('bad', { fn: () => [['x']], resultType: SqlTypes.row([{ name: 'i', type: SqlTypes.int() }]) });
    const call = (name: string): CorrelateFunction => ({ kind: 'table-function', name: name.toUpperCase(), args: [Exprs.inputRef(0, SqlTypes.int())] });
    const repeat = await open(spec(call('repeat_n'), 'LEFT', 1), registry);
    expect(repeat.push([['+I', [2, 'a']], ['-D', [0, 'b']], ['+I', [null, 'c']]])).toEqual([
      ['+I', [2, 'a', 0]],
      ['+I', [2, 'a', 1]],
      ['-D', [0, 'b', null]],
      ['+I', [null, 'c', null]],
    ]);
    const bad = await open(spec(call('bad'), 'INNER', 1), registry);
    expect(() => bad.push([['+I', [1, 'a']]])).toThrow("table function BAD gave 'x' for column i, which is not a INT value");
  });

  it('keeps the materialized output equal to the unnested materialized input (property)', async () => {
    const arrayArb = fc.option(fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { freq: 4 }), { maxLength: 3 }), { freq: 5 });
    const stepArb = fc.record({ id: fc.integer({ min: 0, max: 4 }), array: arrayArb, action: fc.constantFrom('upsert', 'delete'), cut: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 25 }), fc.boolean(), fc.boolean(), async (steps, left, ordinality) => {
        const fn: CorrelateFunction = { kind: 'unnest', expr: Exprs.inputRef(1, INT_ARRAY), source: 'array', withOrdinality: ordinality };
        const harness = await open(spec(fn, left ? 'LEFT' : 'INNER', ordinality ? 2 : 1));
        const rows = new Map<number, Row>();
        const input: Change[] = [];
        let batch: Change[] = [];
        const flush = (): void => {
          harness.push(batch);
          batch = [];
          const model = materialize(input).flatMap((row) => {
            const elements = (row[1] as (number | null)[] | null) ?? [];
            const produced = elements.map((e, i) => (ordinality ? [e, i + 1] : [e]));
            if (produced.length === 0 && left) produced.push(ordinality ? [null, null] : [null]);
            return produced.map((p) => [...row, ...p]);
          });
          expect(materialize(harness.output)).toEqual(materialize(model.map((row) => ['+I', row] as Change)));
        };
        for (const step of steps) {
          const old = rows.get(step.id);
          const changes: Change[] =
            step.action === 'delete'
              ? old === undefined ? [] : [['-D', old]]
              : old === undefined ? [['+I', [step.id, step.array]]] : [['-U', old], ['+U', [step.id, step.array]]];
          if (step.action === 'delete') rows.delete(step.id);
          else rows.set(step.id, [step.id, step.array]);
          input.push(...changes);
          batch.push(...changes);
          if (step.cut) flush();
        }
        flush();
      }),
      { numRuns: 100 },
    );
  });
});
