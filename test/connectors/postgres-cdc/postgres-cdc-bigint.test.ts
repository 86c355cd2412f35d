/**
 * int8 values over the whole 64-bit range from Postgres back into Postgres: a table with ids at
 * ±2^63 bounds, around 2^53 and snowflake-like, captured by postgres-cdc, self-joined on a BIGINT
 * key and grouped by one with COUNT, SUM, MIN and MAX into the postgres sink, equals the same
 * query run by Postgres (EXCEPT ALL both ways empty) — after the snapshot, after updates, deletes
 * and inserts, and after the job is stopped with a savepoint and resumed from it (state restored
 * with values beyond 2^53) while the table kept changing.
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
  db = await cdcDatabase('cdc_bigint');
});

afterAll(async () => {
  await dropDatabaseAndSlots(db);
});

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const GROUPS = [9223372036854775807n, -9223372036854775808n, SAFE + 1n, SAFE + 2n, -SAFE - 2n, 8821808526777993777n, SAFE, 7n];

/** A snowflake-like id (milliseconds, worker, sequence in 64 bits). */
const snowflake = (i: number): bigint => ((1_700_000_000_000n + BigInt(i * 104729)) << 22n) | (BigInt(i % 1024) << 12n) | BigInt(i % 4096);

/** Deterministic values within ±2^56, so that no group's sum leaves 64 bits and Postgres's exact sum casts back to bigint. */
const value = (i: number): bigint => (BigInt(i) * 72057594037927935n * (i % 2 === 0 ? 1n : -1n)) % 2n ** 56n;

const BATCH = `SELECT a.grp, count(*) AS n, sum(a.v)::bigint AS total, min(a.id) AS lo, max(a.id) AS hi, max(b.id) AS partner
  FROM ids a JOIN ids b ON a.grp = b.id GROUP BY a.grp`;
const SINK = 'SELECT grp, n, total, lo, hi, partner FROM totals';

function script(dir: string, resume?: string): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '100 ms';
    SET 'pipeline.name' = 'cdc-bigint';
    ${resume === undefined ? '' : `SET 'execution.savepoint.path' = '${resume}';`}
    CREATE TABLE ids (id BIGINT, grp BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'postgres-cdc', 'url' = '${db.url}', 'table-name' = 'public.ids', 'slot.name' = 'cdc_bigint');
    CREATE TABLE totals (grp BIGINT, n BIGINT, total BIGINT, lo BIGINT, hi BIGINT, partner BIGINT, PRIMARY KEY (grp) NOT ENFORCED)
      WITH ('connector' = 'postgres', 'url' = '${db.url}', 'table-name' = 'totals');
    INSERT INTO totals SELECT a.grp, COUNT(*), SUM(a.v), MIN(a.id), MAX(a.id), MAX(b.id) FROM ids AS a JOIN ids AS b ON a.grp = b.id GROUP BY a.grp;`;
}

async function equalSoon(job: JobHandle): Promise<void> {
  const left = await waitUntilEqual(db.url, BATCH, SINK, 30_000);
  expect(job.status, String(job.error)).toBe('RUNNING');
  expect(left).toEqual([]);
}

describe('postgres-cdc and the postgres sink with 64-bit BIGINT values', () => {
  it('keep every int8 exactly through a join, GROUP BY, SUM, MIN/MAX, changes and a savepoint restore', async () => {
    await db.client.query('CREATE TABLE ids (id bigint PRIMARY KEY, grp bigint NOT NULL, v bigint NOT NULL)');
    await db.client.query('ALTER TABLE ids REPLICA IDENTITY FULL');
    const rows: string[] = GROUPS.map((id, i) => `(${id}, ${GROUPS[(i + 3) % GROUPS.length]}, ${value(i)})`);
    for (let i = GROUPS.length; i < 300; i++) rows.push(`(${snowflake(i)}, ${GROUPS[i % GROUPS.length]}, ${value(i)})`);
    await db.client.query(`INSERT INTO ids VALUES ${rows.join(', ')}`);
    const dir = mkdtempSync(join(tmpdir(), 'weir-cdc-bigint-'));

    const first = await startJob(createEngine(), script(dir));
    let resumed: JobHandle | undefined;
    try {
      await equalSoon(first);
      expect((await db.rows<{ n: string }>('SELECT count(*) AS n FROM totals'))[0]!.n).toBe(String(GROUPS.length));
      // The sink holds the exact digits (pg returns int8 as text).
      const top = await db.rows<{ total: string; hi: string }>(`SELECT total, hi FROM totals WHERE grp = ${GROUPS[0]}`);
      const expectedTop = await db.rows<{ total: string; hi: string }>(`SELECT sum(v)::bigint::text AS total, max(id)::text AS hi FROM ids WHERE grp = ${GROUPS[0]}`);
      expect(top).toEqual(expectedTop);

      await db.client.query(`UPDATE ids SET v = -v + 9007199254740993 WHERE id % 3 = 0 AND id > ${SAFE}`);
      await db.client.query(`DELETE FROM ids WHERE id % 7 = 1 AND id > ${SAFE + 2n}`);
      await db.client.query(`INSERT INTO ids VALUES (9223372036854775806, ${GROUPS[1]}, -9007199254740993), (-9223372036854775807, ${GROUPS[0]}, 9007199254740993)`);
      await equalSoon(first);

      const savepoint = await first.stopWithSavepoint();
      await db.client.query(`UPDATE ids SET grp = ${GROUPS[5]} WHERE id = 9223372036854775806`);
      await db.client.query(`DELETE FROM ids WHERE id = -9223372036854775807`);
      await db.client.query(`INSERT INTO ids VALUES (${snowflake(1000)}, ${GROUPS[2]}, 123456789012345678)`);
      resumed = await startJob(createEngine(), script(dir, savepoint));
      expect(resumed.resumedFrom?.path).toBe(savepoint);
      await equalSoon(resumed);
    } finally {
      await first.cancel().catch(() => undefined);
      await resumed?.cancel();
    }
  });
});
