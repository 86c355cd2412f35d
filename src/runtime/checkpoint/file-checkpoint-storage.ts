/**
 * Checkpoint storage on the local file system. Layout under `state.checkpoints.dir`:
 *
 *     <job>/checkpoint-counter      last reserved checkpoint id
 *     <job>/chk-<id>/…, _metadata   a checkpoint: state files, then `_metadata` last
 *     <job>/savepoint-<id>/…        a savepoint, same content, never deleted by retention
 *
 * Every durable change is write-to-temporary, fsync, rename, fsync the folder, so a crash at any
 * moment leaves either the old or the new state. A folder is a completed checkpoint exactly when
 * it holds `_metadata`; deleting one removes `_metadata` first to keep that true. So a `_metadata`
 * that is unreadable, fails its checksum, or is of a version this weir does not know can only be a
 * fault of the storage (or a newer weir): it is reported, naming the file — recovery never falls
 * back to an older checkpoint by itself, which could repeat output already committed.
 */
import { createHash, type Hash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { WeirError } from '../../common/errors.js';
import { bigintReplacer, bigintReviver } from '../../dataflow/job-graph.js';
import { CHECKPOINT_METADATA_VERSION, READABLE_METADATA_VERSIONS, type CheckpointMetadata } from './checkpoint-metadata.js';
import type { CheckpointStorage, CompletedCheckpoint, StateFileData, StateFileRef } from './checkpoint-storage.js';
import { FAILPOINTS, failpoint } from './failpoints.js';

/** The file that marks a checkpoint folder as complete. */
export const METADATA_FILE = '_metadata';
const COUNTER_FILE = 'checkpoint-counter';
const MAX_FOLDER_NAME = 64;
const HASH_LENGTH = 12;
const FOLDER_PATTERN = /^(chk|savepoint)-([0-9]+)$/;
const HASHED_NAME_PATTERN = new RegExp(`-[0-9a-f]{${HASH_LENGTH}}$`);

type Kind = CheckpointMetadata['kind'];

/**
 * A folder name for a job: the name itself when it is short, made of `[A-Za-z0-9._-]` and does
 * not start with `.` or `-`; otherwise a cleaned-up prefix plus `-` and a hash of the full name.
 * Stable across runs, and distinct names never share a folder (names that merely look hashed are
 * hashed too).
 */
export function safeJobFolderName(jobName: string): string {
  const cleaned = jobName.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.-]/, '_');
  const keep = cleaned === jobName && jobName !== '' && jobName.length <= MAX_FOLDER_NAME && !HASHED_NAME_PATTERN.test(jobName);
  if (keep) return jobName;
  const hash = createHash('sha256').update(jobName).digest('hex').slice(0, HASH_LENGTH);
  const prefix = cleaned.slice(0, MAX_FOLDER_NAME - HASH_LENGTH - 1) || 'job';
  return `${prefix}-${hash}`;
}

/** Stores the checkpoints and savepoints of one job in its own folder under `checkpointsDir`. */
export class FileCheckpointStorage implements CheckpointStorage {
  readonly jobPath: string;
  private idLock: Promise<unknown> = Promise.resolve();

  constructor(
    checkpointsDir: string,
    readonly jobName: string,
  ) {
    this.jobPath = resolve(checkpointsDir, safeJobFolderName(jobName));
  }

  /** Reserves max(counter, highest folder id) + 1 and makes it durable before returning it. */
  nextCheckpointId(): Promise<number> {
    const reserved = this.idLock.then(() => this.reserveId());
    // The lock only orders reservations: each caller gets its own failure from `reserved`.
    this.idLock = reserved.catch(() => undefined);
    return reserved;
  }

  private async reserveId(): Promise<number> {
    await makeDurableDir(this.jobPath);
    const folders = await this.listFolders();
    const highest = Math.max(await this.readCounter(), ...folders.map((folder) => folder.id));
    const id = highest + 1;
    await writeDurably(join(this.jobPath, COUNTER_FILE), `${id}\n`);
    return id;
  }

  private async readCounter(): Promise<number> {
    const file = join(this.jobPath, COUNTER_FILE);
    const text = await readIfExists(file);
    if (text === undefined) return 0;
    if (!/^[0-9]+\n?$/.test(text)) throw new WeirError('CHECKPOINT_ERROR', `checkpoint counter ${file} is corrupt: expected a number, found '${text.slice(0, 40)}'`);
    return Number(text);
  }

  /**
   * Writes the file batch by batch as the batches come (a stream is consumed as it is produced,
   * each batch written with one system call, hashed and let go), fsyncs it; refuses to overwrite.
   * A buffer is two batches (its halves), a list of parts a batch per part. The
   * `checkpoint.during-state-write` failpoint fires midway: halfway through the batches of a buffer
   * or list, after the first batch of a stream (or after its only one).
   */
  async writeStateFile(checkpointId: number, kind: Kind, name: string, data: StateFileData): Promise<StateFileRef> {
    const folder = this.folderPath(checkpointId, kind);
    const file = join(folder, checkStateFileName(name, folder));
    await makeDurableDir(folder);
    const handle = await open(file, 'wx').catch((error: unknown) => {
      throw ioError(error, `cannot create state file ${file}`);
    });
    const batches = data instanceof Uint8Array ? slices(data).map((slice) => [slice]) : isPartList(data) ? data.map((part) => [part]) : data;
    const midway = Array.isArray(batches) ? Math.max(1, Math.floor(batches.length / 2)) : 1;
    const hash = createHash('sha256');
    try {
      let written = 0;
      for await (const batch of batches) {
        if (written === midway) failpoint(FAILPOINTS.checkpointDuringStateWrite);
        // A batch is valid until the next one is asked for (snapshot-parts.ts): written and hashed before.
        for (let i = 0; i < batch.length; i += MAX_WRITEV_PARTS) {
          const parts = batch.slice(i, i + MAX_WRITEV_PARTS);
          const { bytesWritten } = await handle.writev(parts);
          const expected = parts.reduce((sum, part) => sum + part.byteLength, 0);
          if (bytesWritten !== expected) throw new WeirError('CHECKPOINT_ERROR', `state file ${file}: wrote ${bytesWritten} of ${expected} bytes (is the disk full?)`);
        }
        for (const part of batch) {
          if (part.byteLength > HASH_SLICE_BYTES) await hashInSlices(hash, part);
          else hash.update(part);
        }
        written++;
      }
      if (written < 2) failpoint(FAILPOINTS.checkpointDuringStateWrite);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return { name, checksum: `sha256:${hash.digest('hex')}` };
  }

  /** Refuses metadata of another job or version, and a checkpoint that is already complete. */
  async commitMetadata(metadata: CheckpointMetadata): Promise<string> {
    const folder = this.folderPath(metadata.checkpointId, metadata.kind);
    if (metadata.jobName !== this.jobName) throw new WeirError('CHECKPOINT_ERROR', `metadata of job '${metadata.jobName}' cannot be committed to ${folder} of job '${this.jobName}'`);
    if (metadata.version !== CHECKPOINT_METADATA_VERSION) throw new WeirError('CHECKPOINT_ERROR', `metadata version ${String(metadata.version)} cannot be committed to ${folder}; expected ${CHECKPOINT_METADATA_VERSION}`);
    await makeDurableDir(folder);
    const file = join(folder, METADATA_FILE);
    if (await exists(file)) throw new WeirError('CHECKPOINT_ERROR', `${folder} is already a completed ${metadata.kind}`);
    await writeDurably(file, serializeMetadata(metadata, folder));
    await fsyncDir(this.jobPath);
    return folder;
  }

  /** Refuses to delete a completed checkpoint: only an aborted one may be discarded. */
  async discard(checkpointId: number, kind: Kind): Promise<void> {
    const folder = this.folderPath(checkpointId, kind);
    if (await exists(join(folder, METADATA_FILE))) throw new WeirError('CHECKPOINT_ERROR', `${folder} is a completed ${kind} and cannot be discarded`);
    await rm(folder, { recursive: true, force: true });
  }

  /**
   * Keeps the newest `retained` completed checkpoints and every checkpoint folder their keyed state
   * chains refer to (incremental checkpoints build on files of earlier ones); deletes other
   * completed ones and incomplete `chk-*` folders older than the newest completed one. Savepoints
   * are never touched. A retained `_metadata` that cannot be read fails the call before anything is
   * deleted (its references are unknown).
   */
  async retain(retained: number): Promise<void> {
    if (!Number.isInteger(retained) || retained < 1) throw new WeirError('CHECKPOINT_ERROR', `the number of retained checkpoints must be a whole number of at least 1, got ${retained}`);
    const checkpoints = (await this.listFolders()).filter((folder) => folder.kind === 'checkpoint');
    const complete: FolderEntry[] = [];
    for (const folder of checkpoints) if (await exists(join(folder.path, METADATA_FILE))) complete.push(folder);
    const newestComplete = complete[0]?.id ?? 0;
    const kept = new Set(complete.slice(0, retained));
    const referenced = new Set<number>();
    for (const folder of kept) for (const id of referencedCheckpoints(await readMetadata(folder.path))) referenced.add(id);
    for (const folder of checkpoints) {
      if (!kept.has(folder) && !referenced.has(folder.id) && folder.id < newestComplete) await deleteCheckpointFolder(folder.path);
    }
  }

  /** The newest folder with `_metadata`, which must be readable, intact and this job's; see the interface. */
  async latest(): Promise<CompletedCheckpoint | undefined> {
    for (const folder of await this.listFolders()) {
      const file = join(folder.path, METADATA_FILE);
      let metadata: CheckpointMetadata;
      try {
        const text = await readIfExists(file);
        if (text === undefined) continue;
        metadata = parseMetadata(text, file);
        const claims = `${metadata.kind} ${metadata.checkpointId} of job '${metadata.jobName}'`;
        if (metadata.jobName !== this.jobName || metadata.checkpointId !== folder.id || metadata.kind !== folder.kind) throw invalidMetadata(file, `it says it is ${claims}`);
      } catch (error) {
        throw unrestorable(this.jobName, folder, error);
      }
      return { metadata, path: folder.path };
    }
    return undefined;
  }

  /** Accepts only plain file names inside the checkpoint folder; a checksum that does not match the bytes read is corruption. */
  async readStateFile(checkpoint: CompletedCheckpoint, name: string, checksum?: string): Promise<Uint8Array> {
    const file = join(checkpoint.path, checkStateFileRef(name, checkpoint.path));
    const data = await readFile(file).catch((error: unknown) => {
      throw ioError(error, `cannot read state file ${file}`);
    });
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (checksum !== undefined && (await checksumInSlices(bytes)) !== checksum) {
      const { kind, checkpointId } = checkpoint.metadata;
      throw new WeirError('CHECKPOINT_ERROR', `state file ${file} of ${kind} ${checkpointId} is corrupt: its ${bytes.byteLength} bytes do not match the checksum in ${METADATA_FILE}`, {
        hint: `a storage fault damaged it, so ${kind} ${checkpointId} cannot be restored; restore an older checkpoint or savepoint by moving ${checkpoint.path} aside (transactional sinks refuse one older than what they committed), or start afresh (weir run --fresh)`,
        permanent: true,
      });
    }
    return bytes;
  }

  /**
   * Deletes every checkpoint and savepoint of the job but keeps `checkpoint-counter`, so ids keep
   * increasing after `--fresh` and a sink's transaction ids and markers are never reused.
   */
  async clear(): Promise<void> {
    const entries = await readdir(this.jobPath).catch(ignoreMissing);
    if (entries === undefined) return;
    const doomed = entries.filter((entry) => entry !== COUNTER_FILE);
    for (const entry of doomed) await deleteCheckpointFolder(join(this.jobPath, entry));
    await fsyncDir(this.jobPath);
  }

  private folderPath(checkpointId: number, kind: Kind): string {
    if (!Number.isSafeInteger(checkpointId) || checkpointId < 1) throw new WeirError('CHECKPOINT_ERROR', `invalid checkpoint id ${checkpointId} for ${this.jobPath}`);
    return join(this.jobPath, `${kind === 'checkpoint' ? 'chk' : 'savepoint'}-${checkpointId}`);
  }

  /** Checkpoint and savepoint folders, newest (highest id) first. */
  private async listFolders(): Promise<FolderEntry[]> {
    const entries = await readdir(this.jobPath, { withFileTypes: true }).catch(ignoreMissing);
    const folders: FolderEntry[] = [];
    for (const entry of entries ?? []) {
      const match = FOLDER_PATTERN.exec(entry.name);
      if (match === null || !entry.isDirectory()) continue;
      folders.push({ path: join(this.jobPath, entry.name), kind: match[1] === 'chk' ? 'checkpoint' : 'savepoint', id: Number(match[2]) });
    }
    return folders.sort((a, b) => b.id - a.id || a.kind.localeCompare(b.kind));
  }

}

interface FolderEntry {
  readonly path: string;
  readonly kind: Kind;
  readonly id: number;
}

/**
 * Loads a completed checkpoint or savepoint from its folder or its `_metadata` file, for
 * `SET 'execution.savepoint.path'`. The folder may have been renamed or moved; the caller checks
 * that the job graph matches. Throws `CHECKPOINT_ERROR` naming the path when it is missing,
 * incomplete or unreadable.
 */
export async function loadCompletedCheckpoint(path: string): Promise<CompletedCheckpoint> {
  const absolute = resolve(path);
  const stats = await stat(absolute).catch((error: unknown) => {
    throw isMissing(error) ? new WeirError('CHECKPOINT_ERROR', `checkpoint path ${absolute} does not exist`) : ioError(error, `cannot read checkpoint path ${absolute}`);
  });
  if (!stats.isDirectory() && basename(absolute) !== METADATA_FILE) throw new WeirError('CHECKPOINT_ERROR', `${absolute} is neither a checkpoint folder nor a ${METADATA_FILE} file`);
  const folder = stats.isDirectory() ? absolute : dirname(absolute);
  return { metadata: await readMetadata(folder), path: folder };
}

async function readMetadata(folder: string): Promise<CheckpointMetadata> {
  const file = join(folder, METADATA_FILE);
  const text = await readIfExists(file);
  if (text === undefined) throw new WeirError('CHECKPOINT_ERROR', `${folder} is not a completed checkpoint or savepoint: no ${METADATA_FILE}`);
  return parseMetadata(text, file);
}

/**
 * The metadata in `text`: a known version, its checksum matching its content (version 2 on), and
 * the parts that locating and restoring a checkpoint rely on present. Throws CHECKPOINT_ERROR
 * naming `file` otherwise.
 */
function parseMetadata(text: string, file: string): CheckpointMetadata {
  let value: unknown;
  try {
    value = JSON.parse(text, bigintReviver);
  } catch (error) {
    throw invalidMetadata(file, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidMetadata(file, 'not a JSON object');
  const { checksum, ...record } = value as Record<string, unknown>;
  const version = record['version'];
  if (typeof version !== 'number' || !READABLE_METADATA_VERSIONS.includes(version)) {
    throw new WeirError('CHECKPOINT_ERROR', `${file} has metadata version ${JSON.stringify(version)}, which this weir cannot read (it reads versions ${READABLE_METADATA_VERSIONS.join(', ')})`, {
      hint: typeof version === 'number' && version > CHECKPOINT_METADATA_VERSION ? 'it was written by a newer weir: restore it with that version' : 'the file is damaged or was not written by weir',
      permanent: true,
    });
  }
  if (version >= 2) {
    if (typeof checksum !== 'string') throw invalidMetadata(file, "its 'checksum' is missing");
    if (checksum !== checksumOf(JSON.stringify(record, bigintReplacer))) throw invalidMetadata(file, 'its content does not match its checksum');
  }
  const problem = metadataProblem(record);
  if (problem !== undefined) throw invalidMetadata(file, problem);
  return record as unknown as CheckpointMetadata;
}

/** The ids of the checkpoints (other than itself) whose folders hold files a checkpoint's keyed state chains use. */
export function referencedCheckpoints(metadata: CheckpointMetadata): Set<number> {
  const ids = new Set<number>();
  for (const operator of Object.values(metadata.operators)) {
    for (const subtask of operator.subtasks) {
      for (const ref of subtask.keyedStateChain ?? []) {
        const match = EARLIER_FILE_PATTERN.exec(ref.file);
        if (match !== null) ids.add(Number(match[1]));
      }
    }
  }
  return ids;
}

/**
 * A buffer in slices written (and hashed) one at a time: halves, or slices of
 * {@link WRITE_SLICE_BYTES} when that is smaller (two at least, so that a failpoint can fire midway).
 */
function slices(data: Uint8Array): Uint8Array[] {
  const size = Math.min(WRITE_SLICE_BYTES, Math.max(1, Math.floor(data.byteLength / 2)));
  const out: Uint8Array[] = [];
  for (let start = 0; start < data.byteLength; start += size) out.push(data.subarray(start, start + size));
  return out.length >= 2 ? out : [data.subarray(0, 0), data];
}

/** Bytes of a buffer written in one go. */
const WRITE_SLICE_BYTES = 4 << 20;

/** `sha256:<hex>` of bytes or of a string's UTF-8. */
function checksumOf(data: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Bytes hashed between two turns of the event loop: hashing costs about 2–4 ms per MiB, which must not stall the job's processing. */
const HASH_SLICE_BYTES = 1 << 20;

/** {@link checksumOf} of a large state file, one slice per turn of the event loop. */
async function checksumInSlices(data: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  await hashInSlices(hash, data);
  return `sha256:${hash.digest('hex')}`;
}

/** Feeds `data` to `hash` a slice at a time, with a turn of the event loop after each slice but the last (a part of at most a slice is hashed at once). */
async function hashInSlices(hash: Hash, data: Uint8Array): Promise<void> {
  for (let start = 0; start < data.byteLength; start += HASH_SLICE_BYTES) {
    hash.update(data.subarray(start, start + HASH_SLICE_BYTES));
    if (start + HASH_SLICE_BYTES < data.byteLength) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Buffers one writev takes at most (below the system's IOV_MAX). */
const MAX_WRITEV_PARTS = 512;

/** True for parts given as a list, false for a stream of batches. */
function isPartList(parts: readonly Uint8Array[] | AsyncIterable<readonly Uint8Array[]>): parts is readonly Uint8Array[] {
  return Array.isArray(parts);
}

/**
 * Why the newest completed checkpoint of a job cannot be restored, and what to do: recovery does
 * not fall back to an older one by itself, since a transactional sink may have committed output
 * of the newest one already.
 */
function unrestorable(jobName: string, folder: FolderEntry, error: unknown): WeirError {
  const message = error instanceof Error ? error.message : String(error);
  return new WeirError('CHECKPOINT_ERROR', `the latest ${folder.kind} of job '${jobName}' cannot be restored: ${message}`, {
    hint: `a storage fault damaged it (or a newer weir wrote it). weir does not fall back to an older checkpoint by itself, as that could repeat output already committed: move ${folder.path} aside to restore the one before it (transactional sinks refuse it if they committed past it), or start afresh (weir run --fresh)`,
    cause: error,
    permanent: true,
  });
}

function metadataProblem(record: Record<string, unknown>): string | undefined {
  const checks: [string, (v: unknown) => boolean][] = [
    ['jobName', (v) => typeof v === 'string'],
    ['checkpointId', (v) => Number.isSafeInteger(v) && (v as number) > 0],
    ['kind', (v) => v === 'checkpoint' || v === 'savepoint'],
    ['completedAt', (v) => typeof v === 'number'],
    ['graphFingerprint', (v) => typeof v === 'string'],
    ['maxParallelism', (v) => Number.isSafeInteger(v) && (v as number) > 0],
    ['finished', (v) => typeof v === 'boolean'],
    ['operators', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)],
  ];
  const failed = checks.find(([field, valid]) => !valid(record[field]));
  return failed === undefined ? undefined : `missing or invalid '${failed[0]}'`;
}

function invalidMetadata(file: string, problem: string): WeirError {
  return new WeirError('CHECKPOINT_ERROR', `${file} is corrupt: ${problem}`, { permanent: true });
}

/**
 * The metadata as JSON with its checksum (of the JSON without it) as the last field. Operator
 * state may hold rows, so bigint values (DECIMALs, BIGINTs beyond 2^53) are tagged as in the job
 * graph and read back as bigints.
 */
function serializeMetadata(metadata: CheckpointMetadata, folder: string): string {
  try {
    return `${JSON.stringify({ ...metadata, checksum: checksumOf(JSON.stringify(metadata, bigintReplacer)) }, bigintReplacer)}\n`;
  } catch (error) {
    throw new WeirError('CHECKPOINT_ERROR', `cannot serialize the metadata of ${folder}: ${(error as Error).message}`, { cause: error });
  }
}

/** State files are plain names inside the checkpoint folder; names starting with `_` are reserved. */
function checkStateFileName(name: string, folder: string): string {
  const plain = name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && !name.startsWith('_') && name.length <= 200;
  if (!plain) throw new WeirError('CHECKPOINT_ERROR', `invalid state file name '${name}' in ${folder}: expected a plain file name not starting with '_'`);
  return name;
}

/** A file of an earlier checkpoint, as a chain refers to it: `../chk-<id>/<name>`. */
const EARLIER_FILE_PATTERN = /^\.\.\/chk-([0-9]+)\/([^/\\\0]+)$/;

/** A state file a chain refers to: a plain name in the checkpoint folder, or a plain name in an earlier checkpoint's folder. */
function checkStateFileRef(name: string, folder: string): string {
  const match = EARLIER_FILE_PATTERN.exec(name);
  if (match === null) return checkStateFileName(name, folder);
  checkStateFileName(match[2]!, folder);
  return name;
}

/** Deletes a folder so that it never looks complete half-way: `_metadata` goes first, durably. */
async function deleteCheckpointFolder(folder: string): Promise<void> {
  const removed = await unlink(join(folder, METADATA_FILE)).then(
    () => true,
    (error: unknown) => ignoreMissing(error) ?? false,
  );
  if (removed) await fsyncDir(folder);
  await rm(folder, { recursive: true, force: true });
}

/** Replaces `file` atomically: temporary file, fsync, fsync of the folder, rename, fsync of the folder. */
async function writeDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w').catch((error: unknown) => {
    throw ioError(error, `cannot create ${tmp}`);
  });
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsyncDir(dirname(file));
  await rename(tmp, file);
  await fsyncDir(dirname(file));
}

/** Creates `dir` and its missing parents, and fsyncs the folders that gained an entry. */
async function makeDurableDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw ioError(error, `cannot create folder ${dir}`);
  });
  if (first === undefined) return;
  for (let created = dir; ; created = dirname(created)) {
    await fsyncDir(dirname(created));
    if (created === first || dirname(created) === created) return;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw ioError(error, `cannot read ${file}`);
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => ignoreMissing(error) ?? false,
  );
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function ignoreMissing(error: unknown): undefined {
  if (isMissing(error)) return undefined;
  throw error;
}

function ioError(error: unknown, what: string): WeirError {
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? (error as Error).message;
  return new WeirError('CHECKPOINT_ERROR', `${what}: ${reason}`, { cause: error });
}
