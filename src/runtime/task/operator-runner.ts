/**
 * Runs one subtask of an operator: receives batches, watermarks and end-of-input from its
 * upstream channels, keeps the operator's watermark at the minimum over its channels, and ends
 * its own output (after a final watermark) once every input has ended.
 */
import type { ChangeBatch } from '../../common/row.js';
import type { StreamOperator } from '../stream-operator.js';
import type { Channel } from './channel.js';
import type { OutputRouter } from './output-router.js';

/** A subtask of a non-source operator. */
export class OperatorRunner {
  recordsIn = 0;
  private readonly openChannels: number[];
  private readonly channelWatermarks: number[][];
  private currentWatermark = -Infinity;
  private inputsOpen: number;

  constructor(
    readonly operator: StreamOperator,
    readonly output: OutputRouter,
    channelsPerInput: readonly number[],
  ) {
    this.openChannels = [...channelsPerInput];
    this.channelWatermarks = channelsPerInput.map((n) => new Array<number>(n).fill(-Infinity));
    this.inputsOpen = channelsPerInput.filter((n) => n > 0).length;
  }

  /** The receiving end for upstream channel `channel` (0-based per input) of input `input`. */
  channel(input: number, channel: number): Channel {
    return {
      push: (batch: ChangeBatch) => {
        this.recordsIn += batch.size;
        this.operator.processBatch(batch, input);
      },
      watermark: (watermark: number) => this.onWatermark(input, channel, watermark),
      end: () => this.onChannelEnd(input, channel),
    };
  }

  private onWatermark(input: number, channel: number, watermark: number): void {
    const marks = this.channelWatermarks[input]!;
    if (watermark <= marks[channel]!) return;
    marks[channel] = watermark;
    let min = Infinity;
    for (const perInput of this.channelWatermarks) for (const mark of perInput) if (mark < min) min = mark;
    if (min <= this.currentWatermark) return;
    this.currentWatermark = min;
    if (this.operator.processWatermark !== undefined) this.operator.processWatermark(min, input);
    else this.output.emitWatermark(min);
  }

  private async onChannelEnd(input: number, channel: number): Promise<void> {
    this.onWatermark(input, channel, Infinity);
    this.openChannels[input]!--;
    if (this.openChannels[input] !== 0) return;
    await this.operator.endInput?.(input);
    this.inputsOpen--;
    if (this.inputsOpen > 0) return;
    this.output.emitWatermark(Infinity);
    await this.output.end();
  }
}
