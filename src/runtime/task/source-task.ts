/**
 * Runs one subtask of a source: polls its reader for batches and pushes each synchronously
 * through the operators downstream, pausing while the job has pending asynchronous work
 * (backpressure) and yielding to the event loop every few batches so that other jobs and I/O run.
 * A barrier is injected even while the source pauses: the pending work may be a checkpoint's own
 * (a sink's pre-commit waiting for the barrier to reach the other sinks of its transaction group).
 * Between two polls it injects the barrier of a triggered checkpoint, recording the reader's
 * offset at exactly that point — unless the reader says its position cannot be resumed from
 * (`checkpointable()` false), when the barrier waits for a later poll. A source whose input has
 * ended is FINISHED: it emits the final watermark and end of data (so that the operators downstream
 * process end of input and finish before the final checkpoint), then (with checkpointing on) stays,
 * passing barriers, until the job's final checkpoint has passed through it, so that the sinks
 * commit everything, window results included. A source restored from a finished subtask state
 * starts finished and reads nothing.
 * With an idle timeout (`table.exec.source.idle-timeout`), a source that reads nothing for that
 * long tells its consumers it is idle, so that it does not hold back their watermark, and that
 * it is active again before its next records.
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
  /** Resolves when a barrier is waiting for this task, the job stopped, or `until` settled (leaving nothing behind). */
  barrierRequested(task: SourceTask, until?: Promise<unknown>): Promise<void>;
}

/** Records per poll: large enough to amortise per-batch costs, small enough to keep latency low. */
export const BATCH_SIZE = 1024;

/** How long an idle reader waits before it is polled again. */
const IDLE_DELAY_MS = 10;

/**
 * Polls that returned records in a row before the task yields to the event loop (a macrotask
 * costs microseconds, a batch about a hundred): timers, I/O, checkpoint triggers and the other
 * tasks of the process wait at most this many batches. A poll without records always yields.
 */
const POLLS_PER_YIELD = 8;

/** A subtask of a source. */
export class SourceTask {
  private lastRecordAt = Date.now();
  private idle = false;
  private isFinished = false;
  /** Stopped by itself (its part was removed from the running job), not with its job. */
  private halted = false;

  /** Time spent in the reader's synchronous `poll` (the operators downstream are charged their own time). */
  readonly busy = new BusyMeter();

  /** `idleTimeoutMillis`: how long without records makes the source idle; 0 never. */
  constructor(
    readonly reader: SourceReader,
    readonly output: OutputRouter,
    private readonly host: SourceTaskHost,
    private readonly idleTimeoutMillis = 0,
  ) {}

  /** True once the reader has ended (or the subtask was restored finished): the source emits nothing more but barriers. */
  get finished(): boolean {
    return this.isFinished;
  }

  /** True once the job stopped, or this task was stopped alone ({@link stop}). */
  private get stopped(): boolean {
    return this.halted || this.host.stopped;
  }

  /**
   * Stops this task alone (its part leaves the running job at a checkpoint boundary): {@link run}
   * returns at its next step without ending its output. The host wakes it if it waits for a barrier.
   */
  stop(): void {
    this.halted = true;
  }

  /** Before the job starts: the subtask was restored from a finished subtask state, so it reads nothing. */
  startFinished(): void {
    this.isFinished = true;
  }

  /** Runs until the reader ends (then ends the output) or the job stops. */
  async run(): Promise<void> {
    const batch = new ChangeBatch();
    let pollsSinceYield = 0;
    while (!this.stopped && !this.isFinished) {
      const waiting = this.host.idle();
      if (waiting !== undefined) await this.waitOutBackpressure(waiting);
      if (this.stopped) return;
      batch.clear();
      let status = this.pollBusy(batch);
      if (typeof status !== 'string') status = await status;
      if (batch.size > 0) {
        this.markActive();
        this.collectBusy(batch);
      } else if (this.idleTimeoutMillis > 0) this.markIdleIfDue();
      // After the poll: a barrier triggered while the reader waited for input follows what was
      // written before it was triggered (FLUSH makes earlier writes visible).
      if (this.reader.checkpointable?.() !== false) this.injectPendingBarrier();
      if (status === 'end') break;
      if (status === 'idle') {
        pollsSinceYield = 0;
        await sleep(IDLE_DELAY_MS);
      } else if (batch.size === 0 || ++pollsSinceYield >= POLLS_PER_YIELD) {
        pollsSinceYield = 0;
        await yieldToEventLoop();
      }
    }
    if (this.stopped) return;
    this.isFinished = true;
    // As Flink's MAX_WATERMARK and EndOfData at the end of input: windows fire and operators end
    // their input before the final checkpoint, so that a transactional sink commits their rows
    // with it, and the operators, finished, put no keyed state into it.
    this.output.emitWatermark(Infinity);
    await this.endData();
    if (this.stopped) return;
    if (this.host.sourceEnded(this)) {
      while (!this.stopped) {
        const barrier = this.injectPendingBarrier();
        if (barrier?.final) break;
        if (barrier === undefined) await this.host.barrierRequested(this);
      }
    }
    if (this.stopped) return;
    await this.output.end();
  }

  /**
   * Sends end of data and waits until the operators downstream have handled it, injecting each
   * barrier triggered meanwhile (end of data may be held back by an alignment that waits for it),
   * or until the job stops (then an alignment may never end). A failure of it (an operator's end
   * of input) is thrown.
   */
  private async endData(): Promise<void> {
    let settled = false;
    let failed = false;
    let failure: unknown;
    const done = this.output.endOfData().then(
      () => void (settled = true),
      (error: unknown) => {
        settled = failed = true;
        failure = error;
      },
    );
    for (;;) {
      if (failed) throw failure;
      if (settled || this.stopped) return;
      this.injectPendingBarrier();
      await this.host.barrierRequested(this, done);
    }
  }

  /** Waits until `waiting` settles, injecting each barrier triggered meanwhile (at the position of the last poll). */
  private async waitOutBackpressure(waiting: Promise<void>): Promise<void> {
    let settled = false;
    const done = waiting.then(() => void (settled = true));
    for (;;) {
      if (this.reader.checkpointable?.() !== false) this.injectPendingBarrier();
      if (settled || this.stopped) return;
      await this.host.barrierRequested(this, done);
    }
  }

  private markActive(): void {
    if (this.idleTimeoutMillis === 0) return;
    this.lastRecordAt = Date.now();
    if (!this.idle) return;
    this.idle = false;
    this.output.emitIdle(false);
  }

  private markIdleIfDue(): void {
    if (this.idle || Date.now() - this.lastRecordAt < this.idleTimeoutMillis) return;
    this.idle = true;
    this.output.emitIdle(true);
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
