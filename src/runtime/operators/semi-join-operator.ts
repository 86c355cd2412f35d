/**
 * Semi and anti joins (Flink's StreamingSemiAntiJoinOperator): the left rows that have at least one
 * matching right row (SEMI, what EXISTS / IN / ANY subqueries become) or none (ANTI: NOT EXISTS,
 * NOT IN, ALL). A match is equal join keys (a NULL key matches nothing, unless the key is
 * `IS NOT DISTINCT FROM`) and the condition TRUE. The output is the left rows themselves, each
 * with its own number of copies, never multiplied by its matches.
 *
 * State per join key: the left rows as a counted multiset whose every distinct row records its
 * associations (the matching right rows, with copies), and the right rows as a counted multiset.
 * Invariant: a stored left row is in the emitted result (all its copies) exactly while its
 * associations are above 0 (SEMI) or equal to 0 (ANTI).
 * - a left change is stored (or removed) and, when visible, emitted as +I (or -D); the
 *   associations of a newly stored distinct row are counted over the right rows of its key;
 * - a right change updates the associations of the matching left rows of its key: a left row whose
 *   associations go from 0 to 1 is inserted (SEMI) or deleted (ANTI), one whose associations drop
 *   to 0 deleted (SEMI) or inserted again (ANTI), once per copy.
 * Without a condition every left row of a key has the same matches, all the right rows of the key:
 * their number is kept per key instead, so that a right change costs O(1) unless it is the first
 * or the last of its key (then all the left rows of the key appear or go).
 * Updates come out as -D/+I pairs. A left row with a NULL key matches nothing: never emitted by a
 * semi join, passed through by an anti join (not stored); a right row with a NULL key is ignored.
 * Without keys (a condition with no equality, in one subtask) every change is tested against every
 * row of the other input. A retraction of a row that is not stored is ignored, with one warning.
 */
import { keySelector, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { SemiJoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import { CountedRecordView, type CountedRow } from '../state/join-record-state-view.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { hasNull, nullRejectingColumns, rowCombiner } from './join-rows.js';

const SEMI_JOIN_STATE_NAMES = ['semi-join.left', 'semi-join.right', 'semi-join.right-count'] as const;

/** The runtime implementation of a `semi-join` job-graph node. */
export class SemiJoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly nullRejecting: readonly [readonly number[], readonly number[]];
  private readonly matches: (left: Row, right: Row) => boolean;
  private readonly anti: boolean;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private views!: readonly [CountedRecordView, CountedRecordView];
  /** Without a condition: the number of right rows (with copies) per key. */
  private rightCount: ValueState<number> | undefined;
  private warnedMissing = false;

  constructor(readonly spec: SemiJoinSpec, compiler: ExprCompiler) {
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.nullRejecting = [nullRejectingColumns(spec.leftKeys, spec.nullSafe), nullRejectingColumns(spec.rightKeys, spec.nullSafe)];
    this.matches = spec.condition === undefined ? () => true : compiler.joinPredicate(spec.condition, spec.leftArity);
    this.anti = spec.anti;
  }

  open(context: OperatorContext): void {
    this.context = context;
    const backend = context.keyedState;
    // The views only store and find rows here; no joined row is ever built.
    const combine = rowCombiner(this.spec.leftArity, this.spec.rightArity);
    this.views = [
      new CountedRecordView(backend, { stateName: SEMI_JOIN_STATE_NAMES[0], left: true, combine }),
      new CountedRecordView(backend, { stateName: SEMI_JOIN_STATE_NAMES[1], left: false, combine }),
    ];
    if (this.spec.condition === undefined) this.rightCount = backend.getValueState<number>({ name: SEMI_JOIN_STATE_NAMES[2] });
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const out = this.out;
    out.clear();
    if (input === 0) this.processLeft(batch);
    else this.processRight(batch);
    if (out.size > 0) this.context.output.collect(out);
  }

  private processLeft(batch: ChangeBatch): void {
    const { kinds, rows } = batch;
    const out = this.out;
    const backend = this.context.keyedState;
    const left = this.views[0];
    const columns = this.nullRejecting[0];
    const keyOf = this.joinKey[0];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const accumulate = kinds[i] === RowKind.INSERT || kinds[i] === RowKind.UPDATE_AFTER;
      if (hasNull(row, columns)) {
        if (this.anti) out.push(accumulate ? RowKind.INSERT : RowKind.DELETE, row);
        continue;
      }
      backend.setCurrentKey(keyOf(row));
      if (accumulate) {
        const entry = left.add(row, this.rightCount === undefined ? () => this.countMatches(row) : undefined);
        if (this.visible(entry)) out.push(RowKind.INSERT, row);
        continue;
      }
      const entry = left.find(row);
      if (entry === undefined) {
        this.missing();
        continue;
      }
      const visible = this.visible(entry);
      left.retract(row);
      if (visible) out.push(RowKind.DELETE, row);
    }
  }

  private processRight(batch: ChangeBatch): void {
    const { kinds, rows } = batch;
    const out = this.out;
    const backend = this.context.keyedState;
    const [left, right] = this.views;
    const columns = this.nullRejecting[1];
    const keyOf = this.joinKey[1];
    const matches = this.matches;
    const anti = this.anti;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (hasNull(row, columns)) continue;
      backend.setCurrentKey(keyOf(row));
      const accumulate = kinds[i] === RowKind.INSERT || kinds[i] === RowKind.UPDATE_AFTER;
      if (accumulate) right.add(row);
      else if (!right.retract(row)) {
        this.missing();
        continue;
      }
      if (this.rightCount !== undefined) {
        // Every left row of the key matches: they all appear or go when the count crosses 0.
        const before = this.rightCount.value() ?? 0;
        const after = before + (accumulate ? 1 : -1);
        if (after === 0) this.rightCount.clear();
        else this.rightCount.update(after);
        if (accumulate ? before !== 0 : after !== 0) continue;
        const kind = accumulate !== anti ? RowKind.INSERT : RowKind.DELETE;
        left.forEachEntry((entry) => {
          for (let c = 0; c < entry.count; c++) out.push(kind, entry.row);
        });
        continue;
      }
      left.updateEntries((entry) => {
        if (!matches(entry.row, row)) return false;
        const before = entry.associations!;
        entry.associations = before + (accumulate ? 1 : -1);
        // The row appears or disappears when its associations cross 0.
        const crossed = accumulate ? before === 0 : before === 1;
        if (!crossed) return true;
        const kind = accumulate !== anti ? RowKind.INSERT : RowKind.DELETE;
        for (let c = 0; c < entry.count; c++) out.push(kind, entry.row);
        return true;
      });
    }
  }

  /** Whether a stored left row (under the current key) is in the output. */
  private visible(entry: CountedRow): boolean {
    const matches = this.rightCount === undefined ? entry.associations! : (this.rightCount.value() ?? 0);
    return this.anti ? matches === 0 : matches > 0;
  }

  /** The right rows under the current key (with copies) that match the left row. */
  private countMatches(row: Row): number {
    let total = 0;
    const matches = this.matches;
    this.views[1].forEachEntry((entry) => {
      if (matches(row, entry.row)) total += entry.count;
    });
    return total;
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`semi join ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}
