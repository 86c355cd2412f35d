/**
 * The filesystem source reader: the files under `'path'` (source-file-listing.ts) in name order,
 * streamed in chunks ({@link CHUNK_BYTES}), split into records on the raw bytes
 * (line-record-splitter.ts), decoded by the table's format and emitted as inserts. A `\r` before
 * a record's `\n` is dropped. Bounded, it ends after the last file, whose final line is a record
 * even without a `\n`; with `'source.monitor-interval'` it never ends, lists the path again each
 * interval and reads new files and lines appended to known ones, waiting for a final line's `\n`.
 *
 * The offset is, per file, the byte (and line number) after the last record consumed, so a
 * restored reader continues exactly after the last record it emitted, mid-file if need be.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { PollStatus, SourceContext, SourceReader } from '../../runtime/source-reader.js';
import { createBadRecordPolicy, type SyncBadRecordPolicy } from '../formats/bad-record-policy.js';
import { createLineRecordSplitter, type RecordSplitter } from '../formats/line-record-splitter.js';
import { createRecordDecoder } from '../formats/record-decoder-factory.js';
import { RecordDecodeError, type RecordDecoder } from '../formats/record-decoder.js';
import type { FileSourceOptions } from './file-source-options.js';
import { listSourceFiles, type SourceFile } from './source-file-listing.js';

/** Bytes read from a file at a time. */
export const CHUNK_BYTES = 1024 * 1024;

/** Where reading a file continues: the byte after the last record consumed, and that record's next line number (from 1). */
export interface FilePosition {
  byte: number;
  line: number;
}

/** The reader's offset: the position of every file it has started, by {@link SourceFile.name}. */
export interface FileSourceOffset {
  readonly files: Readonly<Record<string, Readonly<FilePosition>>>;
}

/** Settings tests change: the read size, and where dead letters go. */
export interface FileSourceReaderSettings {
  /** Bytes read at a time; {@link CHUNK_BYTES} by default. */
  readonly chunkBytes?: number;
  /** The dead-letter folder; `.weir/dead-letter` under the working directory by default. */
  readonly deadLetterDir?: string;
}

/** A file being read: its unconsumed bytes and where they are in the file. */
interface OpenFile {
  readonly file: SourceFile;
  readonly handle: FileHandle;
  readonly position: FilePosition;
  /** Bytes read and not yet consumed start at `bytes[at]`, which is file byte `position.byte`. */
  bytes: Buffer;
  at: number;
  /** The file byte the next read starts at. */
  readPos: number;
  /** True once a read returned nothing: the bytes hold the rest of the file (as far as it is written). */
  eof: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const NO_BYTES = Buffer.alloc(0);
const REPLACEMENT_CHARACTER = '\uFFFD';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a filesystem table; runs as one subtask. */
export class FileSourceReader implements SourceReader {
  readonly #table: string;
  readonly #options: FileSourceOptions;
  readonly #decoder: RecordDecoder;
  readonly #splitter: RecordSplitter;
  readonly #policy: SyncBadRecordPolicy;
  readonly #positions = new Map<string, FilePosition>();
  /** Sizes up to which files have been read while monitoring, so that unchanged files are not read again. */
  readonly #readSizes = new Map<string, number>();
  /** The size of every file listed, for progress. */
  readonly #fileSizes = new Map<string, number>();
  readonly #monitoring: boolean;
  readonly #chunkBytes: number;
  #context: SourceContext | undefined;
  #queue: SourceFile[] = [];
  #current: OpenFile | undefined;
  #nextListing = 0;

  constructor(table: string, schema: Schema, options: FileSourceOptions, settings: FileSourceReaderSettings = {}) {
    this.#table = table;
    this.#options = options;
    this.#chunkBytes = settings.chunkBytes ?? CHUNK_BYTES;
    this.#monitoring = options.monitorIntervalMs !== undefined;
    this.#decoder = createRecordDecoder(schema, options.format);
    this.#splitter = createLineRecordSplitter(options.format);
    this.#policy = createBadRecordPolicy({
      connector: 'filesystem',
      table,
      ignoreParseErrors: options.format.ignoreParseErrors,
      warn: (message) => this.#context?.warn(message),
      ...(settings.deadLetterDir === undefined ? {} : { deadLetterDir: settings.deadLetterDir }),
    });
  }

  rejectedRecords(): number {
    return this.#policy.rejected;
  }

  /** Continues after an offset from {@link currentOffset}. */
  seek(offset: unknown): void {
    const files = typeof offset === 'object' && offset !== null ? (offset as { files?: unknown }).files : undefined;
    if (typeof files !== 'object' || files === null) throw this.#badOffset(offset);
    for (const [name, position] of Object.entries(files as Record<string, unknown>)) {
      const { byte, line } = (position ?? {}) as { byte?: unknown; line?: unknown };
      if (!Number.isSafeInteger(byte) || (byte as number) < 0 || !Number.isSafeInteger(line) || (line as number) < 1) throw this.#badOffset(offset);
      this.#positions.set(name, { byte: byte as number, line: line as number });
    }
  }

  async open(context: SourceContext): Promise<void> {
    if (context.parallelism !== 1) throw new WeirError('INTERNAL_ERROR', `filesystem source '${this.#table}' must run as one subtask, not ${context.parallelism}`);
    this.#context = context;
    this.#queue = await this.#list();
    this.#nextListing = performance.now() + (this.#options.monitorIntervalMs ?? 0);
  }

  /**
   * Appends up to `maxRecords` rows. Synchronous while read bytes hold complete records; otherwise
   * a promise that reads on. 'end' after the last file when bounded; 'idle' when monitoring found
   * nothing new.
   */
  poll(output: ChangeBatch, maxRecords: number): PollStatus | Promise<PollStatus> {
    if (this.#context === undefined) throw new WeirError('INTERNAL_ERROR', `filesystem source '${this.#table}' polled before open`);
    if (this.#drain(output, maxRecords) > 0) return 'more';
    return this.#readOn(output, maxRecords);
  }

  /** The position of every file started so far (a copy). */
  currentOffset(): FileSourceOffset {
    const files: Record<string, FilePosition> = {};
    for (const [name, { byte, line }] of this.#positions) files[name] = { byte, line };
    return { files };
  }

  /** Bytes consumed of the files listed, and their total size unless the directory is monitored (then it grows). */
  progress(): { done: number; total?: number } {
    let done = 0;
    for (const { byte } of this.#positions.values()) done += byte;
    if (this.#monitoring) return { done };
    let total = 0;
    for (const size of this.#fileSizes.values()) total += size;
    return { done, total };
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.handle.close();
  }

  /** Decodes the complete records among the bytes read, up to `maxRecords` rows; returns how many rows it appended. */
  #drain(output: ChangeBatch, maxRecords: number): number {
    const file = this.#current;
    if (file === undefined) return 0;
    const { bytes, position } = file;
    const splitter = this.#splitter;
    const decoder = this.#decoder;
    const lastLineIsRecord = file.eof && !this.#monitoring;
    let at = file.at;
    let emitted = 0;
    while (emitted < maxRecords && at < bytes.length) {
      let end = splitter.end(bytes, at);
      let next = end + 1;
      if (end < 0) {
        if (!lastLineIsRecord) break;
        end = bytes.length;
        next = end;
      }
      const start = at;
      const stop = end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
      const line = position.line;
      const byte = position.byte;
      position.line += splitter.multiline ? 1 + countNewlines(bytes, start, end) : 1;
      position.byte += next - start;
      at = next;
      if (splitter.skips(bytes, start, stop)) continue;
      const text = bytes.toString('utf8', start, stop);
      try {
        if (text.includes(REPLACEMENT_CHARACTER)) checkUtf8(bytes, start, stop);
        output.push(RowKind.INSERT, decoder.decode(text));
        emitted++;
      } catch (error) {
        if (!(error instanceof RecordDecodeError)) throw error;
        file.at = at;
        this.#policy.reject(text, { source: file.file.path, position: `line ${line} (byte ${byte})` }, error);
      }
    }
    file.at = at;
    return emitted;
  }

  /** Reads, opens, closes and lists files until rows were appended or there is nothing to read now. */
  async #readOn(output: ChangeBatch, maxRecords: number): Promise<PollStatus> {
    for (;;) {
      const file = this.#current;
      if (file !== undefined) {
        if (file.eof) {
          await this.#closeCurrent(file);
          continue;
        }
        await this.#readChunk(file);
        if (this.#drain(output, maxRecords) > 0) return 'more';
        continue;
      }
      const next = this.#queue.shift();
      if (next !== undefined) {
        await this.#openFile(next);
        continue;
      }
      if (!this.#monitoring) return 'end';
      const now = performance.now();
      if (now < this.#nextListing) return 'idle';
      this.#nextListing = now + this.#options.monitorIntervalMs!;
      this.#queue = await this.#list();
      if (this.#queue.length === 0) return 'idle';
    }
  }

  /** The files with bytes not yet read, in name order. */
  async #list(): Promise<SourceFile[]> {
    let files: SourceFile[];
    try {
      files = await listSourceFiles(this.#options.path);
    } catch (error) {
      throw this.#ioError(`cannot list '${this.#options.path}'`, error);
    }
    for (const file of files) this.#fileSizes.set(file.name, file.size);
    return files.filter((file) => {
      const position = this.#positions.get(file.name);
      if (position !== undefined && file.size < position.byte) {
        throw new WeirError('CONNECTOR_ERROR', `filesystem source '${this.#table}': ${file.path} has ${file.size} bytes, fewer than the ${position.byte} already read; files must only grow`, { permanent: true });
      }
      return file.size > (this.#readSizes.get(file.name) ?? position?.byte ?? 0);
    });
  }

  async #openFile(file: SourceFile): Promise<void> {
    let position = this.#positions.get(file.name);
    if (position === undefined) {
      position = { byte: 0, line: 1 };
      this.#positions.set(file.name, position);
    }
    let handle: FileHandle;
    try {
      handle = await open(file.path, 'r');
    } catch (error) {
      throw this.#ioError(`cannot open ${file.path}`, error);
    }
    this.#current = { file, handle, position, bytes: NO_BYTES, at: 0, readPos: position.byte, eof: false };
  }

  async #readChunk(file: OpenFile): Promise<void> {
    const chunk = Buffer.allocUnsafe(this.#chunkBytes);
    let bytesRead: number;
    try {
      ({ bytesRead } = await file.handle.read(chunk, 0, chunk.length, file.readPos));
    } catch (error) {
      throw this.#ioError(`cannot read ${file.file.path}`, error);
    }
    if (bytesRead === 0) {
      file.eof = true;
      return;
    }
    file.readPos += bytesRead;
    const fresh = chunk.subarray(0, bytesRead);
    file.bytes = file.at < file.bytes.length ? Buffer.concat([file.bytes.subarray(file.at), fresh]) : fresh;
    file.at = 0;
  }

  async #closeCurrent(file: OpenFile): Promise<void> {
    this.#current = undefined;
    this.#readSizes.set(file.file.name, file.readPos);
    await file.handle.close();
  }

  #ioError(what: string, error: unknown): WeirError {
    return new WeirError('CONNECTOR_ERROR', `filesystem source '${this.#table}': ${what}: ${(error as Error).message}`, { cause: error });
  }

  #badOffset(offset: unknown): WeirError {
    return new WeirError('CONNECTOR_ERROR', `filesystem source '${this.#table}' cannot resume from offset ${JSON.stringify(offset)}: expected { files: { <name>: { byte, line } } }`);
  }
}

/** Throws a RecordDecodeError when `bytes[start, end)` is not valid UTF-8 (decoding would have replaced bytes). */
function checkUtf8(bytes: Buffer, start: number, end: number): void {
  try {
    STRICT_UTF8.decode(bytes.subarray(start, end));
  } catch {
    throw new RecordDecodeError('not valid UTF-8');
  }
}

/** The number of `\n` in `bytes[start, end)`. */
function countNewlines(bytes: Buffer, start: number, end: number): number {
  let count = 0;
  for (let i = bytes.indexOf(NEWLINE, start); i >= 0 && i < end; i = bytes.indexOf(NEWLINE, i + 1)) count++;
  return count;
}
