/**
 * Executes parsed statements for the interactive and the piped CLI: DDL and SET confirm on
 * stderr, finite results print in the chosen format, a SELECT either streams its changelog
 * (interactive, until it ends or Ctrl-C) or prints its final table (piped), INSERTs start jobs.
 */
import type { Engine, ParsedStatement } from '../engine/engine.js';
import type { JobHandle } from '../engine/job-handle.js';
import { ChangelogPrinter, formatObjects, formatRows, type OutputFormat } from './result-printer.js';

/** Where and how results are printed. */
export interface RunnerOutput {
  readonly format: OutputFormat;
  /** Stream a SELECT's changelog (interactive) instead of printing its final table. */
  readonly streamQueries: boolean;
  out(text: string): void;
  info(text: string): void;
  /** Aborts a running SELECT (Ctrl-C); a fresh signal per query. */
  querySignal(): AbortSignal;
}

/** Runs statements in order; throws the first error. Returns the jobs INSERTs started. */
export async function runStatements(engine: Engine, statements: readonly ParsedStatement[], output: RunnerOutput): Promise<JobHandle[]> {
  const jobs: JobHandle[] = [];
  for (const parsed of statements) {
    if (parsed.statement.kind === 'query') {
      await runQuery(engine, parsed, output);
      continue;
    }
    const result = await engine.session.execute(parsed);
    switch (result.kind) {
      case 'ok':
        output.info(`[INFO] ${result.message}`);
        break;
      case 'rows':
        output.out(formatRows(result, output.format));
        break;
      case 'text':
        output.out(result.text.replace(/\n$/, ''));
        break;
      case 'job':
        output.info(`[INFO] Submitted job ${result.job.id}: ${result.job.name}`);
        jobs.push(result.job);
        break;
    }
  }
  return jobs;
}

async function runQuery(engine: Engine, sql: ParsedStatement, output: RunnerOutput): Promise<void> {
  const signal = output.querySignal();
  if (!output.streamQueries) {
    output.out(formatObjects(await engine.query(sql, { signal }), output.format));
    return;
  }
  const printer = new ChangelogPrinter((text) => output.out(text.replace(/\n$/, '')));
  for await (const change of engine.subscribe(sql, { signal })) printer.print(change);
  printer.finish();
}
