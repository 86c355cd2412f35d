/**
 * Flink's windowing table functions (TUMBLE, HOP, CUMULATE) used as tables: a stateless flat-map
 * that emits each row once per window containing its time, followed by window_start, window_end
 * and window_time (window_end - 1 ms), each copy with the row's kind. Over an event-time attribute
 * its input is insert-only; over a plain TIMESTAMP column (RisingWave's windows) it may be any
 * changelog: the windows are a function of the row, so a retraction expands to the copies its
 * insertion made. Rows with a NULL time belong to no window: dropped and counted (as in Flink).
 * Late rows are not dropped here (as in Flink: the window operators downstream do). Watermarks
 * pass through unchanged. Over a TIMESTAMP_LTZ time in a zone (`spec.timeZone`), windows are laid
 * on the zone's wall clock: window_start and window_end are wall-clock times, window_time the
 * window's last instant (a TIMESTAMP_LTZ). Windows are laid on the time's millisecond (a
 * TIMESTAMP(p > 3) time rounded down to it, which puts it in the same windows, their bounds being
 * whole milliseconds); over such a time window_time is epoch nanos (`spec.nanos`).
 */
import { nanosOfMillis, timeMillisOf } from '../../common/epoch-nanos.js';
import { ChangeBatch } from '../../common/row.js';
import { lastInstantAtOrBefore, localOf } from '../../common/time-zone.js';
import { forEachWindow } from '../../common/window-spec.js';
import type { WindowTableSpec } from '../../dataflow/job-graph.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter } from './dropped-row-counter.js';

/** The runtime implementation of a `window-table` job-graph node. */
export class WindowTableOperator implements StreamOperator {
  private readonly out = new ChangeBatch();
  private readonly nullTimes = new DroppedRowCounter('window table function', 'a row whose time attribute is NULL');
  private context!: OperatorContext;

  constructor(readonly spec: WindowTableSpec) {}

  /** Rows dropped because their time was NULL. */
  get nullTimeRows(): number {
    return this.nullTimes.count;
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const { window, timeIndex, timeZone } = this.spec;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const time = timeMillisOf(row[timeIndex]);
      if (time === undefined) {
        this.nullTimes.drop(this.context);
        continue;
      }
      const kind = batch.kinds[i]!;
      if (timeZone === undefined) forEachWindow(window, time, (start, end) => out.push(kind, [...row, start, end, this.windowTime(end - 1)]));
      else forEachWindow(window, localOf(time, timeZone), (start, end) => out.push(kind, [...row, start, end, this.windowTime(lastInstantAtOrBefore(end - 1, timeZone))]));
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /** window_time of the window whose last millisecond is `millis`, in the representation of its type. */
  private windowTime(millis: number): number | bigint {
    return this.spec.nanos === true ? nanosOfMillis(millis) : millis;
  }
}
