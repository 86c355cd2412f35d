/** The window table operator: every row once per window containing it, with window_start, window_end and window_time (end - 1). */
import { describe, expect, it } from 'vitest';
import { WindowTableOperator } from '../../../src/runtime/operators/window-table-operator.js';
import { OperatorHarness } from '../operator-harness.js';

describe('window table operator', () => {
  it('assigns TUMBLE, HOP and CUMULATE windows and drops and counts rows without a time', async () => {
    const tumble = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'TUMBLE', size: 10 }, timeIndex: 1 }));
    expect(tumble.push([['+I', ['a', 13]], ['+I', ['b', null]]])).toEqual([['+I', ['a', 13, 10, 20, 19]]]);
    expect((tumble.operator as WindowTableOperator).nullTimeRows).toBe(1);
    expect(tumble.warnings).toHaveLength(1);
    const hop = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'HOP', slide: 5, size: 10 }, timeIndex: 1 }));
    expect(hop.push([['+I', ['a', 13]]])).toEqual([['+I', ['a', 13, 10, 20, 19]], ['+I', ['a', 13, 5, 15, 14]]]);
    const cumulate = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'CUMULATE', step: 5, size: 10 }, timeIndex: 1 }));
    expect(cumulate.push([['+I', ['a', 13]]])).toEqual([['+I', ['a', 13, 10, 15, 14]], ['+I', ['a', 13, 10, 20, 19]]]);
  });

  it('expands every kind of change over a plain timestamp: a retraction removes the copies its insertion made', async () => {
    const hop = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'HOP', slide: 5, size: 10 }, timeIndex: 1 }));
    expect(hop.push([['-U', ['a', 13]], ['+U', ['a', 21]], ['-D', ['b', 4]]])).toEqual([
      ['-U', ['a', 13, 10, 20, 19]],
      ['-U', ['a', 13, 5, 15, 14]],
      ['+U', ['a', 21, 20, 30, 29]],
      ['+U', ['a', 21, 15, 25, 24]],
      ['-D', ['b', 4, 0, 10, 9]],
      ['-D', ['b', 4, -5, 5, 4]],
    ]);
  });

  it('shifts window starts by the offset', async () => {
    const tumble = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'TUMBLE', size: 10, offset: 3 }, timeIndex: 1 }));
    expect(tumble.push([['+I', ['a', 13]], ['+I', ['b', 12]], ['+I', ['c', -1]]])).toEqual([
      ['+I', ['a', 13, 13, 23, 22]],
      ['+I', ['b', 12, 3, 13, 12]],
      ['+I', ['c', -1, -7, 3, 2]],
    ]);
    const hop = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'HOP', slide: 5, size: 10, offset: 2 }, timeIndex: 1 }));
    expect(hop.push([['+I', ['a', 13]]])).toEqual([['+I', ['a', 13, 12, 22, 21]], ['+I', ['a', 13, 7, 17, 16]]]);
    const cumulate = await OperatorHarness.open(new WindowTableOperator({ kind: 'window-table', window: { kind: 'CUMULATE', step: 5, size: 10, offset: 4 }, timeIndex: 1 }));
    expect(cumulate.push([['+I', ['a', 13]]])).toEqual([['+I', ['a', 13, 4, 14, 13]]]);
  });
});
