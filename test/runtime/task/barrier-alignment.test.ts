/**
 * Barrier alignment in an operator subtask with two input channels: with EXACTLY_ONCE, records
 * after barrier n on one channel are held until barrier n arrives on the other, then the
 * snapshot is taken, the barrier forwarded, and the held records released — none lost,
 * duplicated or moved across the barrier. AT_LEAST_ONCE never blocks.
 */
import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../../src/common/row.js';
import { RowKind } from '../../../src/common/row-kind.js';
import type { Barrier, CheckpointingMode } from '../../../src/runtime/checkpoint/barrier.js';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OperatorRunner } from '../../../src/runtime/task/operator-runner.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';

/** Everything the operator and its output saw, in order. */
type Event = string;

function setup(mode: CheckpointingMode, channels = 2) {
  const events: Event[] = [];
  const downstream: Channel = {
    push: (batch) => events.push(`out ${batch.rows.map((r) => r[0]).join(',')}`),
    watermark: (wm) => void events.push(`out-watermark ${wm}`),
    barrier: (b) => void events.push(`out-barrier ${b.id}`),
    end: async () => void events.push('out-end'),
  };
  const output = new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128);
  const operator = {
    processBatch: (batch: ChangeBatch, input: number) => {
      events.push(`in${input} ${batch.rows.map((r) => r[0]).join(',')}`);
      output.collect(batch);
    },
  };
  const runner = new OperatorRunner(operator, output, Array<number>(channels).fill(1), {
    mode,
    snapshot: (_runner, barrier) => void events.push(`snapshot ${barrier.id}`),
  });
  const inputs = Array.from({ length: channels }, (_, i) => runner.channel(i, 0));
  return { events, inputs };
}

const rows = (...values: number[]): ChangeBatch => ChangeBatch.of(values.map((v) => [RowKind.INSERT, [v]]));
const barrier = (id: number): Barrier => ({ id, kind: 'checkpoint', final: false });

describe('barrier alignment', () => {
  it('EXACTLY_ONCE holds a channel after its barrier until every channel delivered it', () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    a.push(rows(1));
    a.barrier(barrier(7));
    a.push(rows(2)); // after the barrier on a: held
    a.watermark(100); // held too
    b.push(rows(10)); // before the barrier on b: processed now
    expect(events).toEqual(['in0 1', 'out 1', 'in1 10', 'out 10']);
    b.barrier(barrier(7));
    b.push(rows(11));
    expect(events).toEqual([
      'in0 1', 'out 1', 'in1 10', 'out 10',
      'snapshot 7', 'out-barrier 7',
      'in0 2', 'out 2',
      'in1 11', 'out 11',
    ]);
  });

  it('keeps what a channel sends after its barrier, including its end, until alignment', async () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    a.barrier(barrier(1));
    a.push(rows(5));
    const aEnded = a.end();
    let ended = false;
    void aEnded.then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    b.barrier(barrier(1));
    await aEnded;
    expect(events).toEqual(['snapshot 1', 'out-barrier 1', 'in0 5', 'out 5']);
    b.push(rows(6));
    await b.end();
    expect(events.slice(-4)).toEqual(['in1 6', 'out 6', 'out-watermark Infinity', 'out-end']);
  });

  it('does not wait for a channel that has ended', async () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    await b.end();
    a.push(rows(1));
    a.barrier(barrier(3));
    expect(events).toEqual(['in0 1', 'out 1', 'snapshot 3', 'out-barrier 3']);
  });

  it('completes an alignment when the missing channel ends instead of delivering the barrier', async () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    a.barrier(barrier(4));
    a.push(rows(1));
    await b.end();
    expect(events).toEqual(['snapshot 4', 'out-barrier 4', 'in0 1', 'out 1']);
  });

  it('a newer barrier cancels the alignment of an older one (whose checkpoint was aborted)', () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    a.barrier(barrier(1));
    a.push(rows(1));
    b.barrier(barrier(2)); // checkpoint 1 was aborted; b never got barrier 1
    expect(events).toEqual(['in0 1', 'out 1']);
    a.barrier(barrier(2));
    expect(events).toEqual(['in0 1', 'out 1', 'snapshot 2', 'out-barrier 2']);
  });

  it('AT_LEAST_ONCE never blocks: records after the barrier flow on, the snapshot comes with the last barrier', () => {
    const { events, inputs } = setup('AT_LEAST_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    a.barrier(barrier(9));
    a.push(rows(1));
    b.push(rows(2));
    b.barrier(barrier(9));
    expect(events).toEqual(['in0 1', 'out 1', 'in1 2', 'out 2', 'snapshot 9', 'out-barrier 9']);
  });

  it('snapshots and forwards at once with a single channel', () => {
    const { events, inputs } = setup('EXACTLY_ONCE', 1);
    inputs[0]!.push(rows(1));
    inputs[0]!.barrier(barrier(1));
    inputs[0]!.push(rows(2));
    expect(events).toEqual(['in0 1', 'out 1', 'snapshot 1', 'out-barrier 1', 'in0 2', 'out 2']);
  });

  it('holds batches as copies: a producer reusing its batch does not change what is released', () => {
    const { events, inputs } = setup('EXACTLY_ONCE');
    const [a, b] = inputs as [Channel, Channel];
    const reused = rows(1);
    a.barrier(barrier(1));
    a.push(reused);
    reused.clear();
    reused.push(RowKind.INSERT, [99]);
    b.barrier(barrier(1));
    expect(events).toEqual(['snapshot 1', 'out-barrier 1', 'in0 1', 'out 1']);
  });
});
