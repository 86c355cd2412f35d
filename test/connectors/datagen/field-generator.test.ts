import { describe, expect, it } from 'vitest';
import { isInt64 } from '../../../src/common/int64.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { draw, streamKey } from '../../../src/connectors/datagen/counter-random.js';
import { parseDatagenOptions } from '../../../src/connectors/datagen/datagen-options.js';
import { createRowGenerator } from '../../../src/connectors/datagen/field-generator.js';
import { datagenSpec, generate, openReader, readRows, schemaOf } from './datagen-test-util.js';

const column = (rows: Row[], index = 0): unknown[] => rows.map((row) => row[index]);

describe('counter-based random', () => {
  it('is a pure function of key and row, spread over 32 bits', () => {
    const { k1, k2 } = streamKey(1, [0, -1]);
    expect(draw(k1, k2, 12345)).toBe(draw(k1, k2, 12345));
    const values = Array.from({ length: 10000 }, (_, i) => draw(k1, k2, i));
    expect(values.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32)).toBe(true);
    const mean = values.reduce((a, b) => a + b, 0) / values.length / 2 ** 32;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });

  it('gives different streams for different seeds and paths, also beyond 2^32 rows', () => {
    const a = streamKey(1, [0]);
    const b = streamKey(2, [0]);
    const c = streamKey(1, [1]);
    expect(draw(a.k1, a.k2, 5)).not.toBe(draw(b.k1, b.k2, 5));
    expect(draw(a.k1, a.k2, 5)).not.toBe(draw(c.k1, c.k2, 5));
    expect(draw(a.k1, a.k2, 5)).not.toBe(draw(a.k1, a.k2, 5 + 2 ** 32));
  });
});

describe('datagen random values', () => {
  it('keeps integers within min and max, reaching both ends', async () => {
    const rows = await generate(datagenSpec({ 'fields.n.min': '-5', 'fields.n.max': '5' }, schemaOf(['n', SqlTypes.int()])), 5000);
    const values = column(rows) as number[];
    expect(Math.min(...values)).toBe(-5);
    expect(Math.max(...values)).toBe(5);
    expect(values.every(Number.isInteger)).toBe(true);
  });

  it('uses the type range by default (BIGINT: the whole 64-bit range, as Flink)', async () => {
    const rows = await generate(datagenSpec({}, schemaOf(['t', SqlTypes.tinyint()], ['b', SqlTypes.bigint()])), 5000);
    const tiny = column(rows, 0) as number[];
    expect(Math.min(...tiny)).toBe(-128);
    expect(Math.max(...tiny)).toBe(127);
    const big = column(rows, 1) as (number | bigint)[];
    expect(big.every(isInt64)).toBe(true);
    // Almost every value of the long range is beyond 2^53; both signs appear.
    expect(big.filter((v) => typeof v === 'bigint').length).toBeGreaterThan(4900);
    expect(big.some((v) => v > 2n ** 62n)).toBe(true);
    expect(big.some((v) => v < -(2n ** 62n))).toBe(true);
    const mean = big.reduce<number>((sum, v) => sum + Number(v) / 2 ** 63, 0) / big.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
  });

  it('keeps BIGINTs within bounds beyond 2^53, exactly, reaching both ends of a small span', async () => {
    const min = 9223372036854775800n;
    const rows = await generate(datagenSpec({ 'fields.b.min': String(min), 'fields.b.max': '9223372036854775807' }, schemaOf(['b', SqlTypes.bigint()])), 2000);
    const values = column(rows) as bigint[];
    expect(values.every((v) => typeof v === 'bigint' && v >= min && v <= 2n ** 63n - 1n)).toBe(true);
    expect(new Set(values).size).toBe(8);
    // A range across the safe bound: values on both sides, each in normalized form.
    const across = await generate(datagenSpec({ 'fields.b.min': String(2 ** 53 - 4), 'fields.b.max': String(2n ** 53n + 3n) }, schemaOf(['b', SqlTypes.bigint()])), 2000);
    const acrossValues = column(across) as (number | bigint)[];
    expect(acrossValues.every(isInt64)).toBe(true);
    expect(new Set(acrossValues.map(String)).size).toBe(8);
  });

  it('refuses BIGINT bounds outside the 64-bit range, naming the option', () => {
    const schema = schemaOf(['b', SqlTypes.bigint()]);
    expect(() => parseDatagenOptions(new Map([['connector', 'datagen'], ['fields.b.max', '9223372036854775808']]), schema)).toThrow(
      "datagen option 'fields.b.max' must be within the range of BIGINT [-9223372036854775808, 9223372036854775807], got '9223372036854775808'",
    );
    expect(() => parseDatagenOptions(new Map([['connector', 'datagen'], ['fields.b.min', '1.5']]), schema)).toThrow("datagen option 'fields.b.min' must be an integer, got '1.5'");
  });

  it('keeps doubles and floats within [min, max)', async () => {
    const options = { 'fields.d.min': '1.5', 'fields.d.max': '2.5', 'fields.f.min': '-1', 'fields.f.max': '1' };
    const rows = await generate(datagenSpec(options, schemaOf(['d', SqlTypes.double()], ['f', SqlTypes.float()])), 2000);
    expect((column(rows, 0) as number[]).every((v) => v >= 1.5 && v < 2.5)).toBe(true);
    expect((column(rows, 1) as number[]).every((v) => v >= -1 && v <= 1 && Math.fround(v) === v)).toBe(true);
    const mean = (column(rows, 0) as number[]).reduce((a, b) => a + b, 0) / rows.length;
    expect(Math.abs(mean - 2)).toBeLessThan(0.05);
  });

  it('generates positive finite FLOATs, DOUBLEs and non-negative DECIMALs by default (Flink: min = Java MIN_VALUE, max = MAX_VALUE)', async () => {
    const rows = await generate(datagenSpec({}, schemaOf(['d', SqlTypes.double()], ['f', SqlTypes.float()], ['m', SqlTypes.decimal(6, 2)])), 2000);
    const doubles = column(rows, 0) as number[];
    const floats = column(rows, 1) as number[];
    const decimals = column(rows, 2) as bigint[];
    expect(doubles.every((v) => Number.isFinite(v) && v > 0)).toBe(true);
    expect(floats.every((v) => Number.isFinite(v) && v > 0 && Math.fround(v) === v)).toBe(true);
    // Uniform over (0, MAX]: most values lie in the upper half of the range.
    expect(doubles.filter((v) => v > Number.MAX_VALUE / 2).length).toBeGreaterThan(900);
    expect(decimals.every((v) => v >= 0n && v <= 999999n)).toBe(true);
    expect(decimals.filter((v) => v > 500000n).length).toBeGreaterThan(900);
  });

  it('generates DECIMAL as unscaled bigints within min and max', async () => {
    const options = { 'fields.a.min': '-1.5', 'fields.a.max': '2.25' };
    const rows = await generate(datagenSpec(options, schemaOf(['a', SqlTypes.decimal(10, 2)], ['w', SqlTypes.decimal(38, 4)])), 3000);
    const a = column(rows, 0) as bigint[];
    expect(a.every((v) => typeof v === 'bigint' && v >= -150n && v <= 225n)).toBe(true);
    expect(a).toContain(-150n);
    expect(a).toContain(225n);
    const wide = column(rows, 1) as bigint[];
    expect(wide.every((v) => v > -(10n ** 38n) && v < 10n ** 38n)).toBe(true);
    expect(wide.some((v) => v > 10n ** 30n)).toBe(true);
  });

  it('generates both booleans', async () => {
    const rows = await generate(datagenSpec({}, schemaOf(['b', SqlTypes.boolean()])), 1000);
    const trues = column(rows).filter((v) => v === true).length;
    expect(trues).toBeGreaterThan(400);
    expect(trues).toBeLessThan(600);
  });

  it('generates hex strings of the configured length', async () => {
    const schema = schemaOf(
      ['s', SqlTypes.string()],
      ['v', SqlTypes.varchar(10)],
      ['c', SqlTypes.char(5)],
      ['l', SqlTypes.string()],
      ['r', SqlTypes.varchar(30)],
      ['w', SqlTypes.varchar(150)],
    );
    const rows = await generate(datagenSpec({ 'fields.l.length': '20', 'fields.r.var-len': 'true' }, schema), 2000);
    const lengths = (index: number): Set<number> => new Set(column(rows, index).map((s) => (s as string).length));
    expect(lengths(0)).toEqual(new Set([100]));
    expect(lengths(1)).toEqual(new Set([10]));
    expect(lengths(2)).toEqual(new Set([5]));
    expect(lengths(3)).toEqual(new Set([20]));
    // A VARCHAR(n) without a length option gets n characters (only STRING falls back to 100), as in Flink.
    expect(lengths(5)).toEqual(new Set([150]));
    const variable = lengths(4);
    expect(Math.min(...variable)).toBe(1);
    expect(Math.max(...variable)).toBe(30);
    expect(rows.every((row) => row.every((s) => /^[0-9a-f]*$/.test(s as string)))).toBe(true);
    expect(new Set(column(rows, 0)).size).toBe(2000);
  });

  it('generates random bytes: BINARY(n) of n, VARBINARY/BYTES of the configured length or 1 to it, the same again for the same row', async () => {
    const schema = schemaOf(['b', SqlTypes.bytes()], ['c', SqlTypes.binary(3)], ['v', SqlTypes.varbinary(8)], ['l', SqlTypes.bytes()]);
    const spec = datagenSpec({ 'fields.v.var-len': 'true', 'fields.l.length': '5' }, schema);
    const rows = await generate(spec, 2000);
    expect(rows.every((row) => row.every((v) => v instanceof Uint8Array))).toBe(true);
    const lengths = (index: number): Set<number> => new Set(column(rows, index).map((b) => (b as Uint8Array).length));
    expect(lengths(0)).toEqual(new Set([100]));
    expect(lengths(1)).toEqual(new Set([3]));
    expect(Math.min(...lengths(2))).toBe(1);
    expect(Math.max(...lengths(2))).toBe(8);
    expect(lengths(3)).toEqual(new Set([5]));
    expect(new Set(column(rows, 0).map((b) => Buffer.from(b as Uint8Array).toString('hex'))).size).toBe(2000);
    const highBytes = column(rows, 3).flatMap((b) => Array.from(b as Uint8Array)).filter((x) => x >= 0x80).length;
    expect(highBytes).toBeGreaterThan(4000);
    expect(await generate(spec, 2000)).toEqual(rows);
    expect(() => parseDatagenOptions(new Map([['fields.c.length', '2']]), schemaOf(['c', SqlTypes.binary(3)]))).toThrow("does not apply to BINARY(3) field 'c'");
    expect(() => parseDatagenOptions(new Map([['fields.v.length', '9']]), schemaOf(['v', SqlTypes.varbinary(8)]))).toThrow("datagen option 'fields.v.length' (9) exceeds the length of VARBINARY(8) field 'v'");
  });

  it('honours null-rate roughly', async () => {
    const schema = schemaOf(['a', SqlTypes.int()], ['b', SqlTypes.string()], ['c', SqlTypes.int()]);
    const rows = await generate(datagenSpec({ 'fields.a.null-rate': '0.3', 'fields.b.null-rate': '1' }, schema), 10000);
    const nulls = column(rows, 0).filter((v) => v === null).length;
    expect(nulls).toBeGreaterThan(2700);
    expect(nulls).toBeLessThan(3300);
    expect(column(rows, 1).every((v) => v === null)).toBe(true);
    expect(column(rows, 2).some((v) => v === null)).toBe(false);
  });

  it('places random timestamps within max-past before the row’s virtual now', () => {
    const schema = schemaOf(['ts', SqlTypes.timestamp(3)], ['now', SqlTypes.timestampLtz(3)], ['secs', SqlTypes.timestamp(0)], ['d', SqlTypes.date()], ['t', SqlTypes.time(0)]);
    const options = {
      'rows-per-second': '1000',
      'base-time': '2024-03-01 10:00:00',
      'fields.ts.max-past': '1 h',
      'fields.secs.max-past': '10 min',
    };
    const generateRow = createRowGenerator(parseDatagenOptions(new Map(Object.entries(options)), schema));
    const rows = Array.from({ length: 2000 }, (_, i) => generateRow(i));
    const base = Date.UTC(2024, 2, 1, 10);
    rows.forEach((row, i) => {
      const now = base + i;
      expect(row[0]).toBeGreaterThanOrEqual(now - 3_600_000);
      expect(row[0]).toBeLessThanOrEqual(now);
      expect(row[1]).toBe(now);
      expect((row[2] as number) % 1000).toBe(0);
      expect(row[3]).toBe(Math.floor(base / 86_400_000));
      expect(row[4]).toBe(Math.floor((now % 86_400_000) / 1000) * 1000);
    });
    const spread = column(rows, 0) as number[];
    expect(Math.max(...spread) - Math.min(...spread)).toBeGreaterThan(3_000_000);
  });

  it('generates ROW, ARRAY and MAP values, with options for nested fields', async () => {
    const schema = schemaOf(
      ['r', SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.string() }])],
      ['arr', SqlTypes.array(SqlTypes.int())],
      ['m', SqlTypes.map(SqlTypes.int(), SqlTypes.boolean())],
    );
    const options = {
      'fields.r.a.min': '1',
      'fields.r.a.max': '3',
      'fields.r.b.length': '4',
      'fields.arr.length': '5',
      'fields.arr.element.min': '0',
      'fields.arr.element.max': '9',
      'fields.m.length': '2',
    };
    const rows = await generate(datagenSpec(options, schema), 200);
    for (const [r, arr, m] of rows as [unknown[], number[], Map<number, boolean>][]) {
      expect(r).toHaveLength(2);
      expect([1, 2, 3]).toContain(r[0]);
      expect(r[1]).toMatch(/^[0-9a-f]{4}$/);
      expect(arr).toHaveLength(5);
      expect(arr.every((v) => v >= 0 && v <= 9)).toBe(true);
      expect(m).toBeInstanceOf(Map);
      expect(m.size).toBeGreaterThanOrEqual(1);
      expect(m.size).toBeLessThanOrEqual(2);
    }
  });
});

describe('datagen sequences', () => {
  it('counts from start to end inclusive, then ends', async () => {
    const schema = schemaOf(['id', SqlTypes.int()], ['name', SqlTypes.string()], ['amount', SqlTypes.decimal(6, 2)], ['x', SqlTypes.double()]);
    const options = {
      'fields.id.kind': 'sequence',
      'fields.id.start': '1',
      'fields.id.end': '10',
      'fields.name.kind': 'sequence',
      'fields.name.start': '101',
      'fields.name.end': '110',
      'fields.amount.kind': 'sequence',
      'fields.amount.start': '-4',
      'fields.amount.end': '5',
    };
    const { rows, status } = await readRows(await openReader(datagenSpec(options, schema)), Infinity, 4);
    expect(status).toBe('end');
    expect(column(rows, 0)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(column(rows, 1)).toEqual(['101', '102', '103', '104', '105', '106', '107', '108', '109', '110']);
    expect(column(rows, 2)).toEqual([-400n, -300n, -200n, -100n, 0n, 100n, 200n, 300n, 400n, 500n]);
  });

  it('stops at number-of-rows when it is smaller', async () => {
    const options = { 'number-of-rows': '3', 'fields.id.kind': 'sequence', 'fields.id.start': '0', 'fields.id.end': '99' };
    expect(column(await generate(datagenSpec(options, schemaOf(['id', SqlTypes.bigint()]))))).toEqual([0, 1, 2]);
  });

  it('counts a BIGINT sequence beyond 2^53 exactly', async () => {
    const options = { 'fields.id.kind': 'sequence', 'fields.id.start': '9223372036854775805', 'fields.id.end': '9223372036854775807' };
    const rows = await generate(datagenSpec(options, schemaOf(['id', SqlTypes.bigint()])), 10);
    expect(column(rows)).toEqual([9223372036854775805n, 9223372036854775806n, 9223372036854775807n]);
    const across = { 'fields.id.kind': 'sequence', 'fields.id.start': String(2 ** 53 - 2), 'fields.id.end': String(2n ** 53n + 1n) };
    expect(column(await generate(datagenSpec(across, schemaOf(['id', SqlTypes.bigint()])), 10))).toEqual([2 ** 53 - 2, 2 ** 53 - 1, 2n ** 53n, 2n ** 53n + 1n]);
  });

  it('splits a sequence between subtasks', async () => {
    const options = { 'fields.id.kind': 'sequence', 'fields.id.start': '1', 'fields.id.end': '7' };
    const spec = datagenSpec(options, schemaOf(['id', SqlTypes.int()]));
    const parts = [];
    for (let s = 0; s < 3; s++) parts.push(column((await readRows(await openReader(spec, s, 3))).rows));
    expect(parts).toEqual([[1, 4, 7], [2, 5], [3, 6]]);
  });
});
