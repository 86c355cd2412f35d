/**
 * timestamp(6)/timestamptz(6) values from Postgres back into Postgres at their full microsecond
 * precision: a table captured by postgres-cdc as TIMESTAMP(6)/TIMESTAMP_LTZ(6) (epoch nanos in
 * weir), grouped by a timestamp(6) key one microsecond apart from its neighbours with COUNT, MIN
 * and MAX into the postgres sink, equals the same query run by Postgres (EXCEPT ALL both ways
 * empty) — after the snapshot, after updates, deletes and inserts, and after the job is stopped
 * with a savepoint and resumed from it while the table kept changing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import { startJob } from '../../support/jobs.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { cdcDatabase, dropDatabaseAndSlots, waitUntilEqual } from './cdc-test-support.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await cdcDatabase('cdc_stamps');
});

afterAll(async () => {
  await dropDatabaseAndSlots(db);
});

const BATCH = 'SELECT grp, count(*) AS n, min(at) AS lo, max(seen) AS hi FROM stamps GROUP BY grp';
const SINK = 'SELECT grp, n, lo, hi FROM totals';

function script(dir: string, resume?: string): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '100 ms';
    SET 'pipeline.name' = 'cdc-stamps';
    ${resume === undefined ? '' : `SET 'execution.savepoint.path' = '${resume}';`}
    CREATE TABLE stamps (id INT, grp TIMESTAMP(6), at TIMESTAMP(6), seen TIMESTAMP_LTZ(6), PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'postgres-cdc', 'url' = '${db.url}', 'table-name' = 'public.stamps', 'slot.name' = 'cdc_stamps');
    CREATE TABLE totals (grp TIMESTAMP(6), n BIGINT, lo TIMESTAMP(6), hi TIMESTAMP_LTZ(6), PRIMARY KEY (grp) NOT ENFORCED)
      WITH ('connector' = 'postgres', 'url' = '${db.url}', 'table-name' = 'totals');
    INSERT INTO totals SELECT grp, COUNT(*), MIN(at), MAX(seen) FROM stamps GROUP BY grp;`;
}

async function equalSoon(job: JobHandle): Promise<void> {
  const left = await waitUntilEqual(db.url, BATCH, SINK, 30_000);
  expect(job.status, String(job.error)).toBe('RUNNING');
  expect(left).toEqual([]);
}

describe('postgres-cdc and the postgres sink with microsecond timestamps', () => {
  it('keep every microsecond through GROUP BY, MIN/MAX, changes and a savepoint restore', async () => {
    await db.client.query('CREATE TABLE stamps (id int PRIMARY KEY, grp timestamp(6) NOT NULL, at timestamp(6), seen timestamptz(6) NOT NULL)');
    await db.client.query('ALTER TABLE stamps REPLICA IDENTITY FULL');
    // Groups a microsecond apart (before and after 1970); values with every microsecond digit.
    await db.client.query(`INSERT INTO stamps SELECT i,
        timestamp '1969-12-31 23:59:59.999998' + (i % 5) * interval '1 microsecond',
        CASE WHEN i % 13 = 0 THEN NULL ELSE timestamp '2021-01-01 12:34:56.123456' + i * interval '1.000007 second' END,
        timestamptz '1960-06-30 01:02:03.000001+00' + i * interval '12345.678901 second'
      FROM generate_series(1, 300) AS i`);
    const dir = mkdtempSync(join(tmpdir(), 'weir-cdc-stamps-'));

    const first = await startJob(createEngine(), script(dir));
    let resumed: JobHandle | undefined;
    try {
      await equalSoon(first);
      expect((await db.rows<{ n: string }>('SELECT count(*) AS n FROM totals'))[0]!.n).toBe('5');
      // The sink's text has the exact microseconds.
      const lo = await db.rows<{ t: string }>("SELECT lo::text AS t FROM totals WHERE grp = timestamp '1969-12-31 23:59:59.999998'");
      const expectedLo = await db.rows<{ t: string }>("SELECT min(at)::text AS t FROM stamps WHERE grp = timestamp '1969-12-31 23:59:59.999998'");
      expect(lo).toEqual(expectedLo);

      await db.client.query("UPDATE stamps SET at = at - interval '0.000001 second' WHERE id % 3 = 0");
      await db.client.query('DELETE FROM stamps WHERE id % 7 = 1');
      await db.client.query("INSERT INTO stamps VALUES (1001, timestamp '1970-01-01 00:00:00.000003', timestamp '0001-01-01 00:00:00.000001', timestamptz '2262-04-11 23:47:16.854775+00')");
      await equalSoon(first);

      const savepoint = await first.stopWithSavepoint();
      await db.client.query("UPDATE stamps SET grp = timestamp '1970-01-01 00:00:00.000003' WHERE id = 2");
      await db.client.query('DELETE FROM stamps WHERE id = 5');
      await db.client.query("INSERT INTO stamps VALUES (1002, timestamp '1969-12-31 23:59:59.999999', timestamp '9999-12-31 23:59:59.999999', timestamptz '1900-01-01 00:00:00.000001+00')");
      resumed = await startJob(createEngine(), script(dir, savepoint));
      expect(resumed.resumedFrom?.path).toBe(savepoint);
      await equalSoon(resumed);
    } finally {
      await first.cancel().catch(() => undefined);
      await resumed?.cancel();
    }
  });
});
