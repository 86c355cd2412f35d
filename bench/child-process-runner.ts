/**
 * Runs one measurement in a fresh Node process pinned to one core (`taskset`, when the system has
 * it), so that every measurement starts cold with its own heap and its own peak RSS. The child is
 * this same script started with `--child <spec as JSON>`; it prints its result as the last line.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildResult, ChildSpec } from './bench-measurement.js';

/** How children are started. */
export interface ChildOptions {
  /** The core every child is pinned to. */
  readonly core: number;
  /** A child still running after this long is killed and reported as a timeout. */
  readonly timeoutMs: number;
  /** When set, children write V8 CPU profiles (`--cpu-prof`) into this folder. */
  readonly profileDir?: string;
  /** The child ends by killing itself with SIGKILL (recovery-bench.ts): that is success, and it resolves with undefined. */
  readonly killsItself?: boolean;
}

/** The argument that makes the script run one measurement and exit. */
export const CHILD_FLAG = '--child';

let hasTaskset: boolean | undefined;

/** True when children are pinned to a core. */
export function pinsCores(): boolean {
  return (hasTaskset ??= spawnSync('taskset', ['--version']).status === 0);
}

/**
 * weir runs as its CLI does (the `weir` binary's shebang sets it): with V8's default young
 * generation, batches of short-lived rows were promoted in some runs and not others, halving
 * throughput at random. The references run with Node's defaults, which suit them better.
 */
const WEIR_YOUNG_GENERATION = '--max-semi-space-size=64';

const runsWeir = (spec: ChildSpec): boolean => spec.kind !== 'nexmark' || spec.engine === 'weir';

/** Runs `spec` in a child process; rejects when the child fails or times out (with its stderr). Resolves with undefined only for a child that killed itself as `killsItself` expects. */
export function runInChild(spec: ChildSpec, options: ChildOptions): Promise<ChildResult | undefined> {
  const node = [
    '--expose-gc',
    '--max-old-space-size=12288',
    ...(runsWeir(spec) ? [WEIR_YOUNG_GENERATION] : []),
    ...(options.profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${options.profileDir}`]),
    process.argv[1]!,
    CHILD_FLAG,
    JSON.stringify(spec),
  ];
  const [command, args] = pinsCores() ? ['taskset', ['-c', String(options.core), process.execPath, ...node]] : [process.execPath, node];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(Object.assign(new Error(`timed out after ${options.timeoutMs / 1000} s`), { timeout: true }));
    }, options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop();
      if (options.killsItself === true && signal === 'SIGKILL') resolve(undefined);
      else if (code === 0 && last !== undefined && last.startsWith('{')) resolve(JSON.parse(last) as ChildResult);
      else reject(new Error(`child exited ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}
