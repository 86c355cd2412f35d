/**
 * A keyed state backend that checks the state contract (DESIGN.md, "State"): a value read from
 * state is the operator's copy, and every change is written back through `update()`/`put()`/
 * `add()`. It stores a deep copy of every value written and hands out a fresh deep copy on every
 * read, exactly as a serialising (disk) backend would, so an operator that mutates what it read
 * and does not write it back — or keeps mutating what it wrote — loses that change here, and its
 * tests fail.
 *
 * Its storage is a heap backend's tables that only ever hold this backend's own copies (no object
 * is shared with the operator), so snapshots, restore by key group and time-to-live are those of
 * {@link MemoryStateBackend} and the two backends' snapshots are interchangeable.
 *
 * Beyond copying it also checks what a disk backend relies on:
 * - map-state keys are primitives (a serialising backend compares keys by value, the heap by
 *   identity for objects, so an object map key behaves differently from one backend to another);
 * - iterating `entries()`/`entriesOf()` walks what was there when iteration began (as a store's
 *   iterator over a snapshot does), not a live view.
 *
 * It is for tests (select it with the harness option or `WEIR_TEST_STATE_BACKEND=copying`, see
 * state-backend-factory.ts); copying every read and write makes it several times slower than the
 * heap backend.
 */
import type { Key } from '../../common/key-codec.js';
import type { ListState, MapState, ReducingState, StateDescriptor, ValueState } from './keyed-state-backend.js';
import { MemoryStateBackend } from './memory-state-backend.js';

/** Keyed state that copies every value on the way in and on the way out (see the module comment). */
export class CopyingStateBackend extends MemoryStateBackend {
  override getValueState<T>(descriptor: StateDescriptor): ValueState<T> {
    const stored = super.getValueState<T>(descriptor);
    return {
      value: () => copy(stored.value()),
      update: (value) => stored.update(copy(value)),
      clear: () => stored.clear(),
    };
  }

  override getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V> {
    const stored = super.getMapState<K, V>(descriptor);
    return {
      get: (mapKey) => copy(stored.get(checkedMapKey(descriptor, mapKey))),
      put: (mapKey, value) => stored.put(checkedMapKey(descriptor, mapKey), copy(value)),
      remove: (mapKey) => stored.remove(checkedMapKey(descriptor, mapKey)),
      contains: (mapKey) => stored.contains(checkedMapKey(descriptor, mapKey)),
      entries: () => copiedEntries([...stored.entries()]),
      isEmpty: () => stored.isEmpty(),
      clear: () => stored.clear(),
    };
  }

  override getListState<T>(descriptor: StateDescriptor): ListState<T> {
    const stored = super.getListState<T>(descriptor);
    return {
      get: () => copy(stored.get()),
      add: (value) => stored.add(copy(value)),
      update: (values) => stored.update(copy(values)),
      clear: () => stored.clear(),
    };
  }

  override getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T> {
    // The reduce function sees a copy of the stored value, and what it returns is copied before it
    // is stored: a disk backend reduces a deserialised value and serialises the result.
    const stored = super.getReducingState<T>(descriptor, (a, b) => copy(reduce(copy(a), b)));
    return {
      get: () => copy(stored.get()),
      add: (value) => stored.add(copy(value)),
      clear: () => stored.clear(),
    };
  }

  override entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]> {
    return copiedEntries([...super.entriesOf<T>(descriptor)]);
  }
}

/** A deep copy of a state value (rows, arrays, Maps, Sets, bigints, Uint8Arrays, plain objects). */
function copy<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** Iterates copies of the given entries (taken before iteration, so later writes do not show). */
function* copiedEntries<K, V>(entries: readonly (readonly [K, V])[]): IterableIterator<[K, V]> {
  for (const [key, value] of entries) yield [key, copy(value)];
}

/** Refuses a map-state key that is an object: backends that serialise compare keys by value, the heap by identity. */
function checkedMapKey<K>(descriptor: StateDescriptor, mapKey: K): K {
  if (typeof mapKey === 'object' && mapKey !== null) {
    throw new Error(`map state '${descriptor.name}' got an object as map key (${Object.prototype.toString.call(mapKey)}); map keys must be primitives, which every backend compares by value`);
  }
  return mapKey;
}
