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
  /** Every read is a copy: nothing changed in place reaches state. */
  override get sharesValues(): boolean {
    return false;
  }

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

/**
 * A deep copy of a state value, as the structured clone algorithm (v8 serialize/deserialize, what a
 * disk backend runs) makes it. Arrays, plain objects and Maps of them are copied here directly
 * (structuredClone's fixed cost per call dominates for the small values operators keep, which made
 * engine tests under this backend miss their checkpoints); anything else — typed arrays, Dates,
 * Sets, class instances (which lose their prototype, as on disk) — goes through structuredClone.
 * Objects shared within one value are copied once, as the structured clone keeps them shared.
 */
function copy<T>(value: T): T {
  return typeof value === 'object' && value !== null ? (copyObject(value, new Map()) as T) : checkedPrimitive(value);
}

function copyItem(item: unknown, seen: Map<object, unknown>): unknown {
  return typeof item === 'object' && item !== null ? copyObject(item, seen) : checkedPrimitive(item);
}

/** A primitive as is; a function or symbol, which no serialising backend can store, is refused. */
function checkedPrimitive<T>(value: T): T {
  if (typeof value === 'function' || typeof value === 'symbol') throw new Error(`a ${typeof value} cannot be kept in state: state values must be plain data that a backend can serialise`);
  return value;
}

function copyObject(value: object, seen: Map<object, unknown>): unknown {
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const result: unknown[] = new Array(value.length);
    seen.set(value, result);
    for (let i = 0; i < value.length; i++) result[i] = copyItem(value[i], seen);
    return result;
  }
  if (value instanceof Map) {
    const result = new Map<unknown, unknown>();
    seen.set(value, result);
    for (const [k, v] of value as Map<unknown, unknown>) result.set(copyItem(k, seen), copyItem(v, seen));
    return result;
  }
  if (Object.getPrototypeOf(value) === Object.prototype) {
    const result: Record<string, unknown> = {};
    seen.set(value, result);
    for (const name of Object.keys(value)) result[name] = copyItem((value as Record<string, unknown>)[name], seen);
    return result;
  }
  const cloned: unknown = structuredClone(value);
  seen.set(value, cloned);
  return cloned;
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
