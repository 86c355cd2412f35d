import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncatingDivide } from '../../../src/expr/aggregates/avg-aggregate.js';

describe('truncatingDivide', () => {
  it('truncates toward zero like Java integer division', () => {
    expect(truncatingDivide(7, 2)).toBe(3);
    expect(truncatingDivide(-7, 2)).toBe(-3);
    expect(Object.is(truncatingDivide(-1, 3), 0)).toBe(true);
  });

  it('is exact over the safe integers, where the floating quotient alone can be one off', () => {
    expect(truncatingDivide(Number.MAX_SAFE_INTEGER, 3)).toBe(Number(BigInt(Number.MAX_SAFE_INTEGER) / 3n));
    fc.assert(
      fc.property(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 40 })),
        (sum, count) => {
          expect(truncatingDivide(sum, count)).toBe(Number(BigInt(sum) / BigInt(count)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
