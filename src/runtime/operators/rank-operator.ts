/**
 * Top-N per partition over an insert-only input (Flink's AppendOnlyTopNFunction, and its Limit
 * when there are no order keys): each partition keeps its first `limit` rows in order, in keyed
 * state. A new row that ranks within the limit is inserted after the rows that order equal to it
 * (ties keep arrival order; without order keys every row ties, so rows keep arrival order).
 * Output rows are those numbered from `rankStart` to `limit`: with their number, every row whose
 * number changed is retracted with its old number and re-emitted with the new one (-U/+U), the
 * row pushed past the limit is deleted and the row pushed into the range inserted; without it
 * (`outputRankNumber` false) only the row leaving the range (-D) and the one entering it (+I).
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
    const { limit } = this.spec;
    const start = this.spec.rankStart ?? 1;
    const numbered = this.spec.outputRankNumber !== false;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      state.setCurrentKey(this.partitionOf(row));
      const rows = this.top.value() ?? [];
      let position = rows.length;
      while (position > 0 && this.before(row, rows[position - 1]!)) position--;
      if (position >= limit) continue;
      const evicts = rows.length === limit;
      // The rows from `position` on move down one: number p + 1 becomes p + 2.
      if (numbered) {
        for (let p = position; p < rows.length; p++) if (p + 1 >= start) out.push(p + 2 > limit ? RowKind.DELETE : RowKind.UPDATE_BEFORE, [...rows[p]!, p + 1]);
      } else if (evicts && limit >= start) {
        out.push(RowKind.DELETE, rows[limit - 1]!);
      }
      rows.splice(position, 0, row);
      if (evicts) rows.pop();
      if (numbered) {
        if (position + 1 >= start) out.push(RowKind.INSERT, [...row, position + 1]);
        for (let p = position + 1; p < rows.length; p++) if (p + 1 >= start) out.push(p >= start ? RowKind.UPDATE_AFTER : RowKind.INSERT, [...rows[p]!, p + 1]);
      } else if (position + 1 >= start) {
        out.push(RowKind.INSERT, row);
      } else if (rows.length >= start) {
        out.push(RowKind.INSERT, rows[start - 1]!);
      }
      this.top.update(rows);
    }
    if (out.size > 0) this.context.output.collect(out);
  }
}
