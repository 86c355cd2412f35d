/** The job graph is the serialisable contract between planner and runtime: it survives JSON, bigints included, and its fingerprint ignores parallelism. */
import { describe, expect, it } from 'vitest';
import { SqlTypes } from '../../src/common/sql-type.js';
import { deserializeJobGraph, graphFingerprint, JOB_GRAPH_VERSION, serializeJobGraph, type JobGraph } from '../../src/dataflow/job-graph.js';
import { Exprs } from '../../src/expr/scalar-expr.js';

const graph: JobGraph = {
  version: JOB_GRAPH_VERSION,
  name: 'job',
  nodes: [
    { id: '1-values', spec: { kind: 'values', rows: [[1, 12345678901234567890n]] }, parallelism: 1, inputs: [], schema: [{ name: 'd', type: SqlTypes.decimal(20, 0) }] },
    {
      id: '2-calc',
      spec: { kind: 'calc', condition: null, projection: [Exprs.literal(5n, SqlTypes.decimal(2, 0))] },
      parallelism: 4,
      inputs: [{ from: '1-values', partitioning: { kind: 'forward' } }],
      schema: [{ name: 'x', type: SqlTypes.decimal(2, 0) }],
    },
  ],
};

describe('job graph', () => {
  it('round-trips through JSON, bigint values included', () => {
    expect(deserializeJobGraph(serializeJobGraph(graph))).toEqual(graph);
  });

  it('round-trips binary strings (a literal, a row of values) as Uint8Arrays, and refuses a malformed tag', () => {
    const bytes = Uint8Array.from([0, 0x0a, 0xff]);
    const withBytes: JobGraph = {
      ...graph,
      nodes: [
        { id: '1-values', spec: { kind: 'values', rows: [[bytes, new Uint8Array(0)]] }, parallelism: 1, inputs: [], schema: [{ name: 'b', type: SqlTypes.bytes() }, { name: 'e', type: SqlTypes.binary(1) }] },
        { ...graph.nodes[1]!, spec: { kind: 'calc', condition: null, projection: [Exprs.literal(bytes, SqlTypes.binary(3, false))] } },
      ],
    };
    const text = serializeJobGraph(withBytes);
    expect(text).toContain('{"$bytes":"000aff"}');
    const back = deserializeJobGraph(text);
    expect(back).toEqual(withBytes);
    const spec = back.nodes[0]!.spec;
    if (spec.kind !== 'values') throw new Error(`expected values, got ${spec.kind}`);
    const row = spec.rows[0]!;
    expect(row[0]).toBeInstanceOf(Uint8Array);
    expect(Array.from(row[0] as Uint8Array)).toEqual([0, 10, 255]);
    expect(() => deserializeJobGraph('{"x":{"$bytes":"abc"}}')).toThrow('malformed binary string tag {"$bytes":"abc"}');
  });

  it('has a fingerprint that depends on what it computes, not on its name or parallelism', () => {
    const rescaled = { ...graph, name: 'other', nodes: graph.nodes.map((n) => ({ ...n, parallelism: 1 })) };
    expect(graphFingerprint(rescaled)).toBe(graphFingerprint(graph));
    const changed = { ...graph, nodes: [graph.nodes[0]!, { ...graph.nodes[1]!, spec: { kind: 'calc' as const, condition: null, projection: null } }] };
    expect(graphFingerprint(changed)).not.toBe(graphFingerprint(graph));
  });
});
