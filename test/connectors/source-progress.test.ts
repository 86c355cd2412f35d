/**
 * Source progress (`SourceReader.progress`), which the progress line shows: datagen counts rows of
 * `number-of-rows`, nexmark events of `events.num`, the filesystem source bytes of the listed
 * files; each compared with what was actually read, the total unknown when the input is unbounded.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../src/common/row.js';
import { SqlTypes } from '../../src/common/sql-type.js';
import { parseFileSourceOptions } from '../../src/connectors/filesystem/file-source-options.js';
import { FileSourceReader } from '../../src/connectors/filesystem/file-source-reader.js';
import { datagenSpec, openReader as openDatagen, readRows as readDatagen, schemaOf } from './datagen/datagen-test-util.js';
import { openReader as openNexmark, readRows as readNexmark } from './nexmark/nexmark-test-util.js';

describe('source progress', () => {
  it('datagen: rows emitted of its share of number-of-rows; no total when unbounded', async () => {
    const schema = schemaOf(['id', SqlTypes.bigint()]);
    const reader = await openDatagen(datagenSpec({ 'number-of-rows': '1001' }, schema), 1, 2);
    expect(reader.progress!()).toEqual({ done: 0, total: 500 });
    const { rows } = await readDatagen(reader, 120);
    expect(reader.progress!()).toEqual({ done: rows.length, total: 500 });
    await readDatagen(reader);
    expect(reader.progress!()).toEqual({ done: 500, total: 500 });
    const unbounded = await openDatagen(datagenSpec({}, schema));
    await readDatagen(unbounded, 10);
    expect(unbounded.progress!()).toEqual({ done: 10 });
  });

  it('nexmark: events emitted of events.num, resumed from an offset', async () => {
    const reader = await openNexmark({ 'events.num': '1000' }, { offset: 300 });
    expect(reader.progress()).toEqual({ done: 300, total: 1000 });
    const { rows } = readNexmark(reader, 250);
    expect(reader.progress()).toEqual({ done: 300 + rows.length, total: 1000 });
    const unbounded = await openNexmark({});
    readNexmark(unbounded, 5);
    expect(unbounded.progress()).toEqual({ done: 5 });
  });

  it('filesystem: bytes consumed of the files listed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-progress-'));
    writeFileSync(join(dir, 'a.csv'), '1,x\n2,y\n');
    writeFileSync(join(dir, 'b.csv'), '3,zz\n');
    const total = statSync(join(dir, 'a.csv')).size + statSync(join(dir, 'b.csv')).size;
    const schema = [
      { name: 'id', type: SqlTypes.int() },
      { name: 's', type: SqlTypes.string() },
    ];
    const reader = new FileSourceReader('t', schema, parseFileSourceOptions(new Map([['connector', 'filesystem'], ['path', dir], ['format', 'csv']])), {
      deadLetterDir: join(dir, 'dead'),
    });
    await reader.open({ subtask: 0, parallelism: 1, warn: () => {} });
    expect(reader.progress()).toEqual({ done: 0, total });
    const batch = new ChangeBatch();
    let status = await reader.poll(batch, 2);
    expect(batch.size).toBe(2);
    expect(reader.progress()).toEqual({ done: '1,x\n2,y\n'.length, total });
    while (status !== 'end') status = await reader.poll(batch, 10);
    expect(reader.progress()).toEqual({ done: total, total });
    await reader.close();
  });
});
