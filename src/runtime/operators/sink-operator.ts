/** Hands batches to a connector's SinkWriter; flushes it when the input ends. */
import type { ChangeBatch } from '../../common/row.js';
import type { SinkWriter } from '../sink-writer.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** The last operator of a pipeline: writes through a SinkWriter, with its backpressure. */
export class SinkOperator implements StreamOperator {
  private context!: OperatorContext;

  constructor(private readonly writer: SinkWriter) {}

  async open(context: OperatorContext): Promise<void> {
    this.context = context;
    await this.writer.open({ subtask: context.subtask, parallelism: context.parallelism, warn: (m) => context.warn(m) });
  }

  processBatch(batch: ChangeBatch): void {
    const pending = this.writer.write(batch);
    if (pending !== undefined) this.context.waitFor(pending);
  }

  processWatermark(): void {}

  async endInput(): Promise<void> {
    await this.writer.flush();
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}
