/** Window timers fire every registered (time, key) pair once, when the watermark reaches its time, in ascending time order. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowTimers } from '../../../src/runtime/operators/window-timers.js';

describe('window timers', () => {
  it('fire each registered timer once, by ascending time, when the watermark reaches it', () => {
    const timer = fc.tuple(fc.integer({ min: 0, max: 100 }), fc.constantFrom('a', 'b', 'c'));
    const step = fc.record({ timers: fc.array(timer, { maxLength: 8 }), watermark: fc.integer({ min: -5, max: 120 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 20 }), (steps) => {
        const timers = new WindowTimers();
        const pending = new Set<string>();
        for (const { timers: registered, watermark } of steps) {
          for (const [time, key] of registered) {
            timers.register(time, key);
            pending.add(`${time}/${key}`);
          }
          const fired: [number, string][] = [];
          timers.advance(watermark, (key, time) => fired.push([time, key as string]));
          const due = [...pending].filter((p) => Number(p.split('/')[0]) <= watermark);
          expect(fired.map(([t, k]) => `${t}/${k}`).sort()).toEqual(due.sort());
          expect(fired.map(([t]) => t)).toEqual([...fired.map(([t]) => t)].sort((a, b) => a - b));
          for (const d of due) pending.delete(d);
        }
      }),
    );
  });
});
