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

/** Bytes of one buffer that serialised parts are copied into. */
const ARENA_BYTES = 4 << 20;

/** Arena buffers free for reuse, shared by the writers of a process (a few at most). */
const freeArenas: Buffer[] = [];
const MAX_FREE_ARENAS = 16;

/**
 * Parts produced and not yet handed out, and the bytes of all parts ever produced. A part is
 * copied at once into an arena buffer (reused from one batch to the next) and the serialiser's
 * own buffer is dropped: it dies young. Held until the storage has written it — across turns of
 * processing, long enough to be promoted — each such buffer would keep its off-heap bytes until a
 * full collection, and hundreds of megabytes of them per checkpoint drove V8 into back-to-back
 * full collections of a large heap. The arenas of a batch handed out are reused once the
 * consumer asks for the next batch ({@link recycle}): a batch is valid until then.
 */
export class SnapshotParts {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private appended = 0;
  private arena: Buffer | undefined;
  private used = 0;
  /** Arenas holding parts not yet handed out. */
  private filled: Buffer[] = [];
  /** Arenas of the batch last handed out. */
  private handedOut: Buffer[] = [];

  /** Adds a part (its bytes copied into arenas, split where one is full); `appended` when it belongs to a frame that only appends rows to lists. */
  push(part: Uint8Array, appended = false): void {
    this.bytes += part.byteLength;
    if (appended) this.appended += part.byteLength;
    for (let at = 0; at < part.byteLength; ) {
      if (this.arena === undefined || this.used === this.arena.length) {
        this.seal();
        this.arena = freeArenas.pop() ?? Buffer.allocUnsafeSlow(ARENA_BYTES);
      }
      const n = Math.min(part.byteLength - at, this.arena.length - this.used);
      this.arena.set(part.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
    }
  }

  /** Ends the current arena: what it holds becomes a part. */
  private seal(): void {
    const arena = this.arena;
    if (arena === undefined) return;
    if (this.used > 0) {
      this.parts.push(arena.subarray(0, this.used));
      this.filled.push(arena);
    } else if (freeArenas.length < MAX_FREE_ARENAS) freeArenas.push(arena);
    this.arena = undefined;
    this.used = 0;
  }

  /** Bytes of every part produced so far (handed out or not). */
  get byteLength(): number {
    return this.bytes;
  }

  /** Bytes of the parts of frames that only append rows to lists. */
  get appendedBytes(): number {
    return this.appended;
  }

  /** The parts produced since the last call, in order; valid until {@link recycle}. */
  take(): Uint8Array[] {
    this.seal();
    const parts = this.parts;
    this.parts = [];
    this.handedOut.push(...this.filled);
    this.filled = [];
    return parts;
  }

  /** The parts taken so far are no longer used: their arenas may hold other parts. */
  recycle(): void {
    for (const arena of this.handedOut) if (freeArenas.length < MAX_FREE_ARENAS) freeArenas.push(arena);
    this.handedOut = [];
  }
}

/**
 * The file's parts in order, a chunk's parts at a time, each batch valid until the next is asked
 * for (the storage writes them with one system
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
      // Asked for the next batch: the consumer is done with this one.
      parts.recycle();
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
  const bytes = Buffer.concat(parts.take());
  parts.recycle();
  return bytes;
}
