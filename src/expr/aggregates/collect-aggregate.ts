/**
 * COLLECT(x): the multiset of the non-NULL values, as Flink's CollectAggFunction keeps it: each
 * distinct value with how many rows carry it. weir has no MULTISET type, so the result is a
 * `MAP<x, INT NOT NULL>` of the same counts (printed as Flink prints a multiset, `{a=2, b=1}`).
 * ROW, ARRAY and MAP values meet under their encoding, so that equal values count together.
 */
import { encodeComponent } from '../../common/key-codec.js';
import type { AggregateFactory } from './aggregate-codegen.js';

/** The multiset accumulator: value key → `[value, count]`. */
type Counts = Map<unknown, [unknown, number]>;

const keyOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? encodeComponent(value) : value);

/** Adds `count` occurrences of `value` (negative to remove), dropping values whose count reaches zero. */
export function collectAdd(counts: Counts, value: unknown, count: number): void {
  const key = keyOf(value);
  const entry = counts.get(key);
  if (entry === undefined) {
    if (count > 0) counts.set(key, [value, count]);
    return;
  }
  entry[1] += count;
  if (entry[1] <= 0) counts.delete(key);
}

/** Adds every occurrence `other` holds (left unchanged) to `counts`. */
export function collectMerge(counts: Counts, other: Counts): void {
  for (const [value, count] of other.values()) collectAdd(counts, value, count);
}

/** The multiset as a fresh MAP value → count. */
export function collectResult(counts: Counts): Map<unknown, number> {
  const result = new Map<unknown, number>();
  for (const [value, count] of counts.values()) result.set(value, count);
  return result;
}

/** COLLECT: an empty multiset over no values, never NULL. */
export const collectAggregate: AggregateFactory = ({ scope }) => {
  const add = scope.bind(collectAdd, 'collectAdd');
  const merge = scope.bind(collectMerge, 'collectMerge');
  const result = scope.bind(collectResult, 'collectResult');
  return {
    slots: 1,
    init: ([m]) => `${m} = new Map();`,
    accumulate: ([m], [v]) => `${add}(${m}, ${v}, 1);`,
    retract: ([m], [v]) => `${add}(${m}, ${v}, -1);`,
    merge: ([m], [other]) => `${merge}(${m}, ${other});`,
    result: ([m]) => `${result}(${m})`,
  };
};
