/**
 * Executes parsed statements for the interactive and the piped CLI: DDL and SET confirm through
 * `info`, finite results print in the chosen format, INSERTs start jobs. A SELECT either prints
 * its final table (piped), or, in the shell, is shown live in the session's
 * `sql-client.execution.result-mode` until it ends or Ctrl-C stops it; in batch runtime mode the
 * shell prints only its final table. In the shell every table ends with the time it took.
 */
import type { Engine, ParsedStatement } from '../engine/engine.js';
import type { JobHandle } from '../engine/job-handle.js';
import { ChangelogView } from './changelog-view.js';
import { LiveTableView, type LiveScreen } from './live-table-view.js';
import { formatObjects, formatRows, formatText, type OutputFormat } from './result-printer.js';
import { elapsedSuffix, type ResultMode, type ResultView } from './result-view.js';

/** Where and how results are printed. */
export interface RunnerOutput {
  readonly format: OutputFormat;
  /** The shell's terminal, when results are tables: SELECTs are shown live and tables carry their elapsed time. */
  readonly live?: LiveScreen;
  out(text: string): void;
  info(text: string): void;
  /** Aborts a running SELECT (Ctrl-C); a fresh signal per query. */
  querySignal(): AbortSignal;
}

/** Runs statements in order; throws the first error. Returns the jobs INSERTs started. */
export async function runStatements(engine: Engine, statements: readonly ParsedStatement[], output: RunnerOutput): Promise<JobHandle[]> {
  const jobs: JobHandle[] = [];
  for (const parsed of statements) {
    const started = performance.now();
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
        output.out(formatRows(result, output.format) + (output.live === undefined ? '' : elapsedSuffix(performance.now() - started)));
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
  if (output.live === undefined) {
    const format = output.format;
    // JSON keeps numbers, booleans and nulls as such; a table or CSV shows values as Flink's SQL client does.
    output.out(format === 'json' || format === 'ndjson' ? formatObjects(await engine.query(sql, { signal }), format) : formatText(await engine.queryText(sql, { signal }), format));
    return;
  }
  const started = performance.now();
  const view = resultView(engine, output, output.live);
  try {
    for await (const change of engine.subscribeText(sql, { signal })) view.show(change);
    view.finish(performance.now() - started);
  } finally {
    view.close();
  }
}

/** The view the session's settings ask for; a batch query shows only its final table. */
function resultView(engine: Engine, output: RunnerOutput, screen: LiveScreen): ResultView {
  const { config } = engine.session;
  if (config.get('execution.runtime-mode') === 'batch') return new LiveTableView(output.out, { redraw: false, size: () => screen.size(), write: (text) => screen.write(text) });
  const mode = (config.get('sql-client.execution.result-mode') ?? 'tableau').trim().toLowerCase() as ResultMode;
  switch (mode) {
    case 'table':
      return new LiveTableView(output.out, screen);
    case 'changelog':
      return new ChangelogView(output.out, false);
    case 'tableau':
      return new ChangelogView(output.out, true);
  }
}
