/**
 * Keyed state as in Flink: state handles are scoped to the backend's current key, which the
 * operator sets before reading or writing. Declared state is owned by the backend, so that the
 * runtime can snapshot it per key group without the operator's help.
 */
import type { Key } from '../../common/key-codec.js';

/** Declares a piece of keyed state. `name` is unique within the operator and stable across versions. */
export interface StateDescriptor {
  readonly name: string;
}

/** One value per key. */
export interface ValueState<T> {
  /** The current key's value, or undefined when there is none. */
  value(): T | undefined;
  update(value: T): void;
  clear(): void;
}

/** A map per key. */
export interface MapState<K, V> {
  get(mapKey: K): V | undefined;
  put(mapKey: K, value: V): void;
  remove(mapKey: K): void;
  contains(mapKey: K): boolean;
  entries(): IterableIterator<[K, V]>;
  isEmpty(): boolean;
  clear(): void;
}

/**
 * A list per key. An element is never changed once added, nor is the list `get` returns: to
 * change or remove elements, `update` the list with new ones in their place (backends keep added
 * elements as given, snapshots take a list as its length, and deltas write only what was appended).
 */
export interface ListState<T> {
  get(): readonly T[];
  add(value: T): void;
  update(values: readonly T[]): void;
  clear(): void;
}

/** A value per key folded with a reduce function. */
export interface ReducingState<T> {
  get(): T | undefined;
  add(value: T): void;
  clear(): void;
}

/** Creates keyed state handles and holds the current key. */
export interface KeyedStateBackend {
  /**
   * True when a value read is the stored object itself and stays so until it is replaced (the
   * heap backend). A hot operator may then skip writing back a value it changed in place — never
   * without having selected its key with setCurrentKey first, where change tracking and
   * copy-on-access snapshots hook in. False for a backend that copies or serialises values: every
   * change must be written back. Operators that use it are run under the copying backend too
   * (WEIR_TEST_STATE_BACKEND=copying), which checks the write-back path.
   */
  readonly sharesValues: boolean;
  setCurrentKey(key: Key): void;
  getCurrentKey(): Key;
  getValueState<T>(descriptor: StateDescriptor): ValueState<T>;
  getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V>;
  getListState<T>(descriptor: StateDescriptor): ListState<T>;
  getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T>;
  /** Every key of a declared state with its value (for operators that index their state, e.g. after a restore). */
  entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]>;
  /** Number of keys with any state, over all declared states (for metrics and tests). */
  keyCount(): number;
}
