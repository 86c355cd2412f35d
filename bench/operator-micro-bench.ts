/**
 * Per-operator micro-benchmarks (tinybench), for regression tracking: each task opens a fresh
 * operator against an in-memory state backend and pushes the same pre-built batches of bid-like
 * rows `[auction, bidder, price, dateTime]` through it (watermarks too, for windows); the rate is
 * input rows per second. Run with `npm run bench -- --micro`.
 */
import { Bench } from 'tinybench';
import { ChangeBatch } from '../src/common/row.js';
import { RowKind } from '../src/common/row-kind.js';
import { SqlTypes } from '../src/common/sql-type.js';
import type { AggregateCallSpec, JobNode, OperatorSpec } from '../src/dataflow/job-graph.js';
import { ExprCompiler } from '../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../src/expr/function-registry.js';
import { Exprs } from '../src/expr/scalar-expr.js';
import { createOperator } from '../src/runtime/operator-factory.js';
import { MemoryStateBackend } from '../src/runtime/state/memory-state-backend.js';
import type { StreamOperator } from '../src/runtime/stream-operator.js';

const BATCHES = 32;
const BATCH_SIZE = 1024;
const ROWS = BATCHES * BATCH_SIZE;
const bigint = SqlTypes.bigint(false);

/**
 * Bids over 2,000 auctions in 10 s of event time, as batches; the auctions `[id, seller, category]`;
 * 100 overlapping price bands `[lo, hi, id]`; and a bound per bid batch moving up and down around
 * the median price, as the one-row changes of a global aggregate.
 */
function inputs(): { bids: ChangeBatch[]; auctions: ChangeBatch[]; bands: ChangeBatch; bounds: ChangeBatch[] } {
  let seed = 42;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const bids: ChangeBatch[] = [];
  const auctions: ChangeBatch[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const batch = new ChangeBatch();
    for (let i = 0; i < BATCH_SIZE; i++) {
      const n = b * BATCH_SIZE + i;
      batch.push(RowKind.INSERT, [1000 + random(2000), 2000 + random(5000), 100 + random(1_000_000), Math.floor((n * 10_000) / ROWS)]);
    }
    bids.push(batch);
  }
  for (let b = 0; b < 2; b++) {
    const batch = new ChangeBatch();
    for (let i = 0; i < 1000; i++) batch.push(RowKind.INSERT, [1000 + b * 1000 + i, 1000 + random(1000), 10 + random(5)]);
    auctions.push(batch);
  }
  const bands = new ChangeBatch();
  for (let i = 0; i < 100; i++) bands.push(RowKind.INSERT, [i * 10_000, i * 10_000 + 15_000, i]);
  const bound = (b: number): number => 500_000 + ((b % 5) - 2) * 10_000;
  const bounds = bids.map((_, b) => ChangeBatch.of(b === 0 ? [[RowKind.INSERT, [bound(b)]]] : [[RowKind.UPDATE_BEFORE, [bound(b - 1)]], [RowKind.UPDATE_AFTER, [bound(b)]]]));
  return { bids, auctions, bands, bounds };
}

const count: AggregateCallSpec = { function: 'COUNT', args: [], distinct: false, filter: null, type: bigint, argTypes: [] };
const sum: AggregateCallSpec = { function: 'SUM', args: [2], distinct: false, filter: null, type: SqlTypes.bigint(), argTypes: [bigint] };
const max: AggregateCallSpec = { function: 'MAX', args: [2], distinct: false, filter: null, type: SqlTypes.bigint(), argTypes: [bigint] };

/** One micro-benchmark: an operator spec and how to drive it. */
interface MicroCase {
  readonly name: string;
  readonly spec: OperatorSpec;
  /** Pushes the inputs through an opened operator. */
  drive(operator: StreamOperator, data: ReturnType<typeof inputs>): void;
}

const pushBids = (operator: StreamOperator, data: ReturnType<typeof inputs>): void => {
  for (const batch of data.bids) operator.processBatch(batch, 0);
};

/** Moves the bound (input 1), then pushes a batch of bids (input 0), batch after batch. */
const driveBound = (operator: StreamOperator, data: ReturnType<typeof inputs>): void => {
  for (let b = 0; b < data.bids.length; b++) {
    operator.processBatch(data.bounds[b]!, 1);
    operator.processBatch(data.bids[b]!, 0);
  }
};

const CASES: readonly MicroCase[] = [
  {
    name: 'calc: filter MOD(auction, 123) = 0',
    spec: {
      kind: 'calc',
      condition: Exprs.call('=', [Exprs.call('%', [Exprs.inputRef(0, bigint), Exprs.literal(123, bigint)], bigint), Exprs.literal(0, bigint)], SqlTypes.boolean(false)),
      projection: null,
    },
    drive: pushBids,
  },
  {
    name: 'watermark assigner: dateTime - 4 s, fused filter MOD(auction, 123) = 0',
    spec: {
      kind: 'watermark-assigner',
      watermark: Exprs.call('-', [Exprs.inputRef(3, SqlTypes.timestamp(3, false)), Exprs.literal(4000, SqlTypes.intervalDayTime(false))], SqlTypes.timestamp(3, false)),
      condition: Exprs.call('=', [Exprs.call('%', [Exprs.inputRef(0, bigint), Exprs.literal(123, bigint)], bigint), Exprs.literal(0, bigint)], SqlTypes.boolean(false)),
      projection: [Exprs.inputRef(0, bigint), Exprs.inputRef(2, bigint)],
    },
    drive: pushBids,
  },
  {
    name: 'calc: project 3 of 4 columns',
    spec: { kind: 'calc', condition: null, projection: [Exprs.inputRef(0, bigint), Exprs.inputRef(2, bigint), Exprs.inputRef(3, SqlTypes.timestamp(3, false))] },
    drive: pushBids,
  },
  {
    name: 'group aggregate: COUNT(*), SUM(price) GROUP BY auction',
    spec: { kind: 'group-aggregate', keys: [0], aggregates: [count, sum], inputRetracts: false, emitUpdateBefore: true },
    drive: pushBids,
  },
  {
    name: 'join: auction ⋈ bid on id = auction',
    spec: { kind: 'join', leftKeys: [0], rightKeys: [0], leftArity: 3, rightArity: 4 },
    drive: (operator, data) => {
      operator.processBatch(data.auctions[0]!, 0);
      for (let b = 0; b < data.bids.length; b++) {
        if (b === data.bids.length / 2) operator.processBatch(data.auctions[1]!, 0);
        operator.processBatch(data.bids[b]!, 1);
      }
    },
  },
  {
    name: 'nested-loop join: bid ⋈ 100 bands on price BETWEEN lo AND hi',
    spec: {
      kind: 'join',
      leftKeys: [],
      rightKeys: [],
      leftArity: 4,
      rightArity: 3,
      condition: Exprs.call(
        'AND',
        [Exprs.call('>=', [Exprs.inputRef(2, bigint), Exprs.inputRef(4, bigint)], SqlTypes.boolean(false)), Exprs.call('<=', [Exprs.inputRef(2, bigint), Exprs.inputRef(5, bigint)], SqlTypes.boolean(false))],
        SqlTypes.boolean(false),
      ),
    },
    drive: (operator, data) => {
      operator.processBatch(data.bands, 1);
      for (const batch of data.bids) operator.processBatch(batch, 0);
    },
  },
  {
    name: 'dynamic filter: bid price > bound, bound moving every batch',
    spec: { kind: 'dynamic-filter', inputIndex: 2, comparison: '>' },
    drive: driveBound,
  },
  {
    name: 'nested-loop join: the same, as the join a dynamic filter replaces',
    spec: { kind: 'join', leftKeys: [], rightKeys: [], leftArity: 4, rightArity: 1, rightRetracts: true, condition: Exprs.call('>', [Exprs.inputRef(2, bigint), Exprs.inputRef(4, bigint)], SqlTypes.boolean(false)) },
    drive: driveBound,
  },
  {
    name: 'window aggregate: TUMBLE(1 s) MAX(price) GROUP BY auction',
    spec: { kind: 'window-aggregate', window: { kind: 'TUMBLE', size: 1000 }, timeIndex: 3, keys: [0, 4, 5], aggregates: [max] },
    drive: (operator, data) => {
      for (const batch of data.bids) {
        operator.processBatch(batch, 0);
        operator.processWatermark?.((batch.rows[batch.size - 1]![3] as number) - 500, 0);
      }
      operator.processWatermark?.(Infinity, 0);
    },
  },
  {
    name: 'window aggregate: HOP(2 s, 10 s) COUNT(*) GROUP BY auction',
    spec: { kind: 'window-aggregate', window: { kind: 'HOP', slide: 2000, size: 10_000 }, timeIndex: 3, keys: [0, 4, 5], aggregates: [count] },
    drive: (operator, data) => {
      for (const batch of data.bids) {
        operator.processBatch(batch, 0);
        operator.processWatermark?.((batch.rows[batch.size - 1]![3] as number) - 500, 0);
      }
      operator.processWatermark?.(Infinity, 0);
    },
  },
  {
    name: 'group aggregate: DISTINCT over 4 columns (UNION\'s plan)',
    spec: { kind: 'group-aggregate', keys: [0, 1, 2, 3], aggregates: [], inputRetracts: false, emitUpdateBefore: true },
    drive: pushBids,
  },
  {
    name: 'set operation: EXCEPT ALL of 4 columns, batches alternating sides (rows distinct)',
    spec: { kind: 'set-operation', op: 'EXCEPT', all: true, arity: 4 },
    drive: (operator, data) => data.bids.forEach((batch, b) => operator.processBatch(batch, b % 2)),
  },
  {
    name: 'set operation: INTERSECT ALL keyed by auction, batches alternating sides (2,000 rows, many copies)',
    spec: { kind: 'set-operation', op: 'INTERSECT', all: true, arity: 1 },
    drive: (operator, data) => data.bids.forEach((batch, b) => operator.processBatch(batch, b % 2)),
  },
  {
    name: 'set operation: EXCEPT keyed by auction, batches alternating sides (2,000 rows, many copies)',
    spec: { kind: 'set-operation', op: 'EXCEPT', all: false, arity: 1 },
    drive: (operator, data) => data.bids.forEach((batch, b) => operator.processBatch(batch, b % 2)),
  },
  {
    name: 'Top-N: ROW_NUMBER() per auction ORDER BY price DESC <= 10',
    spec: { kind: 'rank', partitionKeys: [0], orderKeys: [{ index: 2, descending: true }], limit: 10 },
    drive: pushBids,
  },
];

/** Opens a fresh instance of the case's operator. */
function open(spec: OperatorSpec, compiler: ExprCompiler, sink: { records: number }): StreamOperator {
  const node = { id: 'micro', spec, inputs: [], parallelism: 1 } as unknown as JobNode;
  const operator = createOperator(node, compiler, { source: () => { throw new Error('no sources'); }, sink: () => { throw new Error('no sinks'); }, lookup: () => { throw new Error('no lookups'); } });
  void operator.open?.({
    operatorId: 'micro',
    run: operator,
    subtask: 0,
    parallelism: 1,
    maxParallelism: 128,
    checkpointing: false,
    output: { collect: (batch) => void (sink.records += batch.size), emitWatermark: () => {} },
    keyedState: new MemoryStateBackend(),
    processingTime: { now: () => Date.now(), registerTimer: () => () => {} },
    waitFor: () => {},
    warn: () => {},
  });
  return operator;
}

/** Runs the micro-benchmarks (those whose name starts with one of `only`, when given) and logs input rows/s per operator. */
export async function runOperatorMicroBench(log: (line: string) => void, only?: readonly string[]): Promise<void> {
  const data = inputs();
  const compiler = new ExprCompiler(FunctionRegistry.withBuiltins());
  const sink = { records: 0 };
  const bench = new Bench({ time: 1000, warmupTime: 200 });
  for (const c of CASES.filter((c) => only === undefined || only.some((o) => c.name.startsWith(o)))) bench.add(c.name, () => c.drive(open(c.spec, compiler, sink), data));
  await bench.run();
  log(`operator micro-benchmarks: ${ROWS} input rows per iteration, fresh operator each time`);
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') {
      log(`${task.name.padEnd(60)} ${result.state}${'error' in result ? `: ${String(result.error)}` : ''}`);
      continue;
    }
    const rowsPerSecond = ROWS / (result.period / 1000);
    log(`${task.name.padEnd(60)} ${(rowsPerSecond / 1e6).toFixed(2).padStart(7)} M rows/s  ±${result.latency.rme.toFixed(1)}%  (${task.runs} runs)`);
  }
}
