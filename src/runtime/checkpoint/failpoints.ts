/**
 * Named failpoints for fault-injection tests: places in the checkpoint, sink and recovery code
 * where a test can make weir crash (SIGKILL, no cleanup) or throw. Configured once per process by
 * `WEIR_FAILPOINTS='name1=crash,name2=error,name3=crash@3'`; without it every failpoint is a
 * single boolean check.
 */
import { WeirError } from '../../common/errors.js';

/** The known failpoints. A spec naming any other point is refused, so a typo cannot silently disable a fault test. */
export const FAILPOINTS = {
  /** A state file is half written: the first half of its bytes are in the file, the rest not yet. */
  checkpointDuringStateWrite: 'checkpoint.during-state-write',
  /** Every task has acknowledged checkpoint n, but its `_metadata` is not written yet. */
  checkpointAfterAcksBeforeMetadata: 'checkpoint.after-acks-before-metadata',
  /** Checkpoint n is complete (`_metadata` durable), but no sink has committed or been notified. */
  checkpointAfterMetadataBeforeNotify: 'checkpoint.after-metadata-before-notify',
  /** A job's final checkpoint is complete (`_metadata` durable, the job counts as finished), but nothing of it is committed. */
  checkpointFinalAfterMetadata: 'checkpoint.final-after-metadata',
  /** Sinks have committed checkpoint n, but the remaining operators have not been notified. */
  checkpointAfterCommitBeforeNotify: 'checkpoint.after-commit-before-notify',
  /** A source has emitted part of a batch. */
  sourceMidEmit: 'source.mid-emit',
  /** A source has emitted barrier n but not yet recorded its offset for checkpoint n. */
  sourceAfterBarrierBeforeSnapshot: 'source.after-barrier-before-snapshot',
  /** Recovery is under way: state partly restored, prepared transactions partly resolved. */
  recoveryDuringRestore: 'recovery.during-restore',
  /** A sink has flushed its rows at barrier n but not run `PREPARE TRANSACTION`. */
  sinkBeforePrepare: 'sink.before-prepare',
  /** `PREPARE TRANSACTION` succeeded, but the sink has not acknowledged checkpoint n. */
  sinkAfterPrepareBeforeAck: 'sink.after-prepare-before-ack',
  /** Checkpoint n is complete, but the sink has not run `COMMIT PREPARED` for it. */
  sinkAfterCompleteBeforeCommit: 'sink.after-complete-before-commit',
  /** Between the `COMMIT PREPARED` of one pending transaction and the next. */
  sinkBetweenCommits: 'sink.between-commits',
} as const;

/** The name of a known failpoint. */
export type FailpointName = (typeof FAILPOINTS)[keyof typeof FAILPOINTS];

const KNOWN_NAMES: ReadonlySet<string> = new Set(Object.values(FAILPOINTS));

/** What a triggered failpoint does: `crash` kills the process with SIGKILL, `error` throws. */
export type FailpointAction = 'crash' | 'error';

/** One configured failpoint. */
export interface FailpointSpec {
  readonly name: FailpointName;
  readonly action: FailpointAction;
  /** Trigger only on this hit (1-based); absent means on every hit. */
  readonly onHit?: number;
}

/** The environment variable that configures failpoints at process start. */
export const FAILPOINTS_ENV = 'WEIR_FAILPOINTS';

/**
 * Parses a failpoint spec (`name=crash`, `name=error`, `name=crash@3`, separated by commas; blanks
 * ignored). Throws `INVALID_OPTION` naming the offending entry for an unknown name or action, a bad
 * hit number, or a name given twice.
 */
export function parseFailpoints(spec: string): ReadonlyMap<string, FailpointSpec> {
  const result = new Map<string, FailpointSpec>();
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = parseEntry(entry);
    if (result.has(parsed.name)) throw invalidEntry(entry, `failpoint '${parsed.name}' is configured twice`);
    result.set(parsed.name, parsed);
  }
  return result;
}

function parseEntry(entry: string): FailpointSpec {
  const match = /^([^=\s]+)\s*=\s*([a-z]+)(?:@(\S*))?$/.exec(entry);
  if (match === null) throw invalidEntry(entry, "expected 'name=crash', 'name=error' or 'name=crash@n'");
  const [, name = '', action = '', hit] = match;
  if (!KNOWN_NAMES.has(name)) throw invalidEntry(entry, `unknown failpoint '${name}'; known: ${[...KNOWN_NAMES].join(', ')}`);
  if (action !== 'crash' && action !== 'error') throw invalidEntry(entry, `unknown action '${action}'; expected crash or error`);
  if (hit === undefined) return { name: name as FailpointName, action };
  if (!/^[1-9][0-9]*$/.test(hit)) throw invalidEntry(entry, `'@${hit}' is not a hit number (1, 2, ...)`);
  return { name: name as FailpointName, action, onHit: Number(hit) };
}

function invalidEntry(entry: string, problem: string): WeirError {
  return new WeirError('INVALID_OPTION', `${FAILPOINTS_ENV} entry '${entry}': ${problem}`);
}

/** Options of a {@link FailpointRegistry}. */
export interface FailpointRegistryOptions {
  /**
   * Performs a `crash`; the default sends SIGKILL to this process. Tests inject a recorder; if it
   * returns, the failpoint throws as in `error` mode, so execution never continues past it.
   */
  readonly crash?: (name: string) => void;
}

function killThisProcess(): void {
  process.kill(process.pid, 'SIGKILL');
}

/** Configured failpoints with their hit counters. Counts only configured points. */
export class FailpointRegistry {
  /** False when nothing is configured: {@link FailpointRegistry.hit} then does nothing. */
  readonly enabled: boolean;
  private readonly specs: ReadonlyMap<string, FailpointSpec>;
  private readonly hits = new Map<string, number>();
  private readonly crash: (name: string) => void;

  /** `spec` as in {@link parseFailpoints}; throws on an invalid one. */
  constructor(spec: string, options: FailpointRegistryOptions = {}) {
    this.specs = parseFailpoints(spec);
    this.enabled = this.specs.size > 0;
    this.crash = options.crash ?? killThisProcess;
  }

  /** Records that `name` was reached and crashes or throws if it is configured to on this hit. */
  hit(name: string): void {
    const spec = this.specs.get(name);
    if (spec === undefined) return;
    const count = (this.hits.get(name) ?? 0) + 1;
    this.hits.set(name, count);
    if (spec.onHit !== undefined && spec.onHit !== count) return;
    if (spec.action === 'crash') this.crash(name);
    throw new WeirError('INTERNAL_ERROR', `failpoint ${name} triggered`);
  }

  /** How often a configured failpoint has been reached (0 for one that is not configured). */
  hitCount(name: string): number {
    return this.hits.get(name) ?? 0;
  }
}

let registry = new FailpointRegistry(process.env[FAILPOINTS_ENV] ?? '');
let enabled = registry.enabled;

/**
 * Marks a failpoint: crashes or throws when `WEIR_FAILPOINTS` (or {@link setFailpoints}) configures
 * it for this hit, otherwise returns. Costs one boolean check when no failpoint is configured.
 */
export function failpoint(name: FailpointName): void {
  if (!enabled) return;
  registry.hit(name);
}

/**
 * Replaces the process's failpoints (hit counts restart at 0); `''` turns them all off. For
 * in-process fault-injection tests; production configures failpoints only through the environment.
 */
export function setFailpoints(spec: string, options: FailpointRegistryOptions = {}): void {
  registry = new FailpointRegistry(spec, options);
  enabled = registry.enabled;
}
