/**
 * CDC of a table with REPLICA IDENTITY DEFAULT, read as an upsert changelog
 * (`'changelog-mode' = 'upsert'`): the server sends updates without their old row (and without
 * unchanged TOASTed values) and deletes by key; the ChangelogNormalize the planner puts after the
 * source makes the changelog whole. While the table changes — updates that leave a large TOASTed
 * column alone, updates of the grouping column, primary-key changes, deletes, inserts — a copy of
 * the table and an aggregate over it land exactly once in Postgres and end equal to the batch
 * answer computed by Postgres over the source table.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { cdcDatabase, dropDatabaseAndSlots, waitUntilEqual } from './cdc-test-support.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await cdcDatabase('cdc_upsert');
  // ~6 KB of poorly compressible text per row: stored out of line (TOASTed), so an update that does not change it does not send it.
  await db.client.query(`CREATE TABLE docs (id bigint PRIMARY KEY, grp int NOT NULL, title text, body text);
    INSERT INTO docs SELECT g, g % 7, 'title ' || g, (SELECT string_agg(md5(g::text || '-' || i::text), '') FROM generate_series(1, 200) i) FROM generate_series(1, 300) g;`);
});

afterAll(async () => {
  await dropDatabaseAndSlots(db);
});

/** One transaction of changes per round, deterministic by round number. */
async function churn(url: string, rounds: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let r = 0; r < rounds; r++) {
      await client.query('BEGIN');
      await client.query(`UPDATE docs SET title = 'retitled ${r}' WHERE id % 17 = ${r % 17}`);
      await client.query(`UPDATE docs SET grp = (grp + 1) % 7 WHERE id % 23 = ${r % 23}`);
      // A key change must send the TOASTed column (REPLICA IDENTITY DEFAULT leaves an unchanged one out, and the new key has no last row to take it from).
      await client.query(`UPDATE docs SET id = id + 100000, body = body || '' WHERE id = (SELECT min(id) FROM docs WHERE id > ${(r * 7) % 300} AND id < 100000)`);
      await client.query(`DELETE FROM docs WHERE id = (SELECT max(id) FROM docs WHERE id < ${(r * 13) % 300 + 1})`);
      await client.query(`INSERT INTO docs VALUES (${1000 + r}, ${r % 7}, 'new ${r}', repeat(md5('${r}'), 150))`);
      if (r % 5 === 0) await client.query(`UPDATE docs SET body = body || 'x' WHERE id % 31 = ${r % 31}`);
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

const SCRIPT = (url: string, dir: string): string => `SET 'state.checkpoints.dir' = '${dir}';
  SET 'execution.checkpointing.interval' = '100 ms';
  CREATE TABLE docs (id BIGINT, grp INT, title STRING, body STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'postgres-cdc', 'url' = '${url}', 'table-name' = 'docs', 'slot.name' = 'cdc_upsert_docs', 'changelog-mode' = 'upsert');
  CREATE TABLE docs_copy (id BIGINT, grp INT, title STRING, body STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'docs_copy');
  CREATE TABLE by_grp (grp INT, n BIGINT, body_chars BIGINT, PRIMARY KEY (grp) NOT ENFORCED)
    WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'by_grp');`;

describe("postgres-cdc with 'changelog-mode' = 'upsert'", () => {
  it('EXPLAIN shows the ChangelogNormalize after the source, keyed by the primary key', async () => {
    const engine = createEngine();
    try {
      await engine.execute(SCRIPT(db.url, mkdtempSync(join(tmpdir(), 'weir-cdc-upsert-'))));
      const [result] = await engine.execute('EXPLAIN INSERT INTO by_grp SELECT grp, COUNT(*), SUM(CHAR_LENGTH(body)) FROM docs GROUP BY grp');
      const plan = result?.kind === 'text' ? result.text : '';
      expect(plan).toMatch(/ChangelogNormalize\(key=\[id\], changelogMode=\[I,UB,UA,D\]\)\n\s+\+- Exchange\(distribution=\[hash\[id\]\], changelogMode=\[I,UA,D\]\)\n\s+\+- TableSourceScan\(table=\[\[default_catalog, default_database, docs\]\]/);
    } finally {
      await engine.close();
    }
  });

  it('a copy and an aggregate of a REPLICA IDENTITY DEFAULT table equal the batch answer while it changes', async () => {
    const warnings: string[] = [];
    const engine = createEngine({ onWarning: (m) => warnings.push(m) });
    const dir = mkdtempSync(join(tmpdir(), 'weir-cdc-upsert-'));
    await engine.execute(SCRIPT(db.url, dir));
    const results = await engine.execute(`EXECUTE STATEMENT SET BEGIN
      INSERT INTO docs_copy SELECT * FROM docs;
      INSERT INTO by_grp SELECT grp, COUNT(*), SUM(CHAR_LENGTH(body)) FROM docs GROUP BY grp;
    END;`);
    const job = (results[results.length - 1] as Extract<StatementResult, { kind: 'job' }>).job;
    try {
      await churn(db.url, 60);
      const copy = await waitUntilEqual(db.url, 'SELECT id, grp, title, body FROM docs', 'SELECT id, grp, title, body FROM docs_copy', 30_000);
      expect(job.status, String(job.error)).toBe('RUNNING');
      expect(copy).toEqual([]);
      const totals = await waitUntilEqual(db.url, 'SELECT grp, count(*) AS n, sum(char_length(body)) AS body_chars FROM docs GROUP BY grp', 'SELECT grp, n, body_chars FROM by_grp', 10_000);
      expect(totals).toEqual([]);
    } finally {
      await job.cancel();
      await engine.close();
    }
    expect(warnings).toEqual([]);
  });
});
