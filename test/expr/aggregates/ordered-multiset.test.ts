import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_CAPACITY,
  emptyMultiset,
  isEmptyMultiset,
  multisetAdd,
  multisetEntries,
  multisetMax,
  multisetMerge,
  multisetMin,
  multisetRemove,
  precedes,
  type OrderedMultiset,
} from '../../../src/expr/aggregates/ordered-multiset.js';

/** Checks the representation invariants stated in the module comment. */
function checkInvariants(set: OrderedMultiset): void {
  let previous: unknown;
  let first = true;
  for (const chunk of set) {
    expect(chunk.length).toBeGreaterThan(0);
    expect(chunk.length).toBeLessThanOrEqual(2 * CHUNK_CAPACITY);
    for (let i = 0; i < chunk.length; i += 2) {
      if (!first) expect(precedes(previous, chunk[i])).toBe(true);
      expect(chunk[i + 1]).toBeGreaterThan(0);
      previous = chunk[i];
      first = false;
    }
  }
}

/** The expected content: counts by value, sorted with NaN last. */
function reference(counts: Map<unknown, number>): [unknown, number][] {
  const nan = (v: unknown) => (Number.isNaN(v) ? 1 : 0);
  return [...counts].sort(([a], [b]) => nan(a) - nan(b) || ((a as never) < (b as never) ? -1 : 1));
}

/** Random operations; most removals target a present value, picked by `pick`. */
function replay<T>(values: fc.Arbitrary<T>) {
  return fc.array(fc.record({ add: fc.boolean(), value: values, pick: fc.nat() }), { maxLength: 600 });
}

describe('ordered multiset', () => {
  it('is empty when new, and min/max of an empty set are null', () => {
    const set = emptyMultiset();
    expect(isEmptyMultiset(set)).toBe(true);
    expect(multisetMin(set)).toBeNull();
    expect(multisetMax(set)).toBeNull();
    expect(multisetRemove(set, 1)).toBe(false);
  });

  for (const [name, values] of [
    ['small integers', fc.integer({ min: -40, max: 40 })],
    ['wide integers', fc.integer()],
    ['bigints', fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })],
    ['strings', fc.string({ unit: 'binary', maxLength: 3 })],
    ['doubles with NaN and infinities', fc.constantFrom(NaN, 0, 1.5, -Infinity, Infinity, -2, 1e300)],
  ] as const) {
    it(`matches a sorted reference under random adds and removes of ${name}`, () => {
      fc.assert(
        fc.property(replay<unknown>(values), (operations) => {
          const set = emptyMultiset();
          const counts = new Map<unknown, number>();
          for (const operation of operations) {
            const { add, pick } = operation;
            const value = !add && counts.size > 0 && pick % 4 !== 0 ? [...counts.keys()][pick % counts.size] : operation.value;
            const present = counts.get(value) ?? 0;
            if (add) {
              multisetAdd(set, value);
              counts.set(value, present + 1);
            } else {
              expect(multisetRemove(set, value)).toBe(present > 0);
              if (present === 1) counts.delete(value);
              else if (present > 1) counts.set(value, present - 1);
            }
          }
          checkInvariants(set);
          const expected = reference(counts);
          expect(multisetEntries(set)).toEqual(expected);
          expect(multisetMin(set)).toEqual(expected[0]?.[0] ?? null);
          expect(multisetMax(set)).toEqual(expected.at(-1)?.[0] ?? null);
        }),
      );
    });
  }

  it('splits and merges chunks as it grows and shrinks', () => {
    const set = emptyMultiset();
    const n = 50 * CHUNK_CAPACITY;
    for (let i = 0; i < n; i++) multisetAdd(set, (i * 7919) % n);
    checkInvariants(set);
    expect(set.length).toBeGreaterThan(n / (2 * CHUNK_CAPACITY));
    for (let i = 0; i < n; i += 2) multisetRemove(set, i);
    for (let i = 1; i < n - 10; i += 2) multisetRemove(set, i);
    checkInvariants(set);
    expect(set.length).toBe(1);
    expect(multisetMin(set)).toBe(n - 9);
    expect(multisetMax(set)).toBe(n - 1);
  });

  it('merging another multiset equals adding its values one by one', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 400 }), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 400 }), (a, b) => {
        const merged = emptyMultiset();
        const other = emptyMultiset();
        const added = emptyMultiset();
        for (const v of a) multisetAdd(merged, v);
        for (const v of b) multisetAdd(other, v);
        for (const v of [...a, ...b]) multisetAdd(added, v);
        const otherBefore = multisetEntries(other);
        multisetMerge(merged, other);
        checkInvariants(merged);
        expect(multisetEntries(merged)).toEqual(multisetEntries(added));
        expect(multisetEntries(other)).toEqual(otherBefore);
      }),
    );
  });
});
