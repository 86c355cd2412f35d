/**
 * The filesystem sink's writer, with Flink's FileSink protocol: records go to hidden in-progress
 * part files; at a barrier they are fsynced and renamed to hidden pending files named after the
 * checkpoint; once the checkpoint completes they are renamed to their visible names. A reader that
 * skips hidden files (`.`-prefixed, as Flink's readers do) sees each record exactly once.
 *
 * File names, all in the sink's directory (`<tag>` is a hash of the table name, `<run>` a UUID of
 * the writer instance, `<s>` the subtask, `<n>` a counter, `<ext>` the format's extension):
 *   in progress `.part-<tag>-<run>-<s>-<n>.<ext>.inprogress`
 *   pending     `.part-<tag>-<run>-<s>-<n>.<ext>.cp-<checkpoint>.pending`
 *   committed   `part-<tag>-<run>-<s>-<n>.<ext>`
 * The run UUID means a name is never reused across restarts; the tag tells this table's files
 * from those of other tables written into the same directory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { invariant, WeirError } from '../../common/errors.js';
import { ROW_KIND_SHORT, RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { PreparedTransaction, SinkContext, TransactionalSinkWriter } from '../../runtime/sink-writer.js';
import { createRowFormat, type RowFormat, type RowFormatName } from './row-formats.js';

/** The sink's options, parsed and validated (see filesystem-connector.ts). */
export interface FileSinkOptions {
  /** The directory the part files go to; created when missing. */
  readonly path: string;
  readonly format: RowFormatName;
  /** The CSV field delimiter (one character). */
  readonly fieldDelimiter: string;
  /** The CSV quote character, when not `"`. */
  readonly quoteCharacter?: string;
  /** What CSV writes for NULL, when not an empty field. */
  readonly nullLiteral?: string;
  /** Bytes after which a new part file is started; absent for one part file per checkpoint. */
  readonly rollSize?: number;
}

/** One prepared part file: its pending name and the visible name commit gives it, both relative to the directory. */
export interface PreparedFile {
  readonly pending: string;
  readonly final: string;
}

/** The `data` of the sink's {@link PreparedTransaction}s: the files of the transaction, possibly none. */
export interface FileTransactionData {
  readonly files: readonly PreparedFile[];
}

/** The checkpoint id under which `flush` prepares and commits at once (Flink's end-of-input committable). */
export const END_OF_INPUT = Number.MAX_SAFE_INTEGER;

/** Serialised text is written out once this many characters are buffered (and at every barrier). */
export const WRITE_CHUNK_CHARS = 64 * 1024;

/** The short, stable hash of a table name that starts all of its part file names. */
export function tableTag(table: string): string {
  return createHash('sha256').update(table).digest('hex').slice(0, 8);
}

/** What a hidden file name of this table says about the file. */
interface HiddenFile {
  readonly run: string;
  readonly subtask: number;
  /** The checkpoint of a pending file; undefined for an in-progress file. */
  readonly checkpointId: number | undefined;
}

/** One part file of the open transaction: text not yet written, then bytes in its in-progress file. */
class PartFile {
  text = '';
  /** Bytes written plus bytes buffered (buffered bytes are exact only when rolling by size). */
  size = 0;
  written = 0;
  handle: FileHandle | undefined;
  /** True once the part takes no more records (rolled, or its transaction was prepared). */
  sealed = false;

  /** `name` is the committed name; the hidden names derive from it. */
  constructor(readonly name: string) {}
}

/**
 * Writes one subtask's share of a filesystem table, exactly once with checkpoints. All file I/O
 * runs in one queue, in call order; once an I/O step failed, every later step fails with the
 * same error. Recovery deletes only this table's hidden files that belong to this subtask (or to
 * subtasks beyond the current parallelism, spread over the subtasks), so concurrently recovering
 * subtasks never delete each other's live files. Assumes that one job at a time writes a table.
 */
export class FileSinkWriter implements TransactionalSinkWriter {
  readonly #table: string;
  readonly #dir: string;
  readonly #format: RowFormat;
  readonly #rollSize: number | undefined;
  readonly #tag: string;
  readonly #hiddenName: RegExp;
  readonly #finalName: RegExp;
  readonly #run = randomUUID();
  #context: SinkContext | undefined;
  #parts: PartFile[] = [];
  /** Parts whose file handle is open, whichever transaction they belong to. */
  readonly #openParts = new Set<PartFile>();
  #current: PartFile | undefined;
  #nextPart = 0;
  #drainDue = false;
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(table: string, schema: Schema, options: FileSinkOptions) {
    this.#table = table;
    this.#dir = options.path;
    this.#format = createRowFormat(options.format, schema, options);
    this.#rollSize = options.rollSize;
    this.#tag = tableTag(table);
    this.#hiddenName = new RegExp(`^\\.part-${this.#tag}-([0-9a-f-]{36})-(\\d+)-\\d+\\.(?:json|csv)\\.(?:inprogress|cp-(\\d+)\\.pending)$`);
    this.#finalName = new RegExp(`^part-${this.#tag}-[0-9a-f-]{36}-\\d+-\\d+\\.(?:json|csv)$`);
  }

  /** Creates the directory when it is missing. */
  async open(context: SinkContext): Promise<void> {
    this.#context = context;
    await this.#io('create the directory', this.#dir, () => mkdir(this.#dir, { recursive: true }));
  }

  /**
   * Buffers the batch's lines; returns a promise when buffered text is due to be written (64 KB
   * gathered, or a part file rolled). Throws when an append-only format receives anything but +I.
   */
  write(batch: ChangeBatch): void | Promise<void> {
    const { kinds, rows } = batch;
    const { serialize, appendOnly } = this.#format;
    for (let i = 0; i < rows.length; i++) {
      const kind = kinds[i]!;
      if (appendOnly && kind !== RowKind.INSERT) throw this.#updateRefused(kind);
      this.#append(serialize(kind, rows[i]!));
    }
    if (!this.#drainDue) return;
    this.#drainDue = false;
    return this.#enqueue(() => this.#drain());
  }

  /**
   * Seals everything written since the previous barrier: fsyncs the in-progress files and renames
   * them to pending files named after `checkpointId`. Records written after this call start a new
   * part file. Returns the files to commit; none when nothing was written (and no file is created).
   */
  prepareCommit(checkpointId: number): Promise<PreparedTransaction> {
    const parts = this.#parts;
    for (const part of parts) part.sealed = true;
    this.#parts = [];
    this.#current = undefined;
    return this.#enqueue(() => this.#prepare(parts, checkpointId));
  }

  /**
   * Renames every pending file of the transactions to its visible name, then fsyncs the directory.
   * Idempotent: a file already visible counts as committed. Throws CONNECTOR_ERROR when a file is
   * neither pending nor visible.
   */
  async commit(transactions: readonly PreparedTransaction[]): Promise<void> {
    let renamed = false;
    for (const transaction of transactions) {
      for (const file of this.#filesOf(transaction)) {
        if (await this.#commitFile(file, transaction.checkpointId)) renamed = true;
      }
    }
    if (renamed) await this.#syncDirectory();
  }

  /**
   * After a restore from `restoredCheckpointId`: commits `pending` (recorded in that checkpoint),
   * then deletes the abandoned hidden files of this table that this subtask is responsible for:
   * in-progress files of any earlier run, and pending files of checkpoints after the restored one.
   * Pending files of earlier checkpoints are left alone (after a change of parallelism another
   * subtask may hold them); visible files are never touched. Must follow `open`.
   */
  async recover(pending: readonly PreparedTransaction[], restoredCheckpointId: number): Promise<void> {
    await this.commit(pending);
    const names = await this.#io('list', this.#dir, () => readdir(this.#dir));
    const abandoned = names.filter((name) => this.#isAbandoned(name, restoredCheckpointId));
    for (const name of abandoned) await this.#io('delete', name, () => rm(join(this.#dir, name), { force: true }));
    if (abandoned.length > 0) await this.#syncDirectory();
  }

  /**
   * End of input without checkpointing: prepares and commits everything written at once. A no-op
   * when nothing was written since the last `prepareCommit`. Only for jobs without checkpoints: with
   * them, data made visible here would be written again by a replay.
   */
  async flush(): Promise<void> {
    const transaction = await this.prepareCommit(END_OF_INPUT);
    await this.commit([transaction]);
  }

  /** Waits for queued I/O and closes the files; commits nothing (uncommitted files stay hidden until `recover`). */
  async close(): Promise<void> {
    this.#parts = [];
    this.#current = undefined;
    await this.#queue;
    for (const part of [...this.#openParts]) await this.#closeHandle(part);
  }

  #append(line: string): void {
    const bytes = this.#rollSize === undefined ? line.length : Buffer.byteLength(line);
    let part = this.#current;
    if (part !== undefined && this.#rollSize !== undefined && part.size > 0 && part.size + bytes > this.#rollSize) {
      part.sealed = true;
      this.#drainDue = true;
      part = undefined;
    }
    part ??= this.#startPart();
    part.text += line;
    part.size += bytes;
    if (part.text.length >= WRITE_CHUNK_CHARS) this.#drainDue = true;
  }

  #startPart(): PartFile {
    invariant(this.#context !== undefined, `filesystem sink '${this.#table}' was written before it was opened`);
    const part = new PartFile(`part-${this.#tag}-${this.#run}-${this.#context.subtask}-${this.#nextPart++}.${this.#format.extension}`);
    this.#parts.push(part);
    this.#current = part;
    return part;
  }

  #updateRefused(kind: RowKind): WeirError {
    const what = kind === RowKind.DELETE ? 'a delete' : 'an update';
    return new WeirError(
      'CONNECTOR_ERROR',
      `filesystem sink '${this.#table}' with format '${this.#format.name}' received ${what} (${ROW_KIND_SHORT[kind]}); use 'format' = 'debezium-json' for updating queries`,
    );
  }

  /** Runs `task` after every earlier I/O step; fails at once when one of them failed. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#failure !== undefined) throw this.#failure;
      return task();
    });
    this.#queue = run.then(
      () => undefined,
      (error: unknown) => {
        this.#failure ??= error;
      },
    );
    return run;
  }

  /** Writes buffered text out and closes sealed parts; the open part stays open. */
  async #drain(): Promise<void> {
    for (const part of this.#parts) {
      if (part.sealed) await this.#finish(part);
      else await this.#writeBuffered(part);
    }
  }

  async #prepare(parts: readonly PartFile[], checkpointId: number): Promise<PreparedTransaction> {
    const files: PreparedFile[] = [];
    for (const part of parts) {
      await this.#finish(part);
      const file = { pending: pendingName(part.name, checkpointId), final: part.name };
      await this.#io('rename', inProgressName(part.name), () => rename(join(this.#dir, inProgressName(part.name)), join(this.#dir, file.pending)));
      files.push(file);
    }
    if (files.length > 0) await this.#syncDirectory();
    const data: FileTransactionData = { files };
    return { checkpointId, data };
  }

  /** Writes the part's remaining text, fsyncs and closes its file. */
  async #finish(part: PartFile): Promise<void> {
    await this.#writeBuffered(part);
    const handle = part.handle;
    if (handle === undefined) return;
    try {
      await this.#io('fsync', inProgressName(part.name), () => handle.sync());
    } finally {
      await this.#closeHandle(part);
    }
  }

  async #writeBuffered(part: PartFile): Promise<void> {
    if (part.text === '') return;
    const data = Buffer.from(part.text, 'utf8');
    part.text = '';
    const file = inProgressName(part.name);
    const handle = part.handle ?? (await this.#createFile(part, file));
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await this.#io('write', file, () => handle.write(data, offset, data.length - offset, part.written));
      offset += bytesWritten;
      part.written += bytesWritten;
    }
  }

  async #createFile(part: PartFile, file: string): Promise<FileHandle> {
    const handle = await this.#io('create', file, () => open(join(this.#dir, file), 'wx'));
    part.handle = handle;
    this.#openParts.add(part);
    return handle;
  }

  async #closeHandle(part: PartFile): Promise<void> {
    const handle = part.handle;
    part.handle = undefined;
    this.#openParts.delete(part);
    if (handle !== undefined) await handle.close();
  }

  /** Renames one pending file to its visible name; false when it was committed before. */
  async #commitFile(file: PreparedFile, checkpointId: number): Promise<boolean> {
    try {
      await rename(join(this.#dir, file.pending), join(this.#dir, file.final));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw this.#ioError('commit', file.pending, error);
    }
    if (await this.#io('look for', file.final, () => exists(join(this.#dir, file.final)))) return false;
    throw new WeirError(
      'CONNECTOR_ERROR',
      `filesystem sink '${this.#table}' lost the prepared file ${file.pending} of checkpoint ${checkpointId}: neither it nor ${file.final} is in ${this.#dir}`,
    );
  }

  /** The files of a transaction, checked to be this table's part files named after its checkpoint. */
  #filesOf(transaction: PreparedTransaction): readonly PreparedFile[] {
    const files: unknown = (transaction.data as { files?: unknown } | null | undefined)?.files;
    const valid =
      Array.isArray(files) &&
      files.every((file: Partial<PreparedFile> | null) => {
        return typeof file?.final === 'string' && this.#finalName.test(file.final) && file.pending === pendingName(file.final, transaction.checkpointId);
      });
    if (!valid) {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `filesystem sink '${this.#table}' cannot commit checkpoint ${transaction.checkpointId}: its transaction is not a list of this table's part files: ${JSON.stringify(transaction.data)}`,
      );
    }
    return files as readonly PreparedFile[];
  }

  #isAbandoned(name: string, restoredCheckpointId: number): boolean {
    const file = this.#parseHidden(name);
    if (file === undefined || file.run === this.#run || !this.#isResponsibleFor(file.subtask)) return false;
    return file.checkpointId === undefined || file.checkpointId > restoredCheckpointId;
  }

  #parseHidden(name: string): HiddenFile | undefined {
    const match = this.#hiddenName.exec(name);
    if (match === null) return undefined;
    return { run: match[1]!, subtask: Number(match[2]), checkpointId: match[3] === undefined ? undefined : Number(match[3]) };
  }

  /** This subtask cleans up after its own index and after indexes beyond the parallelism that map to it. */
  #isResponsibleFor(subtask: number): boolean {
    invariant(this.#context !== undefined, `filesystem sink '${this.#table}' recovered before it was opened`);
    const { subtask: self, parallelism } = this.#context;
    return subtask === self || (subtask >= parallelism && subtask % parallelism === self);
  }

  async #syncDirectory(): Promise<void> {
    if (process.platform === 'win32') return;
    const directory = await this.#io('open the directory', this.#dir, () => open(this.#dir, 'r'));
    try {
      await this.#io('fsync the directory', this.#dir, () => directory.sync());
    } finally {
      await directory.close();
    }
  }

  /** Runs one file-system call, turning its failure into a CONNECTOR_ERROR naming the table and file. */
  async #io<T>(action: string, file: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.#ioError(action, file, error);
    }
  }

  #ioError(action: string, file: string, error: unknown): WeirError {
    const reason = error instanceof Error ? error.message : String(error);
    const where = file === this.#dir ? file : `${file} in ${this.#dir}`;
    return new WeirError('CONNECTOR_ERROR', `filesystem sink '${this.#table}' could not ${action} ${where}: ${reason}`, { cause: error });
  }
}

function inProgressName(finalName: string): string {
  return `.${finalName}.inprogress`;
}

function pendingName(finalName: string, checkpointId: number): string {
  return `.${finalName}.cp-${checkpointId}.pending`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
