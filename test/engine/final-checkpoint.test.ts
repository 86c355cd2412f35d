/**
 * A bounded job does not end in a full snapshot (FLIP-147): its operators process end of input
 * before the final checkpoint, so they have emitted all they ever will and put no keyed state
 * into it — only sources' offsets and sinks' prepared transactions, each subtask marked finished.
 * The periodic checkpoints before it still hold the state. A finished checkpoint restores
 * finished, at any parallelism: nothing is read again (not even input added since), the job is
 * reported finished; a changed query is reported finished, not run. In a graph of parts (the
 * materialized views) the finished parts start finished while a new part runs.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { CHECKPOINT_METADATA_VERSION } from '../../src/runtime/checkpoint/checkpoint-metadata.js';
import { loadCompletedCheckpoint, referencedCheckpoints } from '../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { startJob } from '../support/jobs.js';

const ROWS = 8_000;

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

/** A GROUP BY over a join: it keeps the state of both. */
const QUERY = 'SELECT s.k, COUNT(*), SUM(s.v + d.w), MAX(s.v) FROM src s JOIN dim d ON s.k = d.k GROUP BY s.k';

/** A datagen of ROWS rows over 100 keys joined with one row per key, at 8,000 rows/s (a checkpoint every 50 ms: many before the end). */
function ddl(dir: string, name: string, checkpoints = true, sink = 'out'): string {
  return `${checkpoints ? `SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '50 ms';` : ''}
    SET 'state.checkpoints.num-retained' = '1';
    SET 'pipeline.name' = '${name}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '99', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE dim (k INT, w INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.k.kind' = 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '99', 'fields.w.min' = '0', 'fields.w.max' = '9');
    CREATE TABLE ${sink} (k INT, n BIGINT, total BIGINT, hi INT) WITH ('connector' = 'collect', 'transactional' = 'true');
    INSERT INTO ${sink} ${QUERY}`;
}

beforeEach(() => resetCollected());

async function finished(job: JobHandle): Promise<void> {
  expect(await job.result(), String(job.error)).toBe('FINISHED');
}

describe('the final checkpoint of a bounded job', () => {
  it('holds no keyed state (the periodic ones before it do); the job is exact; older files are let go', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-final-'));
    const reference = await startJob(engine(), ddl(dir, 'reference', false, 'ref'));
    await finished(reference);
    const expected = materialize(collected('ref'));

    const job = await startJob(engine(), ddl(dir, 'joined'));
    await finished(job);
    expect(materialize(collected('out'))).toEqual(expected);

    const completed = job.checkpointHistory().filter((c) => c.status === 'COMPLETED');
    expect(completed.length).toBeGreaterThanOrEqual(3);
    const final = completed[completed.length - 1]!;
    expect(completed.slice(0, -1).some((c) => (c.stateBytes ?? 0) > 10_000), 'a periodic checkpoint holds the join and aggregate state').toBe(true);
    expect(final.stateBytes, 'the final checkpoint holds no keyed state').toBe(0);

    const checkpoint = await loadCompletedCheckpoint(job.lastCheckpoint!.path);
    const { metadata } = checkpoint;
    expect(metadata.checkpointId).toBe(final.id);
    expect(metadata).toMatchObject({ finished: true, version: CHECKPOINT_METADATA_VERSION });
    const kinds = new Set<string>();
    for (const [nodeId, operator] of Object.entries(metadata.operators)) {
      for (const subtask of operator.subtasks) {
        expect(subtask.finished, `${nodeId}#${subtask.subtask} finished`).toBe(true);
        expect(subtask.keyedStateChain, `${nodeId}#${subtask.subtask} keyed state`).toBeUndefined();
        if (nodeId.includes('source')) expect(subtask.operatorState, 'a source keeps its offset').toMatchObject({ offset: expect.anything() });
        kinds.add(nodeId);
      }
    }
    expect([...kinds].some((id) => /join/i.test(id)) && [...kinds].some((id) => /agg/i.test(id)), [...kinds].join(', ')).toBe(true);
    // Retention keeps only the retained (final) checkpoint: it refers to no keyed state file, of its own or of an older chain.
    expect([...referencedCheckpoints(metadata)]).toEqual([]);
    expect(readdirSync(join(dir, 'joined')).filter((f) => f.startsWith('chk-'))).toEqual([`chk-${metadata.checkpointId}`]);
  });
});

describe('restoring a finished checkpoint', () => {
  /** A filesystem source (a folder of JSON files) into a GROUP BY, at `parallelism`. */
  function fileJob(dir: string, input: string, parallelism: number, query = 'INSERT INTO totals SELECT k, COUNT(*), SUM(v) FROM events GROUP BY k'): string {
    return `SET 'state.checkpoints.dir' = '${dir}';
      SET 'execution.checkpointing.interval' = '1 s';
      SET 'pipeline.name' = 'files';
      SET 'parallelism.default' = '${parallelism}';
      CREATE TABLE events (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE TABLE totals (k INT, n BIGINT, total INT) WITH ('connector' = 'collect', 'transactional' = 'true');
      ${query}`;
  }

  function writeEvents(input: string, file: string, from: number): void {
    writeFileSync(join(input, file), Array.from({ length: 1000 }, (_, i) => JSON.stringify({ k: (from + i) % 7, v: from + i })).join('\n'));
  }

  it('at another parallelism: every subtask starts finished, reads nothing (not even a file added since), and the job is reported finished', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-final-'));
    const input = join(dir, 'input');
    mkdirSync(input);
    writeEvents(input, 'a.json', 0);
    const first = await startJob(engine(), fileJob(dir, input, 2));
    await finished(first);
    const totals = materialize(collected('totals'));
    expect(totals).toHaveLength(7);
    const changes = collected('totals').length;

    writeEvents(input, 'b.json', 1000);
    for (const parallelism of [1, 3]) {
      const results = await engine().execute(fileJob(dir, input, parallelism));
      expect(results[results.length - 1]).toMatchObject({ kind: 'ok', message: expect.stringMatching(/^Job 'files' already finished \(its final checkpoint \d+ is at .*\); not run again/) });
      expect(collected('totals'), `at parallelism ${parallelism}, nothing more is emitted`).toHaveLength(changes);
      // The rerun took a final checkpoint of its own, at the new parallelism: every subtask finished, sources without an offset where the parallelism changed.
      const checkpoint = (await loadCompletedCheckpoint(join(dir, 'files', readdirSync(join(dir, 'files')).filter((f) => f.startsWith('chk-')).sort((a, b) => Number(b.slice(4)) - Number(a.slice(4)))[0]!))).metadata;
      for (const operator of Object.values(checkpoint.operators)) {
        expect(operator.subtasks.every((s) => s.finished === true && s.keyedStateChain === undefined)).toBe(true);
      }
    }
    expect(materialize(collected('totals'))).toEqual(totals);
  });

  it('into a changed query: reported finished and not run (its checkpoint holds no state a new query could start from)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-final-'));
    const input = join(dir, 'input');
    mkdirSync(input);
    writeEvents(input, 'a.json', 0);
    await finished(await startJob(engine(), fileJob(dir, input, 1)));
    const changes = collected('totals').length;
    const results = await engine().execute(fileJob(dir, input, 1, 'INSERT INTO totals SELECT k, COUNT(*), SUM(v) FROM events WHERE v > 10 GROUP BY k'));
    expect(results[results.length - 1]).toMatchObject({ kind: 'ok', message: expect.stringContaining("Job 'files' already finished") });
    expect(collected('totals')).toHaveLength(changes);
  });
});

describe('a graph of parts (materialized views) restored from its final checkpoint', () => {
  it('starts its finished parts finished (they read nothing, not even a file added since) and runs its new part', async () => {
    const url = await freshDatabase('weir_final');
    const dir = mkdtempSync(join(tmpdir(), 'weir-final-'));
    const input = join(dir, 'input');
    mkdirSync(input);
    const write = (file: string, from: number): void => writeFileSync(join(input, file), Array.from({ length: 500 }, (_, i) => JSON.stringify({ k: (from + i) % 5, v: from + i })).join('\n'));
    write('a.json', 0);
    const e = createEngine();
    await e.execute(`SET 'state.checkpoints.dir' = '${dir}';
      CREATE TABLE events (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE MATERIALIZED VIEW first_view WITH ('url' = '${url}') AS SELECT k, COUNT(*) AS n, MAX(v) AS hi FROM events GROUP BY k;`);
    for (const job of e.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');
    write('b.json', 500);
    await e.execute(`CREATE MATERIALIZED VIEW second_view WITH ('url' = '${url}') AS SELECT k, COUNT(*) AS n, MAX(v) AS hi FROM events GROUP BY k;`);
    const jobs = e.session.jobs();
    for (const job of jobs) expect(await job.result(), String(job.error)).toBe('FINISHED');
    expect(jobs[jobs.length - 1]!.resumedFrom, 'the views job resumed from its final checkpoint').toBeDefined();
    // The first view finished with a.json; the second, new, read both files.
    expect(await pgQuery(url, 'SELECT sum(n)::int AS n, max(hi) AS hi FROM first_view')).toEqual([{ n: 500, hi: 499 }]);
    expect(await pgQuery(url, 'SELECT sum(n)::int AS n, max(hi) AS hi FROM second_view')).toEqual([{ n: 1000, hi: 999 }]);
    expect(await pgQuery(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()')).toEqual([]);
  });
});
