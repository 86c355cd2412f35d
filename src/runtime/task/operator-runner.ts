/**
 * Runs one subtask of an operator: receives batches, watermarks, barriers and end-of-input from
 * its upstream channels. Keeps the watermark at the minimum over its active channels (an idle
 * channel does not hold it back; when all are idle, the idleness is passed on, as Flink's
 * watermark status); aligns barriers
 * (EXACTLY_ONCE: a channel that delivered barrier n is blocked, its later input held back, until
 * every open channel has delivered n; AT_LEAST_ONCE: barriers are only counted).
 *
 * End of input comes in two steps, as Flink's EndOfData and EndOfPartition: once every channel
 * of an input has sent end of data, the operator processes end of input on it; once every input
 * has, the subtask is FINISHED — it has emitted all it ever will, its snapshots hold no keyed
 * state (FLIP-147) — and sends a final watermark and end of data on. Barriers still pass it until
 * its channels end; then it ends its own output. A subtask restored from a finished subtask state
 * starts finished: it does not call the operator again (no watermark, no end of input), and a
 * batch reaching it is an error.
 */
import { WeirError } from '../../common/errors.js';
import type { ChangeBatch } from '../../common/row.js';
import type { Barrier, CheckpointingMode } from '../checkpoint/barrier.js';
import type { StreamOperator } from '../stream-operator.js';
import { BusyMeter, enterBusy, exitBusy } from './busy-clock.js';
import type { Channel } from './channel.js';
import type { OutputRouter } from './output-router.js';

/** What the runner asks of its job when a barrier is aligned. */
export interface BarrierHandler {
  readonly mode: CheckpointingMode;
  /** Takes the subtask's snapshot for `barrier` (synchronous part now, the rest asynchronously). */
  snapshot(runner: OperatorRunner, barrier: Barrier): void;
}

/** Input held back on a blocked channel, replayed in arrival order once alignment ends. */
type HeldEvent =
  | { readonly type: 'batch'; readonly channel: number; readonly batch: ChangeBatch }
  | { readonly type: 'watermark'; readonly channel: number; readonly watermark: number }
  | { readonly type: 'idle'; readonly channel: number; readonly idle: boolean }
  | { readonly type: 'barrier'; readonly channel: number; readonly barrier: Barrier }
  | { readonly type: 'endOfData'; readonly channel: number; readonly done: (error?: unknown) => void }
  | { readonly type: 'end'; readonly channel: number; readonly done: (error?: unknown) => void };

/** A subtask of a non-source operator. */
export class OperatorRunner {
  recordsIn = 0;
  /** Time spent in the operator's `processBatch` and `processWatermark`. */
  readonly busy = new BusyMeter();
  private readonly inputOf: number[] = [];
  private readonly openPerInput: number[];
  private readonly channelWatermarks: number[];
  /** Per channel: end of data received (the channel sends barriers at most). */
  private readonly dataEnded: boolean[];
  /** Per channel: ended (nothing more at all). */
  private readonly ended: boolean[];
  private channelsOpen: number;
  private readonly idle: boolean[];
  private outputIdle = false;
  private currentWatermark = -Infinity;
  private inputsOpen: number;
  private isFinished = false;
  /** Restored from a finished subtask state: the operator is never called on input again. */
  private restoredFinished = false;
  private aligning: { barrier: Barrier; arrived: Set<number> } | null = null;
  private readonly blocked: boolean[];
  private held: HeldEvent[] = [];
  private readonly firstChannel: number[] = [];

  constructor(
    readonly operator: StreamOperator,
    readonly output: OutputRouter,
    channelsPerInput: readonly number[],
    private readonly barriers: BarrierHandler,
  ) {
    channelsPerInput.forEach((count, input) => {
      this.firstChannel.push(this.inputOf.length);
      for (let i = 0; i < count; i++) this.inputOf.push(input);
    });
    this.openPerInput = [...channelsPerInput];
    this.channelWatermarks = this.inputOf.map(() => -Infinity);
    this.dataEnded = this.inputOf.map(() => false);
    this.ended = this.inputOf.map(() => false);
    this.channelsOpen = this.inputOf.length;
    this.idle = this.inputOf.map(() => false);
    this.blocked = this.inputOf.map(() => false);
    this.inputsOpen = channelsPerInput.filter((n) => n > 0).length;
  }

  /** The receiving end for upstream channel `channel` (0-based per input) of input `input`. */
  channel(input: number, channel: number): Channel {
    const id = this.firstChannel[input]! + channel;
    return {
      push: (batch) => (this.blocked[id] ? this.held.push({ type: 'batch', channel: id, batch: batch.copy() }) : this.process(id, batch)),
      watermark: (watermark) => (this.blocked[id] ? this.held.push({ type: 'watermark', channel: id, watermark }) : this.onWatermark(id, watermark)),
      idle: (idle) => (this.blocked[id] ? this.held.push({ type: 'idle', channel: id, idle }) : this.onIdle(id, idle)),
      barrier: (barrier) => (this.blocked[id] ? this.held.push({ type: 'barrier', channel: id, barrier }) : this.onBarrier(id, barrier)),
      endOfData: () => {
        if (!this.blocked[id]) return this.onEndOfData(id);
        return new Promise<void>((resolve, reject) => this.held.push({ type: 'endOfData', channel: id, done: (e) => (e === undefined ? resolve() : reject(e)) }));
      },
      end: () => {
        if (!this.blocked[id]) return this.onChannelEnd(id);
        return new Promise<void>((resolve, reject) => this.held.push({ type: 'end', channel: id, done: (e) => (e === undefined ? resolve() : reject(e)) }));
      },
    };
  }

  /**
   * True once the operator has processed end of input on every input (or the subtask was restored
   * finished): it emits nothing more, and a checkpoint takes none of its keyed state.
   */
  get finished(): boolean {
    return this.isFinished;
  }

  /** Before the job starts: the subtask was restored from a finished subtask state, so it starts finished. */
  startFinished(): void {
    this.isFinished = true;
    this.restoredFinished = true;
  }

  private process(channel: number, batch: ChangeBatch): void {
    if (this.isFinished) throw new WeirError('INTERNAL_ERROR', `a finished operator subtask received ${batch.size} records: its inputs had ended${this.restoredFinished ? ' in the checkpoint it was restored from' : ''}`);
    this.recordsIn += batch.size;
    enterBusy(this.busy);
    try {
      this.operator.processBatch(batch, this.inputOf[channel]!);
    } finally {
      exitBusy();
    }
  }

  /** The operator's input watermark (the minimum over its channels); -Infinity before the first, Infinity once every input ended. */
  get watermark(): number {
    return this.currentWatermark;
  }

  private onWatermark(channel: number, watermark: number): void {
    if (watermark <= this.channelWatermarks[channel]!) return;
    this.channelWatermarks[channel] = watermark;
    this.advanceWatermark(channel);
  }

  private onIdle(channel: number, idle: boolean): void {
    if (this.idle[channel] === idle) return;
    this.idle[channel] = idle;
    if (idle) this.advanceWatermark(channel);
    this.passOnIdleness();
  }

  /** Tells downstream this subtask is idle when every open channel is, and active again when one is not. */
  private passOnIdleness(): void {
    let allIdle = true;
    let open = false;
    for (let c = 0; c < this.idle.length; c++) {
      if (this.dataEnded[c]) continue;
      open = true;
      if (!this.idle[c]) allIdle = false;
    }
    if (!open || allIdle === this.outputIdle) return;
    this.outputIdle = allIdle;
    this.output.emitIdle(allIdle);
  }

  /**
   * Moves the watermark to the minimum over active channels when that is later; when every channel
   * is idle, to the maximum over all of them (as Flink flushes: no channel will advance it).
   */
  private advanceWatermark(channel: number): void {
    let min = Infinity;
    let max = -Infinity;
    let active = false;
    const marks = this.channelWatermarks;
    for (let c = 0; c < marks.length; c++) {
      const mark = marks[c]!;
      if (mark > max) max = mark;
      if (this.idle[c]) continue;
      active = true;
      if (mark < min) min = mark;
    }
    const next = active ? min : max;
    if (next <= this.currentWatermark) return;
    this.currentWatermark = next;
    if (this.operator.processWatermark === undefined || this.restoredFinished) {
      this.output.emitWatermark(next);
      return;
    }
    enterBusy(this.busy);
    try {
      this.operator.processWatermark(next, this.inputOf[channel]!);
    } finally {
      exitBusy();
    }
  }

  private onBarrier(channel: number, barrier: Barrier): void {
    const current = this.aligning;
    if (current !== null && barrier.id < current.barrier.id) return;
    if (current !== null && barrier.id > current.barrier.id) this.cancelAlignment();
    const alignment = this.aligning ?? (this.aligning = { barrier, arrived: new Set() });
    alignment.arrived.add(channel);
    if (this.barriers.mode === 'EXACTLY_ONCE') this.blocked[channel] = true;
    this.completeAlignmentIfReady();
  }

  private completeAlignmentIfReady(): void {
    const alignment = this.aligning;
    if (alignment === null) return;
    for (let c = 0; c < this.ended.length; c++) if (!this.ended[c] && !alignment.arrived.has(c)) return;
    this.aligning = null;
    this.barriers.snapshot(this, alignment.barrier);
    this.output.emitBarrier(alignment.barrier);
    this.release();
  }

  /** A newer barrier overtook the one being aligned (that checkpoint was aborted): stop waiting for it. */
  private cancelAlignment(): void {
    this.aligning = null;
    this.release();
  }

  private release(): void {
    this.blocked.fill(false);
    const held = this.held;
    this.held = [];
    for (const event of held) {
      if (this.blocked[event.channel]) {
        this.held.push(event);
        continue;
      }
      switch (event.type) {
        case 'batch':
          this.process(event.channel, event.batch);
          break;
        case 'watermark':
          this.onWatermark(event.channel, event.watermark);
          break;
        case 'idle':
          this.onIdle(event.channel, event.idle);
          break;
        case 'barrier':
          this.onBarrier(event.channel, event.barrier);
          break;
        case 'endOfData':
          this.onEndOfData(event.channel).then(() => event.done(), event.done);
          break;
        case 'end':
          this.onChannelEnd(event.channel).then(() => event.done(), event.done);
          break;
        default:
          return assertNever(event);
      }
    }
  }

  /**
   * End of data on a channel: its watermark is final; the last channel of an input ends the input
   * (the operator's `endInput`, unless restored finished); the last input finishes the subtask,
   * which passes a final watermark and end of data on.
   */
  private async onEndOfData(channel: number): Promise<void> {
    if (this.dataEnded[channel]) return;
    this.idle[channel] = false;
    this.onWatermark(channel, Infinity);
    this.dataEnded[channel] = true;
    this.passOnIdleness();
    const input = this.inputOf[channel]!;
    if (--this.openPerInput[input]! !== 0) return;
    if (!this.restoredFinished) await this.operator.endInput?.(input);
    if (--this.inputsOpen > 0) return;
    this.isFinished = true;
    this.output.emitWatermark(Infinity);
    await this.output.endOfData();
  }

  /** A channel ended (after its end of data; a producer that sent none gets it handled here first); the last one ends the subtask's output. */
  private async onChannelEnd(channel: number): Promise<void> {
    if (this.ended[channel]) return;
    if (!this.dataEnded[channel]) await this.onEndOfData(channel);
    this.ended[channel] = true;
    this.completeAlignmentIfReady();
    if (--this.channelsOpen > 0) return;
    await this.output.end();
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected held event ${JSON.stringify(value)}`);
}
