/**
 * Nanosecond timestamps through files and into PostgreSQL. JSON and CSV hold TIMESTAMP(p) as
 * `yyyy-MM-dd HH:mm:ss.fffffffff` text with every fraction digit of the precision (TIMESTAMP_LTZ
 * with a `Z`): rows read from such files, written by the filesystem sink in the same format and
 * read back are the rows written, to the nanosecond, and the sink's text is the input's text. Into
 * PostgreSQL (microseconds): a TIMESTAMP(6) column is written exactly, a TIMESTAMP(9) one
 * truncated to the microsecond, and a GROUP BY on a TIMESTAMP(6) key (exactly once) equals
 * PostgreSQL's own answer over the same rows; a TIMESTAMP(9) key of a postgres sink is refused
 * (keys less than a microsecond apart would be one row there).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import { LocalZonedTimestamp, PreciseTimestamp } from '../../../src/engine/api-values.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { textParser } from '../../../src/connectors/postgres/postgres-text-parser.js';
import { runJob } from '../../support/jobs.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { committedText, TempDirs } from '../../support/temp-dirs.js';

interface Stamp {
  readonly id: number;
  /** TIMESTAMP(9), epoch nanos. */
  readonly at: bigint | null;
  /** TIMESTAMP_LTZ(9), epoch nanos. */
  readonly seen: bigint;
  /** TIMESTAMP(6), epoch nanos with whole microseconds. */
  readonly micro: bigint;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const floorMod = (a: bigint, b: bigint): bigint => ((a % b) + b) % b;

/** The SQL text of epoch nanos with `digits` fraction digits, computed apart from the engine (Date for the seconds). */
function sqlText(nanos: bigint, digits: number): string {
  const fraction = floorMod(nanos, NANOS_PER_SECOND);
  const seconds = (nanos - fraction) / NANOS_PER_SECOND;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${base}.${String(fraction).padStart(9, '0').slice(0, digits)}`;
}

/** Deterministic rows around 2000-01-01 (before and after 1970), every 9th `at` NULL, some values on whole seconds or microseconds. */
function stamps(count: number): Stamp[] {
  let seed = 424242n;
  const next = (): bigint => (seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n) >> 3n;
  const around = 946_684_800n * NANOS_PER_SECOND;
  const span = 2n ** 61n;
  const value = (): bigint => {
    const v = around + (next() % (2n * span)) - span;
    const shape = next() % 4n;
    return shape === 0n ? v - floorMod(v, NANOS_PER_SECOND) : shape === 1n ? v - floorMod(v, 1000n) : v;
  };
  return Array.from({ length: count }, (_unused, i) => {
    const micro = value();
    return { id: i + 1, at: i % 9 === 0 ? null : value(), seen: value(), micro: micro - floorMod(micro, 1000n) };
  });
}

const jsonLine = (r: Stamp): string => JSON.stringify({ id: r.id, at: r.at === null ? null : sqlText(r.at, 9), seen: `${sqlText(r.seen, 9)}Z`, micro: sqlText(r.micro, 6) });
const csvLine = (r: Stamp): string => [r.id, r.at === null ? '' : sqlText(r.at, 9), `${sqlText(r.seen, 9)}Z`, sqlText(r.micro, 6)].join(',');

const COLUMNS = 'id INT, at TIMESTAMP(9), seen TIMESTAMP_LTZ(9), micro TIMESTAMP(6)';
const nanosOf = (v: unknown): unknown => (v instanceof PreciseTimestamp || v instanceof LocalZonedTimestamp ? `${v.epochNanos}n` : v);
const canonical = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify([r.id, nanosOf(r.at), nanosOf(r.seen), nanosOf(r.micro)])).sort();

const temp = new TempDirs('weir-nanos-files-');
const tempDir = (): string => temp.make();

describe('nanosecond timestamps in files', () => {
  const data = stamps(400);
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('nanos_files');
    await db.rows('CREATE TABLE raw (id int, at timestamp(6), seen timestamptz(6), micro timestamp(6))');
    // PostgreSQL rounds extra digits: the rows are given to it already truncated to the microsecond, as weir writes them.
    const micros = (v: bigint | null): string | null => (v === null ? null : sqlText(v, 6));
    await db.rows("SET TIME ZONE 'UTC'");
    await db.rows('INSERT INTO raw SELECT * FROM unnest($1::int[], $2::timestamp[], $3::timestamptz[], $4::timestamp[])', [
      data.map((r) => r.id),
      data.map((r) => micros(r.at)),
      data.map((r) => `${micros(r.seen)}+00`),
      data.map((r) => micros(r.micro)),
    ]);
  });

  afterAll(async () => {
    await db?.drop();
  });

  afterEach(() => {
    temp.removeAll();
  });

  for (const format of ['json', 'csv'] as const) {
    it(`${format}: read, written by the sink and read back, the rows are the rows to the nanosecond, and the text is the input's`, async () => {
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
      const expected = data.map((r) => ({ id: r.id, at: r.at === null ? null : `${r.at}n`, seen: `${r.seen}n`, micro: `${r.micro}n` }));
      expect(canonical(await engine.query('SELECT * FROM src'))).toEqual(canonical(expected));
      expect(canonical(await engine.query('SELECT * FROM back'))).toEqual(canonical(expected));
      const written = committedText(join(dir, 'out')).trimEnd().split('\n').sort();
      expect(written).toEqual(data.map(format === 'json' ? jsonLine : csvLine).sort());
      await engine.close();
    });
  }

  it('into PostgreSQL: TIMESTAMP(6) exactly, TIMESTAMP(9) truncated to the microsecond; a GROUP BY on a TIMESTAMP(6) key equals PostgreSQL’s answer', async () => {
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
      CREATE TABLE copied (id INT, at TIMESTAMP(9), seen TIMESTAMP_LTZ(9), micro TIMESTAMP(6), PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'postgres', 'url' = '${db!.url}', 'sink.semantic' = 'exactly-once');
      CREATE TABLE by_second (sec TIMESTAMP(6), n BIGINT, lo TIMESTAMP(9), hi TIMESTAMP_LTZ(9), PRIMARY KEY (sec) NOT ENFORCED)
        WITH ('connector' = 'postgres', 'url' = '${db!.url}', 'sink.semantic' = 'exactly-once');
      INSERT INTO copied SELECT * FROM src;`,
    );
    await runJob(
      engine,
      `INSERT INTO by_second SELECT CAST(FLOOR(micro TO HOUR) AS TIMESTAMP(6)), COUNT(*), MIN(at), MAX(seen) FROM src GROUP BY CAST(FLOOR(micro TO HOUR) AS TIMESTAMP(6));`,
    );
    expect(warnings).toEqual([]);
    const columns = await db!.rows<{ column_name: string; t: string }>(
      "SELECT column_name, format_type(atttypid, atttypmod) AS t FROM information_schema.columns c JOIN pg_attribute a ON a.attrelid = 'copied'::regclass AND a.attname = c.column_name WHERE table_name = 'copied' ORDER BY ordinal_position",
    );
    expect(columns.map((c) => `${c.column_name} ${c.t}`)).toEqual(['id integer', 'at timestamp(6) without time zone', 'seen timestamp(6) with time zone', 'micro timestamp(6) without time zone']);
    await db!.rows("SET TIME ZONE 'UTC'");
    // The copy: every microsecond there, nothing rounded (PostgreSQL would round .9999995 up; weir truncates).
    expect(await db!.rows('(SELECT id, at, seen, micro FROM raw) EXCEPT ALL (SELECT id, at, seen, micro FROM copied)')).toEqual([]);
    expect(await db!.rows('(SELECT id, at, seen, micro FROM copied) EXCEPT ALL (SELECT id, at, seen, micro FROM raw)')).toEqual([]);
    const batch = "SELECT date_trunc('hour', micro) AS sec, count(*) AS n, min(at) AS lo, max(seen) AS hi FROM raw GROUP BY 1";
    const sink = 'SELECT sec, n, lo, hi FROM by_second';
    expect(await db!.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db!.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect(await db!.preparedGids()).toEqual([]);
    // Read back as the postgres sources read it (CDC, lookup joins: PostgreSQL's text, parsed by type): the microseconds as epoch nanos.
    const parse = [textParser(SqlTypes.timestamp(9)), textParser(SqlTypes.timestampLtz(9)), textParser(SqlTypes.timestamp(6))];
    const back = await db!.rows<{ id: number; at: string | null; seen: string; micro: string }>('SELECT id, at::text, seen::text, micro::text FROM copied');
    const read = back.map((r) => ({ id: r.id, ...Object.fromEntries((['at', 'seen', 'micro'] as const).map((c, i) => [c, r[c] === null ? null : `${parse[i]!(r[c]!) as bigint}n`])) }));
    const truncated = (v: bigint | null): string | null => (v === null ? null : `${v - floorMod(v, 1000n)}n`);
    expect(read.map((r) => JSON.stringify(r)).sort()).toEqual(data.map((r) => JSON.stringify({ id: r.id, at: truncated(r.at), seen: truncated(r.seen), micro: `${r.micro}n` })).sort());
    await engine.close();
  });

  it('a TIMESTAMP(7..9) in the primary key of a postgres sink is refused, naming the column and the CAST to TIMESTAMP(6)', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.json');
    writeFileSync(input, `${data.slice(0, 5).map(jsonLine).join('\n')}\n`);
    const engine = createEngine({ onWarning: () => {} });
    const job = runJob(
      engine,
      `SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
      CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE TABLE by_at (at TIMESTAMP(9), n BIGINT, PRIMARY KEY (at) NOT ENFORCED) WITH ('connector' = 'postgres', 'url' = '${db!.url}');
      INSERT INTO by_at SELECT at, COUNT(*) FROM src GROUP BY at;`,
    );
    await expect(job).rejects.toThrow(/key column "at" is TIMESTAMP\(9\).*microsecond/s);
    expect(await db!.rows("SELECT 1 FROM information_schema.tables WHERE table_name = 'by_at'")).toEqual([]);
    await engine.close();
  });
});
