/**
 * The `table` result mode: the query's current rows (its changelog applied), redrawn in place on
 * a terminal at most every 100 ms — cursor up over the previous drawing, clear to the end of the
 * screen, draw again — and cut to the terminal's size so that the drawing never scrolls. When the
 * query ends the live drawing is replaced by the final table with every row. Without cursor
 * movement (`redraw` off) only the final table is printed.
 */
import type { TextChange } from '../engine/engine.js';
import { renderGrid, renderTable } from '../engine/result-format.js';
import { MaterializedRows } from './materialized-rows.js';
import { elapsedSuffix, shownCells, type ResultView } from './result-view.js';

/** The terminal a live table is drawn on. */
export interface LiveScreen {
  /** True when the output is a terminal that takes cursor movement. */
  readonly redraw: boolean;
  /** The terminal's size now. */
  size(): { readonly rows: number; readonly columns: number };
  /** Writes control sequences as they are (no newline added). */
  write(text: string): void;
}

const REDRAW_MS = 100;
/** Lines of the drawing besides the rows: three borders, the header, the status, the prompt. */
const FRAME_LINES = 6;

/** Shows the current rows of a query, as a table redrawn in place. */
export class LiveTableView implements ResultView {
  private readonly table = new MaterializedRows();
  private header: string[] | undefined;
  private drawnLines = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly started = performance.now();

  constructor(
    private readonly write: (text: string) => void,
    private readonly screen: LiveScreen,
  ) {}

  show(change: TextChange): void {
    this.header ??= [...change.columns];
    this.table.apply(change.op, shownCells(change));
    if (this.screen.redraw && this.timer === undefined) this.timer = setTimeout(() => this.draw(), REDRAW_MS);
  }

  finish(elapsedMs: number): void {
    this.close();
    this.erase();
    const header = this.header ?? [];
    const table = renderTable({ kind: 'rows', schema: header.map((name) => ({ name, type: { kind: 'VARCHAR', nullable: true, length: 2147483647 } })), rows: this.table.rows() });
    this.write(table + elapsedSuffix(elapsedMs));
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private draw(): void {
    this.timer = undefined;
    const { rows, columns } = this.screen.size();
    const all = this.table.rows();
    const shown = all.slice(0, Math.max(1, rows - FRAME_LINES));
    const more = all.length - shown.length;
    const status = `${all.length} row${all.length === 1 ? '' : 's'} after ${this.table.changes} change${this.table.changes === 1 ? '' : 's'}${elapsedSuffix(performance.now() - this.started)}${more > 0 ? `, ${more} not shown` : ''}; Ctrl-C stops`;
    const lines = [...renderGrid(this.header ?? [], shown), status].map((line) => (line.length >= columns ? line.slice(0, Math.max(1, columns - 2)) + '…' : line));
    this.erase();
    this.write(lines.join('\n'));
    this.drawnLines = lines.length;
  }

  private erase(): void {
    if (this.drawnLines > 0) this.screen.write(`\u001b[${this.drawnLines}A\r\u001b[J`);
    this.drawnLines = 0;
  }
}
