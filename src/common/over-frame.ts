/** The frame of an OVER aggregate (always ending at the current row); shared by the plan and the job graph. */

/**
 * `ROWS`: the `preceding` rows before the current one; `RANGE`: the rows whose time is at most
 * `preceding` milliseconds before the current row's, and every row with the same time (its peers).
 * `preceding` null means UNBOUNDED PRECEDING.
 */
export interface OverFrame {
  readonly unit: 'ROWS' | 'RANGE';
  readonly preceding: number | null;
}

/** The frame as Flink prints it in plans: `ROWS BETWEEN 10 PRECEDING AND CURRENT ROW`, `RANGE BETWEEN 3600000 PRECEDING AND CURRENT ROW`. */
export function formatOverFrame(frame: OverFrame): string {
  const start = frame.preceding === null ? 'UNBOUNDED PRECEDING' : `${frame.preceding} PRECEDING`;
  return `${frame.unit} BETWEEN ${start} AND CURRENT ROW`;
}
