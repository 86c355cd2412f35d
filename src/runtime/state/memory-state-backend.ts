/**
 * The in-memory keyed state backend: one JavaScript Map per declared state, from key to value.
 * Map and list states keep a Map / array per key. Snapshots (by key group) are taken by the
 * checkpoint machinery from `states()`.
 *
 * With a time-to-live (Flink's `table.exec.state.ttl`), the state of a key that has been neither
 * read nor written for that long (processing time) is dropped: it is never returned once expired,
 * and it is removed when touched, as the oldest keys are swept on later accesses, and before a
 * snapshot. The granularity is a key of one declared state (Flink expires each map entry or list
 * element on its own, and refreshes on writes only; weir's operators mutate what they read in
 * place, so a read counts as a write).
 */
import { DefaultDeserializer, serialize } from 'node:v8';
import type { Key } from '../../common/key-codec.js';
import { encodeEntries, forEachDecodedEntry, type EncodedEntries } from './state-table-codec.js';
import type { KeyedStateBackend, ListState, MapState, ReducingState, StateDescriptor, ValueState } from './keyed-state-backend.js';

/** A declared state's storage: key → value (a Map or array for map and list states). */
export interface StateTable {
  readonly name: string;
  readonly kind: 'value' | 'map' | 'list' | 'reducing';
  readonly entries: Map<Key, unknown>;
  /** With a time-to-live: when each key was last accessed, oldest first. */
  readonly accessed?: Map<Key, number>;
}

/** How a backend expires state. */
export interface StateTtlOptions {
  /** Idle time after which a key's state is dropped, in milliseconds. */
  readonly ttlMillis: number;
  /** Processing time in epoch milliseconds (the wall clock unless a test drives time). */
  readonly clock?: () => number;
}

/** Keyed state held in memory. */
export class MemoryStateBackend implements KeyedStateBackend {
  private currentKey: Key = null;
  private readonly tables = new Map<string, StateTable>();
  private readonly ttlMillis: number | undefined;
  private readonly clock: () => number;
  private lastSweep = -Infinity;

  constructor(ttl?: StateTtlOptions) {
    if (ttl !== undefined && !(ttl.ttlMillis > 0)) throw new Error(`state ttl must be positive, got ${ttl.ttlMillis}`);
    this.ttlMillis = ttl?.ttlMillis;
    this.clock = ttl?.clock ?? Date.now;
  }

  setCurrentKey(key: Key): void {
    this.currentKey = key;
  }

  getCurrentKey(): Key {
    return this.currentKey;
  }

  /** The declared states, for snapshots and metrics. */
  states(): IterableIterator<StateTable> {
    return this.tables.values();
  }

  /**
   * The synchronous part of a snapshot: every state table serialised into one buffer (a copy, so
   * processing may go on mutating state while the buffer is written). Undefined when there is no
   * keyed state at all.
   */
  snapshot(): Uint8Array | undefined {
    this.sweep(true);
    const tables = [...this.tables.values()].filter((t) => t.entries.size > 0);
    if (tables.length === 0) return undefined;
    return serialize(tables.map((t) => [t.name, t.kind, encodeEntries(t.entries), ...(t.accessed === undefined ? [] : [t.accessed])]));
  }

  /**
   * Adds the entries of a snapshot whose key this subtask owns (by key group), so that the
   * snapshots of any number of old subtasks can be redistributed to the new ones.
   */
  restore(snapshot: Uint8Array, owns: (key: Key) => boolean): void {
    const tables = deserializeOwning(snapshot) as [string, StateTable['kind'], EncodedEntries, Map<Key, number>?][];
    const now = this.clock();
    for (const [name, kind, entries, accessed] of tables) {
      const target = this.tableOf({ name }, kind);
      forEachDecodedEntry(entries, (key, value) => {
        if (!owns(key)) return;
        target.entries.set(key, value);
        target.accessed?.set(key, accessed?.get(key) ?? now);
      });
      if (target.accessed !== undefined) sortByAccess(target.accessed);
    }
  }

  entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]> {
    this.sweep(true);
    return (this.tables.get(descriptor.name)?.entries ?? new Map<Key, T>()).entries() as IterableIterator<[Key, T]>;
  }

  keyCount(): number {
    this.sweep(true);
    const keys = new Set<Key>();
    for (const table of this.tables.values()) for (const key of table.entries.keys()) keys.add(key);
    return keys.size;
  }

  getValueState<T>(descriptor: StateDescriptor): ValueState<T> {
    const table = this.tableOf(descriptor, 'value');
    const entries = table.entries;
    return this.expiring(table, {
      value: () => entries.get(this.currentKey) as T | undefined,
      update: (value) => void entries.set(this.currentKey, value),
      clear: () => void entries.delete(this.currentKey),
    });
  }

  getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V> {
    const table = this.tableOf(descriptor, 'map');
    const entries = table.entries;
    const current = (): Map<K, V> | undefined => entries.get(this.currentKey) as Map<K, V> | undefined;
    const currentOrNew = (): Map<K, V> => {
      let map = current();
      if (map === undefined) {
        map = new Map();
        entries.set(this.currentKey, map);
      }
      return map;
    };
    return this.expiring(table, {
      get: (mapKey) => current()?.get(mapKey),
      put: (mapKey, value) => void currentOrNew().set(mapKey, value),
      remove: (mapKey) => {
        const map = current();
        if (map === undefined) return;
        map.delete(mapKey);
        if (map.size === 0) entries.delete(this.currentKey);
      },
      contains: (mapKey) => current()?.has(mapKey) ?? false,
      entries: () => (current() ?? new Map<K, V>()).entries(),
      isEmpty: () => (current()?.size ?? 0) === 0,
      clear: () => void entries.delete(this.currentKey),
    });
  }

  getListState<T>(descriptor: StateDescriptor): ListState<T> {
    const table = this.tableOf(descriptor, 'list');
    const entries = table.entries;
    return this.expiring(table, {
      get: () => (entries.get(this.currentKey) as T[] | undefined) ?? NO_VALUES,
      add: (value) => {
        const list = entries.get(this.currentKey) as T[] | undefined;
        if (list === undefined) entries.set(this.currentKey, [value]);
        else list.push(value);
      },
      update: (values) => {
        if (values.length === 0) entries.delete(this.currentKey);
        else entries.set(this.currentKey, [...values]);
      },
      clear: () => void entries.delete(this.currentKey),
    });
  }

  getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T> {
    const table = this.tableOf(descriptor, 'reducing');
    const entries = table.entries;
    return this.expiring(table, {
      get: () => entries.get(this.currentKey) as T | undefined,
      add: (value) => {
        const previous = entries.get(this.currentKey) as T | undefined;
        entries.set(this.currentKey, previous === undefined ? value : reduce(previous, value));
      },
      clear: () => void entries.delete(this.currentKey),
    });
  }

  private tableOf(descriptor: StateDescriptor, kind: StateTable['kind']): StateTable {
    const existing = this.tables.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.kind !== kind) throw new Error(`state '${descriptor.name}' is declared as ${existing.kind} state, not ${kind}`);
      return existing;
    }
    const table: StateTable = { name: descriptor.name, kind, entries: new Map(), ...(this.ttlMillis === undefined ? {} : { accessed: new Map() }) };
    this.tables.set(descriptor.name, table);
    return table;
  }

  /**
   * The state handle itself without a time-to-live; with one, a handle whose every call first
   * drops the current key's state if it expired, and afterwards records the access.
   */
  private expiring<S extends object>(table: StateTable, state: S): S {
    const accessed = table.accessed;
    const ttl = this.ttlMillis;
    if (accessed === undefined || ttl === undefined) return state;
    const wrapped: Record<string, unknown> = {};
    for (const [name, method] of Object.entries(state) as [string, (...args: unknown[]) => unknown][]) {
      wrapped[name] = (...args: unknown[]): unknown => {
        const key = this.currentKey;
        const now = this.clock();
        const last = accessed.get(key);
        if (last !== undefined) {
          accessed.delete(key);
          if (now - last >= ttl) table.entries.delete(key);
        }
        const result = method(...args);
        if (table.entries.has(key)) accessed.set(key, now);
        this.sweepAt(now, false);
        return result;
      };
    }
    return wrapped as S;
  }

  /** Drops expired keys of every table: all of them when `full`, else at most once per millisecond. */
  private sweep(full: boolean): void {
    if (this.ttlMillis !== undefined) this.sweepAt(this.clock(), full);
  }

  private sweepAt(now: number, full: boolean): void {
    if (!full && now === this.lastSweep) return;
    this.lastSweep = now;
    const ttl = this.ttlMillis!;
    for (const table of this.tables.values()) {
      const accessed = table.accessed!;
      for (const [key, last] of accessed) {
        if (now - last < ttl) break;
        accessed.delete(key);
        table.entries.delete(key);
      }
    }
  }
}

/** The values of a key without list state (shared: callers never mutate what `get` returns). */
const NO_VALUES: readonly never[] = Object.freeze([]);

/** Reorders an access map oldest first (restored keys arrive in snapshot order). */
function sortByAccess(accessed: Map<Key, number>): void {
  const sorted = [...accessed].sort((a, b) => a[1] - b[1]);
  accessed.clear();
  for (const [key, at] of sorted) accessed.set(key, at);
}

/**
 * Node's deserializer returns each typed array as a view into the snapshot it reads (zero copy):
 * a binary string value (Uint8Array) restored that way would keep the whole snapshot alive as long
 * as it lives in state. This one gives every Uint8Array a buffer of its own.
 */
class OwningDeserializer extends DefaultDeserializer {
  _readHostObject(): unknown {
    const view = (DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): unknown })._readHostObject.call(this);
    return view instanceof Uint8Array && view.constructor === Uint8Array && view.byteLength !== view.buffer.byteLength ? view.slice() : view;
  }
}

/** `v8.deserialize`, with Uint8Arrays owning their buffers (see {@link OwningDeserializer}). */
function deserializeOwning(snapshot: Uint8Array): unknown {
  const deserializer = new OwningDeserializer(snapshot);
  deserializer.readHeader();
  return deserializer.readValue();
}
