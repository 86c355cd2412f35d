/** The wall-clock timer service: a timer fires once its time has come (not before), a cancelled one never, and stopping the service cancels the rest. */
import { describe, expect, it } from 'vitest';
import { WallClockTimerService } from '../../../src/runtime/task/processing-time-service.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('wall-clock timer service', () => {
  it('fires at the registered time, honours cancel and stop, and reports a throwing callback', async () => {
    const errors: unknown[] = [];
    const service = new WallClockTimerService((e) => errors.push(e));
    const fired: { time: number; at: number }[] = [];
    const start = service.now();
    service.registerTimer(start + 40, (time) => fired.push({ time, at: Date.now() }));
    const cancel = service.registerTimer(start + 20, () => fired.push({ time: -1, at: 0 }));
    cancel();
    service.registerTimer(start - 10, () => {
      throw new Error('boom');
    });
    await sleep(80);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.time).toBe(start + 40);
    expect(fired[0]!.at).toBeGreaterThanOrEqual(start + 39);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
    service.registerTimer(service.now() + 20, () => fired.push({ time: -2, at: 0 }));
    service.stop();
    service.registerTimer(service.now(), () => fired.push({ time: -3, at: 0 }));
    await sleep(50);
    expect(fired).toHaveLength(1);
  });
});
