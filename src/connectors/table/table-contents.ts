/**
 * The current rows of a writable table in this process, rebuilt from its log on first use and
 * kept up to date by every write: keyed by the primary key (an INSERT of an existing key is an
 * update), or a multiset without one (duplicates kept; a retraction removes one occurrence).
 * The sink of INSERT jobs and the session's UPDATE / DELETE share one instance per log file, so
 * each statement computes its changes against what the statements before it left.
 */
import { WeirError } from '../../common/errors.js';
import { encodeComponent } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import type { TableChange, TableLog } from './table-log.js';

interface Entry {
  readonly row: Row;
  count: number;
}

const shared = new Map<string, TableContents>();

/** The rows of one writable table. */
export class TableContents {
  private readonly entries = new Map<string, Entry>();

  private constructor(
    readonly log: TableLog,
    private readonly keyIndexes: readonly number[],
  ) {
    this.apply(log.readAll());
  }

  /** The contents of the table whose log is `log`, shared within the process. */
  static of(log: TableLog, keyIndexes: readonly number[]): TableContents {
    let contents = shared.get(log.path);
    if (contents === undefined) {
      contents = new TableContents(log, keyIndexes);
      shared.set(log.path, contents);
    }
    return contents;
  }

  /** Forgets the table (DROP TABLE): the next use reads the log again. */
  static forget(path: string): void {
    shared.delete(path);
  }

  /** Every row, duplicates repeated. */
  rows(): Row[] {
    return [...this.entries.values()].flatMap((e) => Array<Row>(e.count).fill(e.row));
  }

  /** The changes that make the inserted `row` part of the table: +I, or -U/+U when its key exists. */
  insertion(row: Row): TableChange[] {
    if (this.keyIndexes.length === 0) return [{ kind: RowKind.INSERT, row }];
    const current = this.entries.get(this.keyOf(row));
    return current === undefined ? [{ kind: RowKind.INSERT, row }] : [{ kind: RowKind.UPDATE_BEFORE, row: current.row }, { kind: RowKind.UPDATE_AFTER, row }];
  }

  /** The changes that retract `row` (one occurrence), or none when the table does not hold it. */
  retraction(row: Row): TableChange[] {
    const entry = this.entries.get(this.keyOf(row));
    return entry === undefined ? [] : [{ kind: RowKind.DELETE, row: entry.row }];
  }

  /** Applies changes already written to the log. */
  apply(changes: readonly TableChange[]): void {
    for (const { kind, row } of changes) {
      const key = this.keyOf(row);
      const entry = this.entries.get(key);
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        if (entry === undefined) this.entries.set(key, { row, count: 1 });
        else if (this.keyIndexes.length === 0) entry.count++;
        else this.entries.set(key, { row, count: 1 });
      } else if (entry === undefined) {
        throw new WeirError('INTERNAL_ERROR', `table log ${this.log.path} retracts a row it does not hold`);
      } else if (--entry.count === 0) {
        this.entries.delete(key);
      }
    }
  }

  /** Writes `changes` to the log (durably), then applies them. */
  write(changes: readonly TableChange[]): void {
    this.log.append(changes);
    this.apply(changes);
  }

  /**
   * Writes changes already applied (computed one after another against the contents) to the
   * log; when that fails, the contents are dropped, so the next use rebuilds them from the log.
   */
  append(changes: readonly TableChange[]): void {
    try {
      this.log.append(changes);
    } catch (error) {
      shared.delete(this.log.path);
      throw error;
    }
  }

  /** The primary key of `row` encoded, or the whole row without a key. */
  keyOf(row: Row): string {
    let key = '';
    if (this.keyIndexes.length === 0) for (const value of row) key += encodeComponent(value);
    else for (const index of this.keyIndexes) key += encodeComponent(row[index]);
    return key;
  }
}
