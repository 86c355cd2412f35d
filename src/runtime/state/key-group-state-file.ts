/**
 * The layout of a keyed state file, written per key group so that a subtask restoring with
 * another parallelism decodes only the key groups it owns (the frames of other groups are skipped
 * by their length, never deserialised):
 *
 *     "WEIRKGS1"                 8 bytes, the format's magic
 *     u32 LE  header length      then the header as JSON: { kind, tables: [[name, kind], ...] }
 *     frames, each:
 *       u32 LE key group, u32 LE table index, u32 LE length, then `length` bytes:
 *       v8.serialize([entries, tombstones, accessed, appended, bases]) — entries encoded by
 *       state-table-codec.ts, tombstones the keys a delta removes, accessed the last access times
 *       (state TTL) in the order of the decoded entries; for a delta of a list state, appended
 *       (encoded the same way) the rows appended to lists, and bases (a Uint32Array in the order
 *       of the decoded appended entries) the length of each list they follow. Files written
 *       before appends existed have three elements.
 *
 * A `full` file holds every entry of the groups it covers; a `delta` holds the entries of the keys
 * changed since the checkpoint it builds on, tombstones for the keys removed since, and for a list
 * that only grew since, its new rows: the list is its first `base` rows as the files before had
 * it, then these (applying such a file twice, or on top of a later checkpoint's files, gives the
 * same list). A delta is applied on top of that checkpoint's files. A group may have several
 * frames (one per chunk the writer produced, and one more for a chunk's appended rows); they are
 * applied in order. Files without the magic are the single-buffer snapshots weir wrote before (one
 * v8-serialised array of tables) and are read as such.
 */
import { serialize } from 'node:v8';
import { deserializeOwning } from './owning-deserializer.js';
import type { Key } from '../../common/key-codec.js';
import type { EncodedEntries } from './state-table-codec.js';

/** The first bytes of a key-group-framed state file. */
export const STATE_FILE_MAGIC = 'WEIRKGS1';
const MAGIC_BYTES = Buffer.from(STATE_FILE_MAGIC, 'latin1');
const FRAME_HEADER_BYTES = 12;

/** The kind of a declared state, as files record it. */
export type StateKind = 'value' | 'map' | 'list' | 'reducing';

/** What a state file says about itself. */
export interface StateFileHeader {
  /** `full`: every entry of its groups; `delta`: changes on top of the files before it in a chain. */
  readonly kind: 'full' | 'delta';
  /** The declared states the frames refer to by index: name and kind. */
  readonly tables: readonly (readonly [string, StateKind])[];
}

/** The content of one frame: entries of one table in one key group. */
export interface StateFrame {
  readonly keyGroup: number;
  readonly table: number;
  readonly entries: EncodedEntries;
  /** Keys removed (deltas only). */
  readonly tombstones: readonly Key[];
  /** Last access time of each entry, in the order the entries decode (with a state TTL). */
  readonly accessed: Float64Array | undefined;
  /** Rows appended to lists (deltas of list states only). */
  readonly appends?: ListAppends | undefined;
}

/** Rows appended to the lists of a list state since the checkpoint a delta builds on. */
export interface ListAppends {
  /** Per key, the rows that follow the first `bases[i]` rows of its list. */
  readonly entries: EncodedEntries;
  /** Per key, in the order the entries decode: how many rows of its list, as the files before had it, come first. */
  readonly bases: Uint32Array;
}

/** The header bytes of a state file. */
export function encodeStateFileHeader(header: StateFileHeader): Uint8Array {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const out = Buffer.allocUnsafe(MAGIC_BYTES.length + 4 + json.length);
  MAGIC_BYTES.copy(out, 0);
  out.writeUInt32LE(json.length, MAGIC_BYTES.length);
  json.copy(out, MAGIC_BYTES.length + 4);
  return out;
}

/** One frame's bytes, as its header and its body (written one after the other, not copied into one buffer). */
export function encodeStateFrame(frame: StateFrame): [head: Uint8Array, body: Uint8Array] {
  const { appends } = frame;
  const body = serialize(appends === undefined ? [frame.entries, frame.tombstones, frame.accessed] : [frame.entries, frame.tombstones, frame.accessed, appends.entries, appends.bases]);
  const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  head.writeUInt32LE(frame.keyGroup, 0);
  head.writeUInt32LE(frame.table, 4);
  head.writeUInt32LE(body.length, 8);
  return [head, body];
}

/** True when `data` is a key-group-framed state file (else a snapshot of the older single-buffer form). */
export function isFramedStateFile(data: Uint8Array): boolean {
  if (data.byteLength < MAGIC_BYTES.length + 4) return false;
  for (let i = 0; i < MAGIC_BYTES.length; i++) if (data[i] !== MAGIC_BYTES[i]) return false;
  return true;
}

/**
 * Reads a framed state file: its header, then calls `frame` for every frame whose key group
 * `wanted` accepts (the others are skipped unread), in the order they were written or, `backward`,
 * last first (a chain applied newest first). Throws naming `source` when the bytes are truncated
 * or malformed (before any frame is decoded).
 */
export function readStateFile(data: Uint8Array, source: string, wanted: (keyGroup: number) => boolean, frame: (header: StateFileHeader, frame: StateFrame) => void, order: 'forward' | 'backward' = 'forward'): StateFileHeader {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const headerLength = bytes.readUInt32LE(MAGIC_BYTES.length);
  let at = MAGIC_BYTES.length + 4;
  if (at + headerLength > bytes.length) throw new Error(`state file ${source} is truncated: its header ends beyond its ${bytes.length} bytes`);
  const header = parseHeader(bytes.subarray(at, at + headerLength).toString('utf8'), source);
  at += headerLength;
  const frames: [keyGroup: number, table: number, start: number, end: number][] = [];
  while (at < bytes.length) {
    if (at + FRAME_HEADER_BYTES > bytes.length) throw new Error(`state file ${source} is truncated: a frame header at byte ${at} is cut off`);
    const keyGroup = bytes.readUInt32LE(at);
    const table = bytes.readUInt32LE(at + 4);
    const length = bytes.readUInt32LE(at + 8);
    const start = at + FRAME_HEADER_BYTES;
    at = start + length;
    if (at > bytes.length) throw new Error(`state file ${source} is truncated: the frame of key group ${keyGroup} at byte ${start} ends beyond its ${bytes.length} bytes`);
    if (table >= header.tables.length) throw new Error(`state file ${source} is malformed: a frame refers to state #${table}, but the header declares ${header.tables.length}`);
    if (wanted(keyGroup)) frames.push([keyGroup, table, start, at]);
  }
  if (order === 'backward') frames.reverse();
  for (const [keyGroup, table, start, end] of frames) {
    const [entries, tombstones, accessed, appended, bases] = deserializeOwning(bytes.subarray(start, end)) as [EncodedEntries, Key[], Float64Array | undefined, EncodedEntries?, Uint32Array?];
    let appends: ListAppends | undefined;
    if (appended !== undefined) {
      const [, kind] = header.tables[table]!;
      const where = `state file ${source} is malformed: the frame of key group ${keyGroup} at byte ${start}`;
      if (kind !== 'list' || header.kind !== 'delta') throw new Error(`${where} appends rows to ${kind} state in a ${header.kind} file`);
      if (!(bases instanceof Uint32Array)) throw new Error(`${where} appends rows without the lengths of the lists they follow`);
      appends = { entries: appended, bases };
    }
    frame(header, { keyGroup, table, entries, tombstones, accessed, appends });
  }
  return header;
}

function parseHeader(text: string, source: string): StateFileHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`state file ${source} is malformed: its header is not JSON (${(error as Error).message})`);
  }
  const header = value as Partial<StateFileHeader> | null;
  const kinds = ['value', 'map', 'list', 'reducing'];
  const valid =
    header !== null &&
    (header.kind === 'full' || header.kind === 'delta') &&
    Array.isArray(header.tables) &&
    header.tables.every((t) => Array.isArray(t) && typeof t[0] === 'string' && kinds.includes(t[1] as string));
  if (!valid) throw new Error(`state file ${source} is malformed: its header is not {kind, tables}`);
  return header as StateFileHeader;
}
