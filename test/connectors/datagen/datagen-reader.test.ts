import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { parseDatagenOptions } from '../../../src/connectors/datagen/datagen-options.js';
import { DatagenReader, shareOf } from '../../../src/connectors/datagen/datagen-reader.js';
import { datagenSpec, generate, openReader, readRows, schemaOf } from './datagen-test-util.js';

const schema = schemaOf(
  ['id', SqlTypes.bigint()],
  ['price', SqlTypes.double()],
  ['name', SqlTypes.string()],
  ['flag', SqlTypes.boolean()],
  ['amount', SqlTypes.decimal(10, 2)],
);

describe('datagen reader: determinism and replay', () => {
  it('produces the same rows for the same options and seed', async () => {
    const a = await generate(datagenSpec({ seed: '7' }, schema), 500);
    const b = await generate(datagenSpec({ seed: '7' }, schema), 500);
    expect(a).toHaveLength(500);
    expect(b).toEqual(a);
  });

  it('produces different rows for a different seed', async () => {
    const a = await generate(datagenSpec({ seed: '7' }, schema), 50);
    const b = await generate(datagenSpec({ seed: '8' }, schema), 50);
    const same = a.filter((row, i) => row[0] === b[i]![0]).length;
    expect(same).toBeLessThan(3);
  });

  it('gives different columns of the same type unrelated values', async () => {
    const rows = await generate(datagenSpec({}, schemaOf(['a', SqlTypes.int()], ['b', SqlTypes.int()])), 1000);
    expect(rows.filter(([a, b]) => a === b)).toHaveLength(0);
    expect(new Set(rows.map((r) => r[0])).size).toBeGreaterThan(990);
  });

  it('emits insert-only records', async () => {
    const reader = await openReader(datagenSpec({}, schema));
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 10)).toBe('more');
    expect(batch.kinds).toEqual(new Array(10).fill(RowKind.INSERT));
  });

  it('continues exactly at the offset after a seek', async () => {
    const whole = await generate(datagenSpec({}, schema), 300);
    const first = await openReader(datagenSpec({}, schema));
    const head = (await readRows(first, 123)).rows;
    const offset = first.currentOffset();
    expect(offset).toBe(123);
    const resumed = await openReader(datagenSpec({}, schema), 0, 1, JSON.parse(JSON.stringify(offset)) as number);
    const tail = (await readRows(resumed, 300 - 123)).rows;
    expect([...head, ...tail]).toEqual(whole);
  });

  it('continues at the offset of one subtask', async () => {
    const spec = datagenSpec({ 'number-of-rows': '100' }, schema);
    const uninterrupted = (await readRows(await openReader(spec, 1, 3))).rows;
    const first = await openReader(spec, 1, 3);
    const head = (await readRows(first, 10)).rows;
    const rest = await readRows(await openReader(spec, 1, 3, first.currentOffset() as number));
    expect(rest.status).toBe('end');
    expect([...head, ...rest.rows]).toEqual(uninterrupted);
  });

  it('rejects an offset that is not a row count', () => {
    const reader = new DatagenReader(parseDatagenOptions(new Map(), schema));
    expect(() => reader.seek(-1)).toThrow("datagen cannot resume from offset -1: expected a non-negative integer");
    expect(() => reader.seek('3')).toThrow('datagen cannot resume from offset "3": expected a non-negative integer');
  });
});

describe('datagen reader: bounds and parallelism', () => {
  it('ends after number-of-rows', async () => {
    const reader = await openReader(datagenSpec({ 'number-of-rows': '250' }, schema));
    const { rows, status } = await readRows(reader);
    expect(rows).toHaveLength(250);
    expect(status).toBe('end');
    expect(reader.currentOffset()).toBe(250);
  });

  it('ends at once with number-of-rows 0', async () => {
    const reader = await openReader(datagenSpec({ 'number-of-rows': '0' }, schema));
    expect(reader.poll(new ChangeBatch(), 10)).toBe('end');
  });

  it('splits rows between subtasks so that their union is the single-subtask output', async () => {
    const spec = datagenSpec({ 'number-of-rows': '100' }, schema);
    const single = await generate(spec);
    const parts: Row[][] = [];
    for (let s = 0; s < 3; s++) parts.push((await readRows(await openReader(spec, s, 3))).rows);
    expect(parts.map((p) => p.length)).toEqual([34, 33, 33]);
    const interleaved = single.map((_, i) => parts[i % 3]![Math.floor(i / 3)]);
    expect(interleaved).toEqual(single);
  });

  it('splits an unbounded source the same way', async () => {
    const spec = datagenSpec({}, schema);
    const single = await generate(spec, 40);
    const even = (await readRows(await openReader(spec, 0, 2), 20)).rows;
    const odd = (await readRows(await openReader(spec, 1, 2), 20)).rows;
    expect(single.filter((_, i) => i % 2 === 0)).toEqual(even);
    expect(single.filter((_, i) => i % 2 === 1)).toEqual(odd);
  });

  it('counts each subtask’s share of the rows', () => {
    expect([0, 1, 2, 3].map((s) => shareOf(10, s, 4))).toEqual([3, 3, 2, 2]);
    expect(shareOf(2, 3, 4)).toBe(0);
  });
});

describe('datagen reader: rate limiting', () => {
  it('emits about rows-per-second × elapsed time', async () => {
    const reader = await openReader(datagenSpec({ 'rows-per-second': '200' }, schema));
    const batch = new ChangeBatch();
    let rows = 0;
    let idle = 0;
    const start = performance.now();
    while (performance.now() - start < 500) {
      batch.clear();
      if (reader.poll(batch, 1000) === 'idle') idle++;
      rows += batch.size;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(rows).toBeGreaterThan(60);
    expect(rows).toBeLessThan(140);
    expect(idle).toBeGreaterThan(0);
  });

  it('follows the clock exactly, shares the rate between subtasks and caps catching up at one second', async () => {
    let now = 0;
    const config = parseDatagenOptions(new Map([['rows-per-second', '100']]), schema);
    const reader = new DatagenReader(config, () => now);
    await reader.open({ subtask: 0, parallelism: 2, warn: () => {} });
    const poll = (): [string, number] => {
      const batch = new ChangeBatch();
      const status = reader.poll(batch, 1000);
      return [status, batch.size];
    };
    expect(poll()).toEqual(['idle', 1]);
    expect(poll()).toEqual(['idle', 0]);
    now = 100;
    expect(poll()).toEqual(['idle', 5]);
    now = 10_000;
    expect(poll()).toEqual(['idle', 50]);
    now = 10_040;
    expect(poll()).toEqual(['idle', 2]);
  });

  it('is not limited when the batch is the smaller bound', async () => {
    let now = 0;
    const reader = new DatagenReader(parseDatagenOptions(new Map([['rows-per-second', '1000']]), schema), () => now);
    await reader.open({ subtask: 0, parallelism: 1, warn: () => {} });
    now = 1000;
    expect(reader.poll(new ChangeBatch(), 10)).toBe('more');
  });
});
