/**
 * The `tableau` and `changelog` result modes: one line per change with its kind (`+I`, `-U`,
 * `+U`, `-D`), printed as it arrives. Columns have fixed widths, taken from the header when the
 * first change arrives (at least 12 characters or as wide as its first value; longer values are
 * cut with `…`), since lines already printed cannot be widened. `tableau` draws a bordered table; `changelog` bare aligned columns.
 */
import type { TextChange } from '../engine/engine.js';
import { receivedTotal, shownCells, type ResultView } from './result-view.js';

/** The narrowest value column. */
const MIN_WIDTH = 12;

/** Prints changes as lines of a table that grows downwards. */
export class ChangelogView implements ResultView {
  private widths: number[] = [];
  private started = false;
  private count = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly bordered: boolean,
  ) {}

  show(change: TextChange): void {
    const cells = shownCells(change);
    if (!this.started) {
      const header = ['op', ...change.columns];
      const first = [change.op, ...cells];
      this.widths = header.map((h, i) => Math.max(h.length, i === 0 ? 2 : Math.max(MIN_WIDTH, first[i]!.length)));
      this.write(this.bordered ? [this.border(), this.line(header), this.border()].join('\n') : this.line(header));
      this.started = true;
    }
    this.count++;
    this.write(this.line([change.op, ...cells]));
  }

  finish(elapsedMs: number): void {
    if (this.started && this.bordered) this.write(this.border());
    this.write(receivedTotal(this.count, elapsedMs));
  }

  close(): void {}

  private border(): string {
    return '+' + this.widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  }

  private line(values: readonly string[]): string {
    const cells = values.map((v, i) => fit(v, this.widths[i]!));
    return this.bordered ? '| ' + cells.join(' | ') + ' |' : ' ' + cells.join('  ');
  }
}

function fit(text: string, width: number): string {
  return text.length > width ? text.slice(0, width - 1) + '…' : text.padStart(width);
}
