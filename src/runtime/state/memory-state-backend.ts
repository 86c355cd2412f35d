/**
 * The in-memory keyed state backend: one JavaScript Map per declared state, from key to value.
 * Map and list states keep a Map / array per key. Snapshots (by key group) are taken by the
 * checkpoint machinery from `states()`.
 */
import { serialize, deserialize } from 'node:v8';
import type { Key } from '../../common/key-codec.js';
import type { KeyedStateBackend, ListState, MapState, ReducingState, StateDescriptor, ValueState } from './keyed-state-backend.js';

/** A declared state's storage: key → value (a Map or array for map and list states). */
export interface StateTable {
  readonly name: string;
  readonly kind: 'value' | 'map' | 'list' | 'reducing';
  readonly entries: Map<Key, unknown>;
}

/** Keyed state held in memory. */
export class MemoryStateBackend implements KeyedStateBackend {
  private currentKey: Key = null;
  private readonly tables = new Map<string, StateTable>();

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
    const tables = [...this.tables.values()].filter((t) => t.entries.size > 0);
    if (tables.length === 0) return undefined;
    return serialize(tables.map((t) => [t.name, t.kind, t.entries]));
  }

  /**
   * Adds the entries of a snapshot whose key this subtask owns (by key group), so that the
   * snapshots of any number of old subtasks can be redistributed to the new ones.
   */
  restore(snapshot: Uint8Array, owns: (key: Key) => boolean): void {
    const tables = deserialize(snapshot) as [string, StateTable['kind'], Map<Key, unknown>][];
    for (const [name, kind, entries] of tables) {
      const target = this.table({ name }, kind);
      for (const [key, value] of entries) if (owns(key)) target.set(key, value);
    }
  }

  entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]> {
    return (this.tables.get(descriptor.name)?.entries ?? new Map<Key, T>()).entries() as IterableIterator<[Key, T]>;
  }

  keyCount(): number {
    const keys = new Set<Key>();
    for (const table of this.tables.values()) for (const key of table.entries.keys()) keys.add(key);
    return keys.size;
  }

  getValueState<T>(descriptor: StateDescriptor): ValueState<T> {
    const entries = this.table(descriptor, 'value');
    return {
      value: () => entries.get(this.currentKey) as T | undefined,
      update: (value) => void entries.set(this.currentKey, value),
      clear: () => void entries.delete(this.currentKey),
    };
  }

  getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V> {
    const entries = this.table(descriptor, 'map');
    const current = (): Map<K, V> | undefined => entries.get(this.currentKey) as Map<K, V> | undefined;
    const currentOrNew = (): Map<K, V> => {
      let map = current();
      if (map === undefined) {
        map = new Map();
        entries.set(this.currentKey, map);
      }
      return map;
    };
    return {
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
    };
  }

  getListState<T>(descriptor: StateDescriptor): ListState<T> {
    const entries = this.table(descriptor, 'list');
    return {
      get: () => (entries.get(this.currentKey) as T[] | undefined) ?? [],
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
    };
  }

  getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T> {
    const entries = this.table(descriptor, 'reducing');
    return {
      get: () => entries.get(this.currentKey) as T | undefined,
      add: (value) => {
        const previous = entries.get(this.currentKey) as T | undefined;
        entries.set(this.currentKey, previous === undefined ? value : reduce(previous, value));
      },
      clear: () => void entries.delete(this.currentKey),
    };
  }

  private table(descriptor: StateDescriptor, kind: StateTable['kind']): Map<Key, unknown> {
    const existing = this.tables.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.kind !== kind) throw new Error(`state '${descriptor.name}' is declared as ${existing.kind} state, not ${kind}`);
      return existing.entries;
    }
    const table: StateTable = { name: descriptor.name, kind, entries: new Map() };
    this.tables.set(descriptor.name, table);
    return table.entries;
  }
}
