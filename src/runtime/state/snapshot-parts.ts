/**
 * The parts of a state file a snapshot writer has produced and not yet handed out, and the two
 * ways a writer's file is taken: streamed while processing goes on (the runtime writes each
 * chunk's parts to storage as soon as the chunk is serialised, so a snapshot never sits whole in
 * memory, where hundreds of megabytes of buffers would drive the garbage collector into
 * back-to-back full collections of a large heap), or at once (tests and tools).
 */

/** What {@link streamSnapshot} needs of a writer. */
export interface SteppedWriter {
  /** Writes one chunk into its parts; true once everything is written. */
  step(): boolean;
  /** Abandons the snapshot: releases what the writer holds; later steps throw. */
  abort(): void;
}

/** Parts produced and not yet handed out, and the bytes of all parts ever produced. */
export class SnapshotParts {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private appended = 0;

  /** Adds a part; `appended` when it belongs to a frame that only appends rows to lists. */
  push(part: Uint8Array, appended = false): void {
    this.parts.push(part);
    this.bytes += part.byteLength;
    if (appended) this.appended += part.byteLength;
  }

  /** Bytes of every part produced so far (handed out or not). */
  get byteLength(): number {
    return this.bytes;
  }

  /** Bytes of the parts of frames that only append rows to lists. */
  get appendedBytes(): number {
    return this.appended;
  }

  /** The parts produced since the last call, in order; they are the caller's from now on. */
  take(): Uint8Array[] {
    const parts = this.parts;
    this.parts = [];
    return parts;
  }
}

/**
 * The file's parts in order, a chunk's parts at a time (the storage writes them with one system
 * call: a turn of processing may pass between two writes, so a write per part would spread a
 * snapshot over hundreds of turns), with a turn of the event loop after each chunk (and whatever
 * the consumer awaits). A consumer that stops early (a failed write) abandons the snapshot: the
 * writer is aborted, so it no longer copies keys for processing.
 */
export async function* streamSnapshot(writer: SteppedWriter, parts: SnapshotParts): AsyncGenerator<readonly Uint8Array[], void, undefined> {
  let done = false;
  try {
    for (;;) {
      done = writer.step();
      const chunk = parts.take();
      if (chunk.length > 0) yield chunk;
      if (done) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    if (!done) writer.abort();
  }
}

/** Writes what is left at once; the bytes of the parts not handed out before (the whole file when nothing was streamed). */
export function writeSnapshotSync(writer: SteppedWriter, parts: SnapshotParts): Uint8Array {
  while (!writer.step());
  return Buffer.concat(parts.take());
}
