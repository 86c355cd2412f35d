import { describe, expect, it } from 'vitest';
import { SqlTypes as T, formatType, type SqlType } from '../../src/common/sql-type.js';
import {
  adjustedDecimal,
  asDecimalType,
  canCast,
  canCastImplicitly,
  comparisonType,
  decimalDivideType,
  decimalModType,
  decimalPlusType,
  decimalRoundType,
  decimalTimesType,
  leastRestrictive,
} from '../../src/expr/type-coercion.js';

const show = (type: SqlType | undefined): string | undefined => (type === undefined ? undefined : formatType(type));
const dec = (p: number, s: number) => ({ precision: p, scale: s });

describe('leastRestrictive', () => {
  it('widens numbers: INT < BIGINT < DECIMAL < DOUBLE', () => {
    expect(show(leastRestrictive([T.int(false), T.bigint(false)]))).toBe('BIGINT NOT NULL');
    expect(show(leastRestrictive([T.tinyint(false), T.smallint(false)]))).toBe('SMALLINT NOT NULL');
    expect(show(leastRestrictive([T.int(false), T.decimal(5, 2, false)]))).toBe('DECIMAL(12, 2) NOT NULL');
    expect(show(leastRestrictive([T.bigint(false), T.decimal(3, 3, false)]))).toBe('DECIMAL(22, 3) NOT NULL');
    expect(show(leastRestrictive([T.decimal(10, 2, false), T.double(false)]))).toBe('DOUBLE NOT NULL');
    expect(show(leastRestrictive([T.float(false), T.int(false)]))).toBe('FLOAT NOT NULL');
    expect(show(leastRestrictive([T.float(false), T.decimal(3, 1, false)]))).toBe('DOUBLE NOT NULL');
  });

  it('caps DECIMAL precision at 38, keeping the integer digits and giving up scale (Calcite and Flink: d = max(p - s), s = min(max s, 38 - d))', () => {
    expect(show(leastRestrictive([T.decimal(38, 0, false), T.decimal(38, 10, false)]))).toBe('DECIMAL(38, 0) NOT NULL');
    expect(show(leastRestrictive([T.decimal(38, 10, false), T.decimal(38, 30, false)]))).toBe('DECIMAL(38, 10) NOT NULL');
    expect(show(leastRestrictive([T.decimal(20, 2, false), T.decimal(10, 8, false)]))).toBe('DECIMAL(26, 8) NOT NULL');
  });

  it('is nullable when any input is, and NULL adopts the others', () => {
    expect(show(leastRestrictive([T.int(false), T.int(true)]))).toBe('INT');
    expect(show(leastRestrictive([T.null(), T.varchar(5, false)]))).toBe('VARCHAR(5)');
    expect(show(leastRestrictive([T.null(), T.null()]))).toBe('NULL');
  });

  it('makes strings VARCHAR of the longest length, CHAR when all are CHAR of one length', () => {
    expect(show(leastRestrictive([T.char(3, false), T.char(5, false)]))).toBe('VARCHAR(5) NOT NULL');
    expect(show(leastRestrictive([T.char(3, false), T.char(3, false)]))).toBe('CHAR(3) NOT NULL');
    expect(show(leastRestrictive([T.char(3, false), T.string()]))).toBe('STRING');
  });

  it('takes the largest temporal precision and drops time attributes', () => {
    const rowtime: SqlType = { kind: 'TIMESTAMP', nullable: false, precision: 3, timeAttribute: 'rowtime' };
    expect(leastRestrictive([rowtime, T.timestamp(0, false)])).toEqual(T.timestamp(3, false));
    expect(show(leastRestrictive([T.date(false), T.timestamp(3, false)]))).toBe('TIMESTAMP(3) NOT NULL');
    expect(show(leastRestrictive([T.timestamp(3, false), T.timestampLtz(3, false)]))).toBe('TIMESTAMP_LTZ(3) NOT NULL');
  });

  it('works element-wise on structured types', () => {
    expect(show(leastRestrictive([T.array(T.int()), T.array(T.bigint())]))).toBe('ARRAY<BIGINT>');
    expect(show(leastRestrictive([T.map(T.string(), T.int()), T.map(T.string(), T.double())]))).toBe('MAP<STRING, DOUBLE>');
  });

  it('is undefined for incompatible types', () => {
    expect(leastRestrictive([T.int(), T.string()])).toBeUndefined();
    expect(leastRestrictive([T.boolean(), T.int()])).toBeUndefined();
    expect(leastRestrictive([T.date(), T.time()])).toBeUndefined();
    expect(leastRestrictive([])).toBeUndefined();
  });
});

describe('implicit and explicit casts', () => {
  it('allows widening implicitly', () => {
    expect(canCastImplicitly(T.int(), T.bigint())).toBe(true);
    expect(canCastImplicitly(T.bigint(), T.decimal(19, 0))).toBe(true);
    expect(canCastImplicitly(T.bigint(), T.decimal(18, 0))).toBe(false);
    expect(canCastImplicitly(T.decimal(22, 3), T.decimal(23, 3))).toBe(true);
    expect(canCastImplicitly(T.decimal(22, 3), T.decimal(23, 4))).toBe(true);
    expect(canCastImplicitly(T.decimal(22, 3), T.decimal(22, 4))).toBe(false);
    expect(canCastImplicitly(T.int(), T.double())).toBe(true);
    expect(canCastImplicitly(T.double(), T.int())).toBe(false);
    expect(canCastImplicitly(T.char(3), T.string())).toBe(true);
    expect(canCastImplicitly(T.varchar(10), T.varchar(5))).toBe(false);
    expect(canCastImplicitly(T.date(), T.timestamp(3))).toBe(true);
    expect(canCastImplicitly(T.null(), T.array(T.int()))).toBe(true);
    expect(canCastImplicitly(T.int(), T.string())).toBe(false);
  });

  it('allows explicit casts between reasonable types', () => {
    expect(canCast(T.string(), T.int())).toBe(true);
    expect(canCast(T.string(), T.timestamp(3))).toBe(true);
    expect(canCast(T.double(), T.int())).toBe(true);
    expect(canCast(T.int(), T.boolean())).toBe(true);
    expect(canCast(T.timestamp(3), T.date())).toBe(true);
    expect(canCast(T.row([{ name: 'a', type: T.int() }]), T.string())).toBe(true);
    expect(canCast(T.row([{ name: 'a', type: T.int() }]), T.row([{ name: 'x', type: T.string() }]))).toBe(true);
    expect(canCast(T.date(), T.int())).toBe(false);
    expect(canCast(T.boolean(), T.date())).toBe(false);
    expect(canCast(T.string(), T.array(T.int()))).toBe(false);
    expect(canCast(T.intervalDayTime(), T.intervalYearMonth())).toBe(false);
  });

  it('converts binary strings as Flink: implicitly to a VARBINARY at least as long; explicitly to and from strings and among each other, never to numbers', () => {
    expect(show(leastRestrictive([T.binary(2), T.binary(2)]))).toBe('BINARY(2)');
    expect(show(leastRestrictive([T.binary(2), T.binary(5)]))).toBe('VARBINARY(5)');
    expect(show(leastRestrictive([T.binary(2, false), T.bytes(false)]))).toBe('BYTES NOT NULL');
    expect(leastRestrictive([T.bytes(), T.string()])).toBeUndefined();
    expect(canCastImplicitly(T.binary(3), T.varbinary(3))).toBe(true);
    expect(canCastImplicitly(T.varbinary(9), T.bytes())).toBe(true);
    expect(canCastImplicitly(T.varbinary(9), T.varbinary(3))).toBe(false);
    expect(canCastImplicitly(T.bytes(), T.binary(3))).toBe(false);
    expect(canCastImplicitly(T.string(), T.bytes())).toBe(false);
    expect(canCastImplicitly(T.bytes(), T.string())).toBe(false);
    expect(canCast(T.string(), T.bytes())).toBe(true);
    expect(canCast(T.bytes(), T.char(3))).toBe(true);
    expect(canCast(T.bytes(), T.binary(3))).toBe(true);
    expect(canCast(T.bytes(), T.int())).toBe(false);
    expect(canCast(T.int(), T.bytes())).toBe(false);
    expect(canCast(T.boolean(), T.bytes())).toBe(false);
    expect(comparisonType(T.bytes(), T.string())).toBeUndefined();
    expect(show(comparisonType(T.binary(1, false), T.bytes()))).toBe('BYTES');
  });

  it('compares a string with a number or date by casting the string', () => {
    expect(show(comparisonType(T.string(false), T.int(false)))).toBe('INT NOT NULL');
    expect(show(comparisonType(T.date(true), T.char(10, false)))).toBe('DATE');
    expect(comparisonType(T.boolean(), T.int())).toBeUndefined();
  });

  it('gives exact types their DECIMAL equivalent', () => {
    expect(show(asDecimalType(T.bigint(false)))).toBe('DECIMAL(19, 0) NOT NULL');
    expect(show(asDecimalType(T.tinyint(false)))).toBe('DECIMAL(3, 0) NOT NULL');
    expect(asDecimalType(T.double())).toBeUndefined();
  });
});

describe('DECIMAL result types (Flink LogicalTypeMerging)', () => {
  it('adds: max scale, one more integer digit', () => {
    expect(show(decimalPlusType(dec(5, 2), dec(7, 4), false))).toBe('DECIMAL(8, 4) NOT NULL');
    expect(show(decimalPlusType(dec(38, 2), dec(38, 2), false))).toBe('DECIMAL(38, 2) NOT NULL');
  });

  it('multiplies: p1 + p2 + 1, s1 + s2 — 0.908 (DECIMAL(4, 3)) * BIGINT (DECIMAL(19, 0)) is DECIMAL(24, 3) as in Nexmark q1', () => {
    expect(show(decimalTimesType(dec(4, 3), dec(19, 0), false))).toBe('DECIMAL(24, 3) NOT NULL');
    expect(show(decimalTimesType(dec(20, 10), dec(20, 10), false))).toBe('DECIMAL(38, 17) NOT NULL');
    expect(show(decimalTimesType(dec(38, 10), dec(38, 10), false))).toBe('DECIMAL(38, 6) NOT NULL');
    expect(show(decimalTimesType(dec(30, 2), dec(30, 2), false))).toBe('DECIMAL(38, 4) NOT NULL');
  });

  it('divides: scale max(6, s1 + p2 + 1)', () => {
    expect(show(decimalDivideType(dec(10, 2), dec(5, 1), false))).toBe('DECIMAL(17, 8) NOT NULL');
    expect(show(decimalDivideType(dec(38, 10), dec(10, 0), false))).toBe('DECIMAL(38, 10) NOT NULL');
    expect(show(decimalDivideType(dec(38, 0), dec(38, 0), false))).toBe('DECIMAL(38, 6) NOT NULL');
  });

  it('takes the remainder and rounds', () => {
    expect(show(decimalModType(dec(10, 2), dec(5, 1), false))).toBe('DECIMAL(6, 2) NOT NULL');
    expect(show(decimalRoundType(dec(10, 4), 2, false))).toBe('DECIMAL(9, 2) NOT NULL');
    expect(show(decimalRoundType(dec(10, 4), 5, false))).toBe('DECIMAL(10, 4) NOT NULL');
    expect(show(decimalRoundType(dec(10, 4), -1, false))).toBe('DECIMAL(7, 0) NOT NULL');
    expect(show(adjustedDecimal(40, 2, true))).toBe('DECIMAL(38, 2)');
  });
});
