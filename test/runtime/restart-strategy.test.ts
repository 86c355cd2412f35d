/**
 * Restart strategies on a scripted clock: Flink's fixed-delay, failure-rate and exponential-delay
 * decisions (delays, limits, the reset of the exponential backoff, its jitter), and which errors a
 * restart can help.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { isRestartable, RESTART_DEFAULTS, RestartBackoff, type BackoffClock } from '../../src/runtime/restart-strategy.js';

function clock(random = 0.5): BackoffClock & { advance(ms: number): void } {
  let now = 1_000_000;
  return { now: () => now, random: () => random, advance: (ms) => void (now += ms) };
}

describe('restart strategies', () => {
  it('none never restarts', () => {
    const backoff = new RestartBackoff({ type: 'none' }, clock());
    expect(backoff.onFailure()).toBeUndefined();
    expect(backoff.exhausted()).toBe("restart-strategy.type is 'none'");
  });

  it('fixed-delay restarts `attempts` times, `delay` apart', () => {
    const backoff = new RestartBackoff({ type: 'fixed-delay', attempts: 2, delayMs: 250 }, clock());
    expect([backoff.onFailure(), backoff.onFailure(), backoff.onFailure()]).toEqual([250, 250, undefined]);
    expect(backoff.failureCount).toBe(3);
  });

  it('failure-rate refuses once more than the allowed failures fall within the interval', () => {
    const time = clock();
    const backoff = new RestartBackoff({ type: 'failure-rate', maxFailuresPerInterval: 2, intervalMs: 60_000, delayMs: 100 }, time);
    expect(backoff.onFailure()).toBe(100);
    time.advance(10_000);
    expect(backoff.onFailure()).toBe(100);
    time.advance(10_000);
    expect(backoff.onFailure(), 'three failures within 20 s').toBeUndefined();

    const spread = new RestartBackoff({ type: 'failure-rate', maxFailuresPerInterval: 1, intervalMs: 60_000, delayMs: 100 }, time);
    expect(spread.onFailure()).toBe(100);
    time.advance(61_000);
    expect(spread.onFailure(), 'the earlier failure is outside the interval').toBe(100);
    time.advance(1_000);
    expect(spread.onFailure()).toBeUndefined();
  });

  it("exponential-delay grows by the multiplier up to the maximum (Flink's defaults)", () => {
    const time = clock();
    const backoff = new RestartBackoff({ type: 'exponential-delay', ...RESTART_DEFAULTS.exponentialDelay, jitterFactor: 0 }, time);
    const delays: (number | undefined)[] = [];
    for (let i = 0; i < 12; i++) {
      const delay = backoff.onFailure();
      delays.push(delay);
      time.advance((delay ?? 0) + 10);
    }
    expect(delays).toEqual([1000, 1500, 2250, 3375, 5062, 7593, 11389, 17083, 25624, 38436, 57654, 60000]);
  });

  it('exponential-delay resets after running smoothly for the threshold, and stops after its attempts', () => {
    const time = clock();
    const backoff = new RestartBackoff(
      { type: 'exponential-delay', initialBackoffMs: 100, maxBackoffMs: 10_000, backoffMultiplier: 2, resetBackoffThresholdMs: 5_000, jitterFactor: 0, attemptsBeforeResetBackoff: 3 },
      time,
    );
    expect(backoff.onFailure()).toBe(100);
    time.advance(200);
    expect(backoff.onFailure()).toBe(200);
    time.advance(5_000 + 200);
    expect(backoff.onFailure(), 'ran threshold + backoff: reset').toBe(100);
    time.advance(150);
    expect(backoff.onFailure()).toBe(200);
    time.advance(250);
    expect(backoff.onFailure()).toBe(400);
    time.advance(450);
    expect(backoff.onFailure(), 'a fourth attempt since the reset').toBeUndefined();
    expect(backoff.exhausted()).toContain('allows 3 restart(s) before its backoff resets');
  });

  it('exponential-delay adds a jitter of up to ± factor × backoff', () => {
    const config = { type: 'exponential-delay', ...RESTART_DEFAULTS.exponentialDelay, initialBackoffMs: 1_000 } as const;
    expect(new RestartBackoff(config, clock(0)).onFailure()).toBe(900);
    expect(new RestartBackoff(config, clock(0.9999)).onFailure()).toBe(1100);
    expect(new RestartBackoff(config, clock(0.5)).onFailure()).toBe(1000);
  });

  it('restarts connector, checkpoint and foreign errors, not errors of the query, its data or a permanent one', () => {
    expect(isRestartable(new Error('ECONNREFUSED'))).toBe(true);
    expect(isRestartable(new WeirError('CONNECTOR_ERROR', 'the server went away'))).toBe(true);
    expect(isRestartable(new WeirError('CHECKPOINT_ERROR', 'checkpoint 3 expired'))).toBe(true);
    expect(isRestartable(new WeirError('INTERNAL_ERROR', 'failpoint triggered'))).toBe(true);
    expect(isRestartable(new WeirError('CONNECTOR_ERROR', 'a bad record', { permanent: true }))).toBe(false);
    expect(isRestartable(new WeirError('EXECUTION_ERROR', 'division by zero'))).toBe(false);
    expect(isRestartable(new WeirError('INVALID_OPTION', 'no such option'))).toBe(false);
    const conflict = new WeirError('EXECUTION_ERROR', 'ON CONFLICT DO ERROR: two rows');
    expect(isRestartable(new WeirError('CHECKPOINT_ERROR', 'checkpoint 2 failed', { cause: conflict }))).toBe(false);
    expect(isRestartable(new WeirError('CHECKPOINT_ERROR', 'checkpoint 2 failed', { cause: new Error('ETIMEDOUT') }))).toBe(true);
  });
});
