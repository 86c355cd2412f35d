/**
 * A running job: subtasks built from the job graph and wired by their edges, source tasks
 * driving data through them, and the job's lifecycle (RUNNING → FINISHED | FAILED | CANCELED).
 * Everything runs on the calling thread; subtasks of one operator are separate instances.
 */
import { WeirError } from '../common/errors.js';
import type { JobGraph, JobNode } from '../dataflow/job-graph.js';
import type { ExprCompiler } from '../expr/expr-compiler.js';
import { createOperator, createSourceReader, isSourceNode, type ConnectorResolver } from './operator-factory.js';
import { MemoryStateBackend } from './state/memory-state-backend.js';
import type { StreamOperator } from './stream-operator.js';
import type { Channel } from './task/channel.js';
import { OperatorRunner } from './task/operator-runner.js';
import { OutputRouter, type OutputTarget } from './task/output-router.js';
import { SourceTask } from './task/source-task.js';

/** Where a job is in its life. */
export type JobStatus = 'CREATED' | 'RUNNING' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** What a job needs from its surroundings. */
export interface JobServices {
  readonly compiler: ExprCompiler;
  readonly connectors: ConnectorResolver;
  /** Key groups per keyed operator (`pipeline.max-parallelism`). */
  readonly maxParallelism: number;
  /** Receives non-fatal problems (skipped records, retractions of unknown keys). */
  warn(message: string): void;
}

/** Per-node counters. */
export interface NodeMetrics {
  readonly node: string;
  readonly recordsIn: number;
  readonly recordsOut: number;
}

interface Subtask {
  readonly node: JobNode;
  readonly index: number;
  readonly output: OutputRouter;
  readonly runner?: OperatorRunner;
  readonly operator?: StreamOperator;
  readonly source?: SourceTask;
}

/** One execution of a job graph. */
export class JobExecution {
  private state: JobStatus = 'CREATED';
  private failure: unknown;
  private readonly subtasks: Subtask[] = [];
  private readonly pending = new Set<Promise<void>>();
  private finished!: Promise<void>;

  constructor(
    readonly graph: JobGraph,
    private readonly services: JobServices,
  ) {}

  /** The job's status. */
  get status(): JobStatus {
    return this.state;
  }

  /** The error that failed the job, if it failed. */
  get error(): unknown {
    return this.failure;
  }

  /** True once the job has stopped processing (failed or cancelled). */
  get stopped(): boolean {
    return this.state === 'FAILED' || this.state === 'CANCELED';
  }

  /** Builds and opens every subtask, then starts the sources. Resolves once running. */
  async start(): Promise<void> {
    if (this.state !== 'CREATED') throw new WeirError('INTERNAL_ERROR', `job '${this.graph.name}' was already started`);
    this.state = 'RUNNING';
    try {
      this.build();
      for (const subtask of [...this.subtasks].reverse()) {
        await subtask.operator?.open?.(this.operatorContext(subtask));
        await subtask.source?.reader.open({ subtask: subtask.index, parallelism: subtask.node.parallelism, warn: (m) => this.warn(subtask.node, m) });
      }
    } catch (error) {
      await this.fail(error);
      this.finished = Promise.resolve();
      return;
    }
    const sources = this.subtasks.filter((s) => s.source !== undefined).map((s) => s.source!.run());
    this.finished = Promise.all(sources).then(
      () => this.complete(),
      (error: unknown) => this.fail(error),
    );
  }

  /** Resolves when the job has reached a final status. */
  async result(): Promise<JobStatus> {
    await this.finished;
    await this.settlePending();
    return this.state;
  }

  /** Stops the job without waiting for its sources to end. */
  async cancel(): Promise<void> {
    if (this.state !== 'RUNNING') return;
    this.state = 'CANCELED';
    await this.finished;
    await this.closeAll();
  }

  /** Records in and out per node, summed over subtasks. */
  metrics(): NodeMetrics[] {
    return this.graph.nodes.map((node) => {
      const subtasks = this.subtasks.filter((s) => s.node === node);
      return {
        node: node.id,
        recordsIn: subtasks.reduce((n, s) => n + (s.runner?.recordsIn ?? 0), 0),
        recordsOut: subtasks.reduce((n, s) => n + s.output.recordsOut, 0),
      };
    });
  }

  private build(): void {
    const byNode = new Map<string, Subtask[]>();
    const consumers = new Map<string, { node: JobNode; input: number }[]>();
    for (const node of this.graph.nodes) {
      node.inputs.forEach((edge, input) => {
        const list = consumers.get(edge.from) ?? [];
        list.push({ node, input });
        consumers.set(edge.from, list);
      });
    }
    const runners = new Map<string, OperatorRunner[]>();
    // Consumers are created first (reverse topological order), so producers can connect to them.
    for (const node of [...this.graph.nodes].reverse()) {
      const subtasks: Subtask[] = [];
      for (let index = 0; index < node.parallelism; index++) {
        const targets: OutputTarget[] = (consumers.get(node.id) ?? []).map(({ node: consumer, input }) => {
          const edge = consumer.inputs[input]!;
          const consumerRunners = runners.get(consumer.id)!;
          const channels = consumerRunners.map((runner, target): Channel | undefined => {
            if (edge.partitioning.kind === 'forward') {
              if (index % consumerRunners.length !== target) return undefined;
              return runner.channel(input, Math.floor(index / consumerRunners.length));
            }
            return runner.channel(input, index);
          });
          return { partitioning: edge.partitioning, channels };
        });
        const output = new OutputRouter(targets, index, this.services.maxParallelism);
        if (isSourceNode(node)) {
          subtasks.push({ node, index, output, source: new SourceTask(createSourceReader(node, this.services.connectors), output, this) });
        } else {
          const operator = createOperator(node, this.services.compiler, this.services.connectors);
          const channelsPerInput = node.inputs.map((edge) => this.channelCount(edge.from, edge.partitioning.kind, index, node.parallelism));
          const runner = new OperatorRunner(operator, output, channelsPerInput);
          subtasks.push({ node, index, output, runner, operator });
        }
      }
      runners.set(node.id, subtasks.map((s) => s.runner!).filter((r) => r !== undefined));
      byNode.set(node.id, subtasks);
    }
    for (const node of this.graph.nodes) this.subtasks.push(...byNode.get(node.id)!);
  }

  private channelCount(producerId: string, partitioning: string, consumerIndex: number, consumerParallelism: number): number {
    const producer = this.graph.nodes.find((n) => n.id === producerId)!;
    if (partitioning !== 'forward') return producer.parallelism;
    let count = 0;
    for (let i = 0; i < producer.parallelism; i++) if (i % consumerParallelism === consumerIndex) count++;
    return count;
  }

  private operatorContext(subtask: Subtask) {
    return {
      operatorId: subtask.node.id,
      subtask: subtask.index,
      parallelism: subtask.node.parallelism,
      maxParallelism: this.services.maxParallelism,
      output: subtask.output,
      keyedState: new MemoryStateBackend(),
      waitFor: (work: Promise<void>) => this.track(work),
      warn: (message: string) => this.warn(subtask.node, message),
    };
  }

  /** Resolves when no asynchronous work is pending; undefined when there is none (the common case). */
  idle(): Promise<void> | undefined {
    return this.pending.size === 0 ? undefined : this.settlePending();
  }

  private track(work: Promise<void>): void {
    const tracked = work.then(
      () => void this.pending.delete(tracked),
      (error: unknown) => {
        this.pending.delete(tracked);
        void this.fail(error);
      },
    );
    this.pending.add(tracked);
  }

  private async settlePending(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private warn(node: JobNode, message: string): void {
    this.services.warn(`job '${this.graph.name}', ${node.id}: ${message}`);
  }

  private async complete(): Promise<void> {
    await this.settlePending();
    if (this.state !== 'RUNNING') return;
    await this.closeAll();
    if (this.state === 'RUNNING') this.state = 'FINISHED';
  }

  private async fail(error: unknown): Promise<void> {
    if (this.state === 'FAILED') return;
    this.failure = error;
    this.state = 'FAILED';
    await this.closeAll();
  }

  private closed = false;

  private async closeAll(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subtask of this.subtasks) {
      try {
        await subtask.operator?.close?.();
        await subtask.source?.reader.close();
      } catch (error) {
        if (this.failure === undefined) {
          this.failure = error;
          this.state = 'FAILED';
        }
      }
    }
  }
}
