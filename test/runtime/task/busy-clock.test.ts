/**
 * The busy clock charges each subtask only its own time when operators run nested inside their
 * upstream's `collect`: measured against wall-clock spans of busy loops.
 */
import { describe, expect, it } from 'vitest';
import { BusyMeter, enterBusy, exitBusy } from '../../../src/runtime/task/busy-clock.js';

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('busy clock', () => {
  it('charges nested work to the inner meter only, and the total to no one twice', () => {
    const outer = new BusyMeter();
    const inner = new BusyMeter();
    const started = performance.now();
    enterBusy(outer);
    spin(20);
    enterBusy(inner);
    spin(30);
    exitBusy();
    spin(10);
    exitBusy();
    const elapsed = performance.now() - started;
    expect(inner.ms).toBeGreaterThanOrEqual(30);
    expect(inner.ms).toBeLessThan(30 + 25);
    expect(outer.ms).toBeGreaterThanOrEqual(30);
    expect(outer.ms).toBeLessThan(30 + 25);
    expect(outer.ms + inner.ms).toBeLessThanOrEqual(elapsed + 0.001);
  });

  it('charges nothing while no subtask works', () => {
    const meter = new BusyMeter();
    enterBusy(meter);
    exitBusy();
    const before = meter.ms;
    spin(15);
    enterBusy(meter);
    exitBusy();
    expect(meter.ms - before).toBeLessThan(5);
  });
});
