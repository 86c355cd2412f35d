/**
 * Flink's SinkUpsertMaterializer: sits before a sink whose primary key is not a key of its input,
 * so that rows of the query that share a primary key (their upsert keys differ) cannot leave the
 * table holding a row the query no longer has. Its input is hash-partitioned by the primary key;
 * per key it keeps the rows present, in arrival order (a list in keyed value state, written back
 * on every change), and it emits an upsert changelog of the key holding the row its conflict
 * strategy picks: the latest for DEDUPLICATE and ERROR, the earliest for NOTHING. A batch is
 * folded first, then every key it touched emits at most one change: +I when the key gains a row,
 * +U when the chosen row changed, -D when the key has no row left.
 *
 * A retraction removes one row equal to it (the first such for DEDUPLICATE and ERROR, the last for
 * NOTHING, so that the chosen row stays when a copy of it goes). ERROR fails the job when a key
 * holds two rows at a barrier or at the end of input — moments when every change before them has
 * arrived, so that a row moving from one key to another in two changes is no conflict; the
 * checkpoint is declined, so that nothing of it commits. State is the query's rows per key, which
 * `table.exec.state.ttl` bounds like a join's.
 */
import { WeirError } from '../../common/errors.js';
import { keySelector, rowsEqual, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { SinkUpsertMaterializerSpec } from '../../dataflow/job-graph.js';
import { formatValue } from '../../common/value-format.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** Name of the keyed state holding a key's rows. */
export const MATERIALIZED_ROWS_STATE = 'sink-upsert-materializer.rows';

/** The runtime implementation of a `sink-upsert-materializer` job-graph node. */
export class SinkUpsertMaterializerOperator implements StreamOperator {
  private readonly keyOf: KeySelector;
  private readonly keepFirst: boolean;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private rows!: ValueState<Row[]>;
  /** Per batch: the keys touched, in first-touch order, and the row each showed before the batch. */
  private readonly touched = new Map<Key, Row | undefined>();
  /** Keys changed since the last conflict check (ERROR only). */
  private readonly unchecked = new Set<Key>();
  private warnedMissing = false;

  /** `schema` is the input's (and output's), for messages. */
  constructor(
    readonly spec: SinkUpsertMaterializerSpec,
    private readonly schema: Schema,
  ) {
    this.keyOf = keySelector(spec.keys);
    this.keepFirst = spec.conflictStrategy === 'NOTHING';
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.rows = context.keyedState.getValueState<Row[]>({ name: MATERIALIZED_ROWS_STATE });
  }

  processBatch(batch: ChangeBatch): void {
    const backend = this.context.keyedState;
    const { kinds, rows } = batch;
    const touched = this.touched;
    const checks = this.spec.conflictStrategy === 'ERROR';
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const key = this.keyOf(row);
      backend.setCurrentKey(key);
      const present = this.rows.value();
      if (!touched.has(key)) touched.set(key, present === undefined ? undefined : this.chosen(present));
      const kind = kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        this.rows.update(present === undefined ? [row] : [...present, row]);
      } else {
        const index = present === undefined ? -1 : this.keepFirst ? lastIndexOf(present, row) : firstIndexOf(present, row);
        if (index < 0) {
          this.missing();
          continue;
        }
        if (present!.length === 1) this.rows.clear();
        else this.rows.update(present!.filter((_, j) => j !== index));
      }
      if (checks) this.unchecked.add(key);
    }
    this.emit();
  }

  /** One change per key the batch touched: what it shows now against what it showed before. */
  private emit(): void {
    const backend = this.context.keyedState;
    const out = this.out;
    out.clear();
    for (const [key, before] of this.touched) {
      backend.setCurrentKey(key);
      const present = this.rows.value();
      const after = present === undefined ? undefined : this.chosen(present);
      if (after === undefined) {
        if (before !== undefined) out.push(RowKind.DELETE, before);
      } else if (before === undefined) {
        out.push(RowKind.INSERT, after);
      } else if (after !== before && !rowsEqual(after, before)) {
        out.push(RowKind.UPDATE_AFTER, after);
      }
    }
    this.touched.clear();
    if (out.size > 0) this.context.output.collect(out);
  }

  private chosen(rows: readonly Row[]): Row {
    return this.keepFirst ? rows[0]! : rows[rows.length - 1]!;
  }

  snapshotState(): undefined {
    const conflict = this.conflict();
    if (conflict === undefined) return undefined;
    // Declining the checkpoint keeps it from committing; the job must fail as well.
    this.context.waitFor(Promise.reject(conflict));
    throw conflict;
  }

  endInput(): void {
    const conflict = this.conflict();
    if (conflict !== undefined) throw conflict;
  }

  /** ON CONFLICT DO ERROR: the error for a key changed since the last check that holds two rows, if one does. */
  private conflict(): WeirError | undefined {
    const backend = this.context.keyedState;
    const keys = [...this.unchecked];
    this.unchecked.clear();
    for (const key of keys) {
      backend.setCurrentKey(key);
      const present = this.rows.value();
      if (present === undefined || present.length < 2) continue;
      return new WeirError(
        'EXECUTION_ERROR',
        `ON CONFLICT DO ERROR: the query has ${present.length} rows with primary key ${this.describeKey(present[0]!)} of sink table '${this.spec.table}', e.g. ${this.describeRow(present[0]!)} and ${this.describeRow(present[1]!)}`,
        { hint: 'the primary key of the sink is not unique in the query: choose a key the query has, or ON CONFLICT DO DEDUPLICATE / DO NOTHING' },
      );
    }
    return undefined;
  }

  private describeKey(row: Row): string {
    return `(${this.spec.keys.map((k) => `${this.schema[k]!.name}=${this.describeValue(row, k)}`).join(', ')})`;
  }

  private describeRow(row: Row): string {
    return `(${row.map((_, i) => this.describeValue(row, i)).join(', ')})`;
  }

  private describeValue(row: Row, index: number): string {
    const value = row[index];
    return value === null || value === undefined ? 'NULL' : formatValue(value, this.schema[index]!.type);
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`sink upsert materializer of '${this.spec.table}': ignored a retraction of a row it does not hold (the input retracted a row it never inserted, or state expired); further ones are ignored silently`);
  }
}

function firstIndexOf(rows: readonly Row[], row: Row): number {
  for (let i = 0; i < rows.length; i++) if (rows[i] === row || rowsEqual(rows[i]!, row)) return i;
  return -1;
}

function lastIndexOf(rows: readonly Row[], row: Row): number {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i] === row || rowsEqual(rows[i]!, row)) return i;
  return -1;
}
