/**
 * The restart strategy of a job from the session's settings, with Flink's keys and defaults:
 * `restart-strategy.type` (or its older name `restart-strategy`), unset meaning exponential-delay
 * for a job that takes checkpoints and none for one that does not, as in Flink.
 */
import { parseDuration } from '../common/duration.js';
import { WeirError } from '../common/errors.js';
import type { RestartStrategyConfig, RestartStrategyType } from '../runtime/restart-strategy.js';
import type { SessionConfig } from './session-config.js';

/** Flink's names of the strategies and their aliases. */
const STRATEGY_NAMES: Readonly<Record<string, RestartStrategyType>> = {
  none: 'none',
  off: 'none',
  disable: 'none',
  'fixed-delay': 'fixed-delay',
  fixeddelay: 'fixed-delay',
  'failure-rate': 'failure-rate',
  failurerate: 'failure-rate',
  'exponential-delay': 'exponential-delay',
  exponentialdelay: 'exponential-delay',
};

/** The strategy the settings choose for a job, given whether it takes checkpoints. */
export function restartStrategyOf(config: SessionConfig, checkpointing: boolean): RestartStrategyConfig {
  const named = (config.get('restart-strategy.type')?.trim() || config.get('restart-strategy')?.trim() || '').toLowerCase();
  const type = named === '' ? (checkpointing ? 'exponential-delay' : 'none') : STRATEGY_NAMES[named];
  if (type === undefined) throw new WeirError('INVALID_OPTION', `unknown restart strategy '${named}'`);
  const ms = (key: string): number => parseDuration(config.get(key)!, key);
  const int = (key: string): number => Number(config.get(key)!.trim());
  switch (type) {
    case 'none':
      return { type: 'none' };
    case 'fixed-delay':
      return { type: 'fixed-delay', attempts: int('restart-strategy.fixed-delay.attempts'), delayMs: ms('restart-strategy.fixed-delay.delay') };
    case 'failure-rate':
      return {
        type: 'failure-rate',
        maxFailuresPerInterval: int('restart-strategy.failure-rate.max-failures-per-interval'),
        intervalMs: ms('restart-strategy.failure-rate.failure-rate-interval'),
        delayMs: ms('restart-strategy.failure-rate.delay'),
      };
    case 'exponential-delay':
      return {
        type: 'exponential-delay',
        initialBackoffMs: ms('restart-strategy.exponential-delay.initial-backoff'),
        maxBackoffMs: Math.max(ms('restart-strategy.exponential-delay.initial-backoff'), ms('restart-strategy.exponential-delay.max-backoff')),
        backoffMultiplier: Number(config.get('restart-strategy.exponential-delay.backoff-multiplier')),
        resetBackoffThresholdMs: ms('restart-strategy.exponential-delay.reset-backoff-threshold'),
        jitterFactor: Number(config.get('restart-strategy.exponential-delay.jitter-factor')),
        attemptsBeforeResetBackoff: int('restart-strategy.exponential-delay.attempts-before-reset-backoff'),
      };
  }
}
