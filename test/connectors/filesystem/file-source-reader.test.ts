import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { filesystemConnector } from '../../../src/connectors/filesystem/filesystem-connector.js';
import { parseFileSourceOptions } from '../../../src/connectors/filesystem/file-source-options.js';
import { FileSourceReader, type FileSourceOffset } from '../../../src/connectors/filesystem/file-source-reader.js';
import { RowKind } from '../../../src/common/row-kind.js';
import type { PollStatus } from '../../../src/runtime/source-reader.js';
import { TempDirs } from '../../support/temp-dirs.js';

const temp = new TempDirs('weir-fs-source-');
const tempDir = (): string => temp.make();

afterEach(() => {
  temp.removeAll();
});

const orders: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'note', type: SqlTypes.string() },
  { name: 'price', type: SqlTypes.decimal(10, 2) },
];

interface Harness {
  readonly reader: FileSourceReader;
  readonly warnings: string[];
  readonly deadLetters: string;
}

async function openReader(path: string, options: Record<string, string>, settings: { chunkBytes?: number; schema?: Schema; offset?: unknown } = {}): Promise<Harness> {
  const deadLetters = join(tempDir(), 'dead-letter');
  const parsed = parseFileSourceOptions(new Map(Object.entries({ connector: 'filesystem', path, ...options })));
  const reader = new FileSourceReader('orders', settings.schema ?? orders, parsed, {
    deadLetterDir: deadLetters,
    ...(settings.chunkBytes === undefined ? {} : { chunkBytes: settings.chunkBytes }),
  });
  if (settings.offset !== undefined) reader.seek(settings.offset);
  const warnings: string[] = [];
  await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
  return { reader, warnings, deadLetters: join(deadLetters, 'orders.jsonl') };
}

async function poll(reader: FileSourceReader, batch: ChangeBatch, max: number): Promise<PollStatus> {
  batch.clear();
  const status = reader.poll(batch, max);
  return typeof status === 'string' ? status : await status;
}

/** Polls to the end, `max` records at a time; every record must be an insert. */
async function readAll(reader: FileSourceReader, max = 1024): Promise<Row[]> {
  const rows: Row[] = [];
  const batch = new ChangeBatch();
  for (;;) {
    const status = await poll(reader, batch, max);
    expect(batch.kinds.every((kind) => kind === RowKind.INSERT)).toBe(true);
    rows.push(...batch.rows);
    if (status === 'end') return rows;
  }
}

async function readError(reader: FileSourceReader): Promise<Error> {
  try {
    await readAll(reader);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the read to fail');
}

/** Polls until `count` rows arrived (failing after a few seconds); the status must never be 'end'. */
async function readRows(reader: FileSourceReader, count: number): Promise<Row[]> {
  const rows: Row[] = [];
  const batch = new ChangeBatch();
  const deadline = Date.now() + 5000;
  while (rows.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${rows.length} of ${count} rows arrived`);
    const status = await poll(reader, batch, 1024);
    expect(status).not.toBe('end');
    rows.push(...batch.rows);
    if (status === 'idle') await new Promise((r) => setTimeout(r, 5));
  }
  return rows;
}

const jsonLine = (id: number, note: string, price: string): string => `${JSON.stringify({ id, note, price: Number(price) })}`;

describe('filesystem source reader', () => {
  it('reads the files of a directory in name order, recursively, leaving out hidden ones and the sink’s in-progress files', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'b-sub'));
    mkdirSync(join(dir, '.hidden-dir'));
    writeFileSync(join(dir, 'c.json'), `${jsonLine(3, 'c', '3')}\n`);
    writeFileSync(join(dir, 'a.json'), `${jsonLine(1, 'a', '1')}\n`);
    writeFileSync(join(dir, 'b-sub', 'x.json'), `${jsonLine(2, 'b/x', '2')}\n`);
    writeFileSync(join(dir, '.part-1234abcd-0.json.inprogress'), `${jsonLine(9, 'in progress', '9')}\n`);
    writeFileSync(join(dir, '_SUCCESS'), 'not json\n');
    writeFileSync(join(dir, '.hidden-dir', 'y.json'), 'not json\n');
    const { reader } = await openReader(dir, { format: 'json' });
    expect(await readAll(reader)).toEqual([[1, 'a', 100n], [2, 'b/x', 200n], [3, 'c', 300n]]);
    expect(reader.currentOffset()).toEqual({
      files: { 'a.json': { byte: 30, line: 2 }, 'b-sub/x.json': { byte: 32, line: 2 }, 'c.json': { byte: 30, line: 2 } },
    });
    const single = await openReader(join(dir, 'c.json'), { format: 'json' });
    expect(await readAll(single.reader)).toEqual([[3, 'c', 300n]]);
  });

  it('yields the same rows for every chunk size: records across chunks, UTF-8, CRLF, quoted line breaks, a last line without \\n', async () => {
    const dir = tempDir();
    const csv = ['1,plain,1.50', '2,"über ""quoted""\r\nwith a line break",2', '3,日本語テキスト,3.25', '', '4,"a,b",4'].join('\r\n');
    writeFileSync(join(dir, 'data.csv'), `${csv}\r\n5,last,5`);
    const expected = [
      [1, 'plain', 150n],
      [2, 'über "quoted"\r\nwith a line break', 200n],
      [3, '日本語テキスト', 325n],
      [4, 'a,b', 400n],
      [5, 'last', 500n],
    ];
    for (const chunkBytes of [1, 2, 3, 5, 7, 16, 64, 1 << 20]) {
      const { reader, warnings } = await openReader(join(dir, 'data.csv'), { format: 'csv', 'csv.ignore-parse-errors': 'true' }, { chunkBytes });
      expect(await readAll(reader, 2), `chunk ${chunkBytes}`).toEqual(expected);
      expect(warnings.map((w) => w.replace(/ \(set aside.*$/, ''))).toEqual([
        `filesystem source 'orders': ${join(dir, 'data.csv')}, line 5 (byte 87): found 1 field, expected 3`,
      ]);
    }
  });

  it('resumes exactly after the last record emitted, from every offset it reported', async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 40 }, (_unused, i) => jsonLine(i, `n${'é'.repeat(i % 5)}`, `${i}.5`));
    writeFileSync(join(dir, 'a.json'), `${lines.slice(0, 25).join('\n')}\n`);
    writeFileSync(join(dir, 'b.json'), `${lines.slice(25).join('\r\n')}\r\n`);
    const { reader } = await openReader(dir, { format: 'json' }, { chunkBytes: 100 });
    const everything = await readAll(reader);
    expect(everything.map((row) => row[0])).toEqual(lines.map((_line, i) => i));

    const first = await openReader(dir, { format: 'json' }, { chunkBytes: 100 });
    const batch = new ChangeBatch();
    const seen: Row[] = [];
    for (;;) {
      const offset = JSON.parse(JSON.stringify(first.reader.currentOffset())) as FileSourceOffset;
      const resumed = await openReader(dir, { format: 'json' }, { chunkBytes: 64, offset });
      expect([...seen, ...(await readAll(resumed.reader))]).toEqual(everything);
      const status = await poll(first.reader, batch, 3);
      seen.push(...batch.rows);
      if (status === 'end') break;
    }
  });

  it('refuses an offset it cannot have written, and a file that shrank below it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), `${jsonLine(1, 'a', '1')}\n`);
    const parsed = parseFileSourceOptions(new Map([['path', dir], ['format', 'json']]));
    expect(() => new FileSourceReader('orders', orders, parsed).seek({ files: { 'a.json': { byte: -1, line: 1 } } })).toThrow(
      `filesystem source 'orders' cannot resume from offset {"files":{"a.json":{"byte":-1,"line":1}}}: expected { files: { <name>: { byte, line } } }`,
    );
    expect(() => new FileSourceReader('orders', orders, parsed).seek(12)).toThrow('cannot resume from offset 12');
    const reader = new FileSourceReader('orders', orders, parsed);
    reader.seek({ files: { 'a.json': { byte: 500, line: 9 } } });
    await expect(reader.open({ subtask: 0, parallelism: 1, warn: () => {} })).rejects.toThrow(
      `filesystem source 'orders': ${join(dir, 'a.json')} has 30 bytes, fewer than the 500 already read; files must only grow`,
    );
  });

  it('monitoring: never ends, picks up a new file and an appended line once its \\n is there', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), `${jsonLine(1, 'a', '1')}\n`);
    const { reader } = await openReader(dir, { format: 'json', 'source.monitor-interval': '20 ms' });
    expect(await readRows(reader, 1)).toEqual([[1, 'a', 100n]]);

    appendFileSync(join(dir, 'a.json'), jsonLine(2, 'appended', '2'));
    await new Promise((r) => setTimeout(r, 80));
    const batch = new ChangeBatch();
    for (let i = 0; i < 5; i++) expect(await poll(reader, batch, 10)).not.toBe('end');
    expect(batch.size).toBe(0);
    appendFileSync(join(dir, 'a.json'), '\n');
    expect(await readRows(reader, 1)).toEqual([[2, 'appended', 200n]]);

    writeFileSync(join(dir, '.b.json.inprogress'), `${jsonLine(9, 'hidden', '9')}\n`);
    writeFileSync(join(dir, '0-new.json'), `${jsonLine(3, 'new file', '3')}\n${jsonLine(4, 'new file', '4')}\n`);
    expect(await readRows(reader, 2)).toEqual([[3, 'new file', 300n], [4, 'new file', 400n]]);
    expect(reader.currentOffset().files).toEqual({ 'a.json': { byte: 67, line: 3 }, '0-new.json': { byte: 74, line: 3 } });
    await reader.close();
  });

  it('fails on a bad record with the file, line, byte, column and value', async () => {
    const dir = tempDir();
    const file = join(dir, 'in.csv');
    writeFileSync(file, '1,ok,1.00\n2,"multi\nline",2.00\n3,bad,abc\n4,never,4\n');
    const csvError = await readError((await openReader(file, { format: 'csv' })).reader);
    expect(csvError.message).toBe(`filesystem source 'orders': ${file}, line 4 (byte 30): column 'price': 'abc' is not a valid DECIMAL(10, 2)`);
    expect((csvError as { code?: string }).code).toBe('CONNECTOR_ERROR');

    const jsonFile = join(dir, 'in.json');
    writeFileSync(jsonFile, `${jsonLine(1, 'ok', '1')}\n\n{"id":"x"}\n`);
    const jsonError = await readError((await openReader(jsonFile, { format: 'json' })).reader);
    expect(jsonError.message).toBe(`filesystem source 'orders': ${jsonFile}, line 3 (byte 32): column 'id': 'x' is not a valid INT`);
    writeFileSync(jsonFile, Buffer.concat([Buffer.from('{"id":1,"note":"\uFFFD is fine"}\n{"id":2,"note":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
    expect((await readError((await openReader(jsonFile, { format: 'json' })).reader)).message).toBe(
      `filesystem source 'orders': ${jsonFile}, line 2 (byte 30): not valid UTF-8`,
    );
    writeFileSync(jsonFile, '{"id":1}\n{"id":2,\n');
    expect((await readError((await openReader(jsonFile, { format: 'json' })).reader)).message).toMatch(
      new RegExp(`^filesystem source 'orders': ${jsonFile}, line 2 \\(byte 9\\): not valid JSON: `),
    );
  });

  it('with ignore-parse-errors: sets each bad record aside in the dead-letter file, reports it once, reads on', async () => {
    const dir = tempDir();
    const file = join(dir, 'in.csv');
    writeFileSync(file, '# a comment, "not" a record\n1,ok,1.00\n3,bad,abc\n4,"unclosed\n');
    const { reader, warnings, deadLetters } = await openReader(file, { format: 'csv', 'csv.allow-comments': 'true', 'format.ignore-parse-errors': 'true' });
    expect(await readAll(reader)).toEqual([[1, 'ok', 100n]]);
    expect(reader.rejectedRecords()).toBe(2);
    const letters = readFileSync(deadLetters, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    expect(letters.map(({ time: _time, ...rest }) => rest)).toEqual([
      { source: file, position: 'line 3 (byte 38)', reason: "column 'price': 'abc' is not a valid DECIMAL(10, 2)", record: '3,bad,abc' },
      { source: file, position: 'line 4 (byte 48)', reason: 'field 2: the quoted field is not closed', record: '4,"unclosed\n' },
    ]);
    expect(warnings).toEqual([
      `filesystem source 'orders': ${file}, line 3 (byte 38): column 'price': 'abc' is not a valid DECIMAL(10, 2) (set aside in ${deadLetters})`,
      `filesystem source 'orders': ${file}, line 4 (byte 48): field 2: the quoted field is not closed (set aside in ${deadLetters})`,
    ]);

    const jsonFile = join(dir, 'in.json');
    writeFileSync(jsonFile, '{"id":1}\n   \n[1]\n{"id":2}');
    const json = await openReader(jsonFile, { format: 'json', 'json.ignore-parse-errors': 'true' });
    expect(await readAll(json.reader)).toEqual([[1, null, null], [2, null, null]]);
    expect(readFileSync(json.deadLetters, 'utf8')).toContain('"position":"line 3 (byte 13)","reason":"not a JSON object: [1]","record":"[1]"');
  });

  it('reports a path that does not exist, and a format it cannot read', async () => {
    const dir = tempDir();
    await expect(openReader(join(dir, 'missing'), { format: 'json' })).rejects.toThrow(
      `filesystem source 'orders': cannot list '${join(dir, 'missing')}': ENOENT`,
    );
    expect(() =>
      filesystemConnector.source!.createReader({ kind: 'source', table: 'changes', connector: 'filesystem', options: { path: dir, format: 'debezium-json' }, schema: orders }),
    ).toThrow("filesystem source 'changes' cannot read format 'debezium-json'; the formats it reads are 'json', 'csv'");
  });
});
