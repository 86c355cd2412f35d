/**
 * Hands batches to a connector's SinkWriter. With a transactional writer and checkpointing on, it
 * runs the two-phase commit of the checkpoint protocol: pre-commit at each barrier (the prepared
 * transactions are this operator's state), commit once the checkpoint is complete, and on
 * restore commit what the restored checkpoint recorded and abort the rest. Otherwise the writer
 * is flushed when the input ends. Watermarks reach the writer in order with the batches.
 *
 * While a pre-commit is in flight the sink holds back its input: the pre-commit is work the job
 * waits for, so the sources pause (barriers still pass them). What arrives meanwhile — input an
 * alignment held back, rows a timer or an asynchronous operator emits — is kept in order for the
 * next transaction.
 */
import type { ChangeBatch } from '../../common/row.js';
import { failpoint } from '../checkpoint/failpoints.js';
import { isTransactional, type PreparedTransaction, type SinkWriter, type TransactionalSinkWriter } from '../sink-writer.js';
import type { OperatorContext, StateInitializationContext, StreamOperator } from '../stream-operator.js';

/** The operator state of a sink subtask: transactions prepared but not known to be committed, and the writer's own state. */
interface SinkState {
  readonly pending: readonly PreparedTransaction[];
  readonly writer?: unknown;
}

/** The last operator of a pipeline. */
export class SinkOperator implements StreamOperator {
  private context!: OperatorContext;
  private pending: PreparedTransaction[] = [];
  private restored: { pending: PreparedTransaction[]; checkpointId: number } | undefined;
  /** Batches and watermarks that arrived while a pre-commit was in flight (few: the sources wait); they belong to the next transaction. */
  private held: (ChangeBatch | number)[] | null = null;

  /** `timeZone`: the job's resolved zone, handed to the writer (the print sink shows TIMESTAMP_LTZ in it). */
  constructor(
    private readonly writer: SinkWriter,
    private readonly timeZone?: string,
  ) {}

  initializeState(context: StateInitializationContext): void {
    if (!context.isRestored()) return;
    const states = context.operatorState as SinkState[];
    this.restored = { pending: states.flatMap((s) => s.pending), checkpointId: context.restoredCheckpointId! };
    this.writer.initializeState?.(states.flatMap((s) => (s.writer === undefined ? [] : [s.writer])));
  }

  async open(context: OperatorContext): Promise<void> {
    this.context = context;
    await this.writer.open({ subtask: context.subtask, parallelism: context.parallelism, run: context.run, ...(this.timeZone === undefined ? {} : { timeZone: this.timeZone }), warn: (m) => context.warn(m) });
    if (this.restored !== undefined && isTransactional(this.writer)) {
      await this.writer.recover(this.restored.pending, this.restored.checkpointId);
    }
  }

  processBatch(batch: ChangeBatch): void {
    if (this.held !== null) {
      this.held.push(batch.copy());
      return;
    }
    const pending = this.writer.write(batch);
    if (pending !== undefined) this.context.waitFor(pending);
  }

  processWatermark(watermark: number): void {
    if (this.held !== null) {
      this.held.push(watermark);
      return;
    }
    const pending = this.writer.processWatermark?.(watermark);
    if (pending !== undefined) this.context.waitFor(pending);
  }

  snapshotState(checkpointId: number): SinkState | Promise<SinkState> {
    const writer = this.writer;
    const writerState = writer.snapshotState?.(checkpointId);
    const withWriter = (state: SinkState): SinkState => (writerState === undefined ? state : { ...state, writer: writerState });
    if (!isTransactional(writer)) return withWriter({ pending: [] });
    failpoint('sink.before-prepare');
    this.held = [];
    const prepared = this.prepare(writer, checkpointId).then(withWriter);
    // Backpressure: the job's sources wait for the pre-commit; its failure fails the job.
    this.context.waitFor(prepared.then(() => undefined));
    return prepared;
  }

  private async prepare(writer: TransactionalSinkWriter, checkpointId: number): Promise<SinkState> {
    const transaction = await writer.prepareCommit(checkpointId);
    this.pending.push(transaction);
    failpoint('sink.after-prepare-before-ack');
    const held = this.held ?? [];
    this.held = null;
    for (const item of held) {
      if (typeof item === 'number') this.processWatermark(item);
      else this.processBatch(item);
    }
    return { pending: [...this.pending] };
  }

  pendingTransactions(): number {
    return this.writer.pendingTransactions?.() ?? 0;
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const writer = this.writer;
    if (!isTransactional(writer)) return;
    const due = this.pending.filter((t) => t.checkpointId <= checkpointId);
    if (due.length === 0) return;
    failpoint('sink.after-complete-before-commit');
    await writer.commit(due);
    this.pending = this.pending.filter((t) => t.checkpointId > checkpointId);
  }

  async endInput(): Promise<void> {
    if (!this.context.checkpointing || !isTransactional(this.writer)) await this.writer.flush();
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}
