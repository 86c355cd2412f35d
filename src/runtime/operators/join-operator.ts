/**
 * Regular inner equi-join (Flink's StreamingJoinOperator for inner joins): each side's rows are
 * kept in keyed state, a multiset per join key (row → count), and every change on one side is
 * matched against the other side's rows of its key. +I/+U emit +I per match; -U/-D emit -D per
 * match and remove one copy of the row. A NULL key matches nothing and is not stored.
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { JoinSpec } from '../../dataflow/job-graph.js';
import type { MapState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** A stored row of one side, with how many copies of it there are. */
type Stored = [row: Row, count: number];

/** The runtime implementation of a `join` job-graph node. */
export class JoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly keyColumns: readonly [readonly number[], readonly number[]];
  private readonly rowKey: readonly [KeySelector, KeySelector];
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private sides!: readonly [MapState<Key, Stored>, MapState<Key, Stored>];
  private warnedMissing = false;

  constructor(readonly spec: JoinSpec) {
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.keyColumns = [spec.leftKeys, spec.rightKeys];
    this.rowKey = [keySelector(range(spec.leftArity)), keySelector(range(spec.rightArity))];
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.sides = [context.keyedState.getMapState<Key, Stored>({ name: 'join.left' }), context.keyedState.getMapState<Key, Stored>({ name: 'join.right' })];
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = input === 0 ? 0 : 1;
    const own = this.sides[side];
    const other = this.sides[1 - side]!;
    const keyOf = this.joinKey[side];
    const columns = this.keyColumns[side];
    const rowKeyOf = this.rowKey[side];
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      if (columns.some((c) => row[c] === null)) continue;
      state.setCurrentKey(keyOf(row));
      const kind = batch.kinds[i]!;
      const accumulate = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER;
      const id = rowKeyOf(row);
      const stored = own.get(id);
      if (accumulate) own.put(id, [row, (stored?.[1] ?? 0) + 1]);
      else if (stored === undefined) {
        this.missing();
        continue;
      } else if (stored[1] === 1) own.remove(id);
      else own.put(id, [stored[0], stored[1] - 1]);
      const outKind = accumulate ? RowKind.INSERT : RowKind.DELETE;
      for (const [, [match, count]] of other.entries()) {
        const joined = side === 0 ? [...row, ...match] : [...match, ...row];
        for (let c = 0; c < count; c++) out.push(outKind, joined);
      }
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`join ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
