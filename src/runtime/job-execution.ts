/**
 * A running job: subtasks built from the job graph and wired by their edges, source tasks
 * driving data through them, checkpoints (when configured) and restore from one, and the job's
 * lifecycle (RUNNING → FINISHED | FAILED | CANCELED). Everything runs on the calling thread;
 * subtasks of one operator are separate instances with separate keyed state.
 */
import { WeirError } from '../common/errors.js';
import { graphFingerprint, type JobGraph, type JobNode } from '../dataflow/job-graph.js';
import type { ExprCompiler } from '../expr/expr-compiler.js';
import type { Barrier } from './checkpoint/barrier.js';
import { CheckpointCoordinator, type CheckpointConfig, type CheckpointRecord, type CompletedInfo } from './checkpoint/checkpoint-coordinator.js';
import type { SubtaskState } from './checkpoint/checkpoint-metadata.js';
import type { CheckpointStorage, CompletedCheckpoint } from './checkpoint/checkpoint-storage.js';
import { failpoint } from './checkpoint/failpoints.js';
import { chainRefs, KeyedStateChain, type ChainFile } from './checkpoint/keyed-state-chain.js';
import { restorableSubtasks, restoredOperatorState, restoreKeyedState, restoresFinished } from './checkpoint/state-restore.js';
import type { ConnectorResolver } from './operator-factory.js';
import type { StateSnapshotWriter } from './state/snapshotting-state-backend.js';
import type { OperatorContext } from './stream-operator.js';
import type { BarrierHandler, OperatorRunner } from './task/operator-runner.js';
import type { SourceTask, SourceTaskHost } from './task/source-task.js';
import { ScopedTimerService, WallClockTimerService, type ProcessingTimeService } from './task/processing-time-service.js';
import { nodeMetrics, snapshotSize, type NodeMetrics } from './task/node-metrics.js';
import { wireSubtasks, type StateBackendSettings, type Subtask } from './task/subtask-wiring.js';

export type { NodeMetrics };

/** Where a job is in its life; RESTARTING only for a job under a restart strategy (job-supervisor.ts), between a failure and its next attempt. */
export type JobStatus = 'CREATED' | 'RUNNING' | 'RESTARTING' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** Checkpointing of one job: settings, storage, and the checkpoint to resume from. */
export interface JobCheckpointing {
  /** What names the job in checkpoint storage (stable across restarts, unlike the job's display name). */
  readonly jobKey: string;
  readonly config: CheckpointConfig;
  readonly storage: CheckpointStorage;
  readonly restoreFrom?: CompletedCheckpoint;
}

/** What a job needs from its surroundings. */
export interface JobServices {
  readonly compiler: ExprCompiler;
  readonly connectors: ConnectorResolver;
  /** Key groups per keyed operator (`pipeline.max-parallelism`). */
  readonly maxParallelism: number;
  readonly checkpointing?: JobCheckpointing;
  /** Processing time (epoch ms) that state TTL reads; the wall clock by default (tests drive it). */
  readonly stateClock?: () => number;
  /** The keyed state backend of every subtask (`state.backend.*`); the heap backend when absent. */
  readonly stateBackend?: StateBackendSettings;
  /** Receives non-fatal problems (skipped records, retractions of unknown keys). */
  warn(message: string): void;
}

/** How far the sources of a job are: records read and, when every source knows it, the total (in the sources' own units). */
export interface JobProgress {
  readonly rows: number;
  readonly done: number;
  readonly total: number | undefined;
}


/** What checkpoints record of a job graph's shape. */
interface GraphShape {
  readonly graphFingerprint: string;
  /** Each part's fingerprint, for a graph of parts. */
  readonly partFingerprints: Readonly<Record<string, string>> | undefined;
  /** Node id → parallelism. */
  readonly parallelism: Readonly<Record<string, number>>;
}

/** How long a bounded job without a checkpoint interval waits before it takes a failed final checkpoint again. */
const FINAL_CHECKPOINT_RETRY_MS = 100;

/** One execution of a job graph. */
export class JobExecution implements SourceTaskHost, BarrierHandler {
  private state: JobStatus = 'CREATED';
  /** Epoch milliseconds when the job reached a final status. */
  private endTime: number | undefined;
  private failure: unknown;
  private readonly subtasks: Subtask[] = [];
  private readonly pending = new Set<Promise<void>>();
  private finished: Promise<void> = Promise.resolve();
  /** Closing every subtask, once started (by the end, a failure or a cancellation). */
  private closing: Promise<void> | undefined;
  private readonly coordinator: CheckpointCoordinator | undefined;
  private readonly barrierFor = new Map<SourceTask, Barrier>();
  private readonly barrierWaiters = new Set<() => void>();
  /** The sources whose input has ended (see {@link sourceEnded}). */
  private readonly endedSources = new Set<SourceTask>();
  private finalCheckpoint: Promise<void> | undefined;
  private readonly timers = new WallClockTimerService((error) => void this.fail(error));
  /** The timers of each part of a graph of parts, cancelled together when the part leaves the job. */
  private readonly partTimers = new Map<string, ScopedTimerService>();
  private readonly snapshotBytes = new Map<Subtask, number>();
  /** Per operator subtask: its chain of keyed state files (incremental checkpoints). */
  private readonly chains = new Map<Subtask, KeyedStateChain>();
  /** Sources restored finished at another parallelism: they have no offset to record. */
  private readonly offsetless = new Set<SourceTask>();
  /** Once the job has ended and closed: its last metrics and progress (its subtasks, with their state, are let go). */
  private ended: { readonly metrics: NodeMetrics[]; readonly progress: JobProgress } | undefined;
  readonly mode: BarrierHandler['mode'];

  /** The graph running now: the one the job started with, and the parts added since (see {@link addPart}). */
  private current: JobGraph;
  /** What the checkpoint coordinator records of the graph; changed only at a checkpoint boundary. */
  private shape: GraphShape;
  /** The runs of the source subtasks (a part added later adds its own, a removed part's leave); the job completes when all have ended. */
  private readonly sourceRuns = new Map<SourceTask, Promise<void>>();
  /** Source runs started so far, removed ones included: {@link allSourcesEnded} waits again when it grew. */
  private sourcesStarted = 0;
  /** Wakes {@link allSourcesEnded} when sources start (a part added), so that it waits for them too. */
  private sourcesGrew: (() => void) | undefined;

  constructor(
    graph: JobGraph,
    private readonly services: JobServices,
  ) {
    this.current = graph;
    this.shape = shapeOf(graph);
    const checkpointing = services.checkpointing;
    this.mode = checkpointing?.config.mode ?? 'EXACTLY_ONCE';
    if (checkpointing !== undefined) {
      const shape = (): GraphShape => this.shape;
      this.coordinator = new CheckpointCoordinator(
        {
          jobName: checkpointing.jobKey,
          get graphFingerprint() {
            return shape().graphFingerprint;
          },
          ...(graph.localTimeZone === undefined ? {} : { localTimeZone: graph.localTimeZone }),
          get partFingerprints() {
            return shape().partFingerprints;
          },
          maxParallelism: services.maxParallelism,
          get parallelism() {
            return shape().parallelism;
          },
          injectBarrier: (barrier) => this.injectBarrier(barrier),
          notifyComplete: (id) => this.notifyComplete(id),
          fail: (error) => void this.fail(error),
          warn: (message) => this.services.warn(`job '${this.current.name}': ${message}`),
        },
        checkpointing.storage,
        checkpointing.config,
      );
    }
  }

  /** The job graph running now (it grows when a part is added). */
  get graph(): JobGraph {
    return this.current;
  }

  /** The job's status. */
  get status(): JobStatus {
    return this.state;
  }

  /** The error that failed the job, if it failed. */
  get error(): unknown {
    return this.failure;
  }

  /** When the job finished, failed or was cancelled (epoch ms); undefined while it runs. */
  get endedAt(): number | undefined {
    return this.endTime;
  }

  /** True once the job has stopped processing (failed or cancelled). */
  get stopped(): boolean {
    return this.state === 'FAILED' || this.state === 'CANCELED';
  }

  /**
   * True once the job is ending by itself: every source has ended (its final checkpoint is under
   * way) or it has finished. Checkpoints asked for then fail ("the job has stopped"); the final
   * checkpoint covers what they would have.
   */
  get ending(): boolean {
    return this.state === 'FINISHED' || (this.state === 'RUNNING' && this.finalCheckpoint !== undefined);
  }

  /** True when the job has checkpoint storage. */
  get takesCheckpoints(): boolean {
    return this.coordinator !== undefined;
  }

  /** The last completed checkpoint or savepoint, when checkpointing is on. */
  get lastCheckpoint(): CompletedInfo | undefined {
    return this.coordinator?.lastCompleted;
  }

  /** Builds, restores and opens every subtask, then starts the sources. Resolves once running (or failed to start). */
  async start(): Promise<void> {
    if (this.state !== 'CREATED') throw new WeirError('INTERNAL_ERROR', `job '${this.current.name}' was already started`);
    this.state = 'RUNNING';
    try {
      this.subtasks.push(...wireSubtasks(this.current, this.wiring(), this, this));
      const restore = this.services.checkpointing?.restoreFrom;
      const restored = restore === undefined ? new Set<Subtask>() : restorableSubtasks(this.subtasks, this.current, restore);
      const finished = restore === undefined ? new Set<Subtask>() : new Set([...restored].filter((s) => restoresFinished(s, restore)));
      if (restore !== undefined) await restoreKeyedState([...restored], restore, this.services.checkpointing!.storage, this.services.maxParallelism);
      for (const subtask of [...this.subtasks].reverse()) await this.open(subtask, restored.has(subtask) ? restore : undefined, finished.has(subtask));
    } catch (error) {
      await this.fail(error);
      return;
    }
    this.coordinator?.start();
    this.runSources(this.subtasks);
    this.finished = this.allSourcesEnded().then(
      () => this.complete(),
      (error: unknown) => this.fail(error),
    );
  }

  /** Starts the source subtasks among `subtasks`. */
  private runSources(subtasks: readonly Subtask[]): void {
    for (const subtask of subtasks) {
      if (subtask.source === undefined) continue;
      this.sourceRuns.set(subtask.source, subtask.source.run());
      this.sourcesStarted++;
    }
    this.sourcesGrew?.();
  }

  /**
   * Resolves once every source subtask has ended, those of parts added meanwhile too; rejects with
   * the first failure — of a part added later too, while the earlier sources still run.
   */
  private async allSourcesEnded(): Promise<void> {
    for (;;) {
      const awaited = this.sourcesStarted;
      const grew = new Promise<'grew'>((resolve) => (this.sourcesGrew = () => resolve('grew')));
      const outcome = await Promise.race([Promise.all(this.sourceRuns.values()).then(() => 'ended' as const), grew]);
      if (outcome === 'ended' && awaited === this.sourcesStarted) return;
    }
  }

  /**
   * Adds part `part` of `graph` to the running job at a checkpoint boundary, as RisingWave adds
   * the fragments of a new materialized view to a running graph: `graph` is the running graph
   * with the nodes of `part` added, none of which runs yet. The part's subtasks are built and
   * opened afresh (its sources read from their beginning, its sinks join their transaction groups)
   * while no checkpoint is in flight, so the next checkpoint is the first to cover them and every
   * earlier one stays as the other parts left it; the other parts never stop. Resolves false,
   * changing nothing, when the job cannot take a part now (it takes no checkpoints, is ending or no
   * longer running); rejects, closing what it opened and changing nothing, when a subtask of the
   * part cannot open.
   */
  async addPart(graph: JobGraph, part: string): Promise<boolean> {
    const coordinator = this.coordinator;
    if (coordinator === undefined || this.state !== 'RUNNING' || this.ending) return false;
    const added = graph.nodes.filter((n) => n.part === part);
    const kept = graph.nodes.filter((n) => n.part !== part);
    const known = new Set(this.current.nodes.map((n) => n.id));
    if (added.length === 0 || kept.length !== known.size || kept.some((n) => !known.has(n.id)) || added.some((n) => known.has(n.id))) {
      throw new WeirError('INTERNAL_ERROR', `job '${this.current.name}': part '${part}' is not a new part of the running graph`);
    }
    try {
      return await coordinator.atBoundary(async () => {
        if (this.state !== 'RUNNING' || this.ending) return false;
        const subtasks = await this.openPart({ ...graph, nodes: added });
        if (this.state !== 'RUNNING') {
          await this.closePart(subtasks);
          return false;
        }
        this.subtasks.push(...subtasks);
        this.current = graph;
        this.shape = shapeOf(graph, this.shape.partFingerprints);
        this.runSources(subtasks);
        return true;
      });
    } catch (error) {
      if (this.stopped) return false; // the job stopped meanwhile (the part's failure is not what stopped it): the caller starts it again
      throw error;
    }
  }

  /**
   * Removes the parts `parts` from the running job at a checkpoint boundary (DROP MATERIALIZED
   * VIEW): `graph` is the running graph without their nodes. Every checkpoint up to the boundary
   * has committed their output; their sources stop, the work in flight settles, and their subtasks
   * close (a sink rolls back what it wrote after the last checkpoint and leaves its transaction
   * group), so the next checkpoint covers the other parts only. The other parts never stop.
   * Resolves false, changing nothing, when the job cannot change now (it takes no checkpoints, is
   * ending or no longer running) or nothing would be left of it.
   */
  async removeParts(graph: JobGraph, parts: ReadonlySet<string>): Promise<boolean> {
    const coordinator = this.coordinator;
    if (coordinator === undefined || this.state !== 'RUNNING' || this.ending || graph.nodes.length === 0) return false;
    const kept = this.current.nodes.filter((n) => n.part === undefined || !parts.has(n.part));
    const ids = new Set(graph.nodes.map((n) => n.id));
    if (kept.length === this.current.nodes.length || kept.length !== ids.size || kept.some((n) => !ids.has(n.id))) {
      throw new WeirError('INTERNAL_ERROR', `job '${this.current.name}': removing parts ${[...parts].join(', ')} does not leave the graph given`);
    }
    try {
      return await coordinator.atBoundary(async () => {
        if (this.state !== 'RUNNING' || this.ending) return false;
        const removed = this.subtasks.filter((s) => s.node.part !== undefined && parts.has(s.node.part));
        const runs: Promise<void>[] = [];
        for (const { source } of removed) {
          if (source === undefined) continue;
          source.stop();
          runs.push(this.sourceRuns.get(source) ?? Promise.resolve());
        }
        this.wakeSources();
        await Promise.all(runs);
        for (const part of parts) {
          this.partTimers.get(part)?.stop();
          this.partTimers.delete(part);
        }
        // Work in flight (a sink's early write) must not fail against a closed subtask.
        await this.settlePending();
        if (this.state !== 'RUNNING') return false;
        const gone = new Set(removed);
        this.subtasks.splice(0, this.subtasks.length, ...this.subtasks.filter((s) => !gone.has(s)));
        this.current = graph;
        this.shape = shapeOf(graph, this.shape.partFingerprints);
        for (const { source } of removed) {
          if (source === undefined) continue;
          this.sourceRuns.delete(source);
          this.endedSources.delete(source);
          this.offsetless.delete(source);
          this.barrierFor.delete(source);
        }
        for (const subtask of removed) {
          this.chains.delete(subtask);
          this.snapshotBytes.delete(subtask);
        }
        await this.closePart(removed, 'removed from the running job');
        // The removed sources may have been the only ones still reading: the others' final checkpoint is due.
        if (this.finalCheckpoint === undefined && this.endedSources.size === this.subtasks.filter((s) => s.source !== undefined).length) this.finalCheckpoint = this.takeFinalCheckpoint();
        return true;
      });
    } catch (error) {
      if (this.stopped) return false; // the job stopped meanwhile: the caller starts it again
      throw error;
    }
  }

  /** What wiring subtasks needs of the job's services. */
  private wiring(): Parameters<typeof wireSubtasks>[1] {
    const { compiler, connectors, maxParallelism, stateClock, checkpointing, stateBackend } = this.services;
    return {
      compiler,
      connectors,
      maxParallelism,
      ...(stateClock === undefined ? {} : { stateClock }),
      trackStateChanges: checkpointing?.config.incremental === true,
      ...(stateBackend === undefined ? {} : { stateBackend }),
    };
  }

  /** Builds and opens, afresh, the subtasks of the nodes of `part`; on a failure closes those it built and throws. */
  private async openPart(part: JobGraph): Promise<Subtask[]> {
    const subtasks = wireSubtasks(part, this.wiring(), this, this);
    try {
      for (const subtask of [...subtasks].reverse()) await this.open(subtask, undefined, false);
    } catch (error) {
      await this.closePart(subtasks);
      throw error;
    }
    return subtasks;
  }

  /**
   * Closes the subtasks of a part that leaves the job or never joined it (`why`) and lets their
   * state go; a failure to close one is reported, and the others are closed still.
   */
  private async closePart(subtasks: readonly Subtask[], why = 'its part could not be added'): Promise<void> {
    for (const subtask of subtasks) {
      try {
        await subtask.operator?.close?.();
        await subtask.source?.reader.close();
      } catch (error) {
        this.warn(subtask.node, `could not close (${why}): ${error instanceof Error ? error.message : String(error)}`);
      }
      subtask.state.dispose();
    }
  }

  /** Resolves when the job has reached a final status. */
  async result(): Promise<JobStatus> {
    await this.finished;
    // Tracked work never rejects: a failure of it has failed the job (see track).
    await this.settlePending();
    await this.closing;
    return this.state;
  }

  /** Stops the job without waiting for its sources to end. */
  async cancel(): Promise<void> {
    if (this.state !== 'RUNNING') return;
    this.state = 'CANCELED';
    this.endTime = Date.now();
    this.coordinator?.stop();
    this.wakeSources();
    await this.finished;
    await this.closeAll();
  }

  /** Takes a savepoint, then cancels the job; resolves with the savepoint's folder. */
  async stopWithSavepoint(): Promise<string> {
    if (this.coordinator === undefined) throw new WeirError('CHECKPOINT_ERROR', `job '${this.current.name}' has no checkpoint storage`);
    if (this.state !== 'RUNNING') throw new WeirError('CHECKPOINT_ERROR', `job '${this.current.name}' is ${this.state.toLowerCase()}, not running`);
    const path = await this.coordinator.trigger('savepoint');
    await this.cancel();
    return path;
  }

  /** Triggers a checkpoint now and resolves once it is complete and committed. */
  async checkpoint(): Promise<string> {
    if (this.coordinator === undefined) throw new WeirError('CHECKPOINT_ERROR', `job '${this.current.name}' does not take checkpoints`);
    return this.coordinator.trigger('checkpoint');
  }

  /** Completed and failed checkpoints since the job started. */
  checkpointStats(): { completed: number; failed: number } {
    return { completed: this.coordinator?.completedCount ?? 0, failed: this.coordinator?.failedCount ?? 0 };
  }

  /** The recent checkpoints, oldest first; empty when the job takes none. */
  checkpointHistory(): readonly CheckpointRecord[] {
    return this.coordinator?.history ?? [];
  }

  /** Counters and gauges per node, over its subtasks. */
  metrics(): NodeMetrics[] {
    if (this.ended !== undefined) return this.ended.metrics;
    return this.current.nodes.map((node) => nodeMetrics(node, this.subtasks.filter((s) => s.node === node), this.snapshotBytes));
  }

  /** Records read by the sources, and their progress through input of known size. */
  progress(): JobProgress {
    if (this.ended !== undefined) return this.ended.progress;
    let rows = 0;
    let done = 0;
    let total: number | undefined = 0;
    for (const subtask of this.subtasks) {
      if (subtask.source === undefined) continue;
      rows += subtask.output.recordsOut;
      const progress = subtask.source.reader.progress?.();
      done += progress?.done ?? 0;
      total = total === undefined || progress?.total === undefined ? undefined : total + progress.total;
    }
    return { rows, done, total };
  }

  // ---- building and restoring --------------------------------------------------------------

  /** Opens a subtask, restored from `restore` (and `finished` there: it starts finished) or afresh. */
  private async open(subtask: Subtask, restore: CompletedCheckpoint | undefined, finished: boolean): Promise<void> {
    const operatorState = restore === undefined ? [] : restoredOperatorState(subtask, restore);
    if (finished) subtask.source?.startFinished();
    if (finished) subtask.runner?.startFinished();
    if (subtask.source !== undefined) {
      // A finished source reads nothing: at another parallelism it needs no offset, and records none.
      const offsetless = finished && operatorState.length !== 1;
      if (offsetless) this.offsetless.add(subtask.source);
      const offsets = (offsetless ? [] : operatorState) as { offset: unknown }[];
      if (offsets.length > 1) throw new WeirError('CHECKPOINT_ERROR', `source ${subtask.node.id} cannot change its parallelism on restore`);
      if (offsets.length === 1) {
        const reader = subtask.source.reader;
        if (reader.seek === undefined) throw new WeirError('CHECKPOINT_ERROR', `source ${subtask.node.id} cannot replay from an offset`);
        reader.seek(offsets[0]!.offset);
      }
      await subtask.source.reader.open({ subtask: subtask.index, parallelism: subtask.node.parallelism, warn: (m) => this.warn(subtask.node, m) });
      return;
    }
    const operator = subtask.operator!;
    await operator.initializeState?.({
      isRestored: () => restore !== undefined,
      restoredCheckpointId: restore?.metadata.checkpointId,
      operatorState,
    });
    await operator.open?.(this.operatorContext(subtask));
  }

  /** The timer service of a subtask: the job's, scoped to the subtask's part when it has one (a part can leave the running job). */
  private timersOf(subtask: Subtask): ProcessingTimeService {
    const part = subtask.node.part;
    if (part === undefined) return this.timers;
    let scoped = this.partTimers.get(part);
    if (scoped === undefined) {
      scoped = new ScopedTimerService(this.timers);
      this.partTimers.set(part, scoped);
    }
    return scoped;
  }

  private operatorContext(subtask: Subtask): OperatorContext {
    return {
      operatorId: subtask.node.id,
      subtask: subtask.index,
      parallelism: subtask.node.parallelism,
      maxParallelism: this.services.maxParallelism,
      checkpointing: this.coordinator !== undefined,
      run: this,
      output: subtask.output,
      keyedState: subtask.state,
      processingTime: this.timersOf(subtask),
      waitFor: (work: Promise<void>) => this.track(work),
      warn: (message: string) => this.warn(subtask.node, message),
    };
  }

  // ---- checkpoints -------------------------------------------------------------------------

  private injectBarrier(barrier: Barrier): void {
    for (const subtask of this.subtasks) if (subtask.source !== undefined) this.barrierFor.set(subtask.source, barrier);
    this.wakeSources();
  }

  private wakeSources(): void {
    for (const wake of [...this.barrierWaiters]) wake();
  }

  /** @internal SourceTaskHost */
  takeBarrier(task: SourceTask): Barrier | undefined {
    const barrier = this.barrierFor.get(task);
    if (barrier !== undefined) this.barrierFor.delete(task);
    return barrier;
  }

  /** @internal SourceTaskHost */
  acknowledgeSource(task: SourceTask, barrier: Barrier, offset: unknown): void {
    const subtask = this.subtasks.find((s) => s.source === task);
    if (subtask === undefined) return; // the job has ended and let its subtasks go: nothing to checkpoint
    const operatorState = this.offsetless.has(task) ? undefined : { offset };
    this.coordinator?.acknowledge(barrier.id, {
      nodeId: subtask.node.id,
      state: { subtask: subtask.index, keyGroups: this.keyGroups(subtask), ...(operatorState === undefined ? {} : { operatorState }), ...(task.finished ? { finished: true } : {}) },
      bytes: snapshotSize(undefined, operatorState),
    });
  }

  /** @internal SourceTaskHost */
  sourceEnded(task: SourceTask): boolean {
    if (this.coordinator === undefined) return false;
    this.endedSources.add(task);
    if (this.finalCheckpoint === undefined && this.endedSources.size === this.subtasks.filter((s) => s.source !== undefined).length) this.finalCheckpoint = this.takeFinalCheckpoint();
    return true;
  }

  /**
   * The last checkpoint of a bounded job, retried (after the checkpoint interval) while checkpoint
   * failures are tolerated: the coordinator records and counts every failure, and fails the job —
   * which ends this loop — once more have failed in a row than tolerated.
   */
  private async takeFinalCheckpoint(): Promise<void> {
    const pause = this.services.checkpointing!.config.interval ?? FINAL_CHECKPOINT_RETRY_MS;
    while (!this.stopped) {
      try {
        await this.coordinator!.trigger('checkpoint', true);
        return;
      } catch (error) {
        if (this.stopped) return;
        this.services.warn(`job '${this.current.name}': its final checkpoint failed and is taken again in ${pause} ms: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** @internal SourceTaskHost */
  barrierRequested(_task: SourceTask, until?: Promise<unknown>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.barrierWaiters.delete(wake);
        resolve();
      };
      this.barrierWaiters.add(wake);
      until?.then(wake, wake);
    });
  }

  /**
   * @internal BarrierHandler: the synchronous part of an operator subtask's snapshot — its keyed
   * state frozen (full, or a delta on the subtask's last completed checkpoint), its operator state
   * taken — then the asynchronous write of its keyed state file and the acknowledgement. A
   * finished subtask takes no keyed state (see {@link snapshotFinished}).
   */
  snapshot(runner: OperatorRunner, barrier: Barrier): void {
    const coordinator = this.coordinator;
    if (coordinator === undefined) return;
    const subtask = this.subtasks.find((s) => s.runner === runner);
    if (subtask === undefined) return; // the job has ended and let its subtasks go: nothing to checkpoint
    if (runner.finished) {
      this.snapshotFinished(subtask, barrier, coordinator);
      return;
    }
    const chain = this.chainOf(subtask);
    const kind = chain.nextKind(barrier.kind);
    let writer: StateSnapshotWriter;
    let operatorState: unknown;
    const started = performance.now();
    try {
      writer = subtask.state.beginSnapshot({ kind, ...(barrier.kind === 'checkpoint' ? { checkpointId: barrier.id } : {}) });
      operatorState = subtask.operator!.snapshotState?.(barrier.id);
    } catch (error) {
      coordinator.decline(barrier.id, error);
      return;
    }
    const syncMs = performance.now() - started;
    const write = async (): Promise<{ state: SubtaskState; keyedBytes: number; delta: boolean }> => {
      const storage = this.services.checkpointing!.storage;
      let file: ChainFile | undefined;
      if (!writer.empty) {
        const name = `${subtask.node.id}-${subtask.index}.state`;
        const written = await storage.writeStateFile(barrier.id, barrier.kind, name, writer.stream());
        file = { checkpointId: barrier.id, name, checksum: written.checksum, bytes: writer.byteLength, kind, appendedBytes: writer.appendedBytes };
      }
      const files = chain.record(barrier.id, barrier.kind, kind, file);
      const resolved: unknown = await operatorState;
      this.snapshotBytes.set(subtask, files.reduce((sum, f) => sum + f.bytes, 0));
      const state: SubtaskState = {
        subtask: subtask.index,
        keyGroups: this.keyGroups(subtask),
        ...(files.length === 0 ? {} : { keyedStateChain: chainRefs(files, barrier.id) }),
        ...(resolved === undefined ? {} : { operatorState: resolved }),
      };
      return { state, keyedBytes: file?.bytes ?? 0, delta: file?.kind === 'delta' };
    };
    write().then(
      ({ state, keyedBytes, delta }) =>
        coordinator.acknowledge(barrier.id, { nodeId: subtask.node.id, state, bytes: keyedBytes + snapshotSize(undefined, state.operatorState), syncMs, keyedBytes, incremental: delta }),
      (error: unknown) => {
        coordinator.decline(barrier.id, error);
        if (operatorState instanceof Promise) void this.fail(error);
      },
    );
  }

  /**
   * The snapshot of a finished operator subtask (FLIP-147): it has emitted all it ever will, so its
   * keyed state is never needed again and is not written; its subtask state says it finished. Its
   * operator state is taken as always (a sink's prepared transactions: the two-phase commit is
   * unchanged). Its chain becomes empty: the next delta of this subtask could only be on nothing,
   * and the files of older checkpoints stay for as long as those (retained) reference them.
   */
  private snapshotFinished(subtask: Subtask, barrier: Barrier, coordinator: CheckpointCoordinator): void {
    let operatorState: unknown;
    const started = performance.now();
    try {
      operatorState = subtask.operator!.snapshotState?.(barrier.id);
    } catch (error) {
      coordinator.decline(barrier.id, error);
      return;
    }
    const syncMs = performance.now() - started;
    this.chainOf(subtask).record(barrier.id, barrier.kind, 'full', undefined);
    Promise.resolve(operatorState).then(
      (resolved: unknown) => {
        this.snapshotBytes.set(subtask, 0);
        const state: SubtaskState = { subtask: subtask.index, keyGroups: this.keyGroups(subtask), ...(resolved === undefined ? {} : { operatorState: resolved }), finished: true };
        coordinator.acknowledge(barrier.id, { nodeId: subtask.node.id, state, bytes: snapshotSize(undefined, resolved), syncMs, keyedBytes: 0, incremental: false });
      },
      (error: unknown) => {
        coordinator.decline(barrier.id, error);
        void this.fail(error);
      },
    );
  }

  /** The keyed state chain of a subtask, created at its first snapshot. */
  private chainOf(subtask: Subtask): KeyedStateChain {
    let chain = this.chains.get(subtask);
    if (chain === undefined) {
      chain = new KeyedStateChain(this.services.checkpointing?.config.incremental === true && subtask.state.tracksChanges);
      this.chains.set(subtask, chain);
    }
    return chain;
  }

  private keyGroups(subtask: Subtask): [number, number] {
    const maxP = this.services.maxParallelism;
    const p = subtask.node.parallelism;
    return [Math.ceil((subtask.index * maxP) / p), Math.ceil(((subtask.index + 1) * maxP) / p) - 1];
  }

  private async notifyComplete(checkpointId: number): Promise<void> {
    for (const subtask of this.subtasks) {
      if (this.chains.get(subtask)?.complete(checkpointId) === true) subtask.state.notifyCheckpointComplete(checkpointId);
    }
    for (const subtask of this.subtasks) {
      await subtask.operator?.notifyCheckpointComplete?.(checkpointId);
      await subtask.source?.reader.notifyCheckpointComplete?.(checkpointId);
      if (subtask.node.spec.kind === 'sink') failpoint('sink.between-commits');
    }
  }

  // ---- lifecycle -----------------------------------------------------------------------------

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
    this.services.warn(`job '${this.current.name}', ${node.id}: ${message}`);
  }

  private async complete(): Promise<void> {
    await this.settlePending();
    await this.finalCheckpoint;
    if (this.state !== 'RUNNING') return;
    this.coordinator?.stop();
    await this.closeAll();
    if (this.state === 'RUNNING') this.state = 'FINISHED';
    this.endTime ??= Date.now();
  }

  private async fail(error: unknown): Promise<void> {
    if (this.state === 'FAILED') return;
    this.failure = error;
    this.state = 'FAILED';
    this.endTime ??= Date.now();
    this.coordinator?.stop();
    this.wakeSources();
    await this.closeAll();
  }

  /** Closes every subtask once; later calls wait for the same closing. */
  private closeAll(): Promise<void> {
    this.closing ??= this.closeSubtasks();
    return this.closing;
  }

  private async closeSubtasks(): Promise<void> {
    this.timers.stop();
    for (const subtask of this.subtasks) {
      try {
        await subtask.operator?.close?.();
        await subtask.source?.reader.close();
      } catch (error) {
        if (this.failure === undefined) {
          this.failure = error;
          this.state = 'FAILED';
        } else {
          this.warn(subtask.node, `could not close after the job failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    // A session keeps every job it ran (SHOW JOBS): an ended one keeps its figures, not its
    // operators and their state, which restarted jobs (a view created under changed settings) would pile up.
    this.ended = { metrics: this.metrics(), progress: this.progress() };
    // The disk backend's directories go with the job (snapshots still being written fail).
    for (const subtask of this.subtasks) subtask.state.dispose();
    this.subtasks.length = 0;
    this.snapshotBytes.clear();
    this.chains.clear();
    this.barrierFor.clear();
  }
}

/**
 * The shape of `graph` that checkpoints record. A part's fingerprint in `known` (the shape before
 * a part was added or removed: the other parts did not change) is taken as it is; the others are
 * computed as partFingerprints (job-graph.ts) does, which restore compares them with.
 */
function shapeOf(graph: JobGraph, known: Readonly<Record<string, string>> = {}): GraphShape {
  const byPart = new Map<string, JobNode[]>();
  for (const node of graph.nodes) {
    if (node.part === undefined) continue;
    const nodes = byPart.get(node.part);
    if (nodes === undefined) byPart.set(node.part, [node]);
    else nodes.push(node);
  }
  return {
    graphFingerprint: graphFingerprint(graph),
    partFingerprints: byPart.size === 0 ? undefined : Object.fromEntries([...byPart].map(([part, nodes]) => [part, known[part] ?? graphFingerprint({ ...graph, nodes })])),
    parallelism: Object.fromEntries(graph.nodes.map((n) => [n.id, n.parallelism])),
  };
}
