/**
 * Fault-injection helpers for end-to-end tests: run `weir run` as a child process, kill it with
 * SIGKILL (after a delay, or by a failpoint), restart it, and read what the filesystem sink
 * committed. The check is always the same: the committed output equals an uninterrupted run's.
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEIR } from './weir-cli.js';

/** How a child run ended. */
export interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/**
 * Runs `weir run <script>`; sends it `signal` (default SIGKILL) `killAfterMs` after its job was
 * submitted, when given — counted from the submission, not the spawn, so that a slow start on a
 * loaded machine does not turn a mid-run kill into one before the job exists.
 */
export function runChild(
  script: string,
  options: { killAfterMs?: number; signal?: NodeJS.Signals; failpoints?: string; cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const env = { ...(options.env ?? process.env), WEIR_FAILPOINTS: options.failpoints ?? '' };
    const child = spawn(process.execPath, [WEIR, 'run', script], { cwd: options.cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let killer: NodeJS.Timeout | undefined;
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (options.killAfterMs !== undefined && killer === undefined && stderr.includes('Submitted job')) {
        killer = setTimeout(() => child.kill(options.signal ?? 'SIGKILL'), options.killAfterMs);
      }
    });
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`weir run did not end within ${options.timeoutMs ?? 60_000} ms; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (killer !== undefined) clearTimeout(killer);
      clearTimeout(timeout);
      resolve({ code, signal, stderr });
    });
  });
}

/** The JSON lines of every committed (visible) part file in a directory. */
export function committedRecords(dir: string): unknown[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith('part-'))
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown),
    );
}

/** A multiset of rows, keyed by their JSON text. */
export type Multiset = Map<string, number>;

/** Adds `count` copies of a row. */
export function add(set: Multiset, row: unknown, count = 1): void {
  const key = JSON.stringify(row);
  const next = (set.get(key) ?? 0) + count;
  if (next === 0) set.delete(key);
  else set.set(key, next);
}

/**
 * The net table of a debezium-json changelog, independent of record order: every `after` row
 * added, every `before` row removed. Duplicated or lost changes leave a different table (or
 * negative counts).
 */
export function netTable(records: readonly unknown[]): Multiset {
  const table: Multiset = new Map();
  for (const record of records) {
    const { before, after } = record as { before: unknown; after: unknown };
    if (after !== null) add(table, after, 1);
    if (before !== null) add(table, before, -1);
  }
  return table;
}

/** Sorted entries, for readable assertions. */
export function entries(set: Multiset): [string, number][] {
  return [...set.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/**
 * The start the crash tests' scripts share: checkpoints every 100 ms into `dir`, the job named
 * `job`, and a deterministic source `src` of `rows` rows (id 1..rows, k in 0..49, v in 0..1000) at
 * 8000 rows/s. `settings` are more SET statements.
 */
export function crashScriptPreamble(dir: string, job: string, rows: number, settings = ''): string {
  return `SET 'state.checkpoints.dir' = '${dir}/checkpoints';
     SET 'execution.checkpointing.interval' = '100 ms';
     SET 'pipeline.name' = '${job}';
     ${settings}
     CREATE TABLE src (id BIGINT, k INT, v INT) WITH (
       'connector' = 'datagen', 'rows-per-second' = '8000',
       'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${rows}',
       'fields.k.min' = '0', 'fields.k.max' = '49', 'fields.v.min' = '0', 'fields.v.max' = '1000');`;
}

/** One planned interruption of a run: SIGKILL after a delay, or a failpoint that must crash it. */
export interface Crash {
  readonly killAfterMs?: number;
  readonly failpoints?: string;
}

/**
 * Runs the script once per planned crash, restarting after each, then once more to completion;
 * returns everything the runs printed on stderr. A run killed by a delay may finish first (then
 * the rest is skipped); a run with a failpoint must die by SIGKILL, or the test proves nothing.
 */
export async function runUntilDone(script: string, dir: string, crashes: readonly Crash[], env?: NodeJS.ProcessEnv): Promise<string> {
  let log = '';
  for (const crash of crashes) {
    const run = await runChild(script, { cwd: dir, ...crash, ...(env === undefined ? {} : { env }) });
    log += run.stderr;
    if (run.code === 0 && crash.failpoints === undefined) return log;
    expect(run.signal, `the run must die by SIGKILL${crash.failpoints === undefined ? '' : ` at ${crash.failpoints}`}: ${run.stderr}`).toBe('SIGKILL');
  }
  const last = await runChild(script, { cwd: dir, ...(env === undefined ? {} : { env }) });
  log += last.stderr;
  expect(last.code, last.stderr).toBe(0);
  return log;
}
