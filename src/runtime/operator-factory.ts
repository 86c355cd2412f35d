/** Builds the operator or source reader for each job-graph spec: one implementation per kind. */
import type { ExprCompiler } from '../expr/expr-compiler.js';
import type { JobNode } from '../dataflow/job-graph.js';
import { CalcOperator } from './operators/calc-operator.js';
import { CorrelateOperator } from './operators/correlate-operator.js';
import { ExpandOperator } from './operators/expand-operator.js';
import { DynamicFilterOperator } from './operators/dynamic-filter-operator.js';
import { GroupAggregateOperator } from './operators/group-aggregate-operator.js';
import { IntervalJoinOperator } from './operators/interval-join-operator.js';
import { JoinOperator } from './operators/join-operator.js';
import { OuterJoinOperator } from './operators/outer-join-operator.js';
import { OverAggregateOperator } from './operators/over-aggregate-operator.js';
import { OverWindowOperator } from './operators/over-window-operator.js';
import { LookupJoinOperator } from './operators/lookup-join-operator.js';
import { TemporalJoinOperator } from './operators/temporal-join-operator.js';
import { RankOperator } from './operators/rank-operator.js';
import { RetractableRankOperator } from './operators/retractable-rank-operator.js';
import { NullAwareAntiJoinOperator } from './operators/null-aware-anti-join-operator.js';
import { SemiJoinOperator } from './operators/semi-join-operator.js';
import { SetOperationOperator } from './operators/set-operation-operator.js';
import { SessionWindowAggregateOperator } from './operators/session-window-aggregate-operator.js';
import { WindowAggregateOperator } from './operators/window-aggregate-operator.js';
import { WindowJoinOperator } from './operators/window-join-operator.js';
import { WindowRankOperator } from './operators/window-rank-operator.js';
import { WindowTableOperator } from './operators/window-table-operator.js';
import { SinkOperator } from './operators/sink-operator.js';
import { SinkUpsertMaterializerOperator } from './operators/sink-upsert-materializer-operator.js';
import { ChangelogNormalizeOperator } from './operators/changelog-normalize-operator.js';
import { UnionOperator } from './operators/union-operator.js';
import { UpdatingOverAggregateOperator } from './operators/updating-over-aggregate-operator.js';
import { ValuesReader } from './operators/values-reader.js';
import { WatermarkAssignerOperator } from './operators/watermark-assigner-operator.js';
import type { LookupFactory } from './lookup-source.js';
import type { SinkFactory } from './sink-writer.js';
import type { SourceFactory, SourceReader } from './source-reader.js';
import type { StreamOperator } from './stream-operator.js';

/** Where connectors come from: the engine registers them; the runtime only asks by name. */
export interface ConnectorResolver {
  source(connector: string): SourceFactory;
  sink(connector: string): SinkFactory;
  /** The lookup side of a connector (lookup joins); throws when the connector has none. */
  lookup(connector: string): LookupFactory;
}

/** True for specs that run as source tasks rather than operators. */
export function isSourceNode(node: JobNode): boolean {
  return node.spec.kind === 'source' || node.spec.kind === 'values';
}

/** A new reader for one subtask of a source node. */
export function createSourceReader(node: JobNode, connectors: ConnectorResolver): SourceReader {
  const spec = node.spec;
  if (spec.kind === 'values') return new ValuesReader(spec);
  if (spec.kind === 'source') return connectors.source(spec.connector).createReader(spec);
  throw new Error(`node ${node.id} is not a source`);
}

/** A new operator instance for one subtask of a non-source node. */
export function createOperator(node: JobNode, compiler: ExprCompiler, connectors: ConnectorResolver): StreamOperator {
  const spec = node.spec;
  switch (spec.kind) {
    case 'calc':
      return new CalcOperator(spec, compiler);
    case 'expand':
      return new ExpandOperator(spec, compiler);
    case 'correlate':
      return new CorrelateOperator(spec, compiler);
    case 'watermark-assigner':
      return new WatermarkAssignerOperator(spec, compiler);
    case 'group-aggregate':
      return new GroupAggregateOperator(spec);
    case 'window-aggregate':
      return spec.window.kind === 'SESSION' ? new SessionWindowAggregateOperator(spec) : new WindowAggregateOperator(spec);
    case 'join':
      return spec.joinType === undefined ? new JoinOperator(spec, compiler) : new OuterJoinOperator(spec, compiler);
    case 'semi-join':
      return spec.nullAwareKey === undefined ? new SemiJoinOperator(spec, compiler) : new NullAwareAntiJoinOperator(spec);
    case 'interval-join':
      return new IntervalJoinOperator(spec, compiler);
    case 'temporal-join':
      return new TemporalJoinOperator(spec, compiler);
    case 'lookup-join':
      return new LookupJoinOperator(spec, compiler, connectors.lookup(spec.lookup.connector));
    case 'rank':
      return spec.rankType === undefined && spec.inputRetracts !== true ? new RankOperator(spec) : new RetractableRankOperator(spec);
    case 'over-aggregate':
      return spec.mode === 'updating' ? new UpdatingOverAggregateOperator(spec) : new OverAggregateOperator(spec);
    case 'over-window':
      return new OverWindowOperator(spec);
    case 'window-table':
      return new WindowTableOperator(spec);
    case 'window-rank':
      return new WindowRankOperator(spec);
    case 'window-join':
      return new WindowJoinOperator(spec);
    case 'dynamic-filter':
      return new DynamicFilterOperator(spec);
    case 'union':
      return new UnionOperator();
    case 'set-operation':
      return new SetOperationOperator(spec);
    case 'sink':
      return new SinkOperator(connectors.sink(spec.connector).createWriter(spec), compiler.timeZone);
    case 'sink-upsert-materializer':
      return new SinkUpsertMaterializerOperator(spec, node.schema);
    case 'changelog-normalize':
      return new ChangelogNormalizeOperator(spec, node.schema);
    case 'source':
    case 'values':
      throw new Error(`node ${node.id} is a source`);
  }
}
