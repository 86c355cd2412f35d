/**
 * The columnar snapshot forms of state tables: taken exactly when every value is an array of one
 * length of primitives, or a list of such rows all of one width, and restoring to the same entries
 * as the Map form (including -0, NaN, undefined, bigint and keys of every kind), with fresh arrays
 * per key; snapshots written as Maps (before the columnar forms) still restore.
 */
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { Key } from '../../../src/common/key-codec.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { encodeEntries, encodeEntryArrays, forEachDecodedEntry, type EncodedEntries } from '../../../src/runtime/state/state-table-codec.js';

function decoded(encoded: EncodedEntries): Map<Key, unknown> {
  const entries = new Map<Key, unknown>();
  forEachDecodedEntry(encoded, (key, value) => entries.set(key, value));
  return entries;
}

describe('state table codec', () => {
  it('transposes flat arrays of one length, keeping every primitive as it was', () => {
    const entries = new Map<Key, unknown>([
      [1, [0, -0, NaN, Infinity]],
      ['a\u0000b', [undefined, null, 12345678901234567890n, 'text']],
      [null, [true, false, 1.5, '']],
      [7n, [-1, 2 ** 53, -Infinity, 'é']],
    ]);
    const encoded = encodeEntries(entries);
    expect(encoded).not.toBeInstanceOf(Map);
    expect(encoded).toEqual({ keys: [1, 'a\u0000b', null, 7n], columns: [[0, undefined, true, -1], [-0, null, false, 2 ** 53], [NaN, 12345678901234567890n, 1.5, -Infinity], [Infinity, 'text', '', 'é']] });
    expect(decoded(encoded)).toEqual(entries);
  });

  it('keeps numbers in typed columns: Int32Array while every one is an int32 (not -0), else Float64Array', () => {
    const entries = new Map<Key, unknown>([
      [1, [0, 2 ** 31 - 1, 0.5, 1, 7]],
      [2, [-(2 ** 31), 3, NaN, -0, 'x']],
      [3, [5, 2 ** 31, 1e300, 2, null]],
    ]);
    const encoded = encodeEntries(entries);
    if (encoded instanceof Map) throw new Error('expected the columnar form');
    expect(encoded.keys).toBeInstanceOf(Int32Array);
    expect(encoded.columns.map((c) => c.constructor.name)).toEqual(['Int32Array', 'Float64Array', 'Float64Array', 'Float64Array', 'Array']);
    expect(encoded.columns[4]).toEqual([7, 'x', null]);
    const restored = decoded(deserialize(serialize(encoded)) as EncodedEntries);
    expect(restored).toEqual(entries);
    expect(Object.is((restored.get(2) as number[])[3], -0)).toBe(true);
  });

  it('restores values of every width, each element from its own column, as packed fresh arrays', () => {
    for (let width = 0; width <= 11; width++) {
      const entries = new Map<Key, unknown>(Array.from({ length: 3 }, (_, k) => [k, Array.from({ length: width }, (_, j) => (j % 2 === 0 ? k * 100 + j : `v${k}.${j}`))]));
      const encoded = encodeEntries(entries);
      expect(encoded, `width ${width}`).not.toBeInstanceOf(Map);
      const restored = decoded(deserialize(serialize(encoded)) as EncodedEntries);
      expect(restored, `width ${width}`).toEqual(entries);
      const values = [...restored.values()] as unknown[][];
      expect(new Set(values).size).toBe(3);
      for (const value of values) expect(Object.keys(value).length).toBe(width);
    }
  });

  it('encodes parallel arrays of keys and values as it encodes a Map of them', () => {
    const keys: Key[] = ['a', 'b', 'c'];
    expect(encodeEntryArrays(keys, [[1, 2], [3, 4], [5, 6]])).toEqual(encodeEntries(new Map<Key, unknown>([['a', [1, 2]], ['b', [3, 4]], ['c', [5, 6]]])));
    const nested = [{ x: 1 }, [1], 'plain'];
    expect(encodeEntryArrays(keys, nested)).toEqual(new Map<Key, unknown>(keys.map((k, i) => [k, nested[i]])));
  });

  it('keeps the Map for values that are not flat arrays of one length', () => {
    const cases: Map<Key, unknown>[] = [
      new Map<Key, unknown>([[1, [1, 2]], [2, [1, 2, 3]]]),
      new Map<Key, unknown>([[1, [1, 2]], [2, [1, [2]]]]),
      new Map<Key, unknown>([[1, [1, new Map([[1, 2]])]]]),
      new Map<Key, unknown>([[1, 5], [2, 6]]),
      new Map<Key, unknown>([[1, [1]], [2, 6]]),
      new Map<Key, unknown>([[1, new Map([['x', 1]])]]),
    ];
    for (const entries of cases) expect(encodeEntries(entries)).toBe(entries);
  });

  it('keeps the Map for values holding binary strings (objects), and a backend snapshot restores them as Uint8Arrays of their own', () => {
    const entries = new Map<Key, unknown>([
      ['x0aff', [Uint8Array.from([0x0a, 0xff]), 1]],
      ['x', [new Uint8Array(0), 2]],
    ]);
    expect(encodeEntries(entries)).toBe(entries);
    const backend = new MemoryStateBackend();
    const extreme = backend.getValueState<[Uint8Array, number]>({ name: 'extreme' });
    for (const [key, value] of entries) {
      backend.setCurrentKey(key);
      extreme.update(value as [Uint8Array, number]);
    }
    const restored = new MemoryStateBackend();
    restored.restore(backend.snapshot()!, () => true);
    const table = [...restored.states()].find((t) => t.name === 'extreme')!;
    const restoredEntries = new Map(table.entries());
    expect(restoredEntries).toEqual(entries);
    const [value] = restoredEntries.get('x0aff') as [Uint8Array, number];
    expect(value).toBeInstanceOf(Uint8Array);
    expect(value.buffer.byteLength).toBe(2);
  });

  it('transposes lists of rows of one width: keys, the rows per key, and a column per row position', () => {
    const entries = new Map<Key, unknown>([
      [10, [[1, 'a', 1.5], [2, 'b', null]]],
      ['k', []],
      [null, [[3, 'c', -0]]],
      [7n, [[4, '', 2n ** 70n], [5, 'é', NaN], [6, 'f', 0]]],
    ]);
    const encoded = encodeEntries(entries);
    if (encoded instanceof Map) throw new Error('expected the columnar form');
    expect(encoded.counts).toEqual(Int32Array.from([2, 0, 1, 3]));
    expect(encoded.keys).toEqual([10, 'k', null, 7n]);
    expect(encoded.columns[0]).toEqual(Int32Array.from([1, 2, 3, 4, 5, 6]));
    expect(encoded.columns[1]).toEqual(['a', 'b', 'c', '', 'é', 'f']);
    expect(encoded.columns[2]).toEqual([1.5, null, -0, 2n ** 70n, NaN, 0]);
    const restored = decoded(deserialize(serialize(encoded)) as EncodedEntries);
    expect(restored).toEqual(entries);
    expect(Object.is((restored.get(null) as unknown[][])[0]![2], -0)).toBe(true);
    // Fresh lists of fresh rows: changing one restored list or row reaches no other.
    const [first, second] = restored.get(10) as unknown[][];
    first![0] = 99;
    (restored.get(7n) as unknown[][]).push([0, 'x', 0]);
    expect(second).toEqual([2, 'b', null]);
    expect(decoded(encoded).get(10)).toEqual([[1, 'a', 1.5], [2, 'b', null]]);
    expect(new Set([...restored.values()]).size).toBe(4);
  });

  it('keeps the Map for lists whose rows differ in width, hold objects or are not rows', () => {
    const cases: Map<Key, unknown>[] = [
      new Map<Key, unknown>([[1, [[1, 2]]], [2, [[1, 2, 3]]]]),
      new Map<Key, unknown>([[1, [[1, 2], [1]]]]),
      new Map<Key, unknown>([[1, [[1, Uint8Array.from([1])]]]]),
      new Map<Key, unknown>([[1, [[1, [2]]]]]),
      new Map<Key, unknown>([[1, [[1, 2]]], [2, [3, 4]]]),
      new Map<Key, unknown>([[1, [[1, 2]]], [2, 5]]),
      new Map<Key, unknown>([[1, [[1, 2]]], [2, new Map([[1, [1, 2]]])]]),
    ];
    for (const entries of cases) expect(encodeEntries(entries)).toBe(entries);
  });

  it('collects columns of any length, growing their typed arrays, and types each column by all its values', () => {
    const rows = 5000;
    const entries = new Map<Key, unknown>(Array.from({ length: rows }, (_, k) => [k, [[k, k + 0.5], [k === rows - 1 ? 'last' : k, 1]]]));
    const encoded = encodeEntries(entries);
    if (encoded instanceof Map) throw new Error('expected the columnar form');
    expect(encoded.keys).toBeInstanceOf(Int32Array);
    expect(encoded.columns[0]).toBeInstanceOf(Array);
    expect(encoded.columns[1]).toBeInstanceOf(Float64Array);
    expect(decoded(deserialize(serialize(encoded)) as EncodedEntries)).toEqual(entries);
  });

  it('decodes a fresh array per key', () => {
    const restored = decoded(encodeEntries(new Map<Key, unknown>([[1, [1, 2]], [2, [1, 2]]])));
    (restored.get(1) as number[])[0] = 99;
    expect(restored.get(2)).toEqual([1, 2]);
  });

  it('a backend restores a snapshot of flat and nested tables, and one written before the columnar form', () => {
    const backend = new MemoryStateBackend();
    const flat = backend.getValueState<[number, bigint | null]>({ name: 'acc' });
    const nested = backend.getValueState<[number, number[]]>({ name: 'nested' });
    for (let key = 0; key < 1000; key++) {
      backend.setCurrentKey(key);
      flat.update([key, key % 7 === 0 ? null : BigInt(key) * 3n]);
      nested.update([key, [key, key + 1]]);
    }
    const restored = new MemoryStateBackend();
    restored.restore(backend.snapshot()!, () => true);
    const legacy = new MemoryStateBackend();
    legacy.restore(serialize([...backend.states()].map((t) => [t.name, t.kind, new Map(t.entries())])), () => true);
    for (const copy of [restored, legacy]) {
      expect(new Map([...copy.states()].map((t) => [t.name, new Map(t.entries())]))).toEqual(new Map([...backend.states()].map((t) => [t.name, new Map(t.entries())])));
    }
  });
});
