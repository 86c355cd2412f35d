/**
 * Idle channels (`table.exec.source.idle-timeout`) in an operator subtask with two inputs: an
 * idle channel does not hold back the watermark; when every channel is idle the watermark moves
 * to the highest one and the idleness is passed on; a channel active again counts once more but
 * never moves the watermark back.
 */
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OperatorRunner } from '../../../src/runtime/task/operator-runner.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';

function setup() {
  const events: string[] = [];
  const downstream: Channel = {
    push: () => undefined,
    watermark: (wm) => void events.push(`watermark ${wm}`),
    idle: (idle) => void events.push(idle ? 'idle' : 'active'),
    barrier: () => undefined,
    end: async () => void events.push('end'),
  };
  const output = new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128);
  const runner = new OperatorRunner({ processBatch: () => undefined }, output, [1, 1], { mode: 'EXACTLY_ONCE', snapshot: () => undefined });
  return { events, a: runner.channel(0, 0), b: runner.channel(1, 0) };
}

describe('watermarks of idle channels', () => {
  it('an idle channel does not hold the watermark back', () => {
    const { events, a, b } = setup();
    a.watermark(100);
    b.watermark(40);
    a.watermark(150);
    expect(events).toEqual(['watermark 40']);
    b.idle!(true);
    expect(events).toEqual(['watermark 40', 'watermark 150']);
    a.watermark(200);
    expect(events.at(-1)).toBe('watermark 200');
  });

  it('all idle: the highest watermark is flushed and the idleness passed on; activity comes back before any later watermark', () => {
    const { events, a, b } = setup();
    a.watermark(100);
    b.watermark(40);
    a.idle!(true);
    expect(events).toEqual(['watermark 40']);
    b.idle!(true);
    expect(events).toEqual(['watermark 40', 'watermark 100', 'idle']);
    b.idle!(false);
    b.watermark(60);
    expect(events).toEqual(['watermark 40', 'watermark 100', 'idle', 'active']);
    b.watermark(130);
    expect(events.at(-1)).toBe('watermark 130');
  });

  it('an ended channel no longer counts when deciding that the subtask is idle', async () => {
    const { events, a, b } = setup();
    b.idle!(true);
    await a.end();
    expect(events).toContain('idle');
    expect(events.filter((e) => e.startsWith('watermark'))).toEqual(['watermark Infinity']);
  });
});
