/**
 * Checkpoints, savepoints and restore through the engine, in process: a job stopped with a
 * savepoint and resumed leaves exactly the changelog of an uninterrupted run (transactional
 * sink), also when the parallelism changes; ids keep rising; a checkpoint of another query is
 * refused; a finished job is not run again; buffered sink rows survive in operator state.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { loadCompletedCheckpoint, referencedCheckpoints } from '../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { materialize } from '../runtime/operator-harness.js';
import { bufferingConnector, resetSent, sent } from '../support/buffering-sink.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 20_000;

function engine(): Engine {
  return createEngine({ connectors: [collectConnector, bufferingConnector], onWarning: () => {} });
}

function ddl(dir: string, options: { parallelism?: number; rate?: number } = {}): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'pipeline.name' = 'totals';
    SET 'parallelism.default' = '${options.parallelism ?? 1}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '${options.rate ?? 40000}',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '99', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE totals (k INT, n BIGINT, total INT, hi INT) WITH ('connector' = 'collect', 'transactional' = 'true');`;
}

const QUERY = 'INSERT INTO totals SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k';

/** The answer of an uninterrupted run without checkpoints, computed by weir in a separate engine. */
async function expectedTotals(dir: string): Promise<unknown[][]> {
  const e = engine();
  const job = await startJob(e, `${ddl(dir).replace(/SET 'execution.checkpointing.interval' = '50 ms';/, '').replace("SET 'pipeline.name' = 'totals';", "SET 'pipeline.name' = 'reference';")}
    CREATE TABLE reference (k INT, n BIGINT, total INT, hi INT) WITH ('connector' = 'collect');
    INSERT INTO reference SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k;`);
  expect(await job.result()).toBe('FINISHED');
  return materialize(collected('reference'));
}

async function waitForCheckpoint(job: JobHandle): Promise<void> {
  while (job.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
}

beforeEach(() => {
  resetCollected();
  resetSent();
});

describe('checkpointing', () => {
  it('a job stopped with a savepoint and resumed leaves exactly the uninterrupted changelog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const expected = await expectedTotals(dir);
    const first = await startJob(engine(), `${ddl(dir)} ${QUERY}`);
    await waitForCheckpoint(first);
    const savepoint = await first.stopWithSavepoint();
    expect(savepoint).toMatch(/savepoint-\d+$/);
    const partial = collected('totals').length;
    expect(partial).toBeGreaterThan(0);

    const second = await startJob(engine(), `${ddl(dir)} SET 'execution.savepoint.path' = '${savepoint}'; ${QUERY}`);
    expect(second.resumedFrom?.path).toBe(savepoint);
    expect(await second.result()).toBe('FINISHED');
    expect(materialize(collected('totals'))).toEqual(expected);
  });

  it('resumes from the latest checkpoint at another parallelism, redistributing keyed state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const expected = await expectedTotals(dir);
    const first = await startJob(engine(), `${ddl(dir, { parallelism: 1, rate: 8000 })} ${QUERY}`);
    await waitForCheckpoint(first);
    await first.stopWithSavepoint();
    const second = await startJob(engine(), `${ddl(dir, { parallelism: 4, rate: 8000 })} ${QUERY}`);
    expect(second.resumedFrom).toBeDefined();
    await waitForCheckpoint(second);
    await second.stopWithSavepoint();
    const third = await startJob(engine(), `${ddl(dir, { parallelism: 2, rate: 8000 })} ${QUERY}`);
    expect(await third.result()).toBe('FINISHED');
    expect(materialize(collected('totals'))).toEqual(expected);
  });

  it('keeps checkpoint ids rising across restarts and retains two checkpoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const first = await startJob(engine(), `${ddl(dir, { rate: 10000 })} ${QUERY}`);
    await waitForCheckpoint(first);
    const firstId = (await first.stopWithSavepoint()).match(/(\d+)$/)![1];
    const second = await startJob(engine(), `${ddl(dir, { rate: 10000 })} ${QUERY}`);
    await waitForCheckpoint(second);
    expect(second.lastCheckpoint!.id).toBeGreaterThan(Number(firstId));
    await new Promise((r) => setTimeout(r, 300));
    await second.cancel();
    const folders = readdirSync(join(dir, 'totals')).filter((f) => f.startsWith('chk-'));
    // Two retained, one possibly in progress, and the folders whose files the retained ones' incremental chains use.
    const completed = folders.filter((f) => existsSync(join(dir, 'totals', f, '_metadata'))).sort((a, b) => Number(b.slice(4)) - Number(a.slice(4)));
    const referenced = new Set<string>();
    for (const folder of completed.slice(0, 2)) for (const id of referencedCheckpoints((await loadCompletedCheckpoint(join(dir, 'totals', folder))).metadata)) referenced.add(`chk-${id}`);
    expect(folders.filter((f) => !referenced.has(f)).length).toBeLessThanOrEqual(3);
  });

  it('reports a finished job as finished instead of running it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const job = await startJob(engine(), `${ddl(dir, { rate: 1000000 })} ${QUERY}`);
    expect(await job.result()).toBe('FINISHED');
    const results = await engine().execute(`${ddl(dir)} ${QUERY}`);
    expect(results[results.length - 1]).toMatchObject({ kind: 'ok', message: expect.stringMatching(/^Job 'totals' already finished \(its final checkpoint \d+ is at .*\); not run again/) });
  });

  it('names the checkpoints of a job without pipeline.name after its statement, and finds them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const script = `${ddl(dir, { rate: 1000000 }).replace("SET 'pipeline.name' = 'totals';", '')} ${QUERY}`;
    const job = await startJob(engine(), script);
    expect(await job.result(), String(job.error)).toBe('FINISHED');
    const [folder] = readdirSync(dir);
    expect(folder).toMatch(/^insert-into_default_catalog\.default_database\.totals-[0-9a-f]{8}$/);
    const again = await engine().execute(script);
    expect(again[again.length - 1]).toMatchObject({ kind: 'ok', message: expect.stringContaining('already finished') });
  });

  it('refuses a checkpoint taken by a different query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const first = await startJob(engine(), `${ddl(dir, { rate: 10000 })} ${QUERY}`);
    await waitForCheckpoint(first);
    await first.stopWithSavepoint();
    const other = await startJob(engine(), `${ddl(dir)} INSERT INTO totals SELECT k, COUNT(*), SUM(v), MIN(v) FROM src GROUP BY k`);
    expect(await other.result()).toBe('FAILED');
    expect(String(other.error)).toMatch(/was taken by a different query than job 'totals' runs now; it cannot be restored/);
  });

  it('STOP JOB ... WITH SAVEPOINT stops a job and SHOW JOBS lists it with its last savepoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const e = engine();
    const job = await startJob(e, `${ddl(dir, { rate: 5000 })} ${QUERY}`);
    await waitForCheckpoint(job);
    const [stopped, jobs] = await e.execute(`STOP JOB '${job.id}' WITH SAVEPOINT; SHOW JOBS;`);
    expect(stopped).toMatchObject({ kind: 'ok', message: expect.stringMatching(new RegExp(`^Job '${job.id}' stopped with savepoint .*savepoint-(\\d+)$`)) });
    const savepointId = /savepoint-(\d+)$/.exec((stopped as { message: string }).message)![1];
    expect(jobs).toMatchObject({
      kind: 'rows',
      rows: [[job.id, 'totals', 'CANCELED', expect.any(String), expect.stringMatching(/^\d+\.\d s$/), `savepoint ${savepointId}`, expect.stringMatching(/^[1-9]\d*$/), expect.stringMatching(/^[1-9]\d*$/), '0', '0', null]],
    });
    await new Promise((r) => setTimeout(r, 250));
    const [later] = await e.execute('SHOW JOBS');
    const uptime = (result: unknown): unknown => (result as { rows: unknown[][] }).rows[0]![4];
    expect(uptime(later), 'the uptime of a stopped job stops at its end').toBe(uptime(jobs));
    await expect(e.execute("STOP JOB 'nope'")).rejects.toThrow("no job with id 'nope'");
  });

  it('FLUSH returns once every running job has checkpointed and its sinks committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const e = engine();
    await e.execute(`SET 'execution.checkpointing.interval' = '1 h'; ${ddl(dir, { rate: 2000 }).replace("SET 'execution.checkpointing.interval' = '50 ms';", '')}`);
    const job = await startJob(e, QUERY);
    await new Promise((r) => setTimeout(r, 200));
    expect(collected('totals')).toEqual([]);
    const [flushed] = await e.execute('FLUSH');
    expect(flushed).toMatchObject({ kind: 'ok', message: expect.stringMatching(/^Flushed 1 job\(s\): chk-\d+ committed\.$/) });
    expect(collected('totals').length).toBeGreaterThan(0);
    await job.cancel();
    expect(await createEngine().execute('FLUSH')).toEqual([{ kind: 'ok', message: 'No running job takes checkpoints; nothing to flush.' }]);
  });

  it('refuses EXACTLY_ONCE for a source that cannot replay, and names the way out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const e = createEngine({
      connectors: [
        collectConnector,
        { descriptor: { name: 'live', description: 'cannot replay', options: [], source: { changelog: 'insert-only', traits: () => ({ bounded: false, replayable: false }) } } },
      ],
    });
    await e.execute(`SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '1 s';
      CREATE TABLE feed (x INT) WITH ('connector' = 'live'); CREATE TABLE out_t (x INT) WITH ('connector' = 'collect');`);
    await expect(e.execute('INSERT INTO out_t SELECT x FROM feed')).rejects.toMatchObject({
      message: "source table 'feed' (connector 'live') cannot replay from a checkpoint, so the job cannot run EXACTLY_ONCE",
      hint: "SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE' to accept duplicates after a failure",
    });
  });

  it('keeps unflushed rows of a buffering sink in operator state across a stop and resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-'));
    const script = `${ddl(dir, { rate: 20000 })}
      CREATE TABLE out_t (id BIGINT) WITH ('connector' = 'buffering', 'threshold' = '700');
      INSERT INTO out_t SELECT id FROM src;`;
    const first = await startJob(engine(), script.replace("'totals'", "'buffered'"));
    await waitForCheckpoint(first);
    await first.stopWithSavepoint();
    const second = await startJob(engine(), script.replace("'totals'", "'buffered'"));
    expect(await second.result()).toBe('FINISHED');
    const ids = new Set(sent('out_t').map((r) => r[0]));
    expect(ids.size).toBe(ROWS);
  });
});
