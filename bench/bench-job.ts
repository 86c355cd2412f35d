/** What every weir benchmark does: declare the generated source (and checkpointing), run one INSERT to its end, time it. */
import type { Engine } from '../src/engine/engine.js';
import type { JobHandle } from '../src/engine/job-handle.js';

/** DDL of the benchmark source: `rows` rows of (k INT in [0, keys), v BIGINT in [0, 1000]), unthrottled. */
export function sourceDdl(rows: number, keys: number): string {
  return `CREATE TABLE src (k INT, v BIGINT) WITH (
    'connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${rows}',
    'fields.k.min' = '0', 'fields.k.max' = '${keys - 1}', 'fields.v.min' = '0', 'fields.v.max' = '1000')`;
}

/** The SET statements of a checkpointed run: EXACTLY_ONCE every `interval` into `dir`. */
export function checkpointSettings(dir: string, interval: string): string {
  return `SET 'execution.checkpointing.interval' = '${interval}'; SET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';
    SET 'state.checkpoints.dir' = '${dir}'; SET 'pipeline.name' = 'bench';`;
}

/** Runs one INSERT to completion; fails unless the job finished. */
export async function timeJob(engine: Engine, insert: string): Promise<{ job: JobHandle; seconds: number }> {
  const start = performance.now();
  const [result] = await engine.execute(insert);
  if (result?.kind !== 'job') throw new Error(`expected a job from ${insert}`);
  const status = await result.job.result();
  const seconds = (performance.now() - start) / 1000;
  if (status !== 'FINISHED') throw new Error(`job ended ${status}: ${String(result.job.error)}`);
  return { job: result.job, seconds };
}
