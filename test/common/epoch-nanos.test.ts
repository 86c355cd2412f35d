/**
 * TIMESTAMP(p > 3) values (epoch nanos) against a plain model: random (milliseconds, nanoseconds
 * within the millisecond) pairs, the model their bigint nanoseconds since the epoch. Order and
 * equality (comparisons, MIN/MAX, Top-N), every way weir keys or indexes a value (key selectors,
 * row equality and hash, the key hash of partitioning), the text forms (CAST to and from STRING,
 * JSON/CSV), truncation to a precision, and the serialisations of state (V8's serializer of keyed
 * state, the tagged JSON of operator state and job graphs) agree with the model.
 */
import { deserialize, serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimestampNanos, millisOfNanos, nanoOfMilliOf, nanosOfMillis, parseTimestampNanos, truncateNanos } from '../../src/common/epoch-nanos.js';
import { hashKey, hashRow, keySelector, rowsEqual } from '../../src/common/key-codec.js';
import { SqlTypes } from '../../src/common/sql-type.js';
import { formatValue } from '../../src/common/value-format.js';
import { bigintReplacer, bigintReviver } from '../../src/dataflow/job-graph.js';
import { castConverter } from '../../src/expr/cast.js';
import { multisetAdd, multisetMax, multisetMin, multisetRemove, precedes, sameValue, type OrderedMultiset } from '../../src/expr/aggregates/ordered-multiset.js';

/** Milliseconds of years 0001..9999, often near 1970 (both signs) and on few values, so that equal and neighbouring times come up. */
const millis = fc.oneof(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), fc.integer({ min: -3, max: 3 }), fc.constantFrom(1_609_459_200_000, 1_609_459_200_001));
const nanoOfMilli = fc.oneof(fc.integer({ min: 0, max: 999_999 }), fc.constantFrom(0, 1, 999_999, 500_000));
const pair = fc.tuple(millis, nanoOfMilli);

const model = ([ms, ns]: [number, number]): bigint => BigInt(ms) * 1_000_000n + BigInt(ns);
const sign = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
const floorMod = (a: bigint, b: bigint): bigint => ((a % b) + b) % b;

/** The model's text: Date for the seconds (years 0001..9999 print with four digits), the fraction from the bigint. */
function modelText(n: bigint, precision: number): string {
  const fraction = floorMod(n, 1_000_000_000n);
  const seconds = (n - fraction) / 1_000_000_000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return precision === 0 ? base : `${base}.${String(fraction).padStart(9, '0').slice(0, precision)}`;
}

describe('epoch nanos', () => {
  it('are the model: milliseconds rounded down, the nanoseconds within them 0..999999', () => {
    fc.assert(
      fc.property(pair, (p) => {
        const n = nanosOfMillis(p[0], p[1]);
        expect(n).toBe(model(p));
        expect(millisOfNanos(n)).toBe(p[0]);
        expect(nanoOfMilliOf(n)).toBe(p[1]);
      }),
      { numRuns: 3000 },
    );
  });

  it('order and equality follow the model; precedes and sameValue (MIN/MAX, Top-N) agree', () => {
    fc.assert(
      fc.property(pair, pair, (p, q) => {
        const [a, b] = [nanosOfMillis(...p), nanosOfMillis(...q)];
        const expected = sign(model(p), model(q));
        expect(a === b).toBe(expected === 0);
        expect(a < b).toBe(expected < 0);
        expect(precedes(a, b)).toBe(expected < 0);
        expect(sameValue(a, nanosOfMillis(...q))).toBe(expected === 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('keys: equal times give one key and one hash, different times different keys, alone and among other columns', () => {
    const single = keySelector([0]);
    const two = keySelector([0, 1]);
    const three = keySelector([2, 0, 1]);
    fc.assert(
      fc.property(pair, pair, fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', null)), (p, q, other) => {
        const same = model(p) === model(q);
        const rowA = [nanosOfMillis(...p), other, 'x'];
        const rowB = [nanosOfMillis(...q), other, 'x'];
        expect(single(rowA) === single(rowB)).toBe(same);
        expect(two(rowA) === two(rowB)).toBe(same);
        expect(three(rowA) === three(rowB)).toBe(same);
        expect(rowsEqual(rowA, rowB)).toBe(same);
        if (same) {
          expect(hashRow(rowA)).toBe(hashRow(rowB));
          expect(hashKey(single(rowA))).toBe(hashKey(single(rowB)));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the ordered multiset keeps MIN and MAX of a bag of times through adds and removes, as the sorted model does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), pair), { maxLength: 60 }), (ops) => {
        const set: OrderedMultiset = [];
        const bag: bigint[] = [];
        for (const [add, p] of ops) {
          if (add || bag.length === 0) {
            multisetAdd(set, nanosOfMillis(...p));
            bag.push(model(p));
          } else {
            // Remove a value equal to one in the bag, made afresh (never the same bigint object).
            const victim = bag.splice(p[1] % bag.length, 1)[0]!;
            expect(multisetRemove(set, nanosOfMillis(millisOfNanos(victim), nanoOfMilliOf(victim)))).toBe(true);
          }
          const sorted = [...bag].sort((x, y) => sign(x, y));
          expect(multisetMin(set)).toBe(sorted[0] ?? null);
          expect(multisetMax(set)).toBe(sorted[sorted.length - 1] ?? null);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('text: printed, parsed and cast as the model, truncated towards the past to a precision', () => {
    const fromText = castConverter(SqlTypes.string(false), SqlTypes.timestamp(9, false))!;
    fc.assert(
      fc.property(pair, fc.integer({ min: 0, max: 9 }), (p, precision) => {
        const n = nanosOfMillis(...p);
        const expected = model(p);
        const text = modelText(expected, 9);
        expect(formatTimestampNanos(n, 9)).toBe(text);
        expect(formatValue(n, SqlTypes.timestamp(9))).toBe(text);
        expect(parseTimestampNanos(text)).toBe(expected);
        expect(fromText(text)).toBe(expected);
        const unit = 10n ** BigInt(9 - precision);
        const truncated = expected - floorMod(expected, unit);
        expect(truncateNanos(n, precision)).toBe(truncated);
        expect(formatTimestampNanos(n, precision)).toBe(modelText(truncated, precision));
        // CAST to a lower precision: epoch nanos above 3 digits, epoch milliseconds at 3 and below.
        const cast = castConverter(SqlTypes.timestamp(9, false), SqlTypes.timestamp(precision, false));
        const result = cast === undefined ? n : cast(n);
        expect(precision > 3 ? result : BigInt(result as number) * 1_000_000n).toBe(truncated);
      }),
      { numRuns: 3000 },
    );
  });

  it('survive the serialisations of state: V8 (keyed state) and tagged JSON (operator state, job graphs)', () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), (pairs) => {
        const rows = pairs.map((p, i) => [i, nanosOfMillis(...p)]);
        const expected = pairs.map((p, i) => [i, model(p)]);
        expect(deserialize(serialize(rows))).toEqual(expected);
        expect(JSON.parse(JSON.stringify(rows, bigintReplacer), bigintReviver)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
