/**
 * Session settings (`SET 'key' = 'value'`), with Flink's key names. Any key may be set, as in
 * Flink; the keys weir understands are validated when set, so a typo in a value fails at once.
 */
import { parseDuration } from '../common/duration.js';
import { WeirError } from '../common/errors.js';
import { resolveTimeZone } from '../common/time-zone.js';
import { ANALYZER_RULES, DEFAULT_MAX_PASSES, DEFAULT_RULES } from '../plan/optimize/optimizer.js';
import { DEFAULT_CACHE_ENTRIES } from '../runtime/state/lmdb-state-backend.js';

/** A setting weir understands: its default and how its value is checked. */
interface SettingSpec {
  readonly default: string;
  readonly description: string;
  validate(value: string, key: string): void;
}

const positiveInt = (value: string, key: string): void => {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new WeirError('INVALID_OPTION', `'${key}' must be a positive integer, got '${value}'`);
};
const oneOf = (...values: string[]) => (value: string, key: string): void => {
  if (!values.includes(value.trim().toLowerCase())) throw new WeirError('INVALID_OPTION', `'${key}' must be one of ${values.map((v) => `'${v}'`).join(', ')}, got '${value}'`);
};
const duration = (value: string, key: string): void => void parseDuration(value, key);
const nonNegativeInt = (value: string, key: string): void => {
  if (!/^\d+$/.test(value.trim())) throw new WeirError('INVALID_OPTION', `'${key}' must be a non-negative integer, got '${value}'`);
};
const anything = (): void => {};
const timeZone = (value: string, key: string): void => void resolveTimeZone(value, key);
const numberIn = (low: number, high: number, lowOpen: boolean) => (value: string, key: string): void => {
  const n = Number(value.trim());
  const ok = value.trim() !== '' && Number.isFinite(n) && (lowOpen ? n > low : n >= low) && n <= high;
  if (!ok) throw new WeirError('INVALID_OPTION', `'${key}' must be a number ${lowOpen ? 'above' : 'from'} ${low}${high === Infinity ? '' : ` to ${high}`}, got '${value}'`);
};
/** Flink's names of the restart strategies, with their aliases (restart-settings.ts maps them). */
const RESTART_STRATEGY_NAMES = ['none', 'off', 'disable', 'fixed-delay', 'fixeddelay', 'failure-rate', 'failurerate', 'exponential-delay', 'exponentialdelay'];
const restartStrategyName = (value: string, key: string): void => {
  if (value.trim() !== '') oneOf(...RESTART_STRATEGY_NAMES)(value, key);
};

/** The settings weir reads, with their defaults. */
export const KNOWN_SETTINGS: Readonly<Record<string, SettingSpec>> = {
  'parallelism.default': { default: '1', description: 'subtasks per operator', validate: positiveInt },
  'pipeline.max-parallelism': { default: '128', description: 'key groups of keyed state', validate: positiveInt },
  'pipeline.name': { default: '', description: 'the name of the next job', validate: anything },
  'execution.runtime-mode': { default: 'streaming', description: 'streaming or batch', validate: oneOf('streaming', 'batch') },
  'table.exec.state.ttl': { default: '0 ms', description: 'idle state retention (0: forever)', validate: duration },
  'table.exec.source.idle-timeout': { default: '0 ms', description: 'a source without records this long stops holding back watermarks (0: never)', validate: duration },
  'table.exec.sink.require-on-conflict': {
    default: 'true',
    description: 'an updating query into a sink whose primary key is no key of the query needs ON CONFLICT (else the latest row of a key wins)',
    validate: oneOf('true', 'false'),
  },
  background_ddl: {
    default: 'false',
    description: "CREATE MATERIALIZED VIEW returns at once instead of when the view holds its query's answer over what its tables hold (RisingWave's name)",
    validate: oneOf('true', 'false'),
  },
  'table.local-time-zone': {
    default: 'default',
    description: "the zone TIMESTAMP_LTZ values are shown and computed in: 'default' (the process's zone), a region id ('Asia/Shanghai', 'UTC') or an offset ('GMT+08:00')",
    validate: timeZone,
  },
  'table.optimizer.max-passes': { default: String(DEFAULT_MAX_PASSES), description: 'passes of the optimizer rules at most, when they do not reach a fixpoint before', validate: positiveInt },
  'table.optimizer.reuse-source-enabled': { default: 'true', description: 'a job reads a table it scans more than once with one source', validate: oneOf('true', 'false') },
  'table.optimizer.reuse-sub-plan-enabled': { default: 'true', description: 'a job computes equal deterministic sub-plans once', validate: oneOf('true', 'false') },
  'execution.checkpointing.interval': { default: '', description: 'time between checkpoints (off when unset)', validate: duration },
  'execution.checkpointing.mode': { default: 'EXACTLY_ONCE', description: 'EXACTLY_ONCE or AT_LEAST_ONCE', validate: oneOf('exactly_once', 'at_least_once') },
  'execution.checkpointing.timeout': { default: '10 min', description: 'a checkpoint taking longer is aborted', validate: duration },
  'execution.checkpointing.incremental': {
    default: 'true',
    description: 'checkpoints write only the keyed state changed since the last completed one, plus references to the files it builds on',
    validate: oneOf('true', 'false'),
  },
  'execution.checkpointing.tolerable-failed-checkpoints': { default: '0', description: 'aborted checkpoints in a row before the job fails', validate: nonNegativeInt },
  'state.backend.type': {
    default: 'hashmap',
    description: "where keyed state lives: 'hashmap' (the heap) or 'rocksdb' (on disk; weir's embedded disk backend is LMDB, also named 'lmdb')",
    validate: oneOf('hashmap', 'rocksdb', 'lmdb'),
  },
  'state.backend.rocksdb.localdir': { default: '', description: "the directory under which the disk state backend keeps each subtask's state (empty: the OS's temporary directory)", validate: anything },
  'state.backend.lmdb.cache-entries': { default: String(DEFAULT_CACHE_ENTRIES), description: "keyed state entries the disk backend caches in the heap per subtask (written back in batches)", validate: positiveInt },
  'state.checkpoints.dir': { default: '.weir/checkpoints', description: 'where checkpoints and savepoints are written', validate: anything },
  'state.checkpoints.num-retained': { default: '2', description: 'completed checkpoints kept per job', validate: positiveInt },
  'execution.savepoint.path': { default: '', description: 'savepoint or checkpoint the next jobs start from', validate: anything },
  'restart-strategy.type': {
    default: '',
    description: 'none, fixed-delay, failure-rate or exponential-delay (unset: exponential-delay with checkpointing, else none)',
    validate: restartStrategyName,
  },
  'restart-strategy': { default: '', description: "the older name of 'restart-strategy.type'", validate: restartStrategyName },
  'restart-strategy.fixed-delay.attempts': { default: '1', description: 'restarts before the job fails (fixed-delay)', validate: nonNegativeInt },
  'restart-strategy.fixed-delay.delay': { default: '1 s', description: 'time between restarts (fixed-delay)', validate: duration },
  'restart-strategy.failure-rate.max-failures-per-interval': { default: '1', description: 'failures within the interval before the job fails (failure-rate)', validate: positiveInt },
  'restart-strategy.failure-rate.failure-rate-interval': { default: '1 min', description: 'the interval failures are counted in (failure-rate)', validate: duration },
  'restart-strategy.failure-rate.delay': { default: '1 s', description: 'time between restarts (failure-rate)', validate: duration },
  'restart-strategy.exponential-delay.initial-backoff': { default: '1 s', description: 'the first delay (exponential-delay)', validate: duration },
  'restart-strategy.exponential-delay.max-backoff': { default: '1 min', description: 'the longest delay (exponential-delay)', validate: duration },
  'restart-strategy.exponential-delay.backoff-multiplier': { default: '1.5', description: 'the delay grows by this factor per failure (exponential-delay)', validate: numberIn(1, Infinity, true) },
  'restart-strategy.exponential-delay.reset-backoff-threshold': { default: '1 h', description: 'running this long without failure resets the delay (exponential-delay)', validate: duration },
  'restart-strategy.exponential-delay.jitter-factor': { default: '0.1', description: 'the share of the delay added or taken at random (exponential-delay)', validate: numberIn(0, 1, false) },
  'restart-strategy.exponential-delay.attempts-before-reset-backoff': { default: '2147483647', description: 'restarts before the job fails, until the delay resets (exponential-delay)', validate: positiveInt },
  'sql-client.execution.result-mode': { default: 'tableau', description: 'table, changelog or tableau', validate: oneOf('table', 'changelog', 'tableau') },
};

/** `table.optimizer.<rule>.enabled`; the rule is one segment (Flink's own keys such as `table.optimizer.distinct-agg.split.enabled` have more and are not rules). */
const RULE_SETTING = /^table\.optimizer\.([^.]+)\.enabled$/;

/** Fails when `key` switches a rule that is not an optimizer rule (naming the rules there are) or switches off an analyzer rule; validates the value. */
function checkRuleSetting(key: string, value: string): void {
  const name = RULE_SETTING.exec(key)?.[1];
  if (name === undefined) return;
  const known = DEFAULT_RULES.map((r) => r.name);
  if (ANALYZER_RULES.some((r) => r.name === name)) {
    oneOf('true', 'false')(value, key);
    if (value.trim().toLowerCase() === 'true') return;
    throw new WeirError('INVALID_OPTION', `'${key}': '${name}' is a rewrite every plan needs and cannot be switched off`, { hint: `the optimizer rules that can be are ${known.join(', ')}` });
  }
  if (!known.includes(name)) throw new WeirError('INVALID_OPTION', `'${key}': there is no optimizer rule '${name}'; the rules are ${known.join(', ')}`);
  oneOf('true', 'false')(value, key);
}

/** The settings of one session. */
export class SessionConfig {
  private readonly values = new Map<string, string>();

  /** Sets a key, validating values of known keys (and that `table.optimizer.<rule>.enabled` names an optimizer rule). */
  set(key: string, value: string): void {
    KNOWN_SETTINGS[key]?.validate(value, key);
    checkRuleSetting(key, value);
    this.values.set(key, value);
  }

  /** Resets one key, or all of them. */
  reset(key?: string): void {
    if (key === undefined) this.values.clear();
    else this.values.delete(key);
  }

  /** The value of a key: set, or its default, or undefined for unknown unset keys. */
  get(key: string): string | undefined {
    return this.values.get(key) ?? KNOWN_SETTINGS[key]?.default;
  }

  /** A positive integer setting. */
  getInt(key: string): number {
    return Number(this.get(key));
  }

  /** A 'true' / 'false' setting (validated as such, in any case and with surrounding blanks). */
  getBoolean(key: string): boolean {
    return this.get(key)?.trim().toLowerCase() === 'true';
  }

  /** Every explicitly set key with its value, sorted. */
  entries(): [string, string][] {
    return [...this.values.entries()].sort(([a], [b]) => a.localeCompare(b));
  }

  /** The resolved `table.local-time-zone` (`default` is the process's zone now). */
  timeZone(): string {
    return resolveTimeZone(this.get('table.local-time-zone')!);
  }

  /** Optimizer rules switched off with `table.optimizer.<rule>.enabled = false`. */
  disabledRules(): Set<string> {
    const disabled = new Set<string>();
    for (const [key, value] of this.values) {
      const match = RULE_SETTING.exec(key);
      if (match !== null && value.trim().toLowerCase() === 'false') disabled.add(match[1]!);
    }
    return disabled;
  }
}
