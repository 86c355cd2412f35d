/**
 * Binary strings through files and into PostgreSQL. JSON and CSV hold bytes as base64 text, as
 * Flink's formats (Jackson) write a `byte[]`: rows read from such files, written by the filesystem
 * sink in the same format and read back are the rows written (NULL, the empty value and a BINARY(n)
 * column's zero padding included), and the sink's text is the base64 the input had. A GROUP BY on
 * the BYTES column written into a Postgres table (bytea, exactly once) equals PostgreSQL's own
 * answer over the same rows in bytea.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import { runJob } from '../../support/jobs.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { committedText, TempDirs } from '../../support/temp-dirs.js';

interface Blob {
  readonly id: number;
  readonly tag: Buffer | null;
  readonly payload: Buffer | null;
  /** BINARY(3): exactly three bytes. */
  readonly code: Buffer;
}

const TAGS = ['', '00', '0000', '7f', '80', 'ff', 'ff00', '0aff'].map((hex) => Buffer.from(hex, 'hex'));

/** Deterministic rows: every 11th tag and every 7th payload NULL, payloads of 0 to 5 pseudo-random bytes. */
function blobs(count: number): Blob[] {
  let seed = 12345;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) >> 8;
  return Array.from({ length: count }, (_unused, i) => ({
    id: i + 1,
    tag: i % 11 === 0 ? null : TAGS[next() % TAGS.length]!,
    payload: i % 7 === 0 ? null : Buffer.from(Array.from({ length: next() % 6 }, () => next() % 256)),
    code: Buffer.from([i % 256, 0xff, 0]),
  }));
}

const b64 = (b: Buffer | null): string | null => (b === null ? null : b.toString('base64'));
const jsonLine = (r: Blob): string => JSON.stringify({ id: r.id, tag: b64(r.tag), payload: b64(r.payload), code: b64(r.code) });
/** CSV: NULL is an empty field, the empty value a quoted empty string (base64 has no comma or quote). */
const csvField = (b: Buffer | null): string => (b === null ? '' : b.length === 0 ? '""' : b.toString('base64'));
const csvLine = (r: Blob): string => [r.id, csvField(r.tag), csvField(r.payload), csvField(r.code)].join(',');

const COLUMNS = 'id INT, tag BYTES, payload VARBINARY(5), code BINARY(3)';
const hex = (v: unknown): unknown => (v instanceof Uint8Array ? `x'${Buffer.from(v).toString('hex')}'` : v);
const canonical = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify([r.id, hex(r.tag), hex(r.payload), hex(r.code)])).sort();

const temp = new TempDirs('weir-bytes-files-');
const tempDir = (): string => temp.make();

describe('binary strings in files', () => {
  const data = blobs(500);
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('bytes_files');
    await db.rows('CREATE TABLE raw (id int, tag bytea, payload bytea, code bytea)');
    await db.rows('INSERT INTO raw SELECT * FROM unnest($1::int[], $2::bytea[], $3::bytea[], $4::bytea[])', [data.map((r) => r.id), data.map((r) => r.tag), data.map((r) => r.payload), data.map((r) => r.code)]);
  });

  afterAll(async () => {
    await db?.drop();
  });

  afterEach(() => {
    temp.removeAll();
  });

  for (const format of ['json', 'csv'] as const) {
    it(`${format}: read, written by the sink and read back, the rows are the rows, their bytes in base64`, async () => {
      const dir = tempDir();
      const input = join(dir, `in.${format}`);
      writeFileSync(input, `${data.map(format === 'json' ? jsonLine : csvLine).join('\n')}\n`);
      const engine = createEngine({ onWarning: () => {} });
      await runJob(
        engine,
        `SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
        CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = '${format}');
        CREATE TABLE out_files (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = '${format}');
        INSERT INTO out_files SELECT * FROM src;`,
      );
      await engine.execute(`CREATE TABLE back (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = '${format}')`);
      const expected = data.map((r) => ({ id: r.id, tag: r.tag, payload: r.payload, code: r.code }));
      expect(canonical(await engine.query('SELECT * FROM src'))).toEqual(canonical(expected));
      expect(canonical(await engine.query('SELECT * FROM back'))).toEqual(canonical(expected));
      const written = committedText(join(dir, 'out')).trimEnd().split('\n').sort();
      expect(written).toEqual(data.map(format === 'json' ? jsonLine : csvLine).sort());
      await engine.close();
    });
  }

  it('a shorter value is padded to BINARY(n) with zero bytes; a longer one, or text that is not base64, is a bad record naming the column', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.json');
    writeFileSync(input, '{"id":1,"code":"AQ=="}\n');
    const engine = createEngine({ onWarning: () => {} });
    await engine.execute(`CREATE TABLE src (id INT, code BINARY(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json')`);
    expect((await engine.query('SELECT code FROM src')).map((r) => hex(r.code))).toEqual(["x'010000'"]);
    writeFileSync(input, '{"id":1,"code":"AQIDBA=="}\n');
    await expect(engine.query('SELECT code FROM src')).rejects.toThrow(/code.*'AQIDBA==' holds 4 bytes, more than BINARY\(3\)/s);
    writeFileSync(input, '{"id":1,"code":"not base64!"}\n');
    await expect(engine.query('SELECT code FROM src')).rejects.toThrow(/code.*'not base64!' is not base64 text of a BINARY\(3\)/s);
    await engine.close();
  });

  it('GROUP BY a BYTES column into PostgreSQL (bytea, exactly once) equals PostgreSQL’s answer over the same rows', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.json');
    writeFileSync(input, `${data.map(jsonLine).join('\n')}\n`);
    const warnings: string[] = [];
    const engine = createEngine({ onWarning: (m) => warnings.push(m) });
    await runJob(
      engine,
      `SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
      SET 'execution.checkpointing.interval' = '100 ms';
      CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE TABLE by_tag (tag BYTES, n BIGINT, lo VARBINARY(5), hi VARBINARY(5), kinds BIGINT, joined BYTES, PRIMARY KEY (tag) NOT ENFORCED)
        WITH ('connector' = 'postgres', 'url' = '${db!.url}', 'sink.semantic' = 'exactly-once');
      INSERT INTO by_tag SELECT tag, COUNT(*), MIN(payload), MAX(payload), COUNT(DISTINCT payload), CONCAT(tag, x'2d', MIN(code)) FROM src WHERE tag IS NOT NULL GROUP BY tag;`,
    );
    expect(warnings).toEqual([]);
    const columns = await db!.rows<{ column_name: string; data_type: string }>("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'by_tag' ORDER BY ordinal_position");
    expect(columns.map((c) => `${c.column_name} ${c.data_type}`)).toEqual(['tag bytea', 'n bigint', 'lo bytea', 'hi bytea', 'kinds bigint', 'joined bytea']);
    // Postgres has no MIN/MAX of bytea: the first value in bytea order (memcmp: unsigned, a prefix first).
    const batch = `SELECT tag, count(*) AS n, (array_agg(payload ORDER BY payload) FILTER (WHERE payload IS NOT NULL))[1] AS lo,
        (array_agg(payload ORDER BY payload DESC) FILTER (WHERE payload IS NOT NULL))[1] AS hi, count(DISTINCT payload) AS kinds,
        tag || '\\x2d'::bytea || (array_agg(code ORDER BY code))[1] AS joined FROM raw WHERE tag IS NOT NULL GROUP BY tag`;
    const sink = 'SELECT tag, n, lo, hi, kinds, joined FROM by_tag';
    expect(await db!.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db!.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect((await db!.rows<{ n: number }>('SELECT count(*)::int AS n FROM by_tag'))[0]!.n).toBe(TAGS.length);
    expect(await db!.preparedGids()).toEqual([]);
    await engine.close();
  });
});
