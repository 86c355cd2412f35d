/**
 * End of data (Flink's EndOfData) in an operator subtask with two inputs: once every channel of an
 * input sent it, the operator ends that input; once every input has, the subtask is finished — it
 * passes a final watermark and end of data on, its snapshots are taken as a finished subtask's —
 * while barriers still pass until the channels end. A subtask restored finished never calls its
 * operator again, and a batch reaching it is an error. A held end of data waits for alignment.
 */
import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../../src/common/row.js';
import { RowKind } from '../../../src/common/row-kind.js';
import type { Barrier } from '../../../src/runtime/checkpoint/barrier.js';
import type { Channel } from '../../../src/runtime/task/channel.js';
import { OperatorRunner } from '../../../src/runtime/task/operator-runner.js';
import { OutputRouter } from '../../../src/runtime/task/output-router.js';

function setup() {
  const events: string[] = [];
  const downstream: Channel = {
    push: (batch) => void events.push(`out ${batch.rows.map((r) => r[0]).join(',')}`),
    watermark: (wm) => void events.push(`out-watermark ${wm}`),
    barrier: (b) => void events.push(`out-barrier ${b.id}`),
    endOfData: async () => void events.push('out-end-of-data'),
    end: async () => void events.push('out-end'),
  };
  const output = new OutputRouter([{ partitioning: { kind: 'forward' }, channels: [downstream] }], 0, 128);
  const operator = {
    processBatch: (batch: ChangeBatch, input: number) => void events.push(`in${input} ${batch.rows.map((r) => r[0]).join(',')}`),
    processWatermark: (wm: number) => {
      events.push(`watermark ${wm}`);
      output.emitWatermark(wm);
    },
    endInput: (input: number) => void events.push(`end-input ${input}`),
  };
  const runner: OperatorRunner = new OperatorRunner(operator, output, [1, 1], {
    mode: 'EXACTLY_ONCE',
    snapshot: (r, b) => void events.push(`snapshot ${b.id}${r.finished ? ' finished' : ''}`),
  });
  const [a, b] = [runner.channel(0, 0), runner.channel(1, 0)];
  return { events, runner, a, b };
}

const rows = (...values: number[]): ChangeBatch => ChangeBatch.of(values.map((v) => [RowKind.INSERT, [v]]));
const barrier = (id: number): Barrier => ({ id, kind: 'checkpoint', final: id === 9 });

describe('end of data', () => {
  it('finishes the subtask before the final barrier, which still passes it', async () => {
    const { events, runner, a, b } = setup();
    a.push(rows(1));
    await a.endOfData!();
    expect(runner.finished).toBe(false);
    b.barrier(barrier(5));
    a.barrier(barrier(5)); // a channel after its end of data still delivers barriers
    b.push(rows(2));
    await b.endOfData!();
    expect(runner.finished).toBe(true);
    a.barrier(barrier(9));
    b.barrier(barrier(9));
    await a.end();
    await b.end();
    expect(events).toEqual([
      'in0 1',
      'end-input 0',
      'snapshot 5', 'out-barrier 5',
      'in1 2',
      'watermark Infinity', 'out-watermark Infinity',
      'end-input 1',
      'out-end-of-data',
      'snapshot 9 finished', 'out-barrier 9',
      'out-end',
    ]);
  });

  it('an end of data held by alignment is processed once the barrier is aligned', async () => {
    const { events, a, b } = setup();
    a.barrier(barrier(5));
    const ended = a.endOfData!();
    expect(events).toEqual([]);
    b.barrier(barrier(5));
    await ended;
    expect(events).toEqual(['snapshot 5', 'out-barrier 5', 'end-input 0']);
  });

  it('a channel that ends without end of data ends its input then (as before end of data existed)', async () => {
    const { events, runner, a, b } = setup();
    await a.end();
    await b.end();
    expect(runner.finished).toBe(true);
    expect(events).toEqual(['end-input 0', 'watermark Infinity', 'out-watermark Infinity', 'end-input 1', 'out-end-of-data', 'out-end']);
  });

  it('restored finished: the operator is not called again, barriers pass, a batch is an error', async () => {
    const { events, runner, a, b } = setup();
    runner.startFinished();
    expect(() => a.push(rows(1))).toThrow(/a finished operator subtask received 1 records: its inputs had ended in the checkpoint it was restored from/);
    await a.endOfData!();
    await b.endOfData!();
    a.barrier(barrier(9));
    b.barrier(barrier(9));
    await a.end();
    await b.end();
    expect(events).toEqual(['out-watermark Infinity', 'out-end-of-data', 'snapshot 9 finished', 'out-barrier 9', 'out-end']);
  });
});
