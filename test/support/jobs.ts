/** Running statements that start a job: to its start, or to its end. */
import type { Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';

/** Executes `sql` and waits for the job it started; throws the job's error unless it finished. */
export async function runJob(engine: Engine, sql: string): Promise<JobHandle> {
  const results = await engine.execute(sql);
  const started = results.find((r) => r.kind === 'job');
  if (started?.kind !== 'job') throw new Error('no job started');
  const status = await started.job.result();
  if (status !== 'FINISHED') throw started.job.error;
  return started.job;
}

/** Executes `sql`, whose last statement starts a job, and returns the job (still running). */
export async function startJob(engine: Engine, sql: string): Promise<JobHandle> {
  const results = await engine.execute(sql);
  const last = results[results.length - 1];
  if (last?.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(last)}`);
  return last.job;
}
