/**
 * A source whose reader has ended sends the final watermark and end of data, and waits until the
 * operators downstream have handled it: meanwhile it injects the barriers triggered (an alignment
 * may hold its end of data back until they pass), it returns when the job stops (that alignment
 * may then never end), and an operator's failure at end of input fails it. A source restored
 * finished reads nothing.
 */
import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { ChangeBatch } from '../../../src/common/row.js';
import type { Barrier } from '../../../src/runtime/checkpoint/barrier.js';
import type { PollStatus, SourceReader } from '../../../src/runtime/source-reader.js';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';
import { SourceTask, type SourceTaskHost } from '../../../src/runtime/task/source-task.js';

/** Emits 0 and 1, then ends. */
class TwoRows implements SourceReader {
  polls = 0;
  async open(): Promise<void> {}
  poll(output: ChangeBatch): PollStatus {
    this.polls++;
    output.push(RowKind.INSERT, [0]);
    output.push(RowKind.INSERT, [1]);
    return 'end';
  }
  currentOffset(): number {
    return 2;
  }
  async close(): Promise<void> {}
}

/** A host without checkpointing whose `stopped` and pending barrier a test sets; a barrier request waits for the test's wake-up. */
class Host implements SourceTaskHost {
  stopped = false;
  pending: Barrier | undefined;
  readonly acknowledged: number[] = [];
  private wakeUp: (() => void) | undefined;
  idle(): undefined {
    return undefined;
  }
  takeBarrier(): Barrier | undefined {
    const barrier = this.pending;
    this.pending = undefined;
    return barrier;
  }
  acknowledgeSource(_task: SourceTask, barrier: Barrier): void {
    this.acknowledged.push(barrier.id);
  }
  sourceEnded(): boolean {
    return false;
  }
  barrierRequested(_task: SourceTask, until?: Promise<unknown>): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      until?.then(() => resolve(), () => resolve());
    });
  }
  wake(): void {
    this.wakeUp?.();
  }
}

function setup(endOfData: () => Promise<void>): { host: Host; events: string[]; task: SourceTask; reader: TwoRows } {
  const events: string[] = [];
  const downstream: Channel = {
    push: (batch) => void events.push(batch.rows.map((r) => r[0]).join(',')),
    watermark: (wm) => void events.push(`watermark ${wm}`),
    barrier: (b) => void events.push(`barrier ${b.id}`),
    endOfData: () => {
      events.push('end of data');
      return endOfData();
    },
    end: async () => void events.push('end'),
  };
  const host = new Host();
  const reader = new TwoRows();
  const task = new SourceTask(reader, new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128), host);
  return { host, events, task, reader };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a source at the end of its input', () => {
  it('injects the barriers triggered while its end of data is held, then ends', async () => {
    let release!: () => void;
    const { host, events, task } = setup(() => new Promise((resolve) => (release = resolve)));
    const running = task.run();
    await tick();
    expect(task.finished).toBe(true);
    host.pending = { id: 3, kind: 'checkpoint', final: false };
    host.wake();
    await tick();
    expect(host.acknowledged).toEqual([3]);
    release();
    await running;
    expect(events).toEqual(['0,1', 'watermark Infinity', 'end of data', 'barrier 3', 'end']);
  });

  it('returns when the job stops while its end of data is held (an alignment that may never end)', async () => {
    const { host, events, task } = setup(() => new Promise(() => undefined));
    const running = task.run();
    await tick();
    host.stopped = true;
    host.wake();
    await running;
    expect(events).toEqual(['0,1', 'watermark Infinity', 'end of data']);
  });

  it('fails with the failure of an operator at end of input', async () => {
    const { task } = setup(() => Promise.reject(new Error('ON CONFLICT DO ERROR: two rows')));
    await expect(task.run()).rejects.toThrow('ON CONFLICT DO ERROR: two rows');
  });

  it('restored finished, reads nothing', async () => {
    const { events, task, reader } = setup(async () => undefined);
    task.startFinished();
    await task.run();
    expect(reader.polls).toBe(0);
    expect(events).toEqual(['watermark Infinity', 'end of data', 'end']);
  });
});
