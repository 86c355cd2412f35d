/**
 * Incremental checkpoints end to end (execution.checkpointing.incremental, on by default): a
 * GROUP BY over 2,000 keys checkpointed every 50 ms writes deltas on a full file; a delta whose
 * write fails is declined and the next one covers its changes; retention keeps the folders the
 * latest chain refers to; a half-written delta of a crashed checkpoint (a folder without
 * `_metadata`) is ignored; the job resumes from the chain at another parallelism and ends with
 * exactly the totals of an uninterrupted run. `weir.checkpoints` reports each checkpoint's
 * synchronous pauses and keyed state bytes, full or incremental. The same with the disk state
 * backend (`state.backend.type` = 'rocksdb', LMDB), whose directories are gone once each job has
 * ended, and across backends (a checkpoint of one resumed on the other). A join of two sources
 * keeps their rows in list state: its deltas hold the rows appended since, and a chain of them
 * (one declined) resumes on either backend with the answer of an uninterrupted run.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { FileCheckpointStorage, referencedCheckpoints } from '../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { setFailpoints } from '../../src/runtime/checkpoint/failpoints.js';
import { readStateFile } from '../../src/runtime/state/key-group-state-file.js';
import { stateBackendKindFromEnv } from '../../src/runtime/state/state-backend-factory.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 20_000;
const KEYS = 2_000;

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

/** A state backend to run with: `state.backend.type`, and for the disk one a folder for its directories. */
type Backend = 'hashmap' | 'rocksdb';
const localDir = mkdtempSync(join(tmpdir(), 'weir-lmdb-local-'));

function ddl(dir: string, options: { parallelism?: number; incremental?: boolean; backend?: Backend } = {}): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'state.backend.type' = '${options.backend ?? 'hashmap'}';
    SET 'state.backend.rocksdb.localdir' = '${localDir}';
    SET 'state.backend.lmdb.cache-entries' = '500';
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'execution.checkpointing.tolerable-failed-checkpoints' = '3';
    ${options.incremental === false ? "SET 'execution.checkpointing.incremental' = 'false';" : ''}
    SET 'state.checkpoints.num-retained' = '1';
    SET 'pipeline.name' = 'totals';
    SET 'parallelism.default' = '${options.parallelism ?? 1}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '${KEYS - 1}', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE totals (k INT, n BIGINT, total INT, hi INT) WITH ('connector' = 'collect', 'transactional' = 'true');`;
}

const QUERY = 'INSERT INTO totals SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k';

const PAIRS_COLUMNS = 'k INT, n BIGINT, total INT';

/** A second source over the same keys, joined with the first (both insert-only: the join keeps each input's rows per key in list state). */
const JOIN_DDL = `CREATE TABLE tags (id BIGINT, k INT, w INT) WITH ('connector' = 'datagen', 'rows-per-second' = '4000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4000',
      'fields.k.min' = '0', 'fields.k.max' = '${KEYS - 1}', 'fields.w.min' = '0', 'fields.w.max' = '9');
    CREATE TABLE pairs (${PAIRS_COLUMNS}) WITH ('connector' = 'collect', 'transactional' = 'true');`;
const JOIN_QUERY = 'INSERT INTO pairs SELECT s.k, COUNT(*), SUM(s.v + t.w) FROM src AS s JOIN tags AS t ON s.k = t.k GROUP BY s.k';

/** What `query` (writing `table`, of `columns`) gives run to its end without checkpoints. */
async function expectedResult(dir: string, tables: string, query: string, table: string, columns: string): Promise<unknown[][]> {
  const reference = `reference_${table}`;
  const job = await startJob(engine(), `${ddl(dir).replace(/SET 'execution.checkpointing.interval' = '50 ms';/, '').replace("SET 'pipeline.name' = 'totals';", "SET 'pipeline.name' = 'reference';")} ${tables}
    CREATE TABLE ${reference} (${columns}) WITH ('connector' = 'collect');
    ${query.replace(`INSERT INTO ${table} `, `INSERT INTO ${reference} `)};`);
  expect(await job.result()).toBe('FINISHED');
  return materialize(collected(reference));
}

async function expectedTotals(dir: string): Promise<unknown[][]> {
  const job = await startJob(engine(), `SET 'pipeline.name' = 'reference'; ${ddl(dir).replace(/SET 'execution.checkpointing.interval' = '50 ms';/, '').replace("SET 'pipeline.name' = 'totals';", '')}
    CREATE TABLE reference (k INT, n BIGINT, total INT, hi INT) WITH ('connector' = 'collect');
    INSERT INTO reference SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k;`);
  expect(await job.result()).toBe('FINISHED');
  return materialize(collected('reference'));
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeEach(() => resetCollected());
afterAll(() => rmSync(localDir, { recursive: true }));
afterEach(() => setFailpoints(''));

describe('incremental checkpoints', () => {
  it.each<Backend>(['hashmap', 'rocksdb'])('resume from a chain of deltas — after a failed delta, retention and a crashed write — at another parallelism (%s)', async (backend) => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-incremental-'));
    const expected = await expectedTotals(dir);
    // The 5th state file written fails half-way: that checkpoint is declined, and the next delta must cover its changes.
    setFailpoints('checkpoint.during-state-write=error@5');
    const first = await startJob(engine(), `${ddl(dir, { backend })} ${QUERY}`);
    const completedAfterFailure = (): number => {
      const history = first.checkpointHistory();
      const failed = history.findIndex((c) => c.status === 'FAILED');
      return failed < 0 ? 0 : history.slice(failed).filter((c) => c.status === 'COMPLETED' && c.incremental === true).length;
    };
    const latestIsDelta = (): boolean => first.checkpointHistory().findLast((c) => c.status === 'COMPLETED')?.incremental === true;
    await until(() => completedAfterFailure() >= 3 && latestIsDelta(), 'three incremental checkpoints after the failed one, the latest a delta');
    // The disk backend keeps the aggregate's state in a directory of its own while the job runs.
    expect(readdirSync(localDir).length).toBe(backend === 'rocksdb' ? 1 : 0);
    await first.cancel();
    expect(readdirSync(localDir)).toEqual([]);

    const history = first.checkpointHistory();
    const completed = history.filter((c) => c.status === 'COMPLETED');
    expect(history.some((c) => c.status === 'FAILED' && /failpoint/.test(c.failure ?? ''))).toBe(true);
    for (const c of completed) {
      expect(c.syncP50Ms).toBeGreaterThanOrEqual(0);
      expect(c.syncP99Ms).toBeGreaterThanOrEqual(c.syncP50Ms!);
      expect(c.syncMaxMs).toBeGreaterThanOrEqual(c.syncP99Ms!);
      expect(c.stateBytes).toBeGreaterThanOrEqual(0);
    }
    // The first checkpoint is full; deltas follow.
    expect(completed[0]!.incremental).toBe(false);
    expect(completed.filter((c) => c.incremental === true).length).toBeGreaterThan(2);

    const storage = new FileCheckpointStorage(dir, 'totals');
    const latest = (await storage.latest())!;
    const chain = latest.metadata.operators[Object.keys(latest.metadata.operators).find((id) => id.endsWith('group-aggregate'))!]!.subtasks[0]!.keyedStateChain!;
    expect(chain.length).toBeGreaterThan(1);
    expect(chain[0]!.kind).toBe('full');
    // Retention (one retained) kept the folders the latest chain refers to.
    expect([...referencedCheckpoints(latest.metadata)].length).toBeGreaterThan(0);

    // A crash while writing the next delta leaves a folder without _metadata: it is not a checkpoint.
    const crashed = join(dir, 'totals', `chk-${latest.metadata.checkpointId + 1}`);
    mkdirSync(crashed);
    writeFileSync(join(crashed, `${Object.keys(latest.metadata.operators)[0]}-0.state`), 'WEIRKGS1 half');
    setFailpoints('');

    const second = await startJob(engine(), `${ddl(dir, { parallelism: 2, backend })} ${QUERY}`);
    expect(second.resumedFrom?.path).toBe(latest.path);
    expect(await second.result()).toBe('FINISHED');
    expect(materialize(collected('totals'))).toEqual(expected);
    expect(readdirSync(localDir)).toEqual([]);
  });

  it.each<[Backend, Backend]>([
    ['hashmap', 'hashmap'],
    ['rocksdb', 'hashmap'],
    ['hashmap', 'rocksdb'],
  ])('with incremental checkpoints off, writes every checkpoint in full and still resumes (%s, then %s)', async (before, after) => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-incremental-'));
    const expected = await expectedTotals(dir);
    const first = await startJob(engine(), `${ddl(dir, { incremental: false, backend: before })} ${QUERY}`);
    await until(() => first.checkpointHistory().filter((c) => c.status === 'COMPLETED').length >= 3, 'three checkpoints');
    await first.cancel();
    const completed = first.checkpointHistory().filter((c) => c.status === 'COMPLETED');
    expect(completed.every((c) => c.incremental === false)).toBe(true);
    const latest = (await new FileCheckpointStorage(dir, 'totals').latest())!;
    expect(referencedCheckpoints(latest.metadata).size).toBe(0);
    const second = await startJob(engine(), `${ddl(dir, { incremental: false, backend: after })} ${QUERY}`);
    expect(await second.result()).toBe('FINISHED');
    expect(materialize(collected('totals'))).toEqual(expected);
    expect(readdirSync(localDir)).toEqual([]);
  });

  it.each<Backend>(['hashmap', 'rocksdb'])('a join keeps its rows in list state: deltas append the new ones, and the job resumes from such a chain (then on %s) at another parallelism', async (after) => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-incremental-'));
    const expected = await expectedResult(dir, JOIN_DDL, JOIN_QUERY, 'pairs', PAIRS_COLUMNS);
    // The 4th state file written fails half-way: the delta after it covers the declined one's appends too.
    setFailpoints('checkpoint.during-state-write=error@4');
    const first = await startJob(engine(), `${ddl(dir)} ${JOIN_DDL} ${JOIN_QUERY}`);
    await until(() => first.checkpointHistory().filter((c) => c.status === 'COMPLETED' && c.incremental === true).length >= 4, 'four incremental checkpoints');
    await first.cancel();
    setFailpoints('');
    expect(first.checkpointHistory().some((c) => c.status === 'FAILED')).toBe(true);

    const storage = new FileCheckpointStorage(dir, 'totals');
    const latest = (await storage.latest())!;
    const joinId = Object.keys(latest.metadata.operators).find((id) => id.endsWith('-join'))!;
    let appendedLists = 0;
    for (const ref of latest.metadata.operators[joinId]!.subtasks[0]!.keyedStateChain!) {
      const bytes = await storage.readStateFile(latest, ref.file, ref.checksum);
      readStateFile(bytes, ref.file, () => true, (header, frame) => {
        if (frame.appends !== undefined) expect(header.kind).toBe('delta');
        appendedLists += frame.appends?.bases.length ?? 0;
      });
    }
    // The heap backend writes a grown list as its appended rows; the disk backend (which
    // WEIR_TEST_STATE_BACKEND=lmdb puts in the heap's place) writes changed lists whole.
    if (stateBackendKindFromEnv() === 'lmdb') expect(appendedLists).toBe(0);
    else expect(appendedLists).toBeGreaterThan(0);

    const second = await startJob(engine(), `${ddl(dir, { parallelism: 2, backend: after })} ${JOIN_DDL} ${JOIN_QUERY}`);
    expect(second.resumedFrom?.path).toBe(latest.path);
    expect(await second.result()).toBe('FINISHED');
    expect(materialize(collected('pairs'))).toEqual(expected);
  });

  it('names the accepted state backends when given another', async () => {
    const e = engine();
    await expect(e.execute("SET 'state.backend.type' = 'heap'")).rejects.toThrow("'state.backend.type' must be one of 'hashmap', 'rocksdb', 'lmdb', got 'heap'");
  });

  it('weir.checkpoints shows the synchronous pauses and the keyed state bytes of each checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-incremental-'));
    const e = engine();
    const job: JobHandle = await startJob(e, `${ddl(dir)} ${QUERY}`);
    await until(() => job.checkpointHistory().filter((c) => c.status === 'COMPLETED' && c.incremental === true).length >= 1, 'an incremental checkpoint');
    const [result] = await e.execute('SELECT checkpoint_id, status, sync_p50_ms, sync_p99_ms, sync_max_ms, state_bytes, incremental FROM weir.checkpoints');
    await job.cancel();
    if (result?.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(result)}`);
    const rows = result.rows.filter((r) => r[1] === 'COMPLETED');
    expect(rows.some((r) => r[6] === true)).toBe(true);
    expect(rows.some((r) => r[6] === false)).toBe(true);
    for (const r of rows) {
      expect(typeof r[2]).toBe('number');
      expect(r[4] as number).toBeGreaterThanOrEqual(r[3] as number);
      expect(Number(r[5])).toBeGreaterThanOrEqual(0);
    }
  });
});
