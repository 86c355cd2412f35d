/**
 * The values of a group in arrival order, with retraction, as Flink's retracting FIRST_VALUE,
 * LAST_VALUE, LISTAGG and ARRAY_AGG keep them: every accumulated value gets the next sequence
 * number, and a retraction removes the earliest remaining occurrence of an equal value (Flink
 * keeps, per value, the list of its orders and removes the first). Plain data, so that it can live
 * in keyed state and be snapshotted with v8.serialize:
 * `[nextSeq, seqs (an ordered multiset of the sequence numbers present), seq → value, value key → seqs]`.
 * First and last are O(1) after an O(log n) update; listing the values is O(n).
 */
import { encodeComponent } from '../../common/key-codec.js';
import { multisetAdd, multisetMax, multisetMin, multisetRemove, type OrderedMultiset } from './ordered-multiset.js';

/** See the module comment. */
export type OrderedBag = [nextSeq: number, seqs: OrderedMultiset, values: Map<number, unknown>, seqsByValue: Map<unknown, number[]>];

/** The key under which equal values meet: primitives as they are, ROW/ARRAY/MAP values encoded. */
function keyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? encodeComponent(value) : value;
}

/** A new, empty bag. */
export function bagCreate(): OrderedBag {
  return [0, [], new Map(), new Map()];
}

/** Adds `value` (which may be NULL) after every value present. */
export function bagAdd(bag: OrderedBag, value: unknown): void {
  const seq = bag[0]++;
  multisetAdd(bag[1], seq);
  bag[2].set(seq, value);
  const key = keyOf(value);
  const seqs = bag[3].get(key);
  if (seqs === undefined) bag[3].set(key, [seq]);
  else seqs.push(seq);
}

/** Removes the earliest occurrence of a value equal to `value`; false (and nothing changed) when there is none. */
export function bagRemove(bag: OrderedBag, value: unknown): boolean {
  const key = keyOf(value);
  const seqs = bag[3].get(key);
  if (seqs === undefined) return false;
  const seq = seqs.shift()!;
  if (seqs.length === 0) bag[3].delete(key);
  multisetRemove(bag[1], seq);
  bag[2].delete(seq);
  return true;
}

/** The earliest value present, or null when the bag is empty. */
export function bagFirst(bag: OrderedBag): unknown {
  const seq = multisetMin(bag[1]);
  return seq === null ? null : bag[2].get(seq as number);
}

/** The latest value present, or null when the bag is empty. */
export function bagLast(bag: OrderedBag): unknown {
  const seq = multisetMax(bag[1]);
  return seq === null ? null : bag[2].get(seq as number);
}

/** How many values are present. */
export function bagSize(bag: OrderedBag): number {
  return bag[2].size;
}

/** The values present, in arrival order (a fresh array). */
export function bagValues(bag: OrderedBag): unknown[] {
  return [...bag[2].values()];
}

/** Adds the values of `other` (left unchanged), in their order, after those of `bag`. */
export function bagMerge(bag: OrderedBag, other: OrderedBag): void {
  for (const value of other[2].values()) bagAdd(bag, value);
}
