/**
 * A source task holds a triggered barrier while its reader says its position cannot be resumed
 * from (`checkpointable()` false), injects it after the first poll where it can, and records
 * the offset of that point under the barrier's checkpoint id.
 */
import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { ChangeBatch } from '../../../src/common/row.js';
import type { Barrier } from '../../../src/runtime/checkpoint/barrier.js';
import type { PollStatus, SourceReader } from '../../../src/runtime/source-reader.js';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';
import { SourceTask, type SourceTaskHost } from '../../../src/runtime/task/source-task.js';

/** Emits 0..9, two per poll; not checkpointable before `resumableFrom` values were emitted, unless that is undefined (no hook). */
class CountingReader implements SourceReader {
  position = 0;
  readonly offsetsFor: (number | undefined)[] = [];
  readonly checkpointable: (() => boolean) | undefined;

  constructor(resumableFrom: number | undefined) {
    this.checkpointable = resumableFrom === undefined ? undefined : () => this.position >= resumableFrom;
  }
  async open(): Promise<void> {}
  poll(output: ChangeBatch): PollStatus {
    for (let i = 0; i < 2; i++) output.push(RowKind.INSERT, [this.position++]);
    return this.position >= 10 ? 'end' : 'more';
  }
  currentOffset(checkpointId?: number): number {
    this.offsetsFor.push(checkpointId);
    return this.position;
  }
  async close(): Promise<void> {}
}

async function run(reader: CountingReader): Promise<{ events: string[]; acknowledged: [number, unknown][] }> {
  const events: string[] = [];
  const downstream: Channel = {
    push: (batch) => void events.push(batch.rows.map((r) => r[0]).join(',')),
    watermark: () => undefined,
    barrier: (b) => void events.push(`barrier ${b.id}`),
    end: async () => void events.push('end'),
  };
  const acknowledged: [number, unknown][] = [];
  let pending: Barrier | undefined = { id: 7, kind: 'checkpoint', final: false };
  const host: SourceTaskHost = {
    idle: () => undefined,
    stopped: false,
    takeBarrier: () => {
      const barrier = pending;
      pending = undefined;
      return barrier;
    },
    acknowledgeSource: (_task, barrier, offset) => void acknowledged.push([barrier.id, offset]),
    sourceEnded: () => false,
    barrierRequested: async () => undefined,
  };
  await new SourceTask(reader, new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128), host).run();
  return { events, acknowledged };
}

describe('source task and checkpointable readers', () => {
  it('holds the barrier until the reader can be resumed from its position, and records that offset for the checkpoint', async () => {
    const reader = new CountingReader(6);
    const { events, acknowledged } = await run(reader);
    expect(events).toEqual(['0,1', '2,3', '4,5', 'barrier 7', '6,7', '8,9', 'end']);
    expect(acknowledged).toEqual([[7, 6]]);
    expect(reader.offsetsFor).toEqual([7]);
  });

  it('injects a pending barrier right after a poll, so it follows what the reader had read, when the reader has no opinion', async () => {
    const { events, acknowledged } = await run(new CountingReader(undefined));
    expect(events).toEqual(['0,1', 'barrier 7', '2,3', '4,5', '6,7', '8,9', 'end']);
    expect(acknowledged).toEqual([[7, 2]]);
  });
});
