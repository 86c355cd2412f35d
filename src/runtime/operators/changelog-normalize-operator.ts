/**
 * Flink's ChangelogNormalize: turns the upsert changelog of a source (new rows of a key as +I or
 * +U, deletes that may carry only the key) into a full changelog, by keeping the last row of each
 * key in keyed state. Its input is hash-partitioned by the key, so one subtask sees every change
 * of a key, in order.
 *
 * - +I/+U of a key without a row: +I; of a key with a row: -U of that row (when the consumer needs
 *   update-before rows) and +U of the new one, unless the two are equal (then nothing: the table did
 *   not change). Columns holding {@link UNCHANGED_VALUE} take the last row's values.
 * - -D (or -U) of a key with a row: -D of the whole row; of a key without one (deleted before, or
 *   its state expired under `table.exec.state.ttl`): nothing; such deletes are counted, the first
 *   one warned about.
 *
 * State: one row per live key, bounded by the table's size or by the state TTL.
 */
import { WeirError } from '../../common/errors.js';
import { keySelector, rowsEqual, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import { UNCHANGED_VALUE } from '../../common/unchanged-value.js';
import type { ChangelogNormalizeSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter } from './dropped-row-counter.js';

/** Name of the keyed state holding a key's last row. */
export const LAST_ROW_STATE = 'changelog-normalize.last-row';

/** The runtime implementation of a `changelog-normalize` job-graph node. */
export class ChangelogNormalizeOperator implements StreamOperator {
  private readonly keyOf: KeySelector;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private last!: ValueState<Row>;
  private readonly unknownDeletes = new DroppedRowCounter('changelog normalize', 'a delete of a key that has no row (deleted before, or its state expired)');

  /** `schema` is the input's (and output's), for messages. */
  constructor(
    readonly spec: ChangelogNormalizeSpec,
    private readonly schema: Schema,
  ) {
    this.keyOf = keySelector(spec.keys);
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.last = context.keyedState.getValueState<Row>({ name: LAST_ROW_STATE });
  }

  processBatch(batch: ChangeBatch): void {
    const backend = this.context.keyedState;
    const out = this.out;
    out.clear();
    const { kinds, rows } = batch;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      backend.setCurrentKey(this.keyOf(row));
      const previous = this.last.value();
      const kind = kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        const current = row.includes(UNCHANGED_VALUE) ? this.filled(row, previous) : row;
        if (previous === undefined) {
          out.push(RowKind.INSERT, current);
        } else if (!rowsEqual(previous, current)) {
          if (this.spec.emitUpdateBefore) out.push(RowKind.UPDATE_BEFORE, previous);
          out.push(RowKind.UPDATE_AFTER, current);
        } else {
          continue;
        }
        this.last.update(current);
      } else if (previous !== undefined) {
        out.push(RowKind.DELETE, previous);
        this.last.clear();
      } else {
        this.unknownDeletes.drop(this.context);
      }
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /** `row` with its unchanged columns taken from the key's last row. */
  private filled(row: Row, previous: Row | undefined): Row {
    if (previous === undefined) {
      const column = this.schema[row.indexOf(UNCHANGED_VALUE)]?.name ?? '?';
      throw new WeirError(
        'EXECUTION_ERROR',
        `an update of key ${this.describeKey(row)} left column '${column}' unchanged, but the key's last row is not in state (its state expired under table.exec.state.ttl, or the source began after the row was written)`,
        { hint: 'raise table.exec.state.ttl, or read the table with REPLICA IDENTITY FULL and the default changelog-mode' },
      );
    }
    return row.map((value, i) => (value === UNCHANGED_VALUE ? previous[i] : value));
  }

  private describeKey(row: Row): string {
    return `(${this.spec.keys.map((k) => `${this.schema[k]?.name ?? k}=${String(row[k])}`).join(', ')})`;
  }
}
