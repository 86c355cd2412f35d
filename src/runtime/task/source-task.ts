/**
 * Runs one subtask of a source: polls its reader for batches and pushes each synchronously
 * through the operators downstream, pausing while the job has pending asynchronous work
 * (backpressure) and yielding to the event loop between batches so that other jobs and I/O run.
 * Between two polls it injects the barrier of a triggered checkpoint, recording the reader's
 * offset at exactly that point — unless the reader says its position cannot be resumed from
 * (`checkpointable()` false), when the barrier waits for a later poll. With checkpointing on, a source whose input has ended stays
 * until the job's final checkpoint has passed through it, so that the sinks commit everything.
 */
import { ChangeBatch } from '../../common/row.js';
import type { Barrier } from '../checkpoint/barrier.js';
import type { SourceReader } from '../source-reader.js';
import { BusyMeter, enterBusy, exitBusy } from './busy-clock.js';
import type { OutputRouter } from './output-router.js';

/** What a source task needs from its job. */
export interface SourceTaskHost {
  /** Resolves when the job has no pending asynchronous work; undefined when there is none. */
  idle(): Promise<void> | undefined;
  /** True once the job is cancelled or has failed. */
  readonly stopped: boolean;
  /** The barrier this source must inject now, if a checkpoint was triggered. */
  takeBarrier(task: SourceTask): Barrier | undefined;
  /** Records the source's offset for the barrier it is injecting. */
  acknowledgeSource(task: SourceTask, barrier: Barrier, offset: unknown): void;
  /** The reader has ended. Resolves false when the task may end at once (no checkpointing). */
  sourceEnded(task: SourceTask): boolean;
  /** Resolves when a barrier is waiting for this task, or the job stopped. */
  barrierRequested(task: SourceTask): Promise<void>;
}

/** Records per poll: large enough to amortise per-batch costs, small enough to keep latency low. */
export const BATCH_SIZE = 1024;

/** How long an idle reader waits before it is polled again. */
const IDLE_DELAY_MS = 10;

/** A subtask of a source. */
export class SourceTask {
  /** Time spent in the reader's synchronous `poll` (the operators downstream are charged their own time). */
  readonly busy = new BusyMeter();

  constructor(
    readonly reader: SourceReader,
    readonly output: OutputRouter,
    private readonly host: SourceTaskHost,
  ) {}

  /** Runs until the reader ends (then ends the output) or the job stops. */
  async run(): Promise<void> {
    const batch = new ChangeBatch();
    while (!this.host.stopped) {
      const waiting = this.host.idle();
      if (waiting !== undefined) await waiting;
      if (this.host.stopped) return;
      if (this.reader.checkpointable?.() !== false) this.injectPendingBarrier();
      batch.clear();
      let status = this.pollBusy(batch);
      if (typeof status !== 'string') status = await status;
      if (batch.size > 0) this.collectBusy(batch);
      if (status === 'end') break;
      await (status === 'idle' ? sleep(IDLE_DELAY_MS) : yieldToEventLoop());
    }
    if (this.host.sourceEnded(this)) {
      while (!this.host.stopped) {
        const barrier = this.injectPendingBarrier();
        if (barrier?.final) break;
        if (barrier === undefined) await this.host.barrierRequested(this);
      }
    }
    if (this.host.stopped) return;
    this.output.emitWatermark(Infinity);
    await this.output.end();
  }

  private pollBusy(batch: ChangeBatch): ReturnType<SourceReader['poll']> {
    enterBusy(this.busy);
    try {
      return this.reader.poll(batch, BATCH_SIZE);
    } finally {
      exitBusy();
    }
  }

  private collectBusy(batch: ChangeBatch): void {
    enterBusy(this.busy);
    try {
      this.output.collect(batch);
    } finally {
      exitBusy();
    }
  }

  private injectPendingBarrier(): Barrier | undefined {
    const barrier = this.host.takeBarrier(this);
    if (barrier === undefined) return undefined;
    this.host.acknowledgeSource(this, barrier, this.reader.currentOffset(barrier.id));
    this.output.emitBarrier(barrier);
    return barrier;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
