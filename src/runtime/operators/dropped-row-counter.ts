/** Counts the rows an operator drops for a reason (late for their window, NULL time), warning once. */
import type { OperatorContext } from '../stream-operator.js';

/** Dropped-row accounting of one operator instance for one reason (see the module comment). */
export class DroppedRowCounter {
  /** Rows dropped so far. */
  count = 0;

  /** `what` names the operator, `reason` the rows dropped: `a row whose window had already fired (late)`. */
  constructor(
    private readonly what: string,
    private readonly reason: string,
  ) {}

  /** Records one dropped row; the first one is reported through `context.warn`. */
  drop(context: OperatorContext): void {
    if (this.count++ === 0) context.warn(`${this.what} ${context.operatorId}: dropped ${this.reason}; further such rows are counted`);
  }
}

/** The reason window operators drop late rows. */
export const LATE_ROW = 'a row whose window had already fired (late)';
