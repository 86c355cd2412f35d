/**
 * `weir run FILE.sql`: executes the statements in order, INSERTs starting concurrent jobs, then
 * waits for the jobs. Informational messages go to stderr so that stdout carries only results
 * (the print connector, SELECT output, SHOW tables). Exits non-zero on the first error.
 */
import { readFile } from 'node:fs/promises';
import { createEngine } from '../engine/engine.js';
import type { JobHandle } from '../engine/job-handle.js';
import { renderError, renderTable } from '../engine/result-format.js';
import { startMetricsEndpoint, type MetricsFlags } from './metrics-flags.js';
import { ProgressLine, progressWanted } from './progress-line.js';

/** Exit codes of the CLI. */
export const EXIT = { OK: 0, ERROR: 1, USAGE: 2, INTERRUPTED: 130 } as const;

/** Options of `weir run`. */
export interface RunOptions extends MetricsFlags {
  readonly verbose: boolean;
  /** Discard the jobs' checkpoints instead of resuming from them. */
  readonly fresh?: boolean;
  /** Show the progress line on stderr (`--progress` / `--no-progress`); by default only when stdout and stderr are terminals. */
  readonly progress?: boolean;
}

/** Runs a script file; resolves with the exit code. */
export async function runFile(path: string, options: RunOptions): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    process.stderr.write(`ERROR: cannot read '${path}': ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
    return EXIT.USAGE;
  }
  return runScript(text, path, options);
}

/** Runs a script's text; `name` is how errors refer to it. Resolves with the exit code. */
export async function runScript(text: string, name: string, options: RunOptions): Promise<number> {
  const engine = createEngine({ fresh: options.fresh ?? false });
  const jobs: JobHandle[] = [];
  const progress = progressWanted(options.progress) ? new ProgressLine(() => jobs) : undefined;
  const stopOnSignal = (signal: NodeJS.Signals): void => {
    progress?.stop();
    void stopWithSavepoints(jobs, signal);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const fail = async (error: unknown): Promise<number> => {
    progress?.stop();
    process.stderr.write(renderError(error, text, name) + '\n');
    if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    await engine.close();
    return EXIT.ERROR;
  };
  try {
    await startMetricsEndpoint(engine, options);
    for await (const { result } of engine.executeScript(text)) {
      progress?.clear();
      switch (result.kind) {
        case 'ok':
          process.stderr.write(`[INFO] ${result.message}\n`);
          break;
        case 'rows':
          process.stdout.write(renderTable(result) + '\n');
          break;
        case 'text':
          process.stdout.write(result.text + (result.text.endsWith('\n') ? '' : '\n'));
          break;
        case 'job': {
          const { job } = result;
          const resumed = job.resumedFrom === undefined ? '' : ` (resumed from ${job.resumedFrom.metadata.kind} ${job.resumedFrom.metadata.checkpointId} at ${job.resumedFrom.path})`;
          process.stderr.write(`[INFO] Submitted job ${job.id}: ${job.name}${resumed}\n`);
          jobs.push(job);
          progress?.start();
          break;
        }
      }
    }
  } catch (error) {
    return fail(error);
  }
  const code = await waitForJobs(jobs, fail, (line) => {
    progress?.clear();
    process.stderr.write(line);
  });
  progress?.stop();
  return code;
}

/**
 * SIGINT / SIGTERM: stops every running job with a savepoint (or simply, when it takes no
 * checkpoints), prints where the savepoints are, and exits.
 */
async function stopWithSavepoints(jobs: readonly JobHandle[], signal: NodeJS.Signals): Promise<void> {
  process.stderr.write(`[INFO] ${signal} received: stopping ${jobs.length} job(s)\n`);
  let code: number = EXIT.INTERRUPTED;
  for (const job of jobs) {
    if (job.status === 'RESTARTING') {
      // No savepoint can be taken between attempts: the next run resumes from the latest checkpoint.
      await job.cancel();
      process.stderr.write(`[INFO] Job ${job.id} cancelled while restarting: ${job.name}\n`);
      continue;
    }
    if (job.status !== 'RUNNING') continue;
    try {
      if (!job.takesCheckpoints) {
        await job.cancel();
        process.stderr.write(`[INFO] Job ${job.id} cancelled: ${job.name}\n`);
      } else {
        const path = await job.stopWithSavepoint();
        process.stderr.write(`[INFO] Job ${job.id} stopped with savepoint ${path}\n`);
      }
    } catch (error) {
      process.stderr.write(renderError(error) + '\n');
      code = EXIT.ERROR;
    }
  }
  process.exit(code);
}

/** Waits until every job has finished, or until the first one fails (then reports it). */
export async function waitForJobs(jobs: readonly JobHandle[], fail: (error: unknown) => Promise<number>, log = (line: string): void => void process.stderr.write(line)): Promise<number> {
  const firstFailure = new Promise<JobHandle>((resolve) => {
    for (const job of jobs) void job.result().then((status) => status === 'FAILED' && resolve(job));
  });
  const allFinished = Promise.all(
    jobs.map(async (job) => {
      const status = await job.result();
      if (status !== 'FAILED') log(`[INFO] Job ${job.id} ${status.toLowerCase()}: ${job.name}\n`);
    }),
  );
  const failed = await Promise.race([firstFailure, allFinished.then(() => undefined)]);
  if (failed === undefined) return EXIT.OK;
  log(`[ERROR] Job ${failed.id} failed: ${failed.name}\n`);
  return fail(failed.error);
}
