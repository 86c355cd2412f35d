/**
 * Top-N per partition over an insert-only input (Flink's AppendOnlyTopNFunction): each partition
 * keeps its first `limit` rows in order, in keyed state. A new row that ranks within the limit is
 * inserted after the rows that order equal to it (ties keep arrival order); every row whose number
 * changes is retracted with its old number and re-emitted with the new one, and the row pushed
 * past the limit is deleted. Output rows are the input row followed by its row number.
 */
import { keySelector, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { RankSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { rowOrder } from './row-order.js';

/** The runtime implementation of a `rank` job-graph node. */
export class RankOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly before: (a: Row, b: Row) => boolean;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private top!: ValueState<Row[]>;

  constructor(readonly spec: RankSpec) {
    this.partitionOf = keySelector(spec.partitionKeys);
    this.before = rowOrder(spec.orderKeys);
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.top = context.keyedState.getValueState<Row[]>({ name: 'rank.top' });
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    const limit = this.spec.limit;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      state.setCurrentKey(this.partitionOf(row));
      const rows = this.top.value() ?? [];
      let position = rows.length;
      while (position > 0 && this.before(row, rows[position - 1]!)) position--;
      if (position >= limit) continue;
      const evicts = rows.length === limit;
      for (let p = position; p < rows.length; p++) out.push(evicts && p === limit - 1 ? RowKind.DELETE : RowKind.UPDATE_BEFORE, [...rows[p]!, p + 1]);
      rows.splice(position, 0, row);
      if (evicts) rows.pop();
      out.push(RowKind.INSERT, [...row, position + 1]);
      for (let p = position + 1; p < rows.length; p++) out.push(RowKind.UPDATE_AFTER, [...rows[p]!, p + 1]);
      this.top.update(rows);
    }
    if (out.size > 0) this.context.output.collect(out);
  }
}
