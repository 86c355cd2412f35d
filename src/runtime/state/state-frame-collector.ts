/**
 * The entries and tombstones a snapshot writer collects for one key group, turned into frames of
 * the state file (key-group-state-file.ts), one frame per declared state that has any, when a
 * chunk ends. Entries are parallel arrays of keys and values (encodeEntryArrays), and so are the
 * rows a delta appends to lists, which go in a frame of their own. A declared state with a
 * time-to-live also records each entry's last access.
 */
import type { Key } from '../../common/key-codec.js';
import { encodeStateFrame } from './key-group-state-file.js';
import { encodeEntryArrays } from './state-table-codec.js';

/** Where the frames go: the writer's parts, in order; `appended` for the parts of a frame that only appends rows to lists. */
export type FrameSink = (part: Uint8Array, appended: boolean) => void;

/** When a key of a declared state was last accessed (epoch milliseconds), for states with a time-to-live. */
export type LastAccess = (key: Key) => number;

/** The frames of one key group being collected (see the module comment). */
export class StateFrameCollector {
  private keys: Key[][] = [];
  private values: unknown[][] = [];
  private tombstones: Key[][] = [];
  private accessed: number[][] = [];
  private appendedKeys: Key[][] = [];
  private appendedRows: unknown[][] = [];
  private bases: number[][] = [];

  /**
   * @param lastAccess per declared state, how to read an entry's last access; undefined for a
   *   state without a time-to-live (its frames carry no access times)
   */
  constructor(
    private readonly sink: FrameSink,
    readonly group: number,
    private readonly lastAccess: readonly (LastAccess | undefined)[],
  ) {
    this.reset();
  }

  private reset(): void {
    const tables = this.lastAccess.length;
    this.keys = Array.from({ length: tables }, () => []);
    this.values = Array.from({ length: tables }, () => []);
    this.tombstones = Array.from({ length: tables }, () => []);
    this.accessed = Array.from({ length: tables }, () => []);
    this.appendedKeys = Array.from({ length: tables }, () => []);
    this.appendedRows = Array.from({ length: tables }, () => []);
    this.bases = Array.from({ length: tables }, () => []);
  }

  /** An entry; `accessed`, when given, is its last access (else the state's {@link LastAccess} tells, if it has a time-to-live). */
  entry(table: number, key: Key, value: unknown, accessed?: number): void {
    this.keys[table]!.push(key);
    this.values[table]!.push(value);
    const lastAccess = this.lastAccess[table];
    if (lastAccess !== undefined) this.accessed[table]!.push(accessed ?? lastAccess(key));
  }

  tombstone(table: number, key: Key): void {
    this.tombstones[table]!.push(key);
  }

  /** `rows` follow the first `base` rows of `key`'s list (a delta of a list state without a time-to-live). */
  append(table: number, key: Key, base: number, rows: readonly unknown[]): void {
    this.appendedKeys[table]!.push(key);
    this.appendedRows[table]!.push(rows);
    this.bases[table]!.push(base);
  }

  /** Serialises what was collected: per declared state, a frame of its entries and tombstones, and one of its appended rows, when it has any. */
  flush(): void {
    for (let t = 0; t < this.lastAccess.length; t++) {
      const keys = this.keys[t]!;
      const tombstones = this.tombstones[t]!;
      const appended = this.appendedKeys[t]!;
      if (keys.length > 0 || tombstones.length > 0) {
        const accessed = this.lastAccess[t] === undefined ? undefined : Float64Array.from(this.accessed[t]!);
        const entries = keys.length === 0 ? new Map<Key, unknown>() : encodeEntryArrays(keys, this.values[t]!);
        for (const part of encodeStateFrame({ keyGroup: this.group, table: t, entries, tombstones, accessed })) this.sink(part, false);
      }
      if (appended.length > 0) {
        // A frame of its own, so that its bytes are known (see FrameSink).
        const appends = { entries: encodeEntryArrays(appended, this.appendedRows[t]!), bases: Uint32Array.from(this.bases[t]!) };
        for (const part of encodeStateFrame({ keyGroup: this.group, table: t, entries: new Map(), tombstones: [], accessed: undefined, appends })) this.sink(part, true);
      }
    }
    this.reset();
  }
}
