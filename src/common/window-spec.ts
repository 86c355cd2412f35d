/** The windows of a window table function, in milliseconds of event time; shared by the plan and the job graph. */
export type WindowSpec = AlignedWindowSpec | SessionWindowSpec;

/**
 * Windows whose bounds depend only on a row's time (TUMBLE, HOP, CUMULATE): a row's windows are
 * known on arrival. Window starts are multiples of the size (TUMBLE, CUMULATE) or slide (HOP) from
 * the epoch, shifted by `offset` when there is one (Flink's offset argument; 0 < offset < that
 * period, absent when 0).
 */
export type AlignedWindowSpec =
  | { readonly kind: 'TUMBLE'; readonly size: number; readonly offset?: number }
  | { readonly kind: 'HOP'; readonly slide: number; readonly size: number; readonly offset?: number }
  | { readonly kind: 'CUMULATE'; readonly step: number; readonly size: number; readonly offset?: number };

/**
 * Session windows: per key, rows whose times lie within `gap` of each other (inclusive) share a
 * session `[first time, last time + gap)`, so a session's bounds grow and sessions merge as rows arrive.
 */
export interface SessionWindowSpec {
  readonly kind: 'SESSION';
  readonly gap: number;
}

/** Calls `visit(start, end)` for every window (start inclusive, end exclusive) that contains time `t`. */
export function forEachWindow(window: AlignedWindowSpec, time: number, visit: (start: number, end: number) => void): void {
  const offset = window.offset ?? 0;
  const t = time - offset;
  switch (window.kind) {
    case 'TUMBLE': {
      const start = Math.floor(t / window.size) * window.size + offset;
      visit(start, start + window.size);
      return;
    }
    case 'HOP': {
      for (let start = Math.floor(t / window.slide) * window.slide; start > t - window.size; start -= window.slide) visit(start + offset, start + window.size + offset);
      return;
    }
    case 'CUMULATE': {
      const base = Math.floor(t / window.size) * window.size;
      for (let end = Math.floor((t - base) / window.step) * window.step + window.step + base; end <= base + window.size; end += window.step) visit(base + offset, end + offset);
      return;
    }
  }
}
