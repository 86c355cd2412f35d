/**
 * `weir` without a terminal (statements piped in), or `weir -f FILE`: runs the statements, prints
 * results in `--format` (ndjson when stdout is not a terminal), SELECTs as their final tables,
 * waits for the jobs INSERTs started, and stops at the first error with exit code 1. Messages
 * on stderr are coloured when stderr is a terminal with colours.
 */
import { readFile } from 'node:fs/promises';
import { createEngine, parseScriptText } from '../engine/engine.js';
import { workingCatalogFile } from './working-catalog.js';
import { renderError } from '../engine/result-format.js';
import { startMetricsEndpoint, type MetricsFlags } from './metrics-flags.js';
import type { OutputFormat } from './result-printer.js';
import { EXIT, waitForJobs } from './run-command.js';
import { runStatements } from './statement-runner.js';
import { styleFor } from './terminal-style.js';

/** Options of the piped mode. */
export interface ScriptOptions extends MetricsFlags {
  readonly verbose: boolean;
  readonly format: OutputFormat;
  /** A script to run first (`-i`). */
  readonly init?: string;
}

/** Runs `text` (named `name` in errors); resolves with the exit code. */
export async function runPiped(text: string, name: string, options: ScriptOptions): Promise<number> {
  const style = styleFor(process.stderr);
  let engine;
  try {
    engine = createEngine({ catalogFile: workingCatalogFile() });
    await engine.restore({ runMaterializedViews: false });
    await startMetricsEndpoint(engine, options);
  } catch (error) {
    process.stderr.write(renderError(error) + '\n');
    return EXIT.ERROR;
  }
  const scripts: [string, string][] = [];
  if (options.init !== undefined) {
    try {
      scripts.push([await readFile(options.init, 'utf8'), options.init]);
    } catch (error) {
      process.stderr.write(`ERROR: cannot read '${options.init}': ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
      return EXIT.USAGE;
    }
  }
  scripts.push([text, name]);
  const jobs = [];
  for (const [source, sourceName] of scripts) {
    try {
      jobs.push(
        ...(await runStatements(engine, parseScriptText(source), {
          format: options.format,
          out: (line) => process.stdout.write(line + '\n'),
          info: (line) => process.stderr.write(style.dim(line) + '\n'),
          querySignal: () => new AbortController().signal,
        })),
      );
    } catch (error) {
      process.stderr.write(style.error(renderError(error, source, sourceName)) + '\n');
      if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
      await engine.close();
      return EXIT.ERROR;
    }
  }
  return waitForJobs(jobs, async (error) => {
    process.stderr.write(renderError(error) + '\n');
    await engine.close();
    return EXIT.ERROR;
  });
}

/** All of standard input as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
