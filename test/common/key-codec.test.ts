/** Row equality and row hashing agree with the key encoding, and the row hash is pinned (checkpointed join state is indexed by it). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeComponent, hashKey, hashRow, keyGroupOf, keySelector, rowsEqual, type Key } from '../../src/common/key-codec.js';
import type { Row } from '../../src/common/row.js';

const value = fc.oneof(
  fc.constantFrom<unknown>(0, -0, Number.NaN, 1, 1.5, 2 ** 31, -(2 ** 40), 1_700_000_000_123, '', 'a', '1', true, false, null, 1n, [1, 'a'], [1, ['a']]),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.string({ maxLength: 3 }),
);
const row = fc.array(value, { maxLength: 4 });
const encode = (r: Row): string => r.length + ':' + r.map(encodeComponent).join('');

describe('row equality and hash', () => {
  it('rowsEqual is equality of the encoded rows, and equal rows hash equally', () => {
    fc.assert(
      fc.property(row, row, (a, b) => {
        expect(rowsEqual(a, b)).toBe(encode(a) === encode(b));
        if (rowsEqual(a, b)) expect(hashRow(a)).toBe(hashRow(b));
        expect(rowsEqual(a, [...a])).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(rowsEqual([Number.NaN, -0], [Number.NaN, 0])).toBe(true);
    expect(hashRow([Number.NaN, -0])).toBe(hashRow([Number.NaN, 0]));
    expect(rowsEqual([1], [1n])).toBe(false);
  });

  it('compares MAP values by their entries, in any order', () => {
    const m = (...entries: [unknown, unknown][]): Map<unknown, unknown> => new Map(entries);
    expect(rowsEqual([m(['a', 1], ['b', 2])], [m(['b', 2], ['a', 1])])).toBe(true);
    expect(hashRow([m(['a', 1], ['b', 2])])).toBe(hashRow([m(['b', 2], ['a', 1])]));
    expect(rowsEqual([m(['a', 1])], [m(['a', 2])])).toBe(false);
    expect(rowsEqual([m(['a', 1])], [m()])).toBe(false);
    expect(encodeComponent(m(['a', null]))).not.toBe(encodeComponent(m(['a', 'null'])));
  });

  it('is a 30-bit hash that does not change between versions', () => {
    const rows: Row[] = [[], [1, 'a'], [1_700_000_000_123, 2.5, null, true, 7n, [1, 'x']]];
    const hashes = rows.map(hashRow);
    for (const h of hashes) expect(h >>> 30).toBe(0);
    expect(hashes).toMatchInlineSnapshot(`
      [
        733397544,
        635709622,
        1017650969,
      ]
    `);
  });
});

describe('keySelector', () => {
  it('is the concatenated encoding of the key columns, whatever rows came before', () => {
    const runs = fc.array(fc.tuple(value, value, value), { maxLength: 12 }).chain((rows) => fc.constant(rows.flatMap((r, i) => (i % 3 === 0 ? [r, r] : [r]))));
    fc.assert(
      fc.property(runs, (rows) => {
        const selectors = [keySelector([0, 2]), keySelector([2, 0, 1]), keySelector([1, 1])];
        const columns = [[0, 2], [2, 0, 1], [1, 1]];
        for (const r of rows) {
          selectors.forEach((select, s) => expect(select(r)).toBe(columns[s]!.map((c) => encodeComponent(r[c])).join('')));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('keys one column by its value, or by its encoding when it is an ARRAY, ROW or MAP value (equal values, distinct objects)', () => {
    const select = keySelector([1]);
    expect(select(['x', 7])).toBe(7);
    expect(select(['x', null])).toBeNull();
    expect(select(['x', [1, 2]])).toBe(encodeComponent([1, 2]));
    expect(select(['x', [1, 2]])).toBe(select(['y', [1, 2]]));
    expect(select(['x', new Map([['a', 1], ['b', 2]])])).toBe(select(['x', new Map([['b', 2], ['a', 1]])]));
    expect(select(['x', [1, 2]])).not.toBe(select(['x', [1, 3]]));
  });

  it('encodes a nested value again even when it is the same object', () => {
    const list = [1];
    const select = keySelector([0, 1]);
    expect(select([list, 2])).toBe(encodeComponent([1]) + encodeComponent(2));
    list.push(2);
    expect(select([list, 2])).toBe(encodeComponent([1, 2]) + encodeComponent(2));
    expect(select([-0, Number.NaN])).toBe(select([0, Number.NaN]));
  });
});

describe('keyGroupOf', () => {
  it('is hash % maxParallelism for any key and any number of key groups (the integer form included)', () => {
    const key = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.bigInt(), fc.constant(null));
    fc.assert(
      fc.property(key, fc.oneof(fc.integer({ min: 1, max: 0x8000 }), fc.constantFrom(1, 2, 3, 127, 128, 0x7fff, 0x8000, 0x8001, 1 << 20)), (k, maxParallelism) => {
        const group = keyGroupOf(k, maxParallelism);
        expect(group).toBe(hashKey(k) % maxParallelism);
        expect(Number.isInteger(group) && group >= 0 && group < maxParallelism).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // Hashes at the top of the unsigned range, where the integer form matters.
    for (const k of [0x7fffffff, -1, -0x80000000, 'zz', 'é', 2 ** 40]) for (const m of [7, 128, 1000, 0x8000]) expect(keyGroupOf(k, m)).toBe(hashKey(k) % m);
  });

  it('never changes: checkpoints written by earlier versions restore into the same key groups', () => {
    // [key, group at 128, at 1000, at 65537], as every weir since key groups has computed them.
    const pinned: [Key, number, number, number][] = [
      [0, 0, 0, 0],
      [1, 55, 727, 55146],
      [-1, 57, 513, 60745],
      [2147483647, 40, 880, 5341],
      [-2147483648, 37, 869, 62918],
      [4294967296, 90, 914, 1991],
      [1.5, 56, 880, 48540],
      ['a', 104, 408, 28850],
      ['weir', 60, 324, 8093],
      ['', 40, 16, 54899],
      [null, 0, 0, 0],
      [true, 21, 477, 36292],
      [12345678901234567890n, 74, 370, 48570],
    ];
    for (const [key, g128, g1000, g65537] of pinned) expect([keyGroupOf(key, 128), keyGroupOf(key, 1000), keyGroupOf(key, 65537)], String(key)).toEqual([g128, g1000, g65537]);
  });
});
