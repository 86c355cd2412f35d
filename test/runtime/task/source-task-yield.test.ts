/**
 * A source task lets the event loop run (timers, I/O, other tasks) every few batches, and after
 * every poll that returned nothing, so that a reader waiting on the event loop does not spin.
 */
import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { ChangeBatch } from '../../../src/common/row.js';
import type { PollStatus, SourceReader } from '../../../src/runtime/source-reader.js';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';
import { SourceTask, type SourceTaskHost } from '../../../src/runtime/task/source-task.js';

/** Emits one record per poll, `records` in all; until `ready()` is true its polls return nothing. */
class StepReader implements SourceReader {
  polls = 0;
  emitted = 0;

  constructor(
    private readonly records: number,
    private readonly ready: () => boolean = () => true,
  ) {}
  async open(): Promise<void> {}
  poll(output: ChangeBatch): PollStatus {
    this.polls++;
    if (!this.ready()) return 'more';
    output.push(RowKind.INSERT, [this.emitted++]);
    return this.emitted >= this.records ? 'end' : 'more';
  }
  currentOffset(): number {
    return this.emitted;
  }
  async close(): Promise<void> {}
}

async function run(reader: StepReader): Promise<number> {
  let received = 0;
  const downstream: Channel = { push: (batch) => void (received += batch.size), watermark: () => undefined, barrier: () => undefined, end: async () => undefined };
  const host: SourceTaskHost = {
    idle: () => undefined,
    stopped: false,
    takeBarrier: () => undefined,
    acknowledgeSource: () => undefined,
    sourceEnded: () => false,
    barrierRequested: async () => undefined,
  };
  await new SourceTask(reader, new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128), host).run();
  return received;
}

describe('source task and the event loop', () => {
  it('lets the event loop run at least every 8 batches', async () => {
    const reader = new StepReader(100);
    const seen: number[] = [];
    let done = false;
    const tick = (): void => {
      seen.push(reader.polls);
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    expect(await run(reader)).toBe(100);
    done = true;
    const gaps = seen.slice(1).map((polls, i) => polls - seen[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(8);
    expect(seen.length).toBeGreaterThanOrEqual(Math.floor(100 / 8));
  });

  it('yields after a poll that returned nothing, so that a reader waiting on the event loop does not spin', async () => {
    let ready = false;
    setImmediate(() => (ready = true));
    const reader = new StepReader(3, () => ready);
    expect(await run(reader)).toBe(3);
    expect(reader.polls).toBeGreaterThan(3);
  });
});
