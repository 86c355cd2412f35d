/** Counts the rows a window operator drops because their window had already fired, warning once. */
import type { OperatorContext } from '../stream-operator.js';

/** Late-row accounting of one window operator instance (see the module comment). */
export class LateRowCounter {
  /** Rows dropped so far. */
  count = 0;

  constructor(private readonly what: string) {}

  /** Records one dropped row; the first one is reported through `context.warn`. */
  drop(context: OperatorContext): void {
    if (this.count++ === 0) context.warn(`${this.what} ${context.operatorId}: dropped a row whose window had already fired (late); further late rows are counted`);
  }
}
