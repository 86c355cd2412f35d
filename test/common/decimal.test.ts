import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkPrecision,
  compareDecimals,
  decimalFromNumber,
  decimalToNumber,
  digitCount,
  divideHalfUp,
  fitsPrecision,
  formatDecimal,
  parseDecimal,
  pow10,
  rescaleDecimal,
  truncateDecimal,
} from '../../src/common/decimal.js';
import { WeirError } from '../../src/common/errors.js';

describe('parseDecimal', () => {
  it('reads the unscaled value and scale', () => {
    expect(parseDecimal('10.500')).toEqual({ unscaled: 10500n, precision: 5, scale: 3 });
    expect(parseDecimal('-0.5')).toEqual({ unscaled: -5n, precision: 2, scale: 1 });
    expect(parseDecimal('+42')).toEqual({ unscaled: 42n, precision: 2, scale: 0 });
    expect(parseDecimal('.25')).toEqual({ unscaled: 25n, precision: 3, scale: 2 });
    expect(parseDecimal('7.')).toEqual({ unscaled: 7n, precision: 1, scale: 0 });
  });

  it('types a value below one as Calcite types the literal: 0.908 is DECIMAL(4, 3)', () => {
    expect(parseDecimal('0.908')).toMatchObject({ precision: 4, scale: 3 });
    expect(parseDecimal('0')).toMatchObject({ precision: 1, scale: 0 });
  });

  it('expands exponents into a non-negative scale', () => {
    expect(parseDecimal('1.5e3')).toEqual({ unscaled: 1500n, precision: 4, scale: 0 });
    expect(parseDecimal('1.5E-3')).toEqual({ unscaled: 15n, precision: 5, scale: 4 });
  });

  it('rejects text that is not a number', () => {
    for (const text of ['', '.', 'abc', '1.2.3', ' 1', '1e', '--1', '1e999']) expect(parseDecimal(text)).toBeUndefined();
  });
});

describe('rounding and rescaling', () => {
  it('rounds HALF_UP, ties away from zero', () => {
    expect(divideHalfUp(15n, 10n)).toBe(2n);
    expect(divideHalfUp(-15n, 10n)).toBe(-2n);
    expect(divideHalfUp(14n, 10n)).toBe(1n);
    expect(divideHalfUp(-14n, 10n)).toBe(-1n);
    expect(divideHalfUp(15n, -10n)).toBe(-2n);
    expect(divideHalfUp(1n, 3n)).toBe(0n);
  });

  it('rescales up exactly and down with HALF_UP', () => {
    expect(rescaleDecimal(105n, 1, 3)).toBe(10500n);
    expect(rescaleDecimal(1005n, 3, 2)).toBe(101n);
    expect(rescaleDecimal(-1005n, 3, 2)).toBe(-101n);
    expect(rescaleDecimal(1004n, 3, 2)).toBe(100n);
  });

  it('truncates toward zero', () => {
    expect(truncateDecimal(-199n, 2)).toBe(-1n);
    expect(truncateDecimal(199n, 2)).toBe(1n);
  });
});

describe('formatDecimal', () => {
  it('prints exactly scale fraction digits', () => {
    expect(formatDecimal(10500n, 3)).toBe('10.500');
    expect(formatDecimal(-5n, 1)).toBe('-0.5');
    expect(formatDecimal(5n, 3)).toBe('0.005');
    expect(formatDecimal(42n, 0)).toBe('42');
    expect(formatDecimal(0n, 2)).toBe('0.00');
  });

  it('round-trips with parseDecimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }), (unscaled, scale) => {
        const parsed = parseDecimal(formatDecimal(unscaled, scale))!;
        expect(rescaleDecimal(parsed.unscaled, parsed.scale, scale)).toBe(unscaled);
      }),
    );
  });
});

describe('precision', () => {
  it('checks the number of digits', () => {
    expect(fitsPrecision(999n, 3)).toBe(true);
    expect(fitsPrecision(-999n, 3)).toBe(true);
    expect(fitsPrecision(1000n, 3)).toBe(false);
    expect(digitCount(-1000n)).toBe(4);
    expect(digitCount(0n)).toBe(1);
  });

  it('names the expression in the overflow error', () => {
    expect(() => checkPrecision(1000n, 3, 1, 'CAST(x)')).toThrowError(new WeirError('ARITHMETIC_OVERFLOW', 'DECIMAL(3, 1) overflow in CAST(x)'));
    expect(checkPrecision(999n, 3, 1, 'CAST(x)')).toBe(999n);
  });

  it('compares across scales', () => {
    expect(compareDecimals(15n, 1, 150n, 2)).toBe(0);
    expect(compareDecimals(-15n, 1, 149n, 2)).toBe(-1);
    expect(compareDecimals(2n, 0, 199n, 2)).toBe(1);
  });

  it('caches powers of ten', () => {
    expect(pow10(0)).toBe(1n);
    expect(pow10(38)).toBe(10n ** 38n);
    expect(pow10(100)).toBe(10n ** 100n);
  });
});

describe('conversions with numbers', () => {
  it('converts to the nearest double', () => {
    expect(decimalToNumber(10500n, 3)).toBe(10.5);
    expect(decimalToNumber(1n, 1)).toBe(0.1);
    expect(decimalToNumber(12345678901234567890123n, 3)).toBe(12345678901234567890.123);
    expect(decimalToNumber(-7n, 0)).toBe(-7);
  });

  it('converts doubles through their shortest decimal form, as BigDecimal.valueOf', () => {
    expect(decimalFromNumber(1.005, 2)).toBe(101n);
    expect(decimalFromNumber(0.125, 2)).toBe(13n);
    expect(decimalFromNumber(-0.125, 2)).toBe(-13n);
    expect(decimalFromNumber(1e21, 0)).toBe(10n ** 21n);
    expect(decimalFromNumber(3, 2)).toBe(300n);
    expect(decimalFromNumber(Number.NaN, 2)).toBeUndefined();
    expect(decimalFromNumber(Number.POSITIVE_INFINITY, 2)).toBeUndefined();
  });

  it('round-trips doubles that have at most 15 significant digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), fc.integer({ min: 0, max: 6 }), (n, scale) => {
        const value = n / 10 ** scale;
        expect(decimalToNumber(decimalFromNumber(value, scale)!, scale)).toBe(value);
      }),
    );
  });
});
