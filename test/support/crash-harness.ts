/**
 * Fault-injection helpers for end-to-end tests: run `weir run` as a child process, kill it with
 * SIGKILL (after a delay, or by a failpoint), restart it, and read what the filesystem sink
 * committed. The check is always the same: the committed output equals an uninterrupted run's.
 *
 * Random delays come from {@link FaultPlan}: seeded, and logged with their seed, so that a failure
 * replays with `WEIR_TEST_SEED=<seed>`.
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
  options: {
    killAfterMs?: number;
    signal?: NodeJS.Signals;
    failpoints?: string;
    cwd: string;
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    /** Sees all of stderr so far after each chunk, and may kill the child (a fault keyed to what it printed). */
    watch?: (stderr: string, kill: (signal: NodeJS.Signals) => void) => void;
  },
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
      options.watch?.(stderr, (signal) => child.kill(signal));
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

/**
 * The random choices of one fault test: delays drawn from a seeded generator (mulberry32), the
 * seed taken from `WEIR_TEST_SEED` when set, else random. Every draw is logged on stdout with the
 * test's name and the seed, so a failing run can be replayed exactly.
 */
export class FaultPlan {
  readonly seed: number;
  private state: number;

  constructor(private readonly name: string) {
    const fixed = process.env.WEIR_TEST_SEED;
    this.seed = fixed !== undefined && fixed !== '' ? Number(fixed) >>> 0 : Math.floor(Math.random() * 2 ** 32);
    this.state = this.seed;
  }

  /** A whole number of milliseconds in [min, max], logged as `what`. */
  delay(what: string, min: number, max: number): number {
    const ms = min + Math.floor(this.next() * (max - min + 1));
    console.info(`[fault plan] ${this.name}: ${what} = ${ms} ms (replay with WEIR_TEST_SEED=${this.seed})`);
    return ms;
  }

  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
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
