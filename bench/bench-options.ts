/** The command line of `npm run bench`. */
import { cpus } from 'node:os';

/** What `npm run bench -- ...` asked for. */
export interface BenchOptions {
  /** `--quick`: 1M events instead of 10M, fewer rows in the in-process benchmarks. */
  readonly quick: boolean;
  /** `--micro`: only the per-operator micro-benchmarks. */
  readonly micro: boolean;
  /** `--events N`: events per Nexmark measurement. */
  readonly events: number;
  /** `--tps N`: the source's `first-event.rate` (Flink V1: 10,000,000). */
  readonly tps: number;
  /** `--runs N`: repetitions of every measurement; the median is reported. */
  readonly runs: number;
  /** `--only q0,q5,pg-sink,checkpoint`: only these Nexmark queries, `pg-sink` (the PostgreSQL sink benchmark), `checkpoint` (the checkpoint overhead), `state-scale` (checkpoints of millions of keys), `recovery` (restart after SIGKILL), `view-ddl` (CREATE/DROP of a materialized view beside 1 to 50 running ones) or `dss` (the decision-support workload), and no in-process benchmarks; with `--micro`, operators whose name starts with one of these. */
  readonly only: readonly string[] | undefined;
  /** `--core N`: the core children are pinned to. */
  readonly core: number;
  /** `--profile DIR`: children write CPU profiles there. */
  readonly profileDir: string | undefined;
  /** `--timeout S`: seconds after which a child is killed. */
  readonly timeoutSeconds: number;
  /** `--pg-rows N`: source rows per run of the PostgreSQL sink benchmark. */
  readonly pgRows: number;
  /** `--state-backend hashmap,rocksdb`: the keyed state backends the state-scale benchmark runs with (`hashmap` by default). */
  readonly stateBackends: readonly StateScaleBackend[];
  /**
   * `--state-scale-sizes 1000000:4000000,5000000:20000000`: keys:rows of each state-scale run (default: those two; 1M:4M with
   * --quick); `KEYS:seq` reads each key once, in order (KEYS rows).
   */
  readonly stateScaleSizes: readonly { readonly keys: number; readonly rows: number; readonly sequence?: boolean }[] | undefined;
}

/** A `state.backend.type` the state-scale benchmark runs with. */
export type StateScaleBackend = 'hashmap' | 'rocksdb';

export const USAGE = `npm run bench -- [--quick] [--micro] [--events N] [--tps N] [--runs N] [--only q0,q5,groupby,pg-sink,checkpoint,state-scale,recovery,view-ddl,dss] [--core N] [--profile DIR] [--timeout S] [--pg-rows N] [--state-backend hashmap,rocksdb] [--state-scale-sizes KEYS:ROWS|KEYS:seq,...]`;

/** Parses `argv` (without node and script). */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
    return v;
  };
  const int = (flag: string, fallback: number): number => {
    const v = value(flag);
    if (v === undefined) return fallback;
    const n = Number(v.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${flag} must be a non-negative integer, got ${v}\n${USAGE}`);
    return n;
  };
  const known = new Set(['--quick', '--micro', '--events', '--tps', '--runs', '--only', '--core', '--profile', '--timeout', '--pg-rows', '--state-backend', '--state-scale-sizes']);
  for (const arg of argv) if (arg.startsWith('--') && !known.has(arg)) throw new Error(`unknown option ${arg}\n${USAGE}`);
  const quick = argv.includes('--quick');
  return {
    quick,
    micro: argv.includes('--micro'),
    events: int('--events', quick ? 1_000_000 : 10_000_000),
    tps: int('--tps', 10_000_000),
    runs: Math.max(1, int('--runs', 3)),
    only: value('--only')?.split(',').map((q) => q.trim()),
    core: int('--core', cpus().length - 1),
    profileDir: value('--profile'),
    timeoutSeconds: int('--timeout', 900),
    pgRows: int('--pg-rows', 1_000_000),
    stateBackends: (value('--state-backend') ?? 'hashmap').split(',').map((b): StateScaleBackend => {
      const backend = b.trim();
      if (backend !== 'hashmap' && backend !== 'rocksdb') throw new Error(`--state-backend takes hashmap and/or rocksdb, got ${backend}\n${USAGE}`);
      return backend;
    }),
    stateScaleSizes: value('--state-scale-sizes')?.split(',').map((size) => {
      const [keysText = '', rowsText = ''] = size.split(':');
      const sequence = rowsText === 'seq';
      const keys = Number(keysText.replace(/_/g, ''));
      const rows = sequence ? keys : Number(rowsText.replace(/_/g, ''));
      if (!Number.isSafeInteger(keys) || !Number.isSafeInteger(rows) || keys < 1 || rows < 1) throw new Error(`--state-scale-sizes takes KEYS:ROWS or KEYS:seq pairs, got ${size}\n${USAGE}`);
      return sequence ? { keys, rows, sequence } : { keys, rows };
    }),
  };
}
