/**
 * Lowering to the job graph fuses the Calcs around a watermark assigner into it when nothing else
 * reads them; the fused operator emits exactly what the three separate operators emit (records
 * and watermarks) on random batches, and what a plain recomputation gives. Equal operators over
 * one input become one job node, unless their literals differ in ways JSON would hide or they call
 * a non-deterministic function (the same plan node read twice is one node either way).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../src/common/schema.js';
import { SqlTypes } from '../../src/common/sql-type.js';
import type { WatermarkAssignerSpec } from '../../src/dataflow/job-graph.js';
import { ExprCompiler } from '../../src/expr/expr-compiler.js';
import { FunctionRegistry } from '../../src/expr/function-registry.js';
import { Exprs } from '../../src/expr/scalar-expr.js';
import { INSERT_ONLY } from '../../src/plan/changelog/changelog-mode.js';
import type { PhysicalNode } from '../../src/plan/physical/physical-node.js';
import { toJobGraph } from '../../src/plan/physical/to-job-graph.js';
import { CalcOperator } from '../../src/runtime/operators/calc-operator.js';
import { WatermarkAssignerOperator } from '../../src/runtime/operators/watermark-assigner-operator.js';
import type { StreamOperator } from '../../src/runtime/stream-operator.js';
import { OperatorHarness, type Change } from '../runtime/operator-harness.js';

const id = SqlTypes.bigint();
const ts = SqlTypes.timestamp(3);
const payload = SqlTypes.row([{ name: 'name', type: SqlTypes.string() }, { name: 'ts', type: ts }]);
const schema = (...types: (typeof id)[]): Schema => types.map((type, i) => ({ name: `c${i}`, type }));

/** `[id, payload]` rows; `ts AS payload.ts`, `WATERMARK FOR ts AS ts - INTERVAL '4' SECOND`; `SELECT id, ts WHERE id % 3 <> 0`. */
const values: PhysicalNode = { kind: 'values', rows: [], schema: schema(id, payload), mode: INSERT_ONLY };
const computedColumns = [Exprs.inputRef(0, id), Exprs.inputRef(1, payload), Exprs.field(Exprs.inputRef(1, payload), 1, ts)];
const watermark = Exprs.call('-', [Exprs.inputRef(2, ts), Exprs.literal(4000, SqlTypes.intervalDayTime(false))], ts);
const condition = Exprs.call('<>', [Exprs.call('%', [Exprs.inputRef(0, id), Exprs.literal(3, id)], id), Exprs.literal(0, id)], SqlTypes.boolean());
const projection = [Exprs.inputRef(0, id), Exprs.inputRef(2, ts)];
const computed: PhysicalNode = {
  kind: 'calc',
  input: values,
  condition: null,
  projection: computedColumns,
  schema: schema(id, payload, ts),
  mode: INSERT_ONLY,
};
const assigner: PhysicalNode = {
  kind: 'watermark-assigner',
  input: computed,
  rowtimeIndex: 2,
  watermark,
  schema: computed.schema,
  mode: INSERT_ONLY,
};
const query: PhysicalNode = {
  kind: 'calc',
  input: assigner,
  condition,
  projection,
  schema: schema(id, ts),
  mode: INSERT_ONLY,
};

/** Two views over equal assigners (planned once per view): `query`, and the same without its filter. */
const twoViews: PhysicalNode = {
  kind: 'union',
  inputs: [query, { ...query, input: JSON.parse(JSON.stringify(assigner)) as PhysicalNode, condition: null }],
  schema: query.schema,
  mode: INSERT_ONLY,
} as PhysicalNode;

const compiler = new ExprCompiler(FunctionRegistry.withBuiltins());

/** Pushes each batch through `operators` in a chain (an operator without processWatermark forwards watermarks); returns, per batch, what the last one emitted: records, then watermarks. */
async function run(operators: readonly StreamOperator[], batches: readonly Change[][]): Promise<[Change[], number[]][]> {
  const harnesses = await Promise.all(operators.map((o) => OperatorHarness.open(o)));
  return batches.map((batch) => {
    let changes: Change[] = batch;
    let watermarks: number[] = [];
    for (const h of harnesses) {
      const before = h.watermarks.length;
      const emitted = changes.length > 0 ? h.push(changes) : [];
      for (const w of watermarks) {
        if (h.operator.processWatermark === undefined) h.watermarks.push(w);
        else h.watermark(w);
      }
      changes = emitted;
      watermarks = h.watermarks.slice(before);
    }
    return [changes, watermarks];
  });
}

describe('job graph lowering of watermark assigners', () => {
  it('fuses the computed column below and the filter and projection above into the assigner', () => {
    const graph = toJobGraph([query], { name: 'job', parallelism: 1 });
    expect(graph.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner']);
    const spec = graph.nodes[1]!.spec as WatermarkAssignerSpec;
    expect(spec.projection).toEqual([Exprs.inputRef(0, id), Exprs.field(Exprs.inputRef(1, payload), 1, ts)]);
    expect(graph.nodes[1]!.schema).toEqual(query.schema);
  });

  it('keeps a Calc that another node also reads; the assigner passes rows through when only Calcs read it', () => {
    const other: PhysicalNode = { ...query, condition: null };
    const union: PhysicalNode = { kind: 'union', inputs: [query, other], schema: query.schema, mode: INSERT_ONLY } as PhysicalNode;
    const graph = toJobGraph([union], { name: 'job', parallelism: 1, reuseSubplans: false });
    expect(graph.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner', 'calc', 'calc', 'union']);
    const spec = graph.nodes[1]!.spec as WatermarkAssignerSpec;
    expect(spec.condition).toBeNull();
    expect(spec.projection).toEqual(computedColumns);
    const reused = toJobGraph([union], { name: 'job', parallelism: 1 });
    expect(reused.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner', 'calc', 'calc', 'union']);
    expect(reused.nodes[1]!.spec).toMatchObject({ condition: null, projection: null });
    expect(reused.nodes[1]!.schema).toEqual(values.schema);
    const exchange: PhysicalNode = { kind: 'exchange', input: assigner, keys: null, schema: assigner.schema, mode: INSERT_ONLY };
    const mixed = toJobGraph([{ kind: 'union', inputs: [query, exchange], schema: query.schema, mode: INSERT_ONLY } as PhysicalNode], { name: 'job', parallelism: 1 });
    expect((mixed.nodes[1]!.spec as WatermarkAssignerSpec).projection).toEqual(computedColumns);
  });

  it('computes the watermark once for two views over equal assigners, fusing only when reuse is off', () => {
    const reused = toJobGraph([twoViews], { name: 'job', parallelism: 1 });
    expect(reused.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner', 'calc', 'calc', 'union']);
    expect(reused.nodes.slice(2, 4).map((n) => n.inputs[0]!.from)).toEqual([reused.nodes[1]!.id, reused.nodes[1]!.id]);
    const copy = (node: PhysicalNode): PhysicalNode => JSON.parse(JSON.stringify(node)) as PhysicalNode;
    const union = twoViews;
    const separate = toJobGraph([union], { name: 'job', parallelism: 1, reuseSubplans: false });
    expect(separate.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner', 'values', 'watermark-assigner', 'union']);
    const twice = toJobGraph([{ kind: 'union', inputs: [query, { ...query, input: copy(assigner) }], schema: query.schema, mode: INSERT_ONLY } as PhysicalNode], { name: 'job', parallelism: 1 });
    expect(twice.nodes.map((n) => n.spec.kind)).toEqual(['values', 'watermark-assigner', 'union']);
  });

  it('runs the fused operator, and a pass-through assigner with the Calc above computing the column below, exactly as the Calc, assigner and Calc they replace', async () => {
    const fused = toJobGraph([query], { name: 'job', parallelism: 1 }).nodes[1]!.spec as WatermarkAssignerSpec;
    const passThrough = toJobGraph([twoViews], { name: 'job', parallelism: 1 }).nodes;
    const passingAssigner = passThrough[1]!.spec as WatermarkAssignerSpec;
    const inlinedCalc = passThrough[2]!.spec as Extract<typeof passThrough[2]['spec'], { kind: 'calc' }>;
    const row = fc.tuple(fc.option(fc.integer({ min: -20, max: 20 }), { nil: null }), fc.option(fc.tuple(fc.constant('n'), fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null })), { nil: null }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(row, { maxLength: 8 }), { maxLength: 10 }), async (rows) => {
        const batches = rows.map((batch) => batch.map((r) => ['+I', r] as Change));
        const separate = await run(
          [
            new CalcOperator({ kind: 'calc', condition: null, projection: computedColumns }, compiler),
            new WatermarkAssignerOperator({ kind: 'watermark-assigner', watermark: watermark, condition: null, projection: null }, compiler),
            new CalcOperator({ kind: 'calc', condition, projection }, compiler),
          ],
          batches,
        );
        let current = -Infinity;
        const expected = rows.map((batch): [Change[], number[]] => {
          const times = batch.map(([, p]) => p?.[1] ?? null).filter((t): t is number => t !== null);
          const advanced = times.length > 0 && Math.max(...times) - 4000 > current;
          if (advanced) current = Math.max(...times) - 4000;
          return [batch.filter(([i]) => i !== null && i % 3 !== 0).map(([i, p]) => ['+I', [i, p?.[1] ?? null]] as Change), advanced ? [current] : []];
        });
        expect(separate).toEqual(expected);
        expect(await run([new WatermarkAssignerOperator(fused, compiler)], batches)).toEqual(expected);
        expect(await run([new WatermarkAssignerOperator(passingAssigner, compiler), new CalcOperator(inlinedCalc, compiler)], batches)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});

describe('job graph sharing of equal sub-plans', () => {
  const double = SqlTypes.double();
  const calcOf = (literal: unknown, type = double): PhysicalNode => ({
    kind: 'calc',
    input: values,
    condition: null,
    projection: [Exprs.literal(literal, type)],
    schema: [{ name: 'x', type }],
    mode: INSERT_ONLY,
  });
  const unionOf = (a: PhysicalNode, b: PhysicalNode): PhysicalNode => ({ kind: 'union', inputs: [a, b], schema: a.schema, mode: INSERT_ONLY }) as PhysicalNode;
  const kinds = (root: PhysicalNode, options: { reuseSubplans?: boolean } = {}): string[] => toJobGraph([root], { name: 'job', parallelism: 1, ...options }).nodes.map((n) => n.spec.kind);

  it('runs equal operators over one input once, unless told not to', () => {
    expect(kinds(unionOf(calcOf(1.5), calcOf(1.5)))).toEqual(['values', 'calc', 'union']);
    expect(kinds(unionOf(calcOf(1.5), calcOf(1.5)), { reuseSubplans: false })).toEqual(['values', 'calc', 'calc', 'union']);
  });

  it('tells apart literals that JSON would confuse', () => {
    expect(kinds(unionOf(calcOf(Infinity), calcOf(null)))).toEqual(['values', 'calc', 'calc', 'union']);
    expect(kinds(unionOf(calcOf(0), calcOf(-0)))).toEqual(['values', 'calc', 'calc', 'union']);
    expect(kinds(unionOf(calcOf(1n, id), calcOf('1n', SqlTypes.string())))).toEqual(['values', 'calc', 'calc', 'union']);
    const map = SqlTypes.map(SqlTypes.string(), SqlTypes.int());
    expect(kinds(unionOf(calcOf(new Map([['a', 1]]), map), calcOf(new Map([['b', 2]]), map)))).toEqual(['values', 'calc', 'calc', 'union']);
    expect(kinds(unionOf(calcOf(new Map([['a', 1]]), map), calcOf(new Map([['a', 1]]), map)))).toEqual(['values', 'calc', 'union']);
  });

  it('never shares an operator calling a non-deterministic function', () => {
    const random: PhysicalNode = { ...(calcOf(0) as Extract<PhysicalNode, { kind: 'calc' }>), projection: [Exprs.call('RAND', [], double)] };
    const options = { name: 'job', parallelism: 1, isDeterministicFunction: (name: string) => name !== 'RAND' };
    expect(toJobGraph([unionOf(random, random)], options).nodes.map((n) => n.spec.kind)).toEqual(['values', 'calc', 'union']);
    expect(toJobGraph([unionOf(random, { ...random })], options).nodes.map((n) => n.spec.kind)).toEqual(['values', 'calc', 'calc', 'union']);
  });
});

describe('job graph lowering of set operations', () => {
  const columns = schema(id, SqlTypes.string());
  const scan = (name: string): PhysicalNode => ({ kind: 'values', rows: [[1, name]], schema: columns, mode: INSERT_ONLY });
  const byAllColumns = (input: PhysicalNode): PhysicalNode => ({ kind: 'exchange', input, keys: [0, 1], schema: columns, mode: INSERT_ONLY });
  const except: PhysicalNode = { kind: 'set-operation', op: 'EXCEPT', all: true, left: byAllColumns(scan('a')), right: byAllColumns(scan('b')), schema: columns, mode: INSERT_ONLY };

  it('reads both inputs hash-partitioned by every column, at the configured parallelism, with the state TTL of unbounded-state operators', () => {
    const graph = toJobGraph([except], { name: 'job', parallelism: 4, stateTtlMillis: 60_000 });
    const node = graph.nodes.find((n) => n.spec.kind === 'set-operation')!;
    expect(node.spec).toEqual({ kind: 'set-operation', op: 'EXCEPT', all: true, arity: 2 });
    expect(node.inputs.map((edge) => edge.partitioning)).toEqual([{ kind: 'hash', keys: [0, 1] }, { kind: 'hash', keys: [0, 1] }]);
    expect(node.parallelism).toBe(4);
    expect(node.stateTtlMillis).toBe(60_000);
    expect(toJobGraph([except], { name: 'job', parallelism: 4 }).nodes.find((n) => n.spec.kind === 'set-operation')!.stateTtlMillis).toBeUndefined();
  });
});

describe('job graph lowering of semi and anti joins', () => {
  const columns = schema(id, SqlTypes.string());
  const scan = (name: string): PhysicalNode => ({ kind: 'values', rows: [[1, name]], schema: columns, mode: INSERT_ONLY });
  const byKey = (input: PhysicalNode): PhysicalNode => ({ kind: 'exchange', input, keys: [0], schema: columns, mode: INSERT_ONLY });
  const semi = (anti: boolean, nullAwareKey?: readonly [number, number]): PhysicalNode => ({
    kind: 'semi-join',
    anti,
    left: byKey(scan('a')),
    right: byKey(scan('b')),
    leftKeys: [0],
    rightKeys: [0],
    condition: null,
    ...(nullAwareKey === undefined ? {} : { nullAwareKey }),
    schema: columns,
    mode: INSERT_ONLY,
  });

  it('reads both inputs hash-partitioned by the keys, with the state TTL of unbounded-state operators', () => {
    const graph = toJobGraph([semi(false)], { name: 'job', parallelism: 4, stateTtlMillis: 60_000 });
    const node = graph.nodes.find((n) => n.spec.kind === 'semi-join')!;
    expect(node.spec).toEqual({ kind: 'semi-join', anti: false, leftKeys: [0], rightKeys: [0], leftArity: 2, rightArity: 2 });
    expect(node.inputs.map((edge) => edge.partitioning)).toEqual([{ kind: 'hash', keys: [0] }, { kind: 'hash', keys: [0] }]);
    expect(node.stateTtlMillis).toBe(60_000);
  });

  it('carries the null-aware key of an anti join', () => {
    const node = toJobGraph([semi(true, [1, 1])], { name: 'job', parallelism: 1 }).nodes.find((n) => n.spec.kind === 'semi-join')!;
    expect(node.spec).toEqual({ kind: 'semi-join', anti: true, leftKeys: [0], rightKeys: [0], leftArity: 2, rightArity: 2, nullAwareKey: [1, 1] });
    expect(node.stateTtlMillis).toBeUndefined();
  });
});
