/**
 * The Expand operator (GROUPING SETS, ROLLUP, CUBE): each record once per projection, in order,
 * with its kind; the property checks on random changelogs in random batches that the materialized
 * output is the materialized input expanded by a plain model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { ExprCompiler } from '../../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { Exprs, type ScalarExpr } from '../../../src/expr/scalar-expr.js';
import { ExpandOperator } from '../../../src/runtime/operators/expand-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

const a = Exprs.inputRef(0, SqlTypes.string());
const b = Exprs.inputRef(1, SqlTypes.int());
const nullString = Exprs.literal(null, SqlTypes.string());
const nullInt = Exprs.literal(null, SqlTypes.int());
const id = (n: number): ScalarExpr => Exprs.literal(n, SqlTypes.int(false));

/** ROLLUP(a, b) with b also kept for an aggregate argument. */
const ROLLUP: readonly (readonly ScalarExpr[])[] = [
  [a, b, b, id(0)],
  [a, nullInt, b, id(1)],
  [nullString, nullInt, b, id(2)],
];

async function open(): Promise<OperatorHarness> {
  return OperatorHarness.open(new ExpandOperator({ kind: 'expand', projects: ROLLUP }, new ExprCompiler(FunctionRegistry.withBuiltins())));
}

const expand = (row: Row): Row[] => [
  [row[0], row[1], row[1], 0],
  [row[0], null, row[1], 1],
  [null, null, row[1], 2],
];

describe('ExpandOperator', () => {
  it('emits each record once per projection, record by record, keeping its kind', async () => {
    const harness = await open();
    expect(harness.push([['+I', ['x', 1]], ['-U', ['x', 1]], ['+U', ['y', 2]]])).toEqual([
      ...expand(['x', 1]).map((r) => ['+I', r]),
      ...expand(['x', 1]).map((r) => ['-U', r]),
      ...expand(['y', 2]).map((r) => ['+U', r]),
    ]);
    expect(harness.push([])).toEqual([]);
  });

  it('keeps the materialized output equal to the expanded materialized input (property)', async () => {
    const rowArb = fc.tuple(fc.option(fc.constantFrom('x', 'y'), { freq: 4 }), fc.option(fc.integer({ min: 0, max: 3 }), { freq: 4 }));
    const stepArb = fc.record({ row: rowArb, remove: fc.boolean(), cut: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 30 }), async (steps) => {
        const harness = await open();
        const held: Row[] = [];
        const input: Change[] = [];
        let batch: Change[] = [];
        const flush = (): void => {
          harness.push(batch);
          batch = [];
          const model = materialize(input).flatMap(expand);
          expect(materialize(harness.output)).toEqual(materialize(model.map((row) => ['+I', row] as Change)));
        };
        for (const step of steps) {
          const index = held.findIndex((r) => r[0] === step.row[0] && r[1] === step.row[1]);
          const change: Change = step.remove && index >= 0 ? ['-D', held.splice(index, 1)[0]!] : ['+I', [...step.row]];
          if (change[0] === '+I') held.push(change[1]);
          input.push(change);
          batch.push(change);
          if (step.cut) flush();
        }
        flush();
      }),
      { numRuns: 100 },
    );
  });
});
