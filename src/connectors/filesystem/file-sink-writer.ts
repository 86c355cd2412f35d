/**
 * The filesystem sink's writer, with Flink's FileSink protocol: records go to hidden in-progress
 * part files; at a barrier they are fsynced and renamed to hidden pending files named after the
 * checkpoint; once the checkpoint completes they are renamed to their visible names. A reader that
 * skips hidden files (`.`-prefixed, as Flink's readers do) sees each record exactly once. A part
 * file also rolls by size and by processing time (rollover and inactivity intervals), and always
 * at a barrier.
 *
 * A table with `PARTITIONED BY` writes each record, without its partition columns, into the part
 * file of its partition directory (`dt=2024-01-01/hm=10%3A05/`, partition-paths.ts); with
 * `'sink.partition-commit.policy.kind'` the partitions are committed (partition-committer.ts)
 * once their files are visible.
 *
 * File names, in the sink's directory or its partition directories (`<tag>` is a hash of the
 * table name, `<run>` a UUID of the writer instance, `<s>` the subtask, `<n>` a counter, `<ext>`
 * the format's extension):
 *   in progress `.part-<tag>-<run>-<s>-<n>.<ext>.inprogress`
 *   pending     `.part-<tag>-<run>-<s>-<n>.<ext>.cp-<checkpoint>.pending`
 *   committed   `part-<tag>-<run>-<s>-<n>.<ext>`
 * The run UUID means a name is never reused across restarts; the tag tells this table's files
 * from those of other tables written into the same directory.
 *
 * Each subtask also records the highest checkpoint it committed in `.weir-committed-<tag>-<s>`
 * (replaced atomically at each commit): recovery from a checkpoint older than one of those refuses
 * to run behind the sink's own output, which a replay would write again. A fresh start (no
 * checkpoint restored) deletes them: the table's commit history begins again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { invariant, WeirError } from '../../common/errors.js';
import { ROW_KIND_SHORT, RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { PreparedTransaction, SinkContext, TransactionalSinkWriter } from '../../runtime/sink-writer.js';
import type { FileSinkOptions, RollingIntervals } from './file-sink-options.js';
import { PartitionCommitTracker } from './partition-commit-tracker.js';
import { PartitionCommitter } from './partition-committer.js';
import { escapePathName, partitionLayout, type PartitionLayout } from './partition-paths.js';
import { partitionTimeExtractor } from './partition-time-extractor.js';
import { createRowFormat, type RowFormat } from './row-formats.js';
import { SinkFileIo } from './sink-file-io.js';

/** One prepared part file: its pending name and the visible name commit gives it, both relative to the sink's directory. */
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

/** Serialised text of a part file is written out once this many characters are buffered (and at every barrier). */
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
  /** When the part last received a record (processing time). */
  lastWrite: number;

  /** `name` is the committed name relative to the sink's directory, in partition directory `directory` (`''` when unpartitioned). */
  constructor(
    readonly name: string,
    readonly directory: string,
    readonly created: number,
  ) {
    this.lastWrite = created;
  }
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
  readonly #io: SinkFileIo;
  readonly #options: FileSinkOptions;
  readonly #layout: PartitionLayout;
  readonly #format: RowFormat;
  readonly #tag: string;
  readonly #hiddenName: RegExp;
  readonly #finalName: RegExp;
  readonly #run = randomUUID();
  readonly #tracker: PartitionCommitTracker | undefined;
  #committer: PartitionCommitter | undefined;
  #context: SinkContext | undefined;
  #parts: PartFile[] = [];
  /** Parts whose file handle is open, whichever transaction they belong to. */
  readonly #openParts = new Set<PartFile>();
  /** The part that takes the records of each partition directory now. */
  readonly #current = new Map<string, PartFile>();
  /** Partition directories known to exist. */
  readonly #directories = new Set<string>(['']);
  #nextPart = 0;
  #drainDue = false;
  /** The processing time of the batch being written. */
  #now = 0;
  #rollTimer: NodeJS.Timeout | undefined;
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;
  /** True when restored from a checkpoint (`recover` follows `open`). */
  #restored = false;
  /** The highest checkpoint this subtask has recorded as committed. */
  #committedMark = 0;

  constructor(table: string, schema: Schema, options: FileSinkOptions) {
    this.#table = table;
    this.#io = new SinkFileIo(table, options.path);
    this.#options = options;
    this.#layout = partitionLayout(schema, options.partitionKeys ?? [], options.defaultPartitionName);
    this.#format = createRowFormat(options.format, this.#layout.dataSchema, options);
    this.#tag = tableTag(table);
    const partitions = this.#layout.keys.map((key) => `${escapeRegExp(escapePathName(key))}=[^/\\\\]+/`).join('');
    this.#hiddenName = new RegExp(`^\\.part-${this.#tag}-([0-9a-f-]{36})-(\\d+)-\\d+\\.(?:json|csv)\\.(?:inprogress|cp-(\\d+)\\.pending)$`);
    this.#finalName = new RegExp(`^${partitions}part-${this.#tag}-[0-9a-f-]{36}-\\d+-\\d+\\.(?:json|csv)$`);
    if (options.partitionCommit !== undefined) this.#tracker = new PartitionCommitTracker();
  }

  /** Restores the pending partitions of partition commit (called before `open`, only after a restore). */
  initializeState(states: readonly unknown[]): void {
    this.#restored = true;
    this.#tracker?.restore(this.#table, states);
  }

  /**
   * Creates the directory when it is missing, joins the partition committer the subtasks of this
   * run share, and starts the timer of rolling by processing time.
   */
  async open(context: SinkContext): Promise<void> {
    this.#context = context;
    await this.#io.run('create the directory', '', () => mkdir(this.#io.root, { recursive: true }));
    if (!this.#restored && context.subtask === 0) {
      for (const name of await this.#commitMarks()) await this.#io.run('delete', name, () => rm(this.#io.path(name), { force: true }));
    }
    const commit = this.#options.partitionCommit;
    if (commit !== undefined) {
      const extract = partitionTimeExtractor(commit.timestampPattern, this.#layout.keys);
      this.#committer = PartitionCommitter.shared(context.run, `${this.#table}\u0000${this.#io.root}`, () => new PartitionCommitter(this.#io, commit, extract, context.parallelism));
      this.#committer.register(context.subtask, this.#tracker!);
    }
    const rolling = this.#options.rolling;
    if (rolling !== undefined) {
      this.#rollTimer = setInterval(() => this.#rollByTime(rolling), rolling.checkMs);
      this.#rollTimer.unref();
    }
  }

  /**
   * Buffers the batch's lines; returns a promise when buffered text is due to be written (64 KB
   * gathered in a part, or a part file rolled). Throws when an append-only format receives anything but +I.
   */
  write(batch: ChangeBatch): void | Promise<void> {
    const { kinds, rows } = batch;
    const { serialize, appendOnly } = this.#format;
    const { directoryOf, dataOf } = this.#layout;
    this.#now = Date.now();
    for (let i = 0; i < rows.length; i++) {
      const kind = kinds[i]!;
      if (appendOnly && kind !== RowKind.INSERT) throw this.#updateRefused(kind);
      const row = rows[i]!;
      this.#append(directoryOf(row), serialize(kind, dataOf(row)));
    }
    if (!this.#drainDue) return;
    this.#drainDue = false;
    return this.#enqueue(() => this.#drain());
  }

  /** The sink's watermark, for partition commit by partition time; the final watermark commits what is left once visible. */
  processWatermark(watermark: number): void | Promise<void> {
    const tracker = this.#tracker;
    if (tracker === undefined) return;
    tracker.watermark = watermark;
    if (watermark === Number.POSITIVE_INFINITY) return this.#committer!.commitDue();
  }

  /** The pending partitions of partition commit at barrier `checkpointId`; undefined without partition commit. */
  snapshotState(checkpointId: number): unknown {
    return this.#tracker?.snapshot(checkpointId);
  }

  /**
   * Seals everything written since the previous barrier: fsyncs the in-progress files and renames
   * them to pending files named after `checkpointId`. Records written after this call start new
   * part files. Returns the files to commit; none when nothing was written (and no file is created).
   */
  prepareCommit(checkpointId: number): Promise<PreparedTransaction> {
    const parts = this.#parts;
    for (const part of parts) part.sealed = true;
    this.#parts = [];
    this.#current.clear();
    this.#tracker?.prepared(checkpointId);
    return this.#enqueue(() => this.#prepare(parts, checkpointId));
  }

  /**
   * Renames every pending file of the transactions to its visible name, fsyncs the directories,
   * then commits the partitions that became due. Idempotent: a file already visible counts as
   * committed. Throws CONNECTOR_ERROR when a file is neither pending nor visible.
   */
  async commit(transactions: readonly PreparedTransaction[]): Promise<void> {
    const renamedIn = new Set<string>();
    for (const transaction of transactions) {
      for (const file of this.#filesOf(transaction)) {
        if (await this.#commitFile(file, transaction.checkpointId)) renamedIn.add(directoryOf(file.final));
      }
    }
    for (const directory of renamedIn) await this.#io.syncDirectory(directory);
    await this.#markCommitted(transactions);
    if (this.#tracker === undefined || transactions.length === 0) return;
    this.#tracker.committed(Math.max(...transactions.map((t) => t.checkpointId)));
    await this.#committer!.commitDue();
  }

  /**
   * After a restore from `restoredCheckpointId`: commits `pending` (recorded in that checkpoint),
   * then deletes the abandoned hidden files of this table that this subtask is responsible for:
   * in-progress files of any earlier run, and pending files of checkpoints after the restored one.
   * Pending files of earlier checkpoints are left alone (after a change of parallelism another
   * subtask may hold them); visible files are never touched. Must follow `open`.
   */
  async recover(pending: readonly PreparedTransaction[], restoredCheckpointId: number): Promise<void> {
    await this.#checkNotAhead(restoredCheckpointId);
    await this.commit(pending);
    this.#tracker?.committed(restoredCheckpointId);
    const abandoned: string[] = [];
    const directories = await this.#partitionDirectories();
    for (const directory of directories) {
      const names = await this.#io.run('list', directory, () => readdir(this.#io.path(directory)));
      for (const name of names) if (this.#isAbandoned(name, restoredCheckpointId)) abandoned.push(directory === '' ? name : `${directory}/${name}`);
    }
    for (const file of abandoned) await this.#io.run('delete', file, () => rm(this.#io.path(file), { force: true }));
    for (const directory of new Set(abandoned.map(directoryOf))) await this.#io.syncDirectory(directory);
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

  /** The `.weir-committed-<tag>-<subtask>` files of this table. */
  async #commitMarks(): Promise<string[]> {
    const names = await this.#io.run('list', '', () => readdir(this.#io.root));
    const mark = new RegExp(`^\\.weir-committed-${this.#tag}-\\d+$`);
    return names.filter((name) => mark.test(name));
  }

  /**
   * Records the highest checkpoint of `transactions` (not the end-of-input one) when it is above
   * this subtask's mark: written to a temporary name and renamed, so the file is always whole. Not
   * fsynced: a mark lost in a crash only weakens the check, it never makes it refuse wrongly.
   */
  async #markCommitted(transactions: readonly PreparedTransaction[]): Promise<void> {
    const ids = transactions.map((t) => t.checkpointId).filter((id) => id !== END_OF_INPUT);
    const highest = Math.max(0, ...ids);
    if (highest <= this.#committedMark) return;
    const name = `.weir-committed-${this.#tag}-${this.#context?.subtask ?? 0}`;
    await this.#io.run('record the committed checkpoint in', name, async () => {
      await writeFile(this.#io.path(`${name}.tmp`), `${highest}\n`);
      await rename(this.#io.path(`${name}.tmp`), this.#io.path(name));
    });
    this.#committedMark = highest;
  }

  /** Throws CHECKPOINT_ERROR when a subtask of this table committed a checkpoint after the restored one. */
  async #checkNotAhead(restoredCheckpointId: number): Promise<void> {
    let last = 0;
    for (const name of await this.#commitMarks()) {
      const text = await this.#io.run('read', name, () => readFile(this.#io.path(name), 'utf8'));
      const id = Number(text.trim());
      if (!Number.isSafeInteger(id)) this.#context?.warn(`filesystem sink '${this.#table}': ${this.#io.path(name)} does not hold a checkpoint id ('${text.trim().slice(0, 40)}'); it is not checked`);
      else if (id > last) last = id;
    }
    if (last <= restoredCheckpointId) return;
    throw new WeirError(
      'CHECKPOINT_ERROR',
      `filesystem sink '${this.#table}' has committed checkpoint ${last} into ${this.#io.root} (its .weir-committed files), but the job is being restored from checkpoint ${restoredCheckpointId}: running from there would write the output of ${last === restoredCheckpointId + 1 ? `checkpoint ${last}` : `checkpoints ${restoredCheckpointId + 1} to ${last}`} again`,
      { hint: `restore checkpoint ${last} or a later one; if it is lost, start afresh (weir run --fresh) into an empty directory`, permanent: true },
    );
  }

  /** Waits for queued I/O and closes the files; commits nothing (uncommitted files stay hidden until `recover`). */
  async close(): Promise<void> {
    clearInterval(this.#rollTimer);
    this.#parts = [];
    this.#current.clear();
    await this.#queue;
    for (const part of [...this.#openParts]) await this.#closeHandle(part);
  }

  #append(directory: string, line: string): void {
    const rollSize = this.#options.rollSize;
    const bytes = rollSize === undefined ? line.length : Buffer.byteLength(line);
    let part = this.#current.get(directory);
    if (part !== undefined && rollSize !== undefined && part.size > 0 && part.size + bytes > rollSize) {
      this.#seal(part);
      this.#drainDue = true;
      part = undefined;
    }
    part ??= this.#startPart(directory);
    part.text += line;
    part.size += bytes;
    part.lastWrite = this.#now;
    if (part.text.length >= WRITE_CHUNK_CHARS) this.#drainDue = true;
  }

  #startPart(directory: string): PartFile {
    invariant(this.#context !== undefined, `filesystem sink '${this.#table}' was written before it was opened`);
    const file = `part-${this.#tag}-${this.#run}-${this.#context.subtask}-${this.#nextPart++}.${this.#format.extension}`;
    const part = new PartFile(directory === '' ? file : `${directory}/${file}`, directory, this.#now);
    this.#parts.push(part);
    this.#current.set(directory, part);
    this.#tracker?.touch(directory, this.#now);
    return part;
  }

  #seal(part: PartFile): void {
    part.sealed = true;
    this.#current.delete(part.directory);
  }

  /** Rolls the parts open longer than the rollover interval or idle longer than the inactivity interval (Flink's check on processing time). */
  #rollByTime(rolling: RollingIntervals): void {
    const now = Date.now();
    let rolled = false;
    for (const part of this.#current.values()) {
      if (now - part.created < rolling.rolloverMs && now - part.lastWrite < rolling.inactivityMs) continue;
      this.#seal(part);
      rolled = true;
    }
    // Not awaited here: a failure is kept by #enqueue and fails the next step (the pre-commit at the barrier).
    if (rolled) this.#enqueue(() => this.#drain()).catch(keptForTheNextStep);
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

  /** Writes buffered text out and closes sealed parts; open parts stay open. */
  async #drain(): Promise<void> {
    for (const part of this.#parts) {
      if (part.sealed) await this.#finish(part);
      else await this.#writeBuffered(part);
    }
  }

  async #prepare(parts: readonly PartFile[], checkpointId: number): Promise<PreparedTransaction> {
    const files: PreparedFile[] = [];
    const directories = new Set<string>();
    for (const part of parts) {
      await this.#finish(part);
      const file = { pending: pendingName(part.name, checkpointId), final: part.name };
      const inProgress = inProgressName(part.name);
      await this.#io.run('rename', inProgress, () => rename(this.#io.path(inProgress), this.#io.path(file.pending)));
      files.push(file);
      for (let directory: string | undefined = part.directory; directory !== undefined; directory = parentOf(directory)) directories.add(directory);
    }
    for (const directory of directories) await this.#io.syncDirectory(directory);
    const data: FileTransactionData = { files };
    return { checkpointId, data };
  }

  /** Writes the part's remaining text, fsyncs and closes its file. */
  async #finish(part: PartFile): Promise<void> {
    await this.#writeBuffered(part);
    const handle = part.handle;
    if (handle === undefined) return;
    try {
      await this.#io.run('fsync', inProgressName(part.name), () => handle.sync());
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
      const { bytesWritten } = await this.#io.run('write', file, () => handle.write(data, offset, data.length - offset, part.written));
      offset += bytesWritten;
      part.written += bytesWritten;
    }
  }

  async #createFile(part: PartFile, file: string): Promise<FileHandle> {
    const directory = part.directory;
    if (!this.#directories.has(directory)) {
      await this.#io.run('create the directory', directory, () => mkdir(this.#io.path(directory), { recursive: true }));
      this.#directories.add(directory);
    }
    const handle = await this.#io.run('create', file, () => open(this.#io.path(file), 'wx'));
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
      await rename(this.#io.path(file.pending), this.#io.path(file.final));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw this.#io.error('commit', file.pending, error);
    }
    if (await this.#io.exists(file.final)) return false;
    throw new WeirError(
      'CONNECTOR_ERROR',
      `filesystem sink '${this.#table}' lost the prepared file ${file.pending} of checkpoint ${checkpointId}: neither it nor ${file.final} is in ${this.#io.root}`,
    );
  }

  /** The files of a transaction, checked to be this table's part files (in its partition directories) named after its checkpoint. */
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

  /** The partition directories under the sink's directory, one level per partition column (`['']` when unpartitioned). */
  async #partitionDirectories(): Promise<string[]> {
    let level = [''];
    for (const key of this.#layout.keys) {
      const prefix = `${escapePathName(key)}=`;
      const next: string[] = [];
      for (const directory of level) {
        const entries = await this.#io.run('list', directory, () => readdir(this.#io.path(directory), { withFileTypes: true }));
        for (const entry of entries) if (entry.isDirectory() && entry.name.startsWith(prefix)) next.push(directory === '' ? entry.name : `${directory}/${entry.name}`);
      }
      level = next;
    }
    return level;
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
}

/** A hidden name of the part file `finalName` (a path relative to the sink's directory): `.` before its base name, `suffix` after it. */
function hiddenName(finalName: string, suffix: string): string {
  const slash = finalName.lastIndexOf('/');
  return `${finalName.slice(0, slash + 1)}.${finalName.slice(slash + 1)}${suffix}`;
}

function inProgressName(finalName: string): string {
  return hiddenName(finalName, '.inprogress');
}

function pendingName(finalName: string, checkpointId: number): string {
  return hiddenName(finalName, `.cp-${checkpointId}.pending`);
}

/** The directory of a relative file path (`''` for the sink's directory). */
function directoryOf(file: string): string {
  return file.slice(0, Math.max(0, file.lastIndexOf('/')));
}

/** The parent of a relative directory; undefined for the sink's directory itself. */
function parentOf(directory: string): string | undefined {
  return directory === '' ? undefined : directoryOf(directory);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** For a queued step nobody awaits: #enqueue has kept its failure, which the next queued step throws. */
function keptForTheNextStep(): void {}
