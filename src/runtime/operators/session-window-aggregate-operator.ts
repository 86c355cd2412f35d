/**
 * Session window aggregation (Flink's WindowAggregate over SESSION windows) for insert-only input.
 * Per key (the grouping columns besides window_start and window_end), a row at time `t` opens the
 * session `[t, t + gap)`, or joins every session it touches (`start - gap <= t <= end`), which are
 * then merged into one, their accumulators included; so a key's sessions are always at least
 * `gap` apart. A session is emitted once, as +I, when the watermark reaches its end (its last
 * row's time + gap), and its state is cleared.
 *
 * A row at or behind the watermark is late unless it falls within a session of its key that has
 * not fired (`start <= t`): otherwise it could belong to a session already emitted, which the
 * operator no longer knows. Late rows are dropped and counted, never mixed in, so the sessions
 * emitted are those a batch computation over the accepted rows finds.
 *
 * The watermark is forwarded one millisecond behind: a session fires at its end but its rowtime
 * (SESSION_ROWTIME) is end - 1, which the previous watermark may already have reached; held back,
 * the watermark never passes an emitted row before the row itself, as downstream event-time
 * operators require.
 *
 * State: one keyed value per key, the list of its open sessions, each a flat record
 * `[start, end, ...key values, ...accumulator]` (see MergingAggregateProgram) of plain data, so
 * that it is snapshotted and redistributed by key group like any keyed state.
 */
import { localOf } from '../../common/time-zone.js';
import { invariant } from '../../common/errors.js';
import { keySelector, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowAggregateSpec } from '../../dataflow/job-graph.js';
import { generateMergingAggregate, type MergingAggregateProgram, type OutputColumn } from '../aggregates/merging-aggregate-codegen.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state holding each key's open sessions. */
export const SESSION_STATE = 'session-window-aggregate.sessions';

/** An open session: `[start, end, ...key values, rowCount, ...aggregate slots]`. */
type Session = unknown[];

const START = 0;
const END = 1;
const KEY_VALUES = 2;

/** The runtime implementation of a `window-aggregate` job-graph node over SESSION windows. */
export class SessionWindowAggregateOperator implements StreamOperator {
  private readonly gap: number;
  /** Input columns of the grouping keys besides the window bounds. */
  private readonly keyColumns: readonly number[];
  private readonly keyOf: KeySelector;
  private readonly program: MergingAggregateProgram;
  /** For each key column of an output row, where its value is in a session record. */
  private readonly outputSources: readonly OutputColumn[];
  private readonly out = new ChangeBatch();
  private readonly timers = new WindowTimers();
  private context!: OperatorContext;
  private sessions!: ValueState<Session[]>;
  private watermark = -Infinity;
  /** Rows dropped as late (see the module comment). */
  lateRows = 0;

  /** Generates the operator's aggregate code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: WindowAggregateSpec) {
    invariant(spec.window.kind === 'SESSION', 'SessionWindowAggregateOperator runs SESSION windows only');
    this.gap = spec.window.gap;
    const { timeIndex } = spec;
    this.keyColumns = spec.keys.filter((k) => k < timeIndex);
    this.keyOf = keySelector(this.keyColumns);
    // window_start and window_end are the bounds resultRow passes (wall-clock ones over TIMESTAMP_LTZ in a zone).
    this.outputSources = spec.keys.map((k) => (k === timeIndex + 1 ? 'window_start' : k === timeIndex + 2 ? 'window_end' : KEY_VALUES + this.keyColumns.indexOf(k)));
    this.program = generateMergingAggregate(spec.aggregates, KEY_VALUES + this.keyColumns.length, this.outputSources);
  }

  open(context: OperatorContext): void {
    this.context = context;
    const descriptor = { name: SESSION_STATE };
    this.sessions = context.keyedState.getValueState<Session[]>(descriptor);
    for (const [key, sessions] of context.keyedState.entriesOf<Session[]>(descriptor)) {
      for (const session of sessions) this.timers.register(session[END] as number, key);
    }
  }

  processBatch(batch: ChangeBatch): void {
    const state = this.context.keyedState;
    const timeIndex = this.spec.timeIndex;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const time = row[timeIndex];
      if (typeof time !== 'number') continue;
      const key = this.keyOf(row);
      state.setCurrentKey(key);
      const sessions = this.sessions.value() ?? [];
      if (time <= this.watermark && !sessions.some((s) => (s[START] as number) <= time)) {
        this.late();
        continue;
      }
      const session = this.sessionFor(sessions, row, time);
      this.program.accumulate(session, row);
      this.timers.register(session[END] as number, key);
      this.sessions.update(sessions);
    }
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    this.timers.advance(watermark, (key) => {
      state.setCurrentKey(key);
      const sessions = this.sessions.value();
      if (sessions === undefined) return;
      const due = sessions.filter((s) => (s[END] as number) <= watermark).sort((a, b) => (a[END] as number) - (b[END] as number));
      if (due.length === 0) return;
      for (const session of due) out.push(RowKind.INSERT, this.resultRow(session));
      if (due.length === sessions.length) this.sessions.clear();
      else this.sessions.update(sessions.filter((s) => (s[END] as number) > watermark));
    });
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark - 1);
  }

  /** The session `row` (at `time`) belongs to, after merging every session it touches; a new one when it touches none. */
  private sessionFor(sessions: Session[], row: Row, time: number): Session {
    const gap = this.gap;
    let target: Session | undefined;
    for (let j = 0; j < sessions.length; j++) {
      const s = sessions[j]!;
      if ((s[START] as number) - gap > time || time > (s[END] as number)) continue;
      if (target === undefined) {
        target = s;
        continue;
      }
      this.program.merge(target, s);
      target[START] = Math.min(target[START] as number, s[START] as number);
      target[END] = Math.max(target[END] as number, s[END] as number);
      sessions.splice(j--, 1);
    }
    if (target === undefined) {
      target = [time, time + gap, ...this.keyColumns.map((k) => row[k]), 0, ...new Array<null>(this.program.slots - 1).fill(null)];
      sessions.push(target);
      return target;
    }
    target[START] = Math.min(target[START] as number, time);
    target[END] = Math.max(target[END] as number, time + gap);
    return target;
  }

  /** The output row of a session; over a TIMESTAMP_LTZ time in a zone (`spec.timeZone`) its bounds are wall-clock times there, as TUMBLE's are. */
  private resultRow(session: Session): Row {
    const zone = this.spec.timeZone;
    const [start, end] = [session[START] as number, session[END] as number];
    return zone === undefined ? this.program.row(session, session, start, end) : this.program.row(session, session, localOf(start, zone), localOf(end, zone));
  }

  private late(): void {
    if (this.lateRows++ === 0) this.context.warn(`session window aggregate ${this.context.operatorId}: dropped a row behind the watermark outside any open session (late); further late rows are counted`);
  }
}
