/**
 * What one sink subtask knows for partition commit: the partitions it wrote files into that are
 * not yet known to be committed (with their creation time and the checkpoint of their latest
 * files), which of its checkpoints are committed, and the watermark at each barrier. It is the
 * subtask's share of Flink's PartitionCommitter state, kept in the sink's checkpoints.
 */
import { WeirError } from '../../common/errors.js';

/** The `lastCheckpoint` of a partition with records in the open transaction. */
const OPEN = Number.POSITIVE_INFINITY;

/** A partition this subtask wrote into since it was last committed. */
export interface PendingPartition {
  /** When this subtask started writing into it (processing time, epoch milliseconds). */
  readonly created: number;
  /** The checkpoint whose transaction holds its latest files; Infinity while the open transaction has records for it. */
  lastCheckpoint: number;
}

/** The tracker's part of a checkpoint: `[directory, created, lastCheckpoint]` per pending partition. */
export interface PartitionTrackerState {
  readonly partitions: readonly (readonly [string, number, number])[];
}

/** One subtask's pending partitions, committed checkpoints and watermarks. */
export class PartitionCommitTracker {
  /** Pending partitions by directory relative to the table's path. */
  readonly pending = new Map<string, PendingPartition>();
  /** The latest checkpoint whose files are visible. */
  committedUpTo = Number.NEGATIVE_INFINITY;
  /** The watermark at the barrier of `committedUpTo` (-Infinity when unknown, as after a restore). */
  committedWatermark = Number.NEGATIVE_INFINITY;
  /** The current watermark at the sink. */
  watermark = Number.NEGATIVE_INFINITY;
  readonly #watermarkAt = new Map<number, number>();

  /** The open transaction has records for the partition in `directory`. */
  touch(directory: string, now: number): void {
    const partition = this.pending.get(directory);
    if (partition === undefined) this.pending.set(directory, { created: now, lastCheckpoint: OPEN });
    else partition.lastCheckpoint = OPEN;
  }

  /** The open transaction became checkpoint `checkpointId`'s; the current watermark is the one at its barrier. */
  prepared(checkpointId: number): void {
    for (const partition of this.pending.values()) if (partition.lastCheckpoint === OPEN) partition.lastCheckpoint = checkpointId;
    this.#watermarkAt.set(checkpointId, this.watermark);
  }

  /** The files of every checkpoint up to `checkpointId` are visible. */
  committed(checkpointId: number): void {
    if (checkpointId <= this.committedUpTo) return;
    this.committedUpTo = checkpointId;
    this.committedWatermark = this.#watermarkAt.get(checkpointId) ?? Number.NEGATIVE_INFINITY;
    for (const id of this.#watermarkAt.keys()) if (id <= checkpointId) this.#watermarkAt.delete(id);
  }

  /** True when the files this subtask wrote into the partition are all visible (or it wrote none). */
  isVisible(directory: string): boolean {
    const partition = this.pending.get(directory);
    return partition === undefined || partition.lastCheckpoint <= this.committedUpTo;
  }

  /** True once the final watermark arrived: the input has ended. */
  get ended(): boolean {
    return this.watermark === Number.POSITIVE_INFINITY;
  }

  /** The state at barrier `checkpointId`, taken just before the open transaction is prepared as that checkpoint's. */
  snapshot(checkpointId: number): PartitionTrackerState {
    const partitions = [...this.pending].map(([directory, p]) => [directory, p.created, p.lastCheckpoint === OPEN ? checkpointId : p.lastCheckpoint] as const);
    return { partitions };
  }

  /** Adds the pending partitions of restored states (those of every subtask before a restart may arrive here). */
  restore(table: string, states: readonly unknown[]): void {
    for (const state of states) {
      const partitions = (state as Partial<PartitionTrackerState> | null)?.partitions;
      if (!Array.isArray(partitions) || !partitions.every(isPartitionEntry)) {
        throw new WeirError('CONNECTOR_ERROR', `filesystem sink '${table}' cannot restore its partition commit state: ${JSON.stringify(state)}`);
      }
      for (const [directory, created, lastCheckpoint] of partitions) {
        const known = this.pending.get(directory);
        if (known === undefined) this.pending.set(directory, { created, lastCheckpoint });
        else this.pending.set(directory, { created: Math.min(known.created, created), lastCheckpoint: Math.max(known.lastCheckpoint, lastCheckpoint) });
      }
    }
  }
}

function isPartitionEntry(entry: unknown): entry is [string, number, number] {
  return Array.isArray(entry) && entry.length === 3 && typeof entry[0] === 'string' && Number.isFinite(entry[1]) && Number.isFinite(entry[2]);
}
