/**
 * Checkpoint barriers (Chandy–Lamport markers): injected by every source in line with its
 * records, aligned by operators with several input channels, and acknowledged by every subtask
 * once its snapshot is written.
 */

/** How barriers are handled at operators with several input channels. */
export type CheckpointingMode = 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';

/** A barrier for checkpoint (or savepoint) `id`. */
export interface Barrier {
  readonly id: number;
  readonly kind: 'checkpoint' | 'savepoint';
  /** True for the last checkpoint of a job whose sources have all ended. */
  readonly final: boolean;
}
