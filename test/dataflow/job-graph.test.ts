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

  it('has a fingerprint that depends on what it computes, not on its name or parallelism', () => {
    const rescaled = { ...graph, name: 'other', nodes: graph.nodes.map((n) => ({ ...n, parallelism: 1 })) };
    expect(graphFingerprint(rescaled)).toBe(graphFingerprint(graph));
    const changed = { ...graph, nodes: [graph.nodes[0]!, { ...graph.nodes[1]!, spec: { kind: 'calc' as const, condition: null, projection: null } }] };
    expect(graphFingerprint(changed)).not.toBe(graphFingerprint(graph));
  });
});
