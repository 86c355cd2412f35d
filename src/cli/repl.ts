/**
 * The interactive shell (`weir` on a terminal): statements end with `;` and may span lines, an
 * error never ends the session, Ctrl-C stops a running query (or clears a half-typed
 * statement), `.quit` or Ctrl-D leaves. History persists in `~/.weir_history`.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createEngine } from '../engine/engine.js';
import { renderError } from '../engine/result-format.js';
import { FORMATS, type OutputFormat } from './result-printer.js';
import { EXIT } from './run-command.js';
import { StatementBuffer } from './statement-buffer.js';
import { runStatements } from './statement-runner.js';
import { describeRestore, workingCatalogFile } from './working-catalog.js';

const HISTORY = join(homedir(), '.weir_history');
const HELP = `Statements end with ';' and may span several lines.
  .help            this text
  .mode FORMAT     result format: ${FORMATS.join(', ')}
  .timer on|off    print how long each statement took
  .quit            leave (so does Ctrl-D)
Ctrl-C stops a running query.`;

/** Runs the shell until `.quit` or end of input. */
export async function runRepl(options: { verbose: boolean; format: OutputFormat }): Promise<number> {
  let engine;
  let restored;
  try {
    engine = createEngine({ catalogFile: workingCatalogFile() });
    restored = await engine.restore();
  } catch (error) {
    process.stdout.write(renderError(error) + '\n');
    return EXIT.ERROR;
  }
  const history = loadHistory();
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'weir> ', history, historySize: 1000, terminal: true });
  const buffer = new StatementBuffer();
  let format = options.format;
  let timer = false;
  let running: AbortController | undefined;

  rl.on('SIGINT', () => {
    if (running !== undefined) running.abort();
    else {
      buffer.clear();
      process.stdout.write('^C\n');
      rl.setPrompt('weir> ');
      rl.prompt();
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
      rl.setPrompt('   ...> ');
      rl.prompt();
      continue;
    }
    rl.setPrompt('weir> ');
    if (state.text.trim() !== '') saveHistory(state.text);
    const started = performance.now();
    try {
      if (state.kind === 'error') throw state.error;
      await runStatements(engine, state.statements, {
        format,
        streamQueries: format === 'table',
        out: (text) => process.stdout.write(text + '\n'),
        info: (text) => process.stdout.write(text + '\n'),
        querySignal: () => (running = new AbortController()).signal,
      });
    } catch (error) {
      if (!(error instanceof Error && error.name === 'AbortError')) {
        process.stdout.write(renderError(error, state.text) + '\n');
        if (options.verbose && error instanceof Error && error.stack !== undefined) process.stdout.write(error.stack + '\n');
      }
    } finally {
      running = undefined;
    }
    if (timer) process.stdout.write(`Run Time: ${((performance.now() - started) / 1000).toFixed(3)} s\n`);
    rl.prompt();
  }
  rl.close();
  try {
    await engine.close({ graceful: true });
  } catch (error) {
    process.stdout.write(renderError(error) + '\n');
    return EXIT.ERROR;
  }
  return 0;
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
