/**
 * The event-time temporal join operator: left rows wait for the watermark and are then joined with
 * the right version valid at their time (a deletion ends the key); its state survives a restore;
 * once the watermark has passed, versions nothing can see are dropped and the key's state empties.
 */
import { describe, expect, it } from 'vitest';
import type { TemporalJoinSpec } from '../../../src/dataflow/job-graph.js';
import { ExprCompiler } from '../../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { TemporalJoinOperator } from '../../../src/runtime/operators/temporal-join-operator.js';
import { materialize, OperatorHarness } from '../operator-harness.js';

const compiler = new ExprCompiler(FunctionRegistry.withBuiltins());

/** Left rows [id, key, time], right rows [key, value, time]. */
function spec(joinType: 'INNER' | 'LEFT'): TemporalJoinSpec {
  return { kind: 'temporal-join', joinType, leftKeys: [1], rightKeys: [0], leftTimeIndex: 2, rightTimeIndex: 2, leftArity: 3, rightArity: 3, condition: null };
}

describe('temporal join operator', () => {
  it('joins each left row, once the watermark passes it, with the version valid at its time; a deletion ends the key; state survives a restore and is cleaned', async () => {
    const h = await OperatorHarness.open(new TemporalJoinOperator(spec('INNER'), compiler));
    h.push([['+I', ['a', 'v2', 20]], ['+I', ['a', 'v1', 10]], ['+I', ['b', 'w1', 1]]], 1);
    h.push([['+I', [1, 'a', 15]], ['+I', [2, 'a', 25]], ['+I', [3, 'a', 5]], ['+I', [4, 'c', 5]]], 0);
    expect(h.output).toEqual([]);
    expect(h.watermark(16)).toEqual([16]);
    expect(h.output).toEqual([['+I', [1, 'a', 15, 'a', 'v1', 10]]]);
    h.push([['-U', ['a', 'v2', 20]], ['-D', ['a', 'v2', 30]]], 1);
    h.push([['+I', [5, 'a', 35]], ['+I', [6, 'b', 36]]], 0);

    const restored = await OperatorHarness.open(new TemporalJoinOperator(spec('INNER'), compiler), { restore: { snapshot: h.state.snapshot()! } });
    restored.watermark(40);
    expect(materialize(restored.output)).toEqual(
      materialize([
        ['+I', [2, 'a', 25, 'a', 'v2', 20]],
        ['+I', [6, 'b', 36, 'b', 'w1', 1]],
      ]),
    );
    expect(restored.state.keyCount()).toBe(1);
    restored.push([['+I', [7, 'b', 50]]], 0);
    restored.watermark(Infinity);
    expect(restored.output.slice(2)).toEqual([['+I', [7, 'b', 50, 'b', 'w1', 1]]]);
  });

  it('LEFT: pads left rows without a valid version, and rows with a NULL key, with NULLs', async () => {
    const h = await OperatorHarness.open(new TemporalJoinOperator(spec('LEFT'), compiler));
    h.push([['+I', ['a', 'v1', 10]]], 1);
    h.push([['+I', [1, 'a', 5]], ['+I', [2, 'a', 12]], ['+I', [3, null, 12]]], 0);
    h.watermark(20);
    expect(h.output).toEqual([
      ['+I', [3, null, 12, null, null, null]],
      ['+I', [1, 'a', 5, null, null, null]],
      ['+I', [2, 'a', 12, 'a', 'v1', 10]],
    ]);
  });
});
