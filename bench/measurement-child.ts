/**
 * Runs one measurement in this process (a child of the benchmark, so that peak RSS is its own)
 * and returns what it measured: a Nexmark query by weir, the hand-written loop or d2mini, the
 * keyed-state size of a GROUP BY, or a run of the PostgreSQL sink benchmark.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeBatch } from '../src/common/row.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import type { CheckpointRecord, JobHandle } from '../src/engine/job-handle.js';
import type { ChildResult, NexmarkMeasurement, NexmarkSpec, StateSizeMeasurement, StateSizeSpec, ChildSpec } from './bench-measurement.js';
import { writeNexmarkSideInput } from '../src/connectors/nexmark/nexmark-side-input.js';
import { checkpointSettings } from './bench-job.js';
import { runCheckpointBench } from './checkpoint-bench.js';
import { D2MINI_QUERIES } from './d2mini-queries.js';
import { HANDWRITTEN_QUERIES, type ReferenceQuery } from './handwritten-queries.js';
import { eventChunks, settleChunk } from './nexmark-events.js';
import { nexmarkDdl, nexmarkQueries } from './nexmark-query-catalog.js';
import { runPgSinkChild } from './pg-sink-child.js';
import { runRecoveryChild } from './recovery-bench.js';
import { runStateScaleChild } from './state-scale-bench.js';
import { replayedNexmarkConnector } from './replayed-nexmark-connector.js';
import { timedNexmarkConnector, type GeneratorClock } from './timed-nexmark-connector.js';

/** Runs `spec` and returns its result. */
export async function runChildSpec(spec: ChildSpec): Promise<ChildResult> {
  if (spec.kind === 'state-size') return measureStateSize(spec);
  if (spec.kind === 'pg-sink') return runPgSinkChild(spec);
  if (spec.kind === 'checkpoint') return runCheckpointBench(spec.rows, spec.checkpointing);
  if (spec.kind === 'state-scale') return runStateScaleChild(spec);
  if (spec.kind === 'recovery') return runRecoveryChild(spec);
  return spec.engine === 'weir' ? runWeir(spec) : runReference(spec);
}

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

function heapAfterGcMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function folderBytes(path: string): number {
  return readdirSync(path, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? folderBytes(join(path, e.name)) : statSync(join(path, e.name)).size), 0);
}

/**
 * Executes statements that start one job, and waits for it to finish: `seconds` from `begin` (by
 * default when the statements are submitted) to the end of the job, `startSeconds` before `begin`.
 */
async function runJob(engine: Engine, sql: string, begin?: () => number | undefined): Promise<{ job: JobHandle; seconds: number; startSeconds: number }> {
  const submitted = performance.now();
  const job = (await engine.execute(sql)).find((r) => r.kind === 'job');
  if (job?.kind !== 'job') throw new Error('the statements started no job');
  const status = await job.job.result();
  const end = performance.now();
  const start = begin?.() ?? submitted;
  if (status !== 'FINISHED') throw Object.assign(new Error(`job ended ${status}: ${String(job.job.error)}`), { jobFailed: true });
  return { job: job.job, seconds: (end - start) / 1000, startSeconds: (start - submitted) / 1000 };
}

function base(spec: NexmarkSpec) {
  return { query: spec.query, engine: spec.engine, events: spec.events, checkpointing: spec.checkpointing, ...(spec.replayed === true ? { replayed: true } : {}) };
}

async function runWeir(spec: NexmarkSpec): Promise<NexmarkMeasurement> {
  const query = nexmarkQueries().find((q) => q.name === spec.query);
  if (query === undefined) throw new Error(`unknown query ${spec.query}`);
  const scratch = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  const workload = { events: spec.events, tps: spec.tps };
  try {
    // As the Nexmark runner does before every query: q13 reads it as $FLINK_HOME/data/side_input.txt.
    await writeNexmarkSideInput(join(scratch, 'data', 'side_input.txt'));
    const generator: GeneratorClock = { ms: 0 };
    const source = spec.replayed === true ? replayedNexmarkConnector(generator) : timedNexmarkConnector(generator);
    const engine = createEngine({ onWarning: () => {}, connectors: [source] });
    await engine.execute(`${spec.checkpointing ? checkpointSettings(join(scratch, 'checkpoints'), '1 s') : ''} ${nexmarkDdl(workload, scratch)}`);
    let run: Awaited<ReturnType<typeof runJob>>;
    try {
      // Timed from the first poll, as the references are timed from their first event: planning,
      // code generation and starting the job are reported apart (startMs).
      run = await runJob(engine, query.sql(workload, scratch), () => generator.firstPollAt);
    } catch (error) {
      const status = (error as { jobFailed?: boolean }).jobFailed ? 'failed' : 'unsupported';
      const message = error instanceof Error ? error.message : String(error);
      return { ...base(spec), status, error: message.split('\n')[0]!, seconds: 0, eventsPerSecond: 0, peakRssMb: peakRssMb(), heapUsedMb: heapAfterGcMb(), outputRecords: 0 };
    }
    const { job, seconds, startSeconds } = run;
    const sink = job.metrics().find((m) => m.node.endsWith('-sink'));
    const last = job.lastCheckpoint;
    return {
      ...base(spec),
      status: 'ok',
      seconds,
      startMs: startSeconds * 1000,
      eventsPerSecond: spec.events / seconds,
      processingEventsPerSecond: spec.events / (seconds - generator.ms / 1000),
      ...(spec.replayed === true ? {} : { generatorEventsPerSecond: spec.events / (generator.ms / 1000) }),
      peakRssMb: peakRssMb(),
      heapUsedMb: heapAfterGcMb(),
      outputRecords: sink?.recordsIn ?? 0,
      ...(last === undefined ? {} : { stateBytes: folderBytes(last.path), checkpoints: job.checkpointStats().completed, ...checkpointFigures(job.checkpointHistory()) }),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What the completed checkpoints of a run wrote in all, and their longest synchronous pause. */
function checkpointFigures(history: readonly CheckpointRecord[]): Pick<NexmarkMeasurement, 'checkpointBytes' | 'checkpointSyncMaxMs'> {
  const completed = history.filter((c) => c.status === 'COMPLETED');
  return {
    checkpointBytes: completed.reduce((sum, c) => sum + (c.stateBytes ?? 0), 0),
    checkpointSyncMaxMs: Math.max(0, ...completed.map((c) => c.syncMaxMs ?? 0)),
  };
}

async function runReference(spec: NexmarkSpec): Promise<NexmarkMeasurement> {
  const create = (spec.engine === 'handwritten' ? HANDWRITTEN_QUERIES : D2MINI_QUERIES)[spec.query];
  if (create === undefined) {
    return { ...base(spec), status: 'unsupported', error: `no ${spec.engine} implementation`, seconds: 0, eventsPerSecond: 0, peakRssMb: peakRssMb(), heapUsedMb: 0, outputRecords: 0 };
  }
  const reference: ReferenceQuery = create();
  const out = new ChangeBatch();
  let outputRecords = 0;
  let timed = 0;
  let generating = 0;
  let mark = performance.now();
  for await (const chunk of eventChunks({ events: spec.events, tps: spec.tps })) {
    settleChunk();
    const start = performance.now();
    generating += start - mark;
    for (const events of chunk) {
      out.clear();
      reference.process(events, out);
      outputRecords += out.size;
    }
    mark = performance.now();
    timed += mark - start;
  }
  const start = performance.now();
  out.clear();
  reference.finish(out);
  outputRecords += out.size;
  timed += performance.now() - start;
  const seconds = timed / 1000;
  return {
    ...base(spec),
    status: 'ok',
    seconds,
    eventsPerSecond: spec.events / seconds,
    peakRssMb: peakRssMb(),
    heapUsedMb: heapAfterGcMb(),
    outputRecords,
    materializeEventsPerSecond: spec.events / (generating / 1000),
  };
}

async function measureStateSize(spec: StateSizeSpec): Promise<StateSizeMeasurement> {
  const scratch = mkdtempSync(join(tmpdir(), 'weir-bench-state-'));
  try {
    const before = heapAfterGcMb();
    const engine = createEngine({ onWarning: () => {} });
    await engine.execute(`${checkpointSettings(scratch, '1 h')}
      CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000',
        'fields.k.kind' = 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '${spec.keys - 1}', 'fields.v.min' = '0', 'fields.v.max' = '1000');
      CREATE TABLE sink (k BIGINT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`);
    const { job } = await runJob(engine, 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k');
    const heap = heapAfterGcMb() - before;
    const checkpoint = job.lastCheckpoint === undefined ? 0 : folderBytes(job.lastCheckpoint.path);
    return { keys: spec.keys, heapBytesPerKey: (heap * 2 ** 20) / spec.keys, checkpointBytesPerKey: checkpoint / spec.keys, peakRssMb: peakRssMb() };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
