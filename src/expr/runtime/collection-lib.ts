/**
 * Run-time helpers for the ARRAY and MAP functions, called by generated code with non-NULL
 * collections (elements and map values may be NULL). Elements are equal as SQL values are,
 * NULL equal to NULL (Flink compares them with `Objects.equals`): through their encoding, so that
 * ROW, ARRAY and MAP elements compare by value and NaN equals NaN. Every helper returns a fresh
 * collection.
 */
import { WeirError } from '../../common/errors.js';
import { encodeComponent } from '../../common/key-codec.js';
import { precedes } from '../aggregates/ordered-multiset.js';

const keyOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? encodeComponent(value) : value);

/** ELEMENT(array): the sole element; NULL for an empty array; an error for more than one. */
export function arrayElement(array: readonly unknown[]): unknown {
  if (array.length > 1) throw new WeirError('EXECUTION_ERROR', 'Array has more than one element.');
  return array.length === 0 ? null : array[0];
}

/** `map[key]` for a key that is an object (BYTES, ROW, ARRAY, MAP): found by its encoding, not its identity; NULL when absent. */
export function mapItemByValue(map: ReadonlyMap<unknown, unknown>, key: unknown): unknown {
  const wanted = keyOf(key);
  for (const [k, v] of map) if (keyOf(k) === wanted) return v;
  return null;
}

/**
 * MAP_CONTAINS_KEY: whether a key equals `needle` as SQL `=` compares (NaN equals nothing); a NULL
 * needle finds a NULL key.
 */
export function mapContainsKey(map: ReadonlyMap<unknown, unknown>, needle: unknown): boolean {
  if (needle === null) return map.has(null);
  if (needle !== needle) return false;
  if (typeof needle !== 'object') return map.has(needle);
  const wanted = keyOf(needle);
  for (const key of map.keys()) if (key !== null && keyOf(key) === wanted) return true;
  return false;
}

/** ARRAY_CONTAINS: whether an element equals `needle` (NULL finds a NULL element). */
export function arrayContains(array: readonly unknown[], needle: unknown): boolean {
  const key = keyOf(needle);
  return array.some((e) => keyOf(e) === key || (e !== e && needle !== needle));
}

/** ARRAY_POSITION: the 1-based position of the first element equal to `needle`, 0 when none is. */
export function arrayPosition(array: readonly unknown[], needle: unknown): number {
  const key = keyOf(needle);
  return array.findIndex((e) => keyOf(e) === key || (e !== e && needle !== needle)) + 1;
}

/** ARRAY_DISTINCT: the first occurrence of each element, in order. */
export function arrayDistinct(array: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const result: unknown[] = [];
  for (const e of array) {
    const key = keyOf(e);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(e);
  }
  return result;
}

/** ARRAY_REMOVE: every element equal to `needle` removed. */
export function arrayRemove(array: readonly unknown[], needle: unknown): unknown[] {
  const key = keyOf(needle);
  return array.filter((e) => keyOf(e) !== key && !(e !== e && needle !== needle));
}

/** ARRAY_SLICE as Flink's: 1-based inclusive offsets, negative ones from the end, 0 as the start; empty when the range is. */
export function arraySlice(array: readonly unknown[], start: number, end: number = array.length): unknown[] {
  const n = array.length;
  if (n === 0) return [];
  let from = start < 0 ? start + n + 1 : start;
  let to = end < 0 ? end + n + 1 : end;
  from = Math.max(1, from);
  to = to === 0 ? 1 : Math.min(to, n);
  return to < from ? [] : array.slice(from - 1, to);
}

/** ARRAY_SORT: ascending (NULLs first) or descending (NULLs last) unless `nullsFirst` says where NULLs go. */
export function arraySort(array: readonly unknown[], ascending = true, nullsFirst: boolean = ascending): unknown[] {
  const nulls = array.filter((e) => e === null);
  const values = array.filter((e) => e !== null).sort((a, b) => (precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0));
  if (!ascending) values.reverse();
  return nullsFirst ? [...nulls, ...values] : [...values, ...nulls];
}

/** ARRAY_UNION: the distinct elements of both arrays, in order. */
export function arrayUnion(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  return arrayDistinct([...a, ...b]);
}

/** ARRAY_EXCEPT: the distinct elements of `a` that `b` has not, in order. */
export function arrayExcept(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const excluded = new Set(b.map(keyOf));
  return arrayDistinct(a).filter((e) => !excluded.has(keyOf(e)));
}

/** ARRAY_INTERSECT: the distinct elements of `a` that `b` has too, in order. */
export function arrayIntersect(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const included = new Set(b.map(keyOf));
  return arrayDistinct(a).filter((e) => included.has(keyOf(e)));
}

/** ARRAY_MAX / ARRAY_MIN: the extreme non-NULL element; NULL when there is none. */
export function arrayExtreme(array: readonly unknown[], max: boolean): unknown {
  let result: unknown = null;
  for (const e of array) {
    if (e === null) continue;
    if (result === null || (max ? precedes(result, e) : precedes(e, result))) result = e;
  }
  return result;
}

/** ARRAY_JOIN: the elements joined by `delimiter`, NULL elements left out or replaced by `nullReplacement`. */
export function arrayJoin(array: readonly (string | null)[], delimiter: string, nullReplacement?: string): string {
  const parts: string[] = [];
  for (const e of array) {
    if (e !== null) parts.push(e);
    else if (nullReplacement !== undefined) parts.push(nullReplacement);
  }
  return parts.join(delimiter);
}

/** MAP_ENTRIES: the entries as `[key, value]` rows. */
export function mapEntries(map: ReadonlyMap<unknown, unknown>): unknown[][] {
  return [...map].map(([k, v]) => [k, v]);
}

/** MAP_FROM_ARRAYS: a map of keys[i] → values[i]; arrays of different lengths are an error. */
export function mapFromArrays(keys: readonly unknown[], values: readonly unknown[]): Map<unknown, unknown> {
  if (keys.length !== values.length) {
    throw new WeirError('EXECUTION_ERROR', `MAP_FROM_ARRAYS: the key array has ${keys.length} elements, the value array ${values.length}; they must have the same length`);
  }
  const map = new Map<unknown, unknown>();
  keys.forEach((k, i) => map.set(k, values[i]));
  return map;
}

/** MAP_FROM_ENTRIES: a map of the `[key, value]` rows, the last value of a repeated key winning; NULL when a row is NULL. */
export function mapFromEntries(entries: readonly (readonly unknown[] | null)[]): Map<unknown, unknown> | null {
  const map = new Map<unknown, unknown>();
  for (const entry of entries) {
    if (entry === null) return null;
    map.set(entry[0], entry[1]);
  }
  return map;
}

/** MAP_UNION: the entries of every map, a later map's value winning for a repeated key. */
export function mapUnion(...maps: ReadonlyMap<unknown, unknown>[]): Map<unknown, unknown> {
  const result = new Map<unknown, unknown>();
  for (const map of maps) for (const [k, v] of map) result.set(k, v);
  return result;
}
