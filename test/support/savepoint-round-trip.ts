/**
 * A bounded GROUP BY job over 20,000 generated rows (`src (id BIGINT, k INT, v INT)`: 41 keys `k`,
 * values `v` in 0..300), run once uninterrupted and once stopped with a savepoint at one
 * parallelism and resumed from it at another, both into the collect sink: the round trip a test
 * of a value type through keyed state and checkpoints needs (the type's view, sink and query are
 * the test's own).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Row } from '../../src/common/row.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected } from './collect-connector.js';
import { startJob } from './jobs.js';

/** Rows of the generated source. */
export const ROUND_TRIP_ROWS = 20_000;

/** The job under test: its view over `src`, its sink table and its INSERT, both by sink name. */
export interface RoundTripJob {
  /** Names the checkpoint folder of the interrupted run. */
  readonly pipeline: string;
  /** CREATE VIEW statement(s) over `src`. */
  readonly views: string;
  readonly sink: (name: string, transactional: boolean) => string;
  readonly query: (name: string) => string;
}

/** The uninterrupted run's rows and the interrupted-and-resumed run's rows, each materialized from its changelog. */
export interface RoundTrip {
  readonly expected: Row[];
  readonly resumed: Row[];
}

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

function ddl(dir: string, pipeline: string, parallelism: number, checkpoints: boolean, views: string): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    ${checkpoints ? "SET 'execution.checkpointing.interval' = '50 ms';" : ''}
    SET 'pipeline.name' = '${pipeline}';
    SET 'parallelism.default' = '${parallelism}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROUND_TRIP_ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '40', 'fields.v.min' = '0', 'fields.v.max' = '300');
    ${views}`;
}

async function waitForCheckpoint(job: JobHandle): Promise<void> {
  while (job.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Runs `job` uninterrupted (sink `reference`), then at `before` subtasks until its first
 * checkpoint, stops it with a savepoint, and resumes it from there at `after` subtasks (sink
 * `totals`, transactional); throws unless both runs finish and the second resumed from the
 * savepoint. The caller resets the collect sink between tests.
 */
export async function savepointRoundTrip(job: RoundTripJob, before: number, after: number): Promise<RoundTrip> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-round-trip-'));
  const reference = await startJob(engine(), `${ddl(dir, 'reference', 1, false, job.views)} ${job.sink('reference', false)} ${job.query('reference')};`);
  if ((await reference.result()) !== 'FINISHED') throw new Error(`the uninterrupted run did not finish: ${String(reference.error)}`);
  const first = await startJob(engine(), `${ddl(dir, job.pipeline, before, true, job.views)} ${job.sink('totals', true)} ${job.query('totals')};`);
  await waitForCheckpoint(first);
  const savepoint = await first.stopWithSavepoint();
  if (collected('totals').length === 0) throw new Error('the first run committed nothing before its savepoint');
  const second = await startJob(engine(), `${ddl(dir, job.pipeline, after, true, job.views)} SET 'execution.savepoint.path' = '${savepoint}'; ${job.sink('totals', true)} ${job.query('totals')};`);
  if (second.resumedFrom?.path !== savepoint) throw new Error(`the second run did not resume from ${savepoint}`);
  if ((await second.result()) !== 'FINISHED') throw new Error(`the resumed run did not finish: ${String(second.error)}`);
  return { expected: materialize(collected('reference')), resumed: materialize(collected('totals')) };
}
