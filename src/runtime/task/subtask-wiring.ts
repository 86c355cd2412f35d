/**
 * Builds the subtasks of a job graph and wires them: every producer subtask gets an output
 * router whose channels lead into the consumer subtasks its edge reaches (the subtask of the same
 * index for forward edges, all of them for hash, broadcast and rebalance).
 */
import { UTC_ZONE } from '../../common/time-zone.js';
import type { JobGraph, JobNode } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import { createOperator, createSourceReader, isSourceNode, type ConnectorResolver } from '../operator-factory.js';
import { createStateBackend, stateBackendKindFromEnv, type StateBackendKind } from '../state/state-backend-factory.js';
import type { SnapshottingStateBackend } from '../state/snapshotting-state-backend.js';
import type { StreamOperator } from '../stream-operator.js';
import type { Channel } from './channel.js';
import { OperatorRunner, type BarrierHandler } from './operator-runner.js';
import { OutputRouter, type OutputTarget } from './output-router.js';
import { SourceTask, type SourceTaskHost } from './source-task.js';

/** One subtask of a running job: a source task, or an operator with its runner; each with its own keyed state. */
export interface Subtask {
  readonly node: JobNode;
  readonly index: number;
  readonly output: OutputRouter;
  readonly state: SnapshottingStateBackend;
  readonly runner?: OperatorRunner;
  readonly operator?: StreamOperator;
  readonly source?: SourceTask;
}

/** What wiring needs to create operators and readers. */
export interface WiringServices {
  readonly compiler: ExprCompiler;
  readonly connectors: ConnectorResolver;
  readonly maxParallelism: number;
  /** Processing time (epoch ms) for state TTL; the wall clock unless a test drives time. */
  readonly stateClock?: () => number;
  /** Keyed state remembers the keys changed since the last completed checkpoint (incremental checkpoints). */
  readonly trackStateChanges?: boolean;
  /** The keyed state backend (`state.backend.*`); the heap backend when absent. */
  readonly stateBackend?: StateBackendSettings;
}

/** Which keyed state backend a job's subtasks get, and how (`state.backend.*`). */
export interface StateBackendSettings {
  /** `state.backend.type`, resolved: `hashmap` or `lmdb` (`rocksdb`). */
  readonly kind: StateBackendKind;
  /** Where the disk backend creates its directories (`state.backend.rocksdb.localdir`); the OS's temporary directory when absent. */
  readonly localDir?: string;
  /** Entries of the disk backend's write-back cache per subtask (`state.backend.lmdb.cache-entries`). */
  readonly cacheEntries?: number;
}

/**
 * The backend of a subtask: the one the job asked for; for the default heap backend, the one
 * `WEIR_TEST_STATE_BACKEND` asks for (tests), except that a node with a state time-to-live stays
 * on the heap when that is the disk backend, which does not support one yet.
 */
function backendKindOf(configured: StateBackendKind | undefined, fromEnv: StateBackendKind, hasTtl: boolean): StateBackendKind {
  if (configured !== undefined && configured !== 'hashmap') return configured;
  return fromEnv === 'lmdb' && hasTtl ? 'hashmap' : fromEnv;
}

/** Every subtask of the graph, in the graph's (topological) order. */
export function wireSubtasks(graph: JobGraph, services: WiringServices, sources: SourceTaskHost, barriers: BarrierHandler): Subtask[] {
  const consumers = new Map<string, { node: JobNode; input: number }[]>();
  for (const node of graph.nodes) {
    node.inputs.forEach((edge, input) => {
      const list = consumers.get(edge.from) ?? [];
      list.push({ node, input });
      consumers.set(edge.from, list);
    });
  }
  const fromEnv = stateBackendKindFromEnv();
  const { localDir, cacheEntries } = services.stateBackend ?? {};
  const created: SnapshottingStateBackend[] = [];
  try {
    return wire();
  } catch (error) {
    // Backends created so far may hold directories (the disk backend): released before failing.
    for (const state of created) state.dispose();
    throw error;
  }

  function wire(): Subtask[] {
    const runners = new Map<string, OperatorRunner[]>();
    const byNode = new Map<string, Subtask[]>();
    // The graph's zone (or the node's part's), not the session's: a restored job computes in the zone it was planned in.
    const compilerOf = (node: JobNode): ExprCompiler => services.compiler.withTimeZone(node.localTimeZone ?? graph.localTimeZone ?? UTC_ZONE);
    // Consumers are created first (reverse topological order), so producers can connect to them.
    for (const node of [...graph.nodes].reverse()) {
      const subtasks: Subtask[] = [];
      for (let index = 0; index < node.parallelism; index++) {
        const targets: OutputTarget[] = (consumers.get(node.id) ?? []).map(({ node: consumer, input }) => {
          const edge = consumer.inputs[input]!;
          const consumerRunners = runners.get(consumer.id)!;
          const rebalance = edge.partitioning.kind === 'forward' && node.parallelism !== consumer.parallelism;
          const channels = consumerRunners.map((runner, target): Channel | undefined => {
            if (edge.partitioning.kind !== 'forward' || rebalance) return runner.channel(input, index);
            return index === target ? runner.channel(input, 0) : undefined;
          });
          return { partitioning: rebalance ? { kind: 'rebalance' } : edge.partitioning, channels };
        });
        const output = new OutputRouter(targets, index, services.maxParallelism);
        const ttl = node.stateTtlMillis === undefined ? undefined : { ttlMillis: node.stateTtlMillis, ...(services.stateClock === undefined ? {} : { clock: services.stateClock }) };
        const kind = backendKindOf(services.stateBackend?.kind, fromEnv, ttl !== undefined);
        const state = createStateBackend(kind, {
          maxParallelism: services.maxParallelism,
          trackChanges: services.trackStateChanges === true,
          ...(ttl === undefined ? {} : { ttl }),
          ...(localDir === undefined ? {} : { localDir }),
          ...(cacheEntries === undefined ? {} : { cacheEntries }),
        });
        created.push(state);
        if (isSourceNode(node)) {
          subtasks.push({ node, index, output, state, source: new SourceTask(createSourceReader(node, services.connectors), output, sources, node.sourceIdleTimeoutMillis) });
        } else {
          const operator = createOperator(node, compilerOf(node), services.connectors);
          const channelsPerInput = node.inputs.map((edge) => channelCount(graph, edge.from, edge.partitioning.kind, node.parallelism));
          subtasks.push({ node, index, output, state, operator, runner: new OperatorRunner(operator, output, channelsPerInput, barriers) });
        }
      }
      runners.set(node.id, subtasks.flatMap((s) => (s.runner === undefined ? [] : [s.runner])));
      byNode.set(node.id, subtasks);
    }
    return graph.nodes.flatMap((node) => byNode.get(node.id)!);
  }
}

/** How many producer subtasks feed one consumer subtask over an edge. */
function channelCount(graph: JobGraph, producerId: string, partitioning: string, consumerParallelism: number): number {
  const producer = graph.nodes.find((n) => n.id === producerId)!;
  return partitioning === 'forward' && producer.parallelism === consumerParallelism ? 1 : producer.parallelism;
}
