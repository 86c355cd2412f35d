/**
 * The open readers of writable tables, so that FLUSH can wait until each has read every change
 * written before it: a checkpoint barrier goes into the stream right after a poll, so once a reader
 * has read up to the log's length at FLUSH time, the checkpoint FLUSH takes next follows all of
 * those changes, however many polls they took.
 */

/** What the registry needs of a reader: how far it has read, and how far it will read. */
export interface TrackedReader {
  /** Bytes of the log consumed so far. */
  readonly position: number;
  /** The byte the reader must reach to have read what the log holds now (its end, when bounded). */
  target(): number;
}

/** How often a waiting FLUSH checks the readers again. */
const CHECK_INTERVAL_MS = 2;

/** A set of open readers. */
export class TableReaders {
  private readonly open = new Set<TrackedReader>();

  add(reader: TrackedReader): void {
    this.open.add(reader);
  }

  delete(reader: TrackedReader): void {
    this.open.delete(reader);
  }

  /** The sum of what the open readers' logs hold: it grows with every write into one of them. */
  writtenMark(): number {
    let mark = 0;
    for (const reader of this.open) mark += reader.target();
    return mark;
  }

  /**
   * Resolves true once every reader open now has read up to what its log held at the call, or has
   * been closed; false if `signal` aborts first (the caller gave up). Readers opened later are not
   * waited for (they read from an offset that is already past the call, or from the start).
   */
  async caughtUp(signal?: AbortSignal): Promise<boolean> {
    const pending = [...this.open].map((reader) => ({ reader, target: reader.target() }));
    for (;;) {
      const behind = pending.filter(({ reader, target }) => this.open.has(reader) && reader.position < target);
      if (behind.length === 0) return true;
      if (signal?.aborted === true) return false;
      await new Promise((resolve) => setTimeout(resolve, CHECK_INTERVAL_MS).unref());
    }
  }
}
