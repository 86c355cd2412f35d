/**
 * The system tables `weir.jobs`, `weir.operators`, `weir.checkpoints`, SHOW METRICS and the
 * Prometheus text, read through the engine while real jobs run: records grow and end at counts
 * computed independently (a sequence filtered by arithmetic), checkpoint rows match the files
 * on disk, pending two-phase-commit transactions match `pg_prepared_xacts` of a real server.
 */
import { readdirSync, statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { setFailpoints } from '../../src/runtime/checkpoint/failpoints.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { startJob } from '../support/jobs.js';

const ROWS = 6000;

/** A sequence 1..ROWS at `rate` rows/s with an event-time watermark, and a blackhole sink of every third id. */
const SOURCE = (rate: number): string => `
  CREATE TABLE src (id BIGINT, k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'datagen', 'rows-per-second' = '${rate}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
          'fields.id.end' = '${ROWS}', 'fields.k.min' = '0', 'fields.k.max' = '19');
  CREATE TABLE thirds (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');`;

const engines: Engine[] = [];

function engine(): Engine {
  const e = createEngine({ onWarning: () => {} });
  engines.push(e);
  return e;
}

afterEach(async () => {
  setFailpoints('');
  for (const e of engines.splice(0)) await e.close().catch(() => undefined);
});

async function rows(e: Engine, sql: string): Promise<{ names: string[]; rows: unknown[][] }> {
  const [result] = await e.execute(sql);
  if (result?.kind !== 'rows') throw new Error(`expected rows, got ${result?.kind}`);
  return { names: result.schema.map((f) => f.name), rows: result.rows.map((r) => [...r]) };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('system tables', () => {
  it('weir.operators: records grow while the job runs and end at the independently computed counts', async () => {
    const e = engine();
    const job = await startJob(e, `${SOURCE(4000)} INSERT INTO thirds SELECT k, COUNT(*) FROM src WHERE MOD(id, 3) = 0 GROUP BY k;`);
    const query = `SELECT operator_id, kind, records_in, records_out, busy_ms, busy_ratio, watermark, watermark_lag_ms, state_entries
      FROM weir.operators WHERE job_id = '${job.id}' ORDER BY operator_id`;
    await sleep(400);
    const first = await rows(e, query);
    await sleep(500);
    const second = await rows(e, query);
    expect(first.names).toEqual(['operator_id', 'kind', 'records_in', 'records_out', 'busy_ms', 'busy_ratio', 'watermark', 'watermark_lag_ms', 'state_entries']);
    expect(first.rows.map((r) => r[0])).toEqual(job.metrics().map((m) => m.node).sort());
    const sourceOut = (r: { rows: unknown[][] }): number => r.rows.find((row) => row[1] === 'source')![3] as number;
    expect(sourceOut(first)).toBeGreaterThan(0);
    expect(sourceOut(second)).toBeGreaterThan(sourceOut(first));
    expect(sourceOut(second)).toBeLessThan(ROWS);
    for (const row of second.rows) {
      expect(row[5]).toBeGreaterThanOrEqual(0);
      expect(row[5]).toBeLessThanOrEqual(1);
      if (row[6] !== null) expect(row[7]).toBeGreaterThan(Date.now() - (row[6] as number) - 5000);
    }
    // Event time starts at datagen's base time (2024-01-01) and the watermark trails it.
    const aggregate = second.rows.find((r) => r[1] === 'group-aggregate')!;
    expect(aggregate[6]).toBeGreaterThanOrEqual(Date.UTC(2024, 0, 1) - 1000);

    expect(await job.result()).toBe('FINISHED');
    const final = await rows(e, query);
    const byKind = new Map(final.rows.map((r) => [r[1], r]));
    expect(byKind.get('source')![3]).toBe(ROWS);
    // The filter runs in the watermark assigner, into which the planner fuses the Calcs around it.
    expect(byKind.get('watermark-assigner')![3]).toBe(ROWS / 3);
    // 20 keys, every one reached by ids divisible by 3.
    expect(byKind.get('group-aggregate')![8]).toBe(20);
    const totalBusy = final.rows.reduce((n, r) => n + (r[4] as number), 0);
    const [uptime] = (await rows(e, `SELECT uptime_ms FROM weir.jobs WHERE job_id = '${job.id}'`)).rows[0]!;
    expect(totalBusy).toBeLessThanOrEqual((uptime as number) + 1000);

    const jobs = await rows(e, `SELECT job_id, status, records_in, records_rejected, error, avg_records_in_per_second, records_in_per_second FROM weir.jobs`);
    expect(jobs.rows.map((r) => r.slice(0, 5))).toEqual([[job.id, 'FINISHED', ROWS, 0, null]]);
    // The average over the run is bounded by the source's configured 4000 rows/s; the recent rate of an ended job is 0.
    expect(jobs.rows[0]![5]).toBeGreaterThan(1000);
    expect(jobs.rows[0]![5]).toBeLessThanOrEqual(4000 * 1.1);
    expect(jobs.rows[0]![6]).toBe(0);
  });

  it('weir.checkpoints: rows for the checkpoints taken, with sizes covering the state files on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-systables-'));
    const e = engine();
    const job = await startJob(
      e,
      `SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '1 h'; SET 'state.checkpoints.num-retained' = '5';
       ${SOURCE(3000)} INSERT INTO thirds SELECT k, COUNT(*) FROM src GROUP BY k;`,
    );
    await sleep(300);
    const paths = [await job.checkpoint(), await job.checkpoint()];
    const checkpoints = await rows(e, `SELECT checkpoint_id, kind, status, duration_ms, size_bytes, failure, sync_duration_ms FROM weir.checkpoints WHERE job_id = '${job.id}' ORDER BY checkpoint_id`);
    expect(checkpoints.rows.map((r) => [r[0], r[1], r[2], r[5]])).toEqual([
      [1, 'checkpoint', 'COMPLETED', null],
      [2, 'checkpoint', 'COMPLETED', null],
    ]);
    for (const [i, path] of paths.entries()) {
      const stateBytes = readdirSync(path)
        .filter((f) => f !== '_metadata')
        .reduce((n, f) => n + statSync(join(path, f)).size, 0);
      expect(stateBytes).toBeGreaterThan(0);
      expect(checkpoints.rows[i]![4]).toBeGreaterThanOrEqual(stateBytes);
      expect(checkpoints.rows[i]![3]).toBeGreaterThanOrEqual(0);
      expect(checkpoints.rows[i]![6]).toBeGreaterThan(0);
      expect(checkpoints.rows[i]![6]).toBeLessThanOrEqual((checkpoints.rows[i]![3] as number) + 1);
    }
    const [jobRow] = (await rows(e, `SELECT checkpoints_completed, checkpoints_failed, last_checkpoint_id, last_checkpoint_size_bytes FROM weir.jobs`)).rows;
    expect(jobRow).toEqual([2, 0, 2, checkpoints.rows[1]![4]]);
    const [aggregate] = (await rows(e, `SELECT state_bytes FROM weir.operators WHERE kind = 'group-aggregate'`)).rows;
    expect(aggregate![0]).toBeGreaterThan(0);
    // A query over system tables takes no checkpoint of its own, though checkpointing is on.
    expect(readdirSync(dir).sort()).toEqual([readdirSync(dir).find((d) => d.startsWith('insert-into'))!]);
    await job.cancel();
  });

  it('counts the transactions an exactly-once Postgres sink left prepared, as pg_prepared_xacts does', async () => {
    const url = await freshDatabase('weir_metrics');
    const dir = mkdtempSync(join(tmpdir(), 'weir-systables-pg-'));
    const e = engine();
    setFailpoints('sink.after-complete-before-commit=error');
    const job = await startJob(
      e,
      `SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '1 h'; SET 'restart-strategy.type' = 'none';
       ${SOURCE(3000)}
       CREATE TABLE pg_thirds (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
         WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'thirds', 'sink.semantic' = 'exactly-once');
       INSERT INTO pg_thirds SELECT k, COUNT(*) FROM src GROUP BY k;`,
    );
    await sleep(300);
    await expect(job.checkpoint()).rejects.toThrow(/failpoint/);
    expect(await job.result()).toBe('FAILED');
    const prepared = await pgQuery<{ gid: string }>(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()');
    try {
      expect(prepared.length).toBe(1);
      const sinks = await rows(e, `SELECT operator_id, pending_transactions FROM weir.operators WHERE kind = 'sink'`);
      expect(sinks.rows.map((r) => r[1])).toEqual([prepared.length]);
      const [jobRow] = (await rows(e, `SELECT status, pending_transactions, error FROM weir.jobs WHERE job_id = '${job.id}'`)).rows;
      expect(jobRow!.slice(0, 2)).toEqual(['FAILED', 1]);
      expect(jobRow![2]).toMatch(/failpoint/);
      expect(await e.metricsText()).toMatch(new RegExp(`^weir_sink_pending_transactions\\{job="${job.id}",[^}]*\\} 1$`, 'm'));
    } finally {
      for (const { gid } of prepared) await pgQuery(url, `ROLLBACK PREPARED '${gid}'`);
    }
  });

  it('DESCRIBE, SHOW METRICS, aggregation over system tables, and clear errors', async () => {
    const e = engine();
    const job = await startJob(e, `${SOURCE(2000)} INSERT INTO thirds SELECT k, COUNT(*) FROM src GROUP BY k;`);
    await sleep(200);
    const described = await rows(e, 'DESCRIBE weir.jobs');
    const all = await rows(e, 'SELECT * FROM weir.jobs');
    expect(described.rows.map((r) => r[0])).toEqual(all.names);
    expect(described.rows.find((r) => r[0] === 'start_time')![1]).toBe('TIMESTAMP_LTZ(3)');
    const [created] = await e.execute('SHOW CREATE TABLE weir.jobs');
    expect(created?.kind === 'text' && created.text).toMatch(/^CREATE TABLE weir\.jobs \(\n  job_id STRING NOT NULL,[\s\S]*'connector' = 'weir-system'/);
    expect((await rows(e, 'SHOW TABLES')).rows).toEqual([['src'], ['thirds']]);

    const metrics = await rows(e, 'SHOW METRICS');
    expect(metrics.rows.map((r) => r[1])).toEqual(job.metrics().map((m) => m.node));
    expect(metrics.rows.every((r) => r[0] === job.id)).toBe(true);

    const perKind = await e.query(`SELECT kind, COUNT(*) AS n FROM weir.operators GROUP BY kind`);
    expect(Object.fromEntries(perKind.map((r) => [r['kind'], r['n']]))).toEqual({ source: 1, 'watermark-assigner': 1, 'group-aggregate': 1, sink: 1 });
    const limited = await rows(e, 'SELECT operator_id FROM weir.operators ORDER BY 1 DESC LIMIT 2 OFFSET 1');
    expect(limited.rows.map((r) => r[0])).toEqual(job.metrics().map((m) => m.node).sort().reverse().slice(1, 3));
    // The source has no watermark: NULL sorts first ascending and last descending (Flink's order) unless told otherwise.
    const nullsAt = async (order: string): Promise<string> => {
      const watermarks = (await rows(e, `SELECT operator_id, watermark FROM weir.operators ORDER BY watermark ${order}, operator_id`)).rows.map((r) => r[1]);
      expect(watermarks).toContain(null);
      const first = watermarks.indexOf(null);
      const last = watermarks.lastIndexOf(null);
      expect(watermarks.slice(first, last + 1).every((w) => w === null)).toBe(true);
      return first === 0 ? 'first' : last === watermarks.length - 1 ? 'last' : 'between';
    };
    expect(await nullsAt('')).toBe('first');
    expect(await nullsAt('NULLS LAST')).toBe('last');
    expect(await nullsAt('DESC')).toBe('last');
    expect(await nullsAt('DESC NULLS FIRST')).toBe('first');

    const failure = async (sql: string): Promise<WeirError> => {
      const error = await e.execute(sql).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(WeirError);
      return error as WeirError;
    };
    expect((await failure('SELECT * FROM weir.job')).hint).toMatch(/weir\.jobs/);
    expect((await failure("INSERT INTO weir.jobs SELECT * FROM weir.jobs")).message).toMatch(/read-only system tables/);
    expect((await failure('SELECT job_id FROM weir.jobs ORDER BY UPPER(job_id)')).message).toMatch(/name or position of an output column/);
    expect((await failure('SELECT job_idd FROM weir.jobs ORDER BY 1')).message).toMatch(/job_idd/);
    // Queries of system tables are not jobs of the session.
    expect(e.session.jobs()).toEqual([job]);
  });

  it('the Prometheus text carries the same counters as weir.operators', async () => {
    const e = engine();
    const job = await startJob(e, `${SOURCE(20000)} INSERT INTO thirds SELECT k, COUNT(*) FROM src GROUP BY k;`);
    expect(await job.result()).toBe('FINISHED');
    const text = await e.metricsText();
    const { rows: operators } = await rows(e, `SELECT operator_id, records_in, records_out FROM weir.operators`);
    for (const [operator, recordsIn, recordsOut] of operators) {
      const labels = `job="${job.id}",job_name="${job.name}",operator="${operator as string}"`;
      expect(text).toContain(`weir_operator_records_in_total{${labels}} ${recordsIn as number}\n`);
      expect(text).toContain(`weir_operator_records_out_total{${labels}} ${recordsOut as number}\n`);
    }
    expect(text).toContain('# TYPE weir_operator_records_in_total counter');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
  });
});
