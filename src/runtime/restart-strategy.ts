/**
 * Restart strategies, as Flink's `restart-strategy.type` (and its option names and defaults):
 * whether a failed job runs again and after how long. Each job has its own {@link RestartBackoff},
 * told of every failure; time and randomness (the exponential delay's jitter) are injectable, so
 * tests decide them.
 *
 * - `none`: never.
 * - `fixed-delay`: up to `attempts` restarts, `delay` apart.
 * - `failure-rate`: after `delay`, unless more than `maxFailuresPerInterval` failures fell within
 *   the last `interval`.
 * - `exponential-delay`: the delay starts at `initialBackoff` and is multiplied by
 *   `backoffMultiplier` after every failure up to `maxBackoff`, ± `jitterFactor` of it; a job that
 *   ran `resetBackoffThreshold` (plus the current backoff) since its last failure starts over at
 *   the initial backoff and attempt count; at most `attemptsBeforeResetBackoff` restarts in between.
 *
 * Whether a restart can help at all is the error's business ({@link isRestartable}): a syntax or
 * planning error, bad data and corrupt checkpoints fail the job whatever the strategy says.
 */
import { WeirError } from '../common/errors.js';

/** A restart strategy with its settings (durations in milliseconds). */
export type RestartStrategyConfig =
  | { readonly type: 'none' }
  | { readonly type: 'fixed-delay'; readonly attempts: number; readonly delayMs: number }
  | { readonly type: 'failure-rate'; readonly maxFailuresPerInterval: number; readonly intervalMs: number; readonly delayMs: number }
  | {
      readonly type: 'exponential-delay';
      readonly initialBackoffMs: number;
      readonly maxBackoffMs: number;
      readonly backoffMultiplier: number;
      readonly resetBackoffThresholdMs: number;
      readonly jitterFactor: number;
      readonly attemptsBeforeResetBackoff: number;
    };

/** The name of a restart strategy. */
export type RestartStrategyType = RestartStrategyConfig['type'];

/** Flink's defaults of each strategy's options. */
export const RESTART_DEFAULTS = {
  fixedDelay: { attempts: 1, delayMs: 1_000 },
  failureRate: { maxFailuresPerInterval: 1, intervalMs: 60_000, delayMs: 1_000 },
  exponentialDelay: {
    initialBackoffMs: 1_000,
    maxBackoffMs: 60_000,
    backoffMultiplier: 1.5,
    resetBackoffThresholdMs: 3_600_000,
    jitterFactor: 0.1,
    attemptsBeforeResetBackoff: 2_147_483_647,
  },
} as const;

/** Where a backoff takes the time and its random numbers from. */
export interface BackoffClock {
  /** Milliseconds, monotonic enough for intervals (Date.now by default). */
  now(): number;
  /** A number in [0, 1) (Math.random by default). */
  random(): number;
}

const SYSTEM_CLOCK: BackoffClock = { now: () => Date.now(), random: () => Math.random() };

/** The restart decisions of one job under one strategy. */
export class RestartBackoff {
  private failures = 0;
  /** fixed-delay: restarts so far; exponential-delay: restarts since the last reset. */
  private attempts = 0;
  private readonly failureTimes: number[] = [];
  private currentBackoffMs = 0;
  private lastFailureAt: number | undefined;

  constructor(
    readonly config: RestartStrategyConfig,
    private readonly clock: BackoffClock = SYSTEM_CLOCK,
  ) {}

  /** Failures reported so far. */
  get failureCount(): number {
    return this.failures;
  }

  /** Records a failure now; returns the delay before the job runs again, or undefined when the strategy allows no more restarts. */
  onFailure(): number | undefined {
    this.failures++;
    const now = this.clock.now();
    const config = this.config;
    switch (config.type) {
      case 'none':
        return undefined;
      case 'fixed-delay':
        this.attempts++;
        return this.attempts <= config.attempts ? config.delayMs : undefined;
      case 'failure-rate': {
        // Flink keeps the last max+1 failures: a restart is refused when all of them fall within the interval.
        this.failureTimes.push(now);
        if (this.failureTimes.length > config.maxFailuresPerInterval + 1) this.failureTimes.shift();
        const full = this.failureTimes.length > config.maxFailuresPerInterval;
        return full && now - this.failureTimes[0]! <= config.intervalMs ? undefined : config.delayMs;
      }
      case 'exponential-delay': {
        const ranSmoothly = this.lastFailureAt === undefined || now - this.lastFailureAt >= config.resetBackoffThresholdMs + this.currentBackoffMs;
        if (ranSmoothly) {
          this.currentBackoffMs = config.initialBackoffMs;
          this.attempts = 0;
        } else if (this.currentBackoffMs < config.maxBackoffMs) {
          // Whole milliseconds, as Flink's long arithmetic.
          this.currentBackoffMs = Math.min(config.maxBackoffMs, Math.max(config.initialBackoffMs, Math.floor(this.currentBackoffMs * config.backoffMultiplier)));
        }
        this.lastFailureAt = now;
        this.attempts++;
        if (this.attempts > config.attemptsBeforeResetBackoff) return undefined;
        const jitter = Math.floor(this.currentBackoffMs * config.jitterFactor);
        const offset = jitter === 0 ? 0 : Math.floor(this.clock.random() * (2 * jitter + 1)) - jitter;
        return Math.max(0, Math.min(config.maxBackoffMs, this.currentBackoffMs + offset));
      }
    }
  }

  /** Why no restart is allowed (after {@link onFailure} returned undefined), for the job's error. */
  exhausted(): string {
    const config = this.config;
    switch (config.type) {
      case 'none':
        return "restart-strategy.type is 'none'";
      case 'fixed-delay':
        return `restart-strategy 'fixed-delay' allows ${config.attempts} restart(s) (restart-strategy.fixed-delay.attempts)`;
      case 'failure-rate':
        return `more than ${config.maxFailuresPerInterval} failure(s) within ${config.intervalMs} ms, which restart-strategy 'failure-rate' does not restart (restart-strategy.failure-rate.max-failures-per-interval)`;
      case 'exponential-delay':
        return `restart-strategy 'exponential-delay' allows ${config.attemptsBeforeResetBackoff} restart(s) before its backoff resets (restart-strategy.exponential-delay.attempts-before-reset-backoff)`;
    }
  }
}

/**
 * False when running the job again cannot help: the error is marked permanent (a corrupt
 * checkpoint, a sink ahead of the checkpoint, a record that cannot be read), or it is of a kind
 * that depends only on the query and its data (syntax, validation, planning, evaluation), or is
 * a failed checkpoint caused by such an error.
 * Connector, checkpoint and internal errors, and errors from outside weir (a dropped connection),
 * are worth a restart.
 */
export function isRestartable(error: unknown): boolean {
  if (!(error instanceof WeirError)) return true;
  if (error.permanent) return false;
  // A checkpoint that failed because an operator met an error of the query (ON CONFLICT DO ERROR at its snapshot) fails like that error.
  if (error.code === 'CHECKPOINT_ERROR' && error.cause instanceof WeirError && !isRestartable(error.cause)) return false;
  switch (error.code) {
    case 'SYNTAX_ERROR':
    case 'UNKNOWN_TABLE':
    case 'UNKNOWN_COLUMN':
    case 'UNKNOWN_FUNCTION':
    case 'AMBIGUOUS_COLUMN':
    case 'DUPLICATE_OBJECT':
    case 'TYPE_MISMATCH':
    case 'INVALID_ARGUMENT':
    case 'INVALID_OPTION':
    case 'UNSUPPORTED':
    case 'PLANNING_ERROR':
    case 'EXECUTION_ERROR':
    case 'ARITHMETIC_OVERFLOW':
      return false;
    case 'CONNECTOR_ERROR':
    case 'CHECKPOINT_ERROR':
    case 'INTERNAL_ERROR':
      return true;
  }
}
