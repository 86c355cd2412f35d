/**
 * CDC through the engine: a Postgres table, captured while it keeps changing, feeds a GROUP BY
 * whose result lands exactly once in a Postgres table; once the changes stop, that table equals
 * the same query computed by Postgres over the source table (EXCEPT ALL both ways empty).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { BATCH_TOTALS, cdcDatabase, churnOrders, createOrdersTable, dropDatabaseAndSlots, SINK_TOTALS, totalsScript, waitUntilEqual } from './cdc-test-support.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await cdcDatabase('cdc_engine');
});

afterAll(async () => {
  await dropDatabaseAndSlots(db);
});

describe('postgres-cdc in a job', () => {
  it('CDC → GROUP BY → exactly-once postgres sink equals the batch answer', async () => {
    await createOrdersTable(db.url, 3000);
    const warnings: string[] = [];
    const engine = createEngine({ onWarning: (m) => warnings.push(m) });
    const dir = mkdtempSync(join(tmpdir(), 'weir-cdc-engine-'));
    const churn = churnOrders(db.url, 150, 1);
    const results = await engine.execute(totalsScript(db.url, dir, 'engine_totals'));
    const job = (results[results.length - 1] as Extract<StatementResult, { kind: 'job' }>).job;
    try {
      await churn;
      await churnOrders(db.url, 150, 2);
      const left = await waitUntilEqual(db.url, BATCH_TOTALS, SINK_TOTALS, 30_000);
      expect(job.status, String(job.error)).toBe('RUNNING');
      expect(left).toEqual([]);
      expect((await db.rows<{ n: string }>('SELECT count(*) AS n FROM totals'))[0]!.n).toBe('13');
    } finally {
      await job.cancel();
    }
    expect(warnings).toEqual([]);
  });
});
