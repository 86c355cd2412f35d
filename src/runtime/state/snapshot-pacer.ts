/**
 * How a snapshot writer shares the thread with processing: it writes in chunks, each ending after
 * `chunkEntries` entries or once its time slice is over (checked every 256 entries), and between
 * two chunks processing runs. A slice lasts as long as processing took since the previous chunk
 * (a fair half of the thread, so that a large state is written in seconds however long the turns
 * of processing are), at least {@link SNAPSHOT_SLICE_MS} and at most {@link SNAPSHOT_MAX_SLICE_MS},
 * so that processing is never held up for long.
 */

/**
 * Key changes of processing between two chunks a pending snapshot writes from processing itself:
 * a writer's own turns of the event loop come only between turns of processing, which may last
 * hundreds of milliseconds, so backends also step their oldest pending writer every this many
 * changes of the current key (at a key change no access is under way).
 */
export const KEYS_PER_SNAPSHOT_CHUNK = 4096;

/**
 * A snapshot writer's chunks of work (a generator whose every `yield` is a point where processing
 * may run) that remembers the first failure: a step after it throws it again, so a failed chunk
 * written from processing reaches the writer's stream, which declines the checkpoint.
 */
export class SnapshotChunks {
  private error: unknown;
  private failedOnce = false;

  constructor(private readonly work: Generator<void>) {}

  /** Runs one chunk; true once the work is done. */
  step(): boolean {
    if (this.failedOnce) throw this.error;
    try {
      return this.work.next().done === true;
    } catch (error) {
      this.failedOnce = true;
      this.error = error;
      throw error;
    }
  }

  /** True once a chunk failed. */
  get failed(): boolean {
    return this.failedOnce;
  }
}

/**
 * Writes a chunk of a pending snapshot from processing (every {@link KEYS_PER_SNAPSHOT_CHUNK} key
 * changes), unless it already failed. A failure is the writer's, not processing's: it is recorded
 * (see {@link SnapshotChunks}) and thrown again by the writer's next step in its stream.
 */
export function stepFromProcessing(writer: { readonly failed: boolean; step(): boolean }): void {
  if (writer.failed) return;
  try {
    writer.step();
  } catch {
    // Recorded by the writer (writer.failed), thrown again by its next step in the stream.
  }
}

/** Milliseconds a chunk runs at least. */
export const SNAPSHOT_SLICE_MS = 4;

/** Milliseconds a chunk runs at most. */
export const SNAPSHOT_MAX_SLICE_MS = 20;

/** The pacing of one snapshot's chunks (see the module comment). */
export class SnapshotPacer {
  private count = 0;
  private deadline = performance.now() + SNAPSHOT_SLICE_MS;

  constructor(private readonly chunkEntries: number) {}

  /** Counts one entry written; true when the chunk should end here. */
  entryWritten(): boolean {
    return ++this.count >= this.chunkEntries || ((this.count & 255) === 0 && performance.now() >= this.deadline);
  }

  /** Ends a chunk: `flush` writes its frames, processing runs (the yield), and the next slice is set. */
  *pause(flush: () => void): Generator<void> {
    flush();
    const yieldedAt = performance.now();
    yield;
    const resumedAt = performance.now();
    this.count = 0;
    this.deadline = resumedAt + Math.min(SNAPSHOT_MAX_SLICE_MS, Math.max(SNAPSHOT_SLICE_MS, resumedAt - yieldedAt));
  }
}
