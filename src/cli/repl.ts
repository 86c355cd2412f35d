/**
 * The interactive shell (`weir` on a terminal): statements end with `;` and may span lines, an
 * error never ends the session, Ctrl-C stops a running query (or clears a half-typed
 * statement), `.quit` or Ctrl-D leaves. History persists in `~/.weir_history`; Tab completes
 * names from the catalog; errors, `[INFO]` lines and the prompt are coloured when stdout is a
 * terminal with colours and NO_COLOR is unset.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { catalogSnapshot } from '../engine/catalog-snapshot.js';
import { createEngine, type Engine, type ParsedStatement } from '../engine/engine.js';
import type { RestoreReport } from '../engine/session.js';
import { renderError } from '../engine/result-format.js';
import type { LiveScreen } from './live-table-view.js';
import { startMetricsEndpoint, type MetricsFlags } from './metrics-flags.js';
import { ProgressLine, progressWanted } from './progress-line.js';
import { FORMATS, type OutputFormat } from './result-printer.js';
import { EXIT } from './run-command.js';
import { completeFrom, completeSql, type Completion } from './sql-completer.js';
import { StatementBuffer } from './statement-buffer.js';
import { runStatements } from './statement-runner.js';
import { styleFor } from './terminal-style.js';
import { describeRestore, workingCatalogFile } from './working-catalog.js';

const HISTORY = join(homedir(), '.weir_history');
const HELP = `Statements end with ';' and may span several lines.
  .help            this text
  .mode FORMAT     result format: ${FORMATS.join(', ')}
  .timer on|off    print how long each statement took
  .quit            leave (so does Ctrl-D)
A SELECT is shown live as SET 'sql-client.execution.result-mode' says: 'tableau' (changes in a
table, the default), 'changelog' (changes as plain lines) or 'table' (the current rows, redrawn
in place). LIMIT n ends it after n inserted rows; Ctrl-C stops it. Tab completes names.`;
const COMMANDS = ['.help', '.mode', '.timer', '.quit', '.exit'];

/** Runs the shell until `.quit` or end of input. */
export async function runRepl(options: { verbose: boolean; format: OutputFormat; progress?: boolean } & MetricsFlags): Promise<number> {
  const style = styleFor(process.stdout);
  const printError = (error: unknown, source?: string): void => {
    process.stdout.write(style.error(renderError(error, source)) + '\n');
    if (options.verbose && error instanceof Error && error.stack !== undefined) process.stdout.write(error.stack + '\n');
  };
  let opened: { engine: Engine; restored: RestoreReport };
  try {
    const engine = createEngine({ catalogFile: workingCatalogFile() });
    opened = { engine, restored: await engine.restore() };
    await startMetricsEndpoint(engine, options);
  } catch (error) {
    printError(error);
    return EXIT.ERROR;
  }
  const { engine, restored } = opened;
  const prompt = style.bold('weir> ');
  const continuation = style.bold('   ...> ');
  const buffer = new StatementBuffer();
  const complete = (line: string): Completion => {
    if (buffer.empty && line.startsWith('.')) {
      const [command, argument] = line.split(/\s+/);
      if (argument === undefined) return [completeFrom(line, COMMANDS), line];
      return [command === '.mode' ? completeFrom(argument, FORMATS) : command === '.timer' ? completeFrom(argument, ['on', 'off']) : [], argument];
    }
    return completeSql(buffer.text + line, catalogSnapshot(engine.session));
  };
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt, history: loadHistory(), historySize: 1000, terminal: true, completer: complete });
  const screen: LiveScreen = {
    redraw: process.stdout.isTTY,
    size: () => ({ rows: process.stdout.rows || 24, columns: process.stdout.columns || 80 }),
    write: (text) => void process.stdout.write(text),
  };
  let format = options.format;
  let timer = false;
  let running: AbortController | undefined;

  rl.on('SIGINT', () => {
    if (running !== undefined) running.abort();
    else {
      // A fresh prompt: the statement's earlier lines and the half-typed line are dropped.
      buffer.clear();
      process.stdout.write('^C\n');
      rl.setPrompt(prompt);
      if (rl.line === '') rl.prompt();
      else {
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
      }
    }
  });
  process.stdout.write('weir — Flink SQL over streams. Type .help for help.\n');
  if (restored.restored > 0) process.stdout.write(describeRestore(restored) + '\n');
  rl.prompt();
  for await (const line of rl) {
    if (buffer.empty && line.trim().startsWith('.')) {
      const [command, argument] = line.trim().split(/\s+/);
      if (command === '.quit' || command === '.exit') break;
      if (command === '.help') process.stdout.write(HELP + '\n');
      else if (command === '.mode' && FORMATS.includes(argument as OutputFormat)) format = argument as OutputFormat;
      else if (command === '.timer' && (argument === 'on' || argument === 'off')) timer = argument === 'on';
      else process.stdout.write(`unknown command '${line.trim()}'; .help lists the commands\n`);
      rl.prompt();
      continue;
    }
    const state = buffer.add(line);
    if (state.kind === 'incomplete') {
      rl.setPrompt(continuation);
      rl.prompt();
      continue;
    }
    rl.setPrompt(prompt);
    if (state.text.trim() !== '') saveHistory(state.text);
    const started = performance.now();
    const progress = state.kind === 'ready' && showsProgress(state.statements) && progressWanted(options.progress) ? startedJobsProgress(engine) : undefined;
    try {
      if (state.kind === 'error') throw state.error;
      await runStatements(engine, state.statements, {
        format,
        ...(format === 'table' ? { live: screen } : {}),
        out: (text) => {
          progress?.clear();
          process.stdout.write(text + '\n');
        },
        info: (text) => {
          progress?.clear();
          process.stdout.write(style.dim(text) + '\n');
        },
        querySignal: () => (running = new AbortController()).signal,
      });
    } catch (error) {
      if (!(error instanceof Error && error.name === 'AbortError')) printError(error, state.text);
    } finally {
      running = undefined;
      progress?.stop();
    }
    if (timer) process.stdout.write(`Run Time: ${((performance.now() - started) / 1000).toFixed(3)} s\n`);
    rl.prompt();
  }
  rl.close();
  try {
    await engine.close({ graceful: true });
  } catch (error) {
    printError(error);
    return EXIT.ERROR;
  }
  return 0;
}

/** INSERTs wait for their jobs when they write to weir's own tables from bounded input: they show progress meanwhile (a SELECT shows its rows instead). */
function showsProgress(statements: readonly ParsedStatement[]): boolean {
  return statements.length > 0 && statements.every((s) => s.statement.kind === 'insert' || s.statement.kind === 'statement-set');
}

/** The progress line of the jobs started from now on. */
function startedJobsProgress(engine: Engine): ProgressLine {
  const before = new Set(engine.session.jobs());
  const line = new ProgressLine(() => engine.session.jobs().filter((j) => !before.has(j)));
  line.start();
  return line;
}

function loadHistory(): string[] {
  try {
    return readFileSync(HISTORY, 'utf8').split('\n').filter((l) => l !== '').reverse().slice(0, 1000);
  } catch {
    return [];
  }
}

function saveHistory(text: string): void {
  try {
    appendFileSync(HISTORY, text.replace(/\n/g, ' ') + '\n');
  } catch {
    // A history that cannot be written (read-only home) does not stop the shell.
  }
}
