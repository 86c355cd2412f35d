/**
 * Global transaction ids (gids) of the sink's prepared transactions:
 * `weir1.<job>.<sink>.<subtask>.<checkpointId>.<epoch>`.
 *
 * A gid is sent as a string literal (PREPARE TRANSACTION takes no bind parameters), must be
 * shorter than 200 bytes and is unique cluster-wide, so every field is reduced to the whitelist
 * `[A-Za-z0-9-]` (`.` only separates fields) and kept short: a job or sink name that does not fit
 * the whitelist or is too long is replaced by a readable prefix plus a hash of the full name, so
 * two different names never share a gid prefix. The epoch is random per writer run, so a gid is
 * never reused, even when a checkpoint id is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { invariant } from '../../common/errors.js';

/** The gid format's version tag, the first field of every gid weir writes. */
export const GID_VERSION = 'weir1';

/** PostgreSQL's limit is 199 bytes; the fields below stay far below it. */
export const MAX_GID_BYTES = 199;

const MAX_NAME_CHARS = 48;
const NAME_FIELD = /^[A-Za-z0-9-]+$/;
const GID = /^weir1\.([A-Za-z0-9-]+)\.([A-Za-z0-9-]+)\.(\d{1,10})\.(\d{1,16})\.([A-Za-z0-9-]+)$/;

/** What a gid says about its transaction. */
export interface GidParts {
  /** The job and sink fields as they appear in the gid (sanitised, see {@link gidName}). */
  readonly job: string;
  readonly sink: string;
  readonly subtask: number;
  readonly checkpointId: number;
  readonly epoch: string;
}

/**
 * The gid field for a job or sink name: the name itself when it is short and made of
 * `[A-Za-z0-9-]`, otherwise its whitelisted prefix, `-` and 8 hex digits of its SHA-256.
 */
export function gidName(name: string): string {
  if (name.length <= MAX_NAME_CHARS && NAME_FIELD.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const readable = name.replace(/[^A-Za-z0-9-]+/g, '-').slice(0, MAX_NAME_CHARS - 9).replace(/^-+|-+$/g, '');
  return readable === '' ? hash : `${readable}-${hash}`;
}

/** A fresh run epoch: 12 random hex digits. */
export function newEpoch(): string {
  return randomBytes(6).toString('hex');
}

/** The prefix shared by every gid of one sink of one job, across subtasks and runs (ends with `.`). */
export function gidPrefix(job: string, sink: string): string {
  return `${GID_VERSION}.${gidName(job)}.${gidName(sink)}.`;
}

/** The gid of one subtask's transaction for one checkpoint; asserts the format and the length limit. */
export function buildGid(job: string, sink: string, subtask: number, checkpointId: number, epoch: string): string {
  invariant(Number.isSafeInteger(subtask) && subtask >= 0, `invalid subtask ${subtask} for a gid`);
  invariant(Number.isSafeInteger(checkpointId) && checkpointId >= 0, `invalid checkpoint id ${checkpointId} for a gid`);
  const gid = `${gidPrefix(job, sink)}${subtask}.${checkpointId}.${epoch}`;
  invariant(parseGid(gid) !== undefined, `gid '${gid}' does not match the gid format`);
  invariant(Buffer.byteLength(gid) <= MAX_GID_BYTES, `gid '${gid}' is longer than ${MAX_GID_BYTES} bytes`);
  return gid;
}

/** The fields of a weir gid, or undefined when `gid` is not one (which also rules out any character outside the whitelist). */
export function parseGid(gid: string): GidParts | undefined {
  const match = GID.exec(gid);
  if (match === null || gid.length > MAX_GID_BYTES) return undefined;
  const subtask = Number(match[3]);
  const checkpointId = Number(match[4]);
  if (!Number.isSafeInteger(checkpointId)) return undefined;
  return { job: match[1]!, sink: match[2]!, subtask, checkpointId, epoch: match[5]! };
}
