/**
 * Exactly-once end to end under SIGKILL: `weir run` captures a table that keeps changing (in its
 * snapshot, then in the stream), aggregates it and writes the totals into Postgres through the
 * two-phase-commit sink; it is killed three times and restarted each time. Once the changes stop,
 * the last run's totals equal the batch answer over the source table (EXCEPT ALL both ways), and
 * stay equal.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlan, runChild } from '../../support/crash-harness.js';
import { WEIR } from '../../support/weir-cli.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { BATCH_TOTALS, cdcDatabase, churnOrders, createOrdersTable, dropDatabaseAndSlots, SINK_TOTALS, totalsScript, waitUntilEqual } from './cdc-test-support.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await cdcDatabase('cdc_crash');
});

afterAll(async () => {
  await dropDatabaseAndSlots(db);
});

describe('postgres-cdc under SIGKILL', () => {
  it('killed three times while the table changes: the totals equal the batch answer', { timeout: 150_000 }, async () => {
    await createOrdersTable(db.url, 20_000);
    const dir = mkdtempSync(join(tmpdir(), 'weir-cdc-crash-'));
    const script = join(dir, 'job.sql');
    writeFileSync(script, totalsScript(db.url, join(dir, 'checkpoints'), 'crash_totals'));
    let stopChurn = false;
    const churn = churnOrders(db.url, 100_000, 3, () => stopChurn);
    let log = '';
    try {
      const plan = new FaultPlan('postgres-cdc crash');
      for (const delay of [4000, 6000, 5000]) {
        const run = await runChild(script, { cwd: dir, killAfterMs: plan.delay(`kill after ~${delay}`, delay, delay + 500) });
        log += `\n--- run killed after ${delay}\n` + run.stderr;
        expect(run.signal, `the run must be killed, not end: ${run.stderr}`).toBe('SIGKILL');
      }
    } finally {
      stopChurn = true;
      await churn;
    }
    const last = spawn(process.execPath, [WEIR, 'run', script], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    last.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    try {
      const left = await waitUntilEqual(db.url, BATCH_TOTALS, SINK_TOTALS, 60_000);
      expect(left, stderr).toEqual([]);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await waitUntilEqual(db.url, BATCH_TOTALS, SINK_TOTALS, 0), stderr).toEqual([]);
      expect(last.exitCode, stderr).toBeNull();
    } finally {
      last.kill('SIGKILL');
    }
    expect(`${log}${stderr}`).not.toMatch(/ERROR/);
    expect(log, 'a killed run was resumed from a checkpoint').toMatch(/resumed from checkpoint \d+/);
  });
});
