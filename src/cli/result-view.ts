/**
 * The shell's live views of a running SELECT, one per `sql-client.execution.result-mode`: each
 * is shown the changes as they arrive and is finished once the query ends (or Ctrl-C stops it).
 */
import type { TextChange } from '../engine/engine.js';

/** The values of `sql-client.execution.result-mode`. */
export type ResultMode = 'tableau' | 'changelog' | 'table';

/** A live view of one query's result. */
export interface ResultView {
  /** One change, in the order the query produced it, its values as text. */
  show(change: TextChange): void;
  /** The query ended (or was stopped) after `elapsedMs`: print the closing lines. */
  finish(elapsedMs: number): void;
  /** Releases timers; idempotent, called whether or not the query ended normally. */
  close(): void;
}

/** The suffix saying how long a statement took, as Flink's SQL client prints it: ` (1.25 seconds)`. */
export function elapsedSuffix(elapsedMs: number): string {
  return ` (${(elapsedMs / 1000).toFixed(2)} seconds)`;
}

/** `Received a total of N rows` with the elapsed time. */
export function receivedTotal(count: number, elapsedMs: number): string {
  return `Received a total of ${count} row${count === 1 ? '' : 's'}${elapsedSuffix(elapsedMs)}`;
}

/** The cells of a change as shown: NULL as `NULL`. */
export function shownCells(change: TextChange): string[] {
  return change.cells.map((cell) => cell ?? 'NULL');
}
