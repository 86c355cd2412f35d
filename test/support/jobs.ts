/** Running statements that start a job, to the job's end. */
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
