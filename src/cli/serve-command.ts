/**
 * `weir serve`: runs every materialized view of the working directory's catalog headless, each
 * resuming from its latest checkpoint, until SIGINT or SIGTERM stops them gracefully (a final
 * checkpoint, committed into Postgres), or until every view's sources have ended. A view's job
 * that fails is restarted in process under its restart strategy (exponential-delay by default);
 * one that fails for good — out of restarts, or an error a restart cannot help — ends the process
 * with an error, so that a supervisor can restart it and the views resume.
 */
import { createEngine } from '../engine/engine.js';
import type { JobHandle } from '../engine/job-handle.js';
import { renderError } from '../engine/result-format.js';
import { startMetricsEndpoint, type MetricsFlags } from './metrics-flags.js';
import { EXIT } from './run-command.js';
import { describeRestore, workingCatalogFile } from './working-catalog.js';

/** Serves until a signal or a failure; resolves with the exit code. */
export async function runServe(options: { verbose: boolean } & MetricsFlags): Promise<number> {
  const report = (message: string): void => void process.stderr.write(`[INFO] ${message}\n`);
  const fail = (error: unknown): number => {
    process.stderr.write(renderError(error) + '\n');
    if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    return EXIT.ERROR;
  };
  let engine;
  let jobs: readonly JobHandle[];
  try {
    engine = createEngine({ catalogFile: workingCatalogFile() });
    await startMetricsEndpoint(engine, options);
    const restored = await engine.restore();
    jobs = restored.jobs;
    report(describeRestore(restored));
  } catch (error) {
    return fail(error);
  }
  if (jobs.length === 0) {
    report('No materialized view to serve; create one in the shell (weir) or with weir -f FILE.');
    return EXIT.OK;
  }
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const failed = new Promise<JobHandle>((resolve) => {
    for (const job of jobs) void job.result().then((status) => status === 'FAILED' && resolve(job));
  });
  const finished = Promise.all(jobs.map((job) => job.result())).then(() => 'finished' as const);
  const first = await Promise.race([stopped, failed, finished]);
  if (first === 'finished') {
    report('Every materialized view has finished: their sources ended.');
    return EXIT.OK;
  }
  if (typeof first !== 'string') {
    process.stderr.write(`[ERROR] Job ${first.id} failed: ${first.name}\n`);
    const code = fail(first.error);
    await engine.close();
    return code;
  }
  report(`${first} received: stopping ${jobs.length} materialized view(s) with a final checkpoint`);
  try {
    await engine.close({ graceful: true });
  } catch (error) {
    return fail(error);
  }
  report('Stopped; every materialized view committed its last checkpoint.');
  return EXIT.OK;
}
