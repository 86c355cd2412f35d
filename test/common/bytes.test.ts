/**
 * Binary string values against plain models: the order is unsigned lexicographic (a prefix first)
 * as a loop over plain number arrays says, equality is equality of contents, and every way weir
 * keys or indexes a value (key selectors of one or several columns, row equality and hash, the
 * ordered multiset of MIN/MAX) treats two arrays with equal bytes as one value — never by
 * identity — and different bytes as different values. Also the text forms (hex, base64, UTF-8).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesEqual, bytesToBase64, bytesToHex, compareBytes, copyBytes, formatBytes, hexToBytes, utf8Bytes, utf8Text } from '../../src/common/bytes.js';
import { hashRow, keySelector, rowsEqual } from '../../src/common/key-codec.js';
import { multisetAdd, multisetMax, multisetMin, multisetRemove, precedes, sameValue, type OrderedMultiset } from '../../src/expr/aggregates/ordered-multiset.js';

/** Small arrays over few byte values, so that equal contents, prefixes and high bytes come up often. */
const bytes = fc.array(fc.constantFrom(0, 1, 0x7f, 0x80, 0xfe, 0xff), { maxLength: 4 }).map((a) => Uint8Array.from(a));

/** The model order: lexicographic over plain numbers 0..255, a proper prefix first. */
function modelCompare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const plain = (b: Uint8Array): number[] => Array.from(b);
const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('binary string values', () => {
  it('order and equality follow the model; precedes and sameValue (MIN/MAX, Top-N) agree', () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const expected = modelCompare(plain(a), plain(b));
        expect(sign(compareBytes(a, b))).toBe(expected);
        expect(bytesEqual(a, b)).toBe(expected === 0);
        expect(bytesEqual(a, copyBytes(a))).toBe(true);
        expect(precedes(a, b)).toBe(expected < 0);
        expect(sameValue(a, copyBytes(b))).toBe(expected === 0);
        // Hex text orders as the bytes do (two digits a byte), a second model of the same order.
        expect(sign(bytesToHex(a) < bytesToHex(b) ? -1 : bytesToHex(a) > bytesToHex(b) ? 1 : 0)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('keys: equal bytes give one key and one hash, different bytes different keys, alone and among other columns', () => {
    const single = keySelector([0]);
    const pair = keySelector([0, 1]);
    const triple = keySelector([2, 0, 1]);
    fc.assert(
      fc.property(bytes, bytes, fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', '', null)), (a, b, other) => {
        const same = modelCompare(plain(a), plain(b)) === 0;
        const rowA = [a, other, 'x'];
        const rowB = [copyBytes(b), other, 'x'];
        expect(single(rowA) === single(rowB)).toBe(same);
        expect(pair(rowA) === pair(rowB)).toBe(same);
        expect(triple(rowA) === triple(rowB)).toBe(same);
        expect(rowsEqual(rowA, rowB)).toBe(same);
        if (same) expect(hashRow(rowA)).toBe(hashRow(rowB));
        // A key selector remembers its last row: a new array with other bytes must not be taken for it.
        expect(pair([copyBytes(a), other]) === pair([copyBytes(b), other])).toBe(same);
      }),
      { numRuns: 3000 },
    );
    // Not confused with a string or array holding the same text.
    expect(single([Uint8Array.from([1, 2])])).not.toBe(single(['0102']));
    expect(single([Uint8Array.from([1, 2])])).not.toBe(single([[1, 2]]));
  });

  it('the ordered multiset keeps MIN and MAX of a bag of byte arrays through adds and removes, as a sorted list does', () => {
    const op = fc.record({ add: fc.boolean(), value: bytes });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const set: OrderedMultiset = [];
        const model: number[][] = [];
        for (const { add, value } of ops) {
          // Every operation passes a fresh copy: the multiset must find values by their bytes.
          if (add) {
            multisetAdd(set, copyBytes(value));
            model.push(plain(value));
          } else {
            const at = model.findIndex((m) => modelCompare(m, plain(value)) === 0);
            expect(multisetRemove(set, copyBytes(value))).toBe(at >= 0);
            if (at >= 0) model.splice(at, 1);
          }
          const sorted = [...model].sort(modelCompare);
          const min = multisetMin(set) as Uint8Array | null;
          const max = multisetMax(set) as Uint8Array | null;
          expect(min === null ? null : plain(min)).toEqual(sorted[0] ?? null);
          expect(max === null ? null : plain(max)).toEqual(sorted[sorted.length - 1] ?? null);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('hex, base64 and UTF-8 round trip, and refuse what is not theirs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), (b, text) => {
        expect(plain(hexToBytes(bytesToHex(b))!)).toEqual(plain(b));
        expect(plain(base64ToBytes(bytesToBase64(b))!)).toEqual(plain(b));
        expect(bytesToBase64(b)).toBe(Buffer.from(b).toString('base64'));
        expect(utf8Text(utf8Bytes(text), 'test')).toBe(text);
      }),
      { numRuns: 1000 },
    );
    expect(formatBytes(Uint8Array.from([10, 255]))).toBe("x'0aff'");
    expect(hexToBytes('abc')).toBeUndefined();
    expect(hexToBytes('zz')).toBeUndefined();
    expect(plain(hexToBytes('0AfF')!)).toEqual([10, 255]);
    expect(base64ToBytes('!!')).toBeUndefined();
    expect(() => utf8Text(Uint8Array.from([0x61, 0xff]), 'CAST(BYTES AS STRING)')).toThrow("CAST(BYTES AS STRING): x'61ff' is not valid UTF-8");
    // A view of Node's shared pool is copied into an array of its own (a snapshot must not hold the pool).
    const decoded = base64ToBytes('AQI=')!;
    expect(decoded.buffer.byteLength).toBe(2);
  });
});
