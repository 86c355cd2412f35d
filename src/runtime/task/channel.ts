/** What travels from one producer subtask to one input of one consumer subtask. */
import type { ChangeBatch } from '../../common/row.js';
import type { Barrier } from '../checkpoint/barrier.js';

/** The receiving end of a connection between two subtasks. Calls arrive in the producer's order. */
export interface Channel {
  /** Delivers a batch (valid only during the call). */
  push(batch: ChangeBatch): void;
  /** Delivers the producer's watermark. */
  watermark(watermark: number): void;
  /**
   * The producer went idle (no input for `table.exec.source.idle-timeout`) or became active again:
   * an idle channel does not hold back the consumer's watermark. Optional for consumers that
   * ignore watermarks.
   */
  idle?(idle: boolean): void;
  /** Delivers a checkpoint barrier: everything pushed before it belongs to that checkpoint. */
  barrier(barrier: Barrier): void;
  /**
   * End of data (Flink's EndOfData): the producer will send no more batches or watermarks, only
   * barriers until it ends. Resolves once the consumer has handled it — processed end of input,
   * and passed it on if it was its last open channel. Optional: a consumer without it handles end
   * of data at `end`.
   */
  endOfData?(): Promise<void>;
  /** The producer has ended (after its end of data, if it sent one); resolves once the consumer has handled it (and ended itself if it was the last input). */
  end(): Promise<void>;
}
