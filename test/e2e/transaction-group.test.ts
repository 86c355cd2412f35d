/**
 * Atomic multi-table commits: the exactly-once sinks of one job into one database commit each
 * checkpoint in one transaction (the default transaction group), so a reader polling both tables
 * never sees one a checkpoint ahead of the other: in every snapshot, the latest checkpoint
 * committed into each table (its marker rows, written in the same transaction) is the same.
 * With the group switched off, each sink prepares and commits its own transaction. The
 * materialized views of a session run as one job, so they commit together too — also a view
 * added while another runs, which resumes from the savepoint the restart takes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { createEngine } from '../../src/engine/engine.js';

const ROWS = 20_000;

/** Runs the job; meanwhile polls both tables in one snapshot and the prepared transactions' gids. */
async function runObserved(group: string): Promise<{ samples: { raw: number; counted: number }[]; gids: Set<string>; url: string }> {
  const url = await freshDatabase('weir_group');
  const dir = mkdtempSync(join(tmpdir(), 'weir-group-'));
  const engine = createEngine();
  await engine.execute(`SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '50 ms';
    CREATE TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
    CREATE TABLE raw (id BIGINT) WITH ('connector' = 'postgres', 'url' = '${url}', 'sink.transaction-group' = '${group}');
    CREATE TABLE counted (bucket INT, n BIGINT, PRIMARY KEY (bucket) NOT ENFORCED)
      WITH ('connector' = 'postgres', 'url' = '${url}', 'sink.transaction-group' = '${group}');
    EXECUTE STATEMENT SET BEGIN
      INSERT INTO raw SELECT id FROM numbers;
      INSERT INTO counted SELECT CAST(id % 7 AS INT), COUNT(*) FROM numbers GROUP BY CAST(id % 7 AS INT);
    END;`);
  const [job] = engine.session.jobs();
  const reader = new pg.Client({ connectionString: url });
  await reader.connect();
  const samples: { raw: number; counted: number }[] = [];
  const gids = new Set<string>();
  let done = false;
  void job!.result().then(() => (done = true));
  while (!done) {
    const { rows } = await reader
      .query<{ raw: string; counted: string }>(
        `SELECT max(checkpoint_id) FILTER (WHERE sink = 'raw') AS raw, max(checkpoint_id) FILTER (WHERE sink = 'counted') AS counted
           FROM weir.sink_commits HAVING count(*) > 0`,
      )
      .catch(() => ({ rows: [] }));
    for (const row of rows) samples.push({ raw: Number(row.raw), counted: Number(row.counted) });
    for (const { gid } of (await reader.query<{ gid: string }>('SELECT gid FROM pg_prepared_xacts WHERE database = current_database()')).rows) gids.add(gid);
  }
  await reader.end();
  expect(await job!.result(), String(job!.error)).toBe('FINISHED');
  return { samples, gids, url };
}

async function tableCounts(url: string): Promise<{ raw: number; counted: number }> {
  const [row] = await pgQuery<{ raw: string; counted: string }>(url, 'SELECT (SELECT count(*) FROM raw) AS raw, (SELECT sum(n) FROM counted) AS counted');
  return { raw: Number(row!.raw), counted: Number(row!.counted) };
}

describe('transaction groups', () => {
  it('commit the sinks of a job together: a reader never sees one table ahead of the other', async () => {
    const { samples, gids, url } = await runObserved('default');
    expect(samples.length, 'the reader saw the tables while the job ran').toBeGreaterThan(5);
    expect(samples.filter((s) => s.raw !== s.counted)).toEqual([]);
    expect([...gids].length).toBeGreaterThan(0);
    expect([...gids].filter((gid) => !gid.includes('.group-default.0.'))).toEqual([]);
    expect(await tableCounts(url)).toEqual({ raw: ROWS, counted: ROWS });
  }, 90_000);

  it("with 'none', each sink prepares its own transaction", async () => {
    const { gids, url } = await runObserved('none');
    expect(await tableCounts(url)).toEqual({ raw: ROWS, counted: ROWS });
    expect([...gids].some((gid) => gid.includes('.raw.')) && [...gids].some((gid) => gid.includes('.counted.'))).toBe(true);
  }, 90_000);

  it('commit the materialized views of a session together, also one added while another runs', async () => {
    const url = await freshDatabase('weir_group_mv');
    const dir = mkdtempSync(join(tmpdir(), 'weir-group-mv-'));
    const engine = createEngine();
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}';
      SET 'execution.checkpointing.interval' = '50 ms';
      CREATE TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '6000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
      CREATE MATERIALIZED VIEW by7 WITH ('url' = '${url}') AS SELECT CAST(id % 7 AS INT) AS b, COUNT(*) AS n FROM numbers GROUP BY CAST(id % 7 AS INT);`);
    const committed = async (view: string): Promise<number> => Number((await pgQuery<{ n: string | null }>(url, `SELECT sum(n) AS n FROM ${view}`))[0]?.n ?? 0);
    while ((await committed('by7').catch(() => 0)) === 0) await new Promise((r) => setTimeout(r, 20));
    await engine.execute(`CREATE MATERIALIZED VIEW by5 WITH ('url' = '${url}') AS SELECT CAST(id % 5 AS INT) AS b, COUNT(*) AS n FROM numbers GROUP BY CAST(id % 5 AS INT)`);
    const job = engine.session.jobs().at(-1)!;
    let done = false;
    void job.result().then(() => (done = true));
    const samples: { by7: string; by5: string }[] = [];
    while (!done) {
      const rows = await pgQuery<{ by7: string | null; by5: string | null }>(
        url,
        `SELECT max(checkpoint_id) FILTER (WHERE sink = 'by7') AS by7, max(checkpoint_id) FILTER (WHERE sink = 'by5') AS by5 FROM weir.sink_commits WHERE job = 'materialized-views'`,
      );
      for (const row of rows) if (row.by7 !== null && row.by5 !== null) samples.push({ by7: row.by7, by5: row.by5 });
    }
    expect(await job.result(), String(job.error)).toBe('FINISHED');
    expect(samples.length, 'the reader saw both views while the job ran').toBeGreaterThan(3);
    expect(samples.filter((s) => s.by7 !== s.by5)).toEqual([]);
    expect({ by7: await committed('by7'), by5: await committed('by5') }).toEqual({ by7: ROWS, by5: ROWS });
  }, 90_000);
});
