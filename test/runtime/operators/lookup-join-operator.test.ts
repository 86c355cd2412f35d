/**
 * The lookup join operator over an in-memory lookup table (an implementation of the LookupFunction
 * contract whose asynchronous answers the test releases): rows are joined with the table rows of
 * their key, with their own row kind; the residual condition filters matches; LEFT pads misses
 * and NULL keys with NULLs; while a lookup is in flight, later batches and watermarks wait, so
 * output keeps input order; the rows in flight at a barrier are the operator state, and a restored
 * operator looks them up again.
 */
import { describe, expect, it } from 'vitest';
import { encodeComponent } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { LookupJoinSpec } from '../../../src/dataflow/job-graph.js';
import { ExprCompiler } from '../../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { Exprs } from '../../../src/expr/scalar-expr.js';
import type { LookupFactory, LookupFunction, LookupResult } from '../../../src/runtime/lookup-source.js';
import { LookupJoinOperator } from '../../../src/runtime/operators/lookup-join-operator.js';
import { OperatorHarness } from '../operator-harness.js';

/** A lookup table `[id, name]` keyed by id; `asynchronous` answers only when the test calls `release`. */
class MemoryLookup implements LookupFunction, LookupFactory {
  readonly asked: Row[][] = [];
  private waiting: (() => void)[] = [];

  constructor(
    private readonly rows: readonly Row[],
    private readonly asynchronous: boolean,
  ) {}

  createLookup(): LookupFunction {
    return this;
  }

  async open(): Promise<void> {}

  lookup(keys: readonly Row[]): LookupResult | Promise<LookupResult> {
    this.asked.push([...keys]);
    const answer = keys.map((key) => this.rows.filter((row) => encodeComponent(row[0]) === encodeComponent(key[0])));
    if (!this.asynchronous) return answer;
    return new Promise((resolve) => this.waiting.push(() => resolve(answer)));
  }

  /** Answers the oldest pending lookup. */
  async release(): Promise<void> {
    this.waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }

  async close(): Promise<void> {}
}

const TABLE: readonly Row[] = [
  [1, 'ann'],
  [2, 'bob'],
  [2, 'bobby'],
];

/** Input rows are [order, customer]; output rows [order, customer, id, name]. */
function spec(joinType: 'INNER' | 'LEFT', condition: LookupJoinSpec['condition'] = null): LookupJoinSpec {
  return {
    kind: 'lookup-join',
    joinType,
    lookup: { table: 'customers', connector: 'memory', options: {}, schema: [{ name: 'id', type: SqlTypes.bigint() }, { name: 'name', type: SqlTypes.string() }], keys: [0] },
    inputKeys: [1],
    inputArity: 2,
    condition,
  };
}

const compiler = new ExprCompiler(FunctionRegistry.withBuiltins());

describe('lookup join operator', () => {
  it('joins each row with the table rows of its key, keeping its row kind, in one lookup of the distinct keys per batch', async () => {
    const table = new MemoryLookup(TABLE, false);
    const h = await OperatorHarness.open(new LookupJoinOperator(spec('INNER'), compiler, table));
    expect(h.push([['+I', [10, 1]], ['+I', [11, 2]], ['-D', [12, 2]], ['+I', [13, 7]], ['+I', [14, null]]])).toEqual([
      ['+I', [10, 1, 1, 'ann']],
      ['+I', [11, 2, 2, 'bob']],
      ['+I', [11, 2, 2, 'bobby']],
      ['-D', [12, 2, 2, 'bob']],
      ['-D', [12, 2, 2, 'bobby']],
    ]);
    expect(table.asked).toEqual([[[1], [2], [7]]]);
  });

  it('LEFT: pads rows without a match passing the residual condition, and NULL keys, with NULLs', async () => {
    const nameIsNotBobby = Exprs.call('<>', [Exprs.inputRef(3, SqlTypes.string()), Exprs.literal('bobby', SqlTypes.string(false))], SqlTypes.boolean());
    const h = await OperatorHarness.open(new LookupJoinOperator(spec('LEFT', nameIsNotBobby), compiler, new MemoryLookup(TABLE, false)));
    expect(h.push([['+I', [10, 2]], ['+I', [11, 9]], ['+I', [12, null]]])).toEqual([
      ['+I', [10, 2, 2, 'bob']],
      ['+I', [11, 9, null, null]],
      ['+I', [12, null, null, null]],
    ]);
  });

  it('holds later batches and watermarks behind a lookup in flight, and finishes it before the input ends', async () => {
    const table = new MemoryLookup(TABLE, true);
    const h = await OperatorHarness.open(new LookupJoinOperator(spec('INNER'), compiler, table));
    expect(h.push([['+I', [10, 1]]])).toEqual([]);
    expect(h.watermark(100)).toEqual([]);
    expect(h.push([['+I', [11, 2]]])).toEqual([]);
    await table.release();
    expect(h.output).toEqual([['+I', [10, 1, 1, 'ann']]]);
    expect(h.watermarks).toEqual([100]);
    const ended = h.endInput();
    await table.release();
    await ended;
    expect(h.output.slice(1)).toEqual([
      ['+I', [11, 2, 2, 'bob']],
      ['+I', [11, 2, 2, 'bobby']],
    ]);
  });

  it('snapshots the rows whose lookup is in flight; a restored operator looks them up again', async () => {
    const table = new MemoryLookup(TABLE, true);
    const operator = new LookupJoinOperator(spec('INNER'), compiler, table);
    const h = await OperatorHarness.open(operator);
    expect(operator.snapshotState()).toBeUndefined();
    h.push([['+I', [10, 1]]]);
    h.push([['-U', [11, 2]]]);
    const state = operator.snapshotState();
    expect(state).toEqual({ kinds: [0, 1], rows: [[10, 1], [11, 2]] });

    const restoredTable = new MemoryLookup(TABLE, false);
    const restored = new LookupJoinOperator(spec('INNER'), compiler, restoredTable);
    restored.initializeState({ isRestored: () => true, restoredCheckpointId: 1, operatorState: [JSON.parse(JSON.stringify(state))] });
    const r = await OperatorHarness.open(restored);
    expect(r.output).toEqual([
      ['+I', [10, 1, 1, 'ann']],
      ['-U', [11, 2, 2, 'bob']],
      ['-U', [11, 2, 2, 'bobby']],
    ]);
  });
});
