/**
 * The busy clock charges each subtask only its own time when operators run nested inside their
 * upstream's `collect`. Time is the test's (a clock it advances), so the amounts are exact on any
 * machine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BusyMeter, enterBusy, exitBusy, useBusyClock } from '../../../src/runtime/task/busy-clock.js';

let now = 0;
/** Work that takes `ms` on the test's clock. */
const work = (ms: number): void => void (now += ms);

afterEach(() => useBusyClock());

describe('busy clock', () => {
  it('charges nested work to the inner meter only, and the total to no one twice', () => {
    useBusyClock(() => now);
    const outer = new BusyMeter();
    const inner = new BusyMeter();
    const started = now;
    enterBusy(outer);
    work(20);
    enterBusy(inner);
    work(30);
    exitBusy();
    work(10);
    exitBusy();
    expect(inner.ms).toBe(30);
    expect(outer.ms).toBe(30);
    expect(outer.ms + inner.ms).toBe(now - started);
  });

  it('charges nothing while no subtask works', () => {
    useBusyClock(() => now);
    const meter = new BusyMeter();
    enterBusy(meter);
    work(5);
    exitBusy();
    work(15);
    enterBusy(meter);
    work(2);
    exitBusy();
    expect(meter.ms).toBe(7);
  });

  it('reads performance.now by default', () => {
    const meter = new BusyMeter();
    enterBusy(meter);
    const until = performance.now() + 2;
    while (performance.now() < until);
    exitBusy();
    expect(meter.ms).toBeGreaterThanOrEqual(2);
  });
});
