/**
 * A sorted multiset (value → count) kept as plain data, so that it can live in keyed state and be
 * snapshotted with v8.serialize: an array of chunks, each chunk a flat array
 * `[v0, c0, v1, c1, …]` of distinct values in ascending order with positive counts.
 *
 * Invariants: no chunk is empty; every value of a chunk is below every value of the next chunk;
 * a chunk holds at most {@link CHUNK_CAPACITY} values. Values are ordered by {@link precedes}. An insert or removal costs O(log n) comparisons plus moving at most one chunk's
 * elements and the chunk list, so min and max stay O(1) and nothing is ever recomputed from
 * history.
 */

import { bytesEqual, compareBytes } from '../../common/bytes.js';

/** The multiset: sorted chunks of `[value, count]` pairs (see the module comment). */
export type OrderedMultiset = unknown[][];

/** Most distinct values a chunk holds before it is split in two. */
export const CHUNK_CAPACITY = 64;

const MERGE_BELOW = CHUNK_CAPACITY / 4;

/**
 * The order of values: `<`, which orders numbers, bigints (DECIMAL), booleans and strings (by
 * UTF-16 code units, as Java does), with NaN after every other number (as Java's
 * Double.compareTo), so that a NaN cannot break the sort; binary strings (Uint8Array, the only
 * objects ordered) by unsigned bytes, a prefix first.
 */
export function precedes(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null) return compareBytes(a as Uint8Array, b as Uint8Array) < 0;
  return (a as never) < (b as never) || (b !== b && a === a);
}

/** Equality of the values {@link precedes} orders: NaN equals NaN, binary strings by content. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null) return bytesEqual(a as Uint8Array, b as Uint8Array);
  return a === b || (a !== a && b !== b);
}

/** A new, empty multiset. */
export function emptyMultiset(): OrderedMultiset {
  return [];
}

/** True when the multiset holds no value. */
export function isEmptyMultiset(set: OrderedMultiset): boolean {
  return set.length === 0;
}

/** The least value, or null when the multiset is empty. */
export function multisetMin(set: OrderedMultiset): unknown {
  return set.length === 0 ? null : set[0]![0];
}

/** The greatest value, or null when the multiset is empty. */
export function multisetMax(set: OrderedMultiset): unknown {
  if (set.length === 0) return null;
  const chunk = set[set.length - 1]!;
  return chunk[chunk.length - 2];
}

/** Adds `count` (default one) occurrences of `value` (never null). */
export function multisetAdd(set: OrderedMultiset, value: unknown, count = 1): void {
  if (set.length === 0) {
    set.push([value, count]);
    return;
  }
  const c = chunkFor(set, value);
  const chunk = set[c]!;
  const i = lowerBound(chunk, value);
  if (i < chunk.length && sameValue(chunk[i], value)) {
    (chunk[i + 1] as number) += count;
    return;
  }
  chunk.splice(i, 0, value, count);
  if (chunk.length > 2 * CHUNK_CAPACITY) set.splice(c + 1, 0, chunk.splice(CHUNK_CAPACITY));
}

/** Adds every occurrence held by `other` (left unchanged) to `set`. */
export function multisetMerge(set: OrderedMultiset, other: OrderedMultiset): void {
  for (const chunk of other) for (let i = 0; i < chunk.length; i += 2) multisetAdd(set, chunk[i], chunk[i + 1] as number);
}

/**
 * Removes `count` (default one) occurrences of `value`, all of them when it has no more; returns
 * false (and changes nothing) when it is absent.
 */
export function multisetRemove(set: OrderedMultiset, value: unknown, count = 1): boolean {
  if (set.length === 0) return false;
  const c = chunkFor(set, value);
  const chunk = set[c]!;
  const i = lowerBound(chunk, value);
  if (i >= chunk.length || !sameValue(chunk[i], value)) return false;
  const held = chunk[i + 1] as number;
  if (held > count) {
    chunk[i + 1] = held - count;
    return true;
  }
  chunk.splice(i, 2);
  if (chunk.length === 0) set.splice(c, 1);
  else if (chunk.length < 2 * MERGE_BELOW) mergeWithNeighbour(set, c);
  return true;
}

/** The `[value, count]` pairs in ascending order (for tests and debugging). */
export function multisetEntries(set: OrderedMultiset): [unknown, number][] {
  const entries: [unknown, number][] = [];
  for (const chunk of set) for (let i = 0; i < chunk.length; i += 2) entries.push([chunk[i], chunk[i + 1] as number]);
  return entries;
}

/**
 * Calls `visit` with each distinct value from `low` to `high` (both inclusive; undefined leaves that
 * end open) in ascending order, and its count: O(log n) to find the first, then O(1) per value.
 * `visit` must not change the multiset.
 */
export function multisetForEachBetween(set: OrderedMultiset, low: unknown, high: unknown, visit: (value: unknown, count: number) => void): void {
  if (set.length === 0) return;
  let c = low === undefined ? 0 : chunkFor(set, low);
  let i = low === undefined ? 0 : lowerBound(set[c]!, low);
  for (; c < set.length; c++, i = 0) {
    const chunk = set[c]!;
    for (; i < chunk.length; i += 2) {
      const value = chunk[i];
      if (high !== undefined && precedes(high, value)) return;
      visit(value, chunk[i + 1] as number);
    }
  }
}

/** Index of the chunk that holds `value` or where it belongs: the first whose last value is ≥ it, else the last. */
function chunkFor(set: OrderedMultiset, value: unknown): number {
  let lo = 0;
  let hi = set.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const chunk = set[mid]!;
    if (precedes(chunk[chunk.length - 2], value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Even index of the first value in `chunk` that is ≥ `value` (chunk.length when none is). */
function lowerBound(chunk: unknown[], value: unknown): number {
  let lo = 0;
  let hi = chunk.length >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(chunk[2 * mid], value)) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo;
}

/** Folds a small chunk into a neighbour when the two fit in one chunk, so that chunks stay dense. */
function mergeWithNeighbour(set: OrderedMultiset, c: number): void {
  const left = c + 1 < set.length ? c : c - 1;
  if (left < 0) return;
  const a = set[left]!;
  const b = set[left + 1]!;
  if (a.length + b.length > 2 * CHUNK_CAPACITY) return;
  for (let i = 0; i < b.length; i++) a.push(b[i]);
  set.splice(left + 1, 1);
}
