/**
 * Event-time temporal join (Flink's TemporalRowTimeJoinOperator): input 0 is an insert-only stream,
 * input 1 the changelog of a versioned table, both partitioned by the join key. Per key, keyed
 * state holds the left rows waiting for the watermark and the right side's versions ordered by
 * time (a `null` row marks a deletion). When the watermark (the minimum over both inputs) reaches
 * a left row's time, the row is joined with the latest version at or before that time; versions
 * no later left row can see are dropped then. Keys with work are found through event-time timers
 * rebuilt from state on open (see WindowTimers).
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { TemporalJoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state: left rows waiting for the watermark, in arrival order. */
export const TEMPORAL_LEFT_STATE = 'temporal-join.left';
/** Keyed state: the right side's versions `[time, row | null]`, ascending by time. */
export const TEMPORAL_RIGHT_STATE = 'temporal-join.right';

type Version = [number, Row | null];

/** The runtime implementation of a `temporal-join` job-graph node. */
export class TemporalJoinOperator implements StreamOperator {
  private readonly leftKey: KeySelector;
  private readonly rightKey: KeySelector;
  private readonly condition: ((left: Row, right: Row) => boolean) | null;
  private readonly nulls: Row;
  private readonly out = new ChangeBatch();
  private readonly timers = new WindowTimers();
  private context!: OperatorContext;
  private left!: ValueState<Row[]>;
  private right!: ValueState<Version[]>;
  private watermark = -Infinity;

  constructor(
    private readonly spec: TemporalJoinSpec,
    compiler: ExprCompiler,
  ) {
    this.leftKey = keySelector(spec.leftKeys);
    this.rightKey = keySelector(spec.rightKeys);
    this.condition = spec.condition === null ? null : compiler.joinPredicate(spec.condition, spec.leftArity);
    this.nulls = new Array<null>(spec.rightArity).fill(null);
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.left = context.keyedState.getValueState<Row[]>({ name: TEMPORAL_LEFT_STATE });
    this.right = context.keyedState.getValueState<Version[]>({ name: TEMPORAL_RIGHT_STATE });
    for (const [key, rows] of context.keyedState.entriesOf<Row[]>({ name: TEMPORAL_LEFT_STATE })) for (const row of rows) this.timers.register(row[this.spec.leftTimeIndex] as number, key);
    for (const [key, versions] of context.keyedState.entriesOf<Version[]>({ name: TEMPORAL_RIGHT_STATE })) for (const [time] of versions) this.timers.register(time, key);
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const state = this.context.keyedState;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const kind = batch.kinds[i]!;
      const key = input === 0 ? this.leftKey(row) : this.rightKey(row);
      const time = row[input === 0 ? this.spec.leftTimeIndex : this.spec.rightTimeIndex];
      if (key === null || typeof time !== 'number') {
        if (input === 0 && this.spec.joinType === 'LEFT' && typeof time === 'number') this.emitNow(row);
        continue;
      }
      state.setCurrentKey(key);
      if (input === 0) {
        const rows = this.left.value() ?? [];
        rows.push(row);
        this.left.update(rows);
      } else if (kind !== RowKind.UPDATE_BEFORE) {
        this.addVersion([time, kind === RowKind.DELETE ? null : row]);
      }
      this.timers.register(time, key);
    }
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    const out = this.out;
    out.clear();
    this.timers.advance(watermark, (key) => this.fire(key));
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark);
  }

  /** Joins the key's left rows the watermark has reached, then drops the versions nothing can see any more. */
  private fire(key: Key): void {
    this.context.keyedState.setCurrentKey(key);
    const versions = this.right.value() ?? [];
    const rows = this.left.value();
    if (rows !== undefined) {
      const waiting: Row[] = [];
      for (const row of rows) {
        const time = row[this.spec.leftTimeIndex] as number;
        if (time > this.watermark) waiting.push(row);
        else this.join(row, versionAt(versions, time));
      }
      if (waiting.length === 0) this.left.clear();
      else this.left.update(waiting);
    }
    let first = 0;
    while (first + 1 < versions.length && versions[first + 1]![0] <= this.watermark) first++;
    // A deletion that is the latest visible version means the same as no version at all.
    if (first < versions.length && versions[first]![1] === null && versions[first]![0] <= this.watermark) first++;
    if (first >= versions.length) this.right.clear();
    else if (first > 0) this.right.update(versions.slice(first));
  }

  private join(row: Row, version: Row | null): void {
    if (version !== null && (this.condition === null || this.condition(row, version))) this.out.push(RowKind.INSERT, row.concat(version));
    else if (this.spec.joinType === 'LEFT') this.out.push(RowKind.INSERT, row.concat(this.nulls));
  }

  /** A LEFT row that can match nothing (NULL key) still waits for nothing: it is emitted at once, padded. */
  private emitNow(row: Row): void {
    const out = new ChangeBatch();
    out.push(RowKind.INSERT, row.concat(this.nulls));
    this.context.output.collect(out);
  }

  private addVersion(version: Version): void {
    const versions = this.right.value() ?? [];
    let at = versions.length;
    while (at > 0 && versions[at - 1]![0] > version[0]) at--;
    if (at > 0 && versions[at - 1]![0] === version[0]) versions[at - 1] = version;
    else versions.splice(at, 0, version);
    this.right.update(versions);
  }
}

/** The row of the latest version at or before `time` (null when there is none, or it is a deletion). */
function versionAt(versions: readonly Version[], time: number): Row | null {
  for (let i = versions.length - 1; i >= 0; i--) if (versions[i]![0] <= time) return versions[i]![1];
  return null;
}
