/**
 * The rows one input of a regular join keeps per join key (Flink's JoinRecordStateView), in keyed
 * state as plain data (so that snapshots, restores and rescaling by key group need nothing
 * join-specific). Every change is written back to state (the state contract: what is read is a
 * copy); on the heap backend a write-back of the value read is one Map.set.
 *
 * Two layouts, chosen by whether the input can retract:
 * - {@link AppendOnlyRecordView}: the rows in arrival order, one entry per copy, in list state:
 *   inserting is a `ListState.add` (one new row never rewrites the key's list); a retraction
 *   (which an insert-only input should not send) searches the list and rewrites it.
 * - {@link CountedRecordView}: a multiset indexed by a hash of the whole row, so that a
 *   retraction finds its row in constant time whatever the number of rows per key (a key held by
 *   one distinct row stores just that row), as one keyed value: a change rewrites the key's whole
 *   multiset on a serialising backend.
 */
import { hashRow, rowsEqual } from '../../common/key-codec.js';
import type { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch, Row } from '../../common/row.js';
import type { KeyedStateBackend, ListState, ValueState } from './keyed-state-backend.js';

/** Builds an output row from a left row and a right row. */
export type RowCombiner = (left: Row, right: Row) => Row;

/** A join's match condition besides its keys, over a left row and a right row. */
export type JoinCondition = (left: Row, right: Row) => boolean;

const MATCHES_ALL: JoinCondition = () => true;

/** The stored rows of one join input, scoped to the backend's current (join) key. */
export interface JoinRecordStateView {
  /** Adds one copy of `row` under the current key. */
  add(row: Row): void;
  /** Removes one copy of a row equal to `row` under the current key; false when there is none. */
  retract(row: Row): boolean;
  /**
   * Pushes one `kind` record per stored copy under the current key that matches `probe`, a row of
   * the other input: the stored row combined with `probe` (the combined row of equal copies is one
   * shared array). A stored row matches when the view's condition holds, before any row is built.
   */
  emitJoined(probe: Row, kind: RowKind, out: ChangeBatch): void;
}

/** How a view is declared: its state's name, which input it holds, and how output rows are built. */
export interface JoinRecordStateViewOptions {
  readonly stateName: string;
  /** True when the view holds the left input (stored rows come first in combined rows). */
  readonly left: boolean;
  readonly combine: RowCombiner;
  /** The rest of the match condition (inner joins); every stored row of the key matches when absent. */
  readonly condition?: JoinCondition;
}

/** The view that fits an input: counted when it can retract, append-only otherwise. */
export function joinRecordStateView(backend: KeyedStateBackend, options: JoinRecordStateViewOptions, inputRetracts: boolean): JoinRecordStateView {
  return inputRetracts ? new CountedRecordView(backend, options) : new AppendOnlyRecordView(backend, options);
}

/** Rows of an insert-only input, per join key in arrival order, one entry per copy. */
export class AppendOnlyRecordView implements JoinRecordStateView {
  private readonly state: ListState<Row>;
  private readonly left: boolean;
  private readonly combine: RowCombiner;
  private readonly condition: JoinCondition;

  constructor(backend: KeyedStateBackend, options: JoinRecordStateViewOptions) {
    this.state = backend.getListState<Row>({ name: options.stateName });
    this.left = options.left;
    this.combine = options.combine;
    this.condition = options.condition ?? MATCHES_ALL;
  }

  add(row: Row): void {
    this.state.add(row);
  }

  retract(row: Row): boolean {
    const rows = this.state.get();
    for (let i = rows.length - 1; i >= 0; i--) {
      if (!rowsEqual(rows[i]!, row)) continue;
      if (rows.length === 1) this.state.clear();
      else this.state.update([...rows.slice(0, i), ...rows.slice(i + 1)]);
      return true;
    }
    return false;
  }

  emitJoined(probe: Row, kind: RowKind, out: ChangeBatch): void {
    const rows = this.state.get();
    const { combine, condition } = this;
    if (this.left) {
      for (let i = 0; i < rows.length; i++) if (condition(rows[i]!, probe)) out.push(kind, combine(rows[i]!, probe));
    } else {
      for (let i = 0; i < rows.length; i++) if (condition(probe, rows[i]!)) out.push(kind, combine(probe, rows[i]!));
    }
  }
}

/**
 * One distinct row of a counted view and its number of copies; rows whose hashes collide are
 * chained through `next`.
 */
export interface CountedRow {
  readonly row: Row;
  count: number;
  next: CountedRow | null;
  /**
   * Outer joins only, on an outer input: how many rows of the other input (with their copies)
   * match this row; while it is 0 the row's NULL-padded output stands. Semi and anti joins keep it
   * on every left row: the row is in a semi join's output while it is above 0, in an anti join's
   * while it is 0.
   */
  associations?: number;
}

/**
 * Rows of an input that can retract: per join key its one distinct row itself (the common case of
 * a key, or a value, held by one row: no Map to allocate, no hash to compute), or, from the second
 * distinct row on, a Map from row hash to its distinct rows with their counts. Distinct rows are
 * emitted in the order they were first added (since their count last dropped to zero), equal
 * copies together.
 */
export class CountedRecordView implements JoinRecordStateView {
  private readonly state: ValueState<Map<number, CountedRow> | CountedRow>;
  private readonly left: boolean;
  private readonly combine: RowCombiner;
  private readonly condition: JoinCondition;

  constructor(backend: KeyedStateBackend, options: JoinRecordStateViewOptions) {
    this.state = backend.getValueState<Map<number, CountedRow> | CountedRow>({ name: options.stateName });
    this.left = options.left;
    this.combine = options.combine;
    this.condition = options.condition ?? MATCHES_ALL;
  }

  /**
   * Adds one copy of `row`; returns its entry as stored (a new one has count 1). A new distinct
   * row's `associations` are `associations()` when given. The entry is a copy on a serialising
   * backend: change it through the view only.
   */
  add(row: Row, associations?: () => number): CountedRow {
    const fresh = (): CountedRow => (associations === undefined ? { row, count: 1, next: null } : { row, count: 1, next: null, associations: associations() });
    const stored = this.state.value();
    if (stored === undefined) {
      const only = fresh();
      this.state.update(only);
      return only;
    }
    let rows: Map<number, CountedRow>;
    if (stored instanceof Map) rows = stored;
    else {
      if (rowsEqual(stored.row, row)) {
        stored.count++;
        this.state.update(stored);
        return stored;
      }
      rows = new Map([[hashRow(stored.row), stored]]);
    }
    const hash = hashRow(row);
    let entry = rows.get(hash);
    let result: CountedRow | undefined;
    if (entry === undefined) rows.set(hash, (result = fresh()));
    else {
      for (;;) {
        if (rowsEqual(entry.row, row)) {
          entry.count++;
          result = entry;
          break;
        }
        if (entry.next === null) {
          result = entry.next = fresh();
          break;
        }
        entry = entry.next;
      }
    }
    this.state.update(rows);
    return result;
  }

  retract(row: Row): boolean {
    const rows = this.state.value();
    if (rows === undefined) return false;
    if (!(rows instanceof Map)) {
      if (!rowsEqual(rows.row, row)) return false;
      if (--rows.count === 0) this.state.clear();
      else this.state.update(rows);
      return true;
    }
    const hash = hashRow(row);
    let previous: CountedRow | null = null;
    for (let entry = rows.get(hash) ?? null; entry !== null; previous = entry, entry = entry.next) {
      if (!rowsEqual(entry.row, row)) continue;
      if (--entry.count === 0) {
        if (previous !== null) previous.next = entry.next;
        else if (entry.next !== null) rows.set(hash, entry.next);
        else if (rows.size === 1) {
          this.state.clear();
          return true;
        } else rows.delete(hash);
      }
      this.state.update(rows);
      return true;
    }
    return false;
  }

  /** The entry of the distinct row equal to `row` under the current key, if it is stored. */
  find(row: Row): CountedRow | undefined {
    const rows = this.state.value();
    if (rows === undefined) return undefined;
    if (!(rows instanceof Map)) return rowsEqual(rows.row, row) ? rows : undefined;
    for (let entry = rows.get(hashRow(row)) ?? null; entry !== null; entry = entry.next) if (rowsEqual(entry.row, row)) return entry;
    return undefined;
  }

  /** True when no row is stored under the current key. */
  isEmpty(): boolean {
    return this.state.value() === undefined;
  }

  /** Calls `visit` for each distinct row under the current key; the entries are read-only (copies on a serialising backend). */
  forEachEntry(visit: (entry: CountedRow) => void): void {
    const rows = this.state.value();
    if (rows === undefined) return;
    if (!(rows instanceof Map)) return visit(rows);
    for (const head of rows.values()) for (let entry: CountedRow | null = head; entry !== null; entry = entry.next) visit(entry);
  }

  /**
   * Calls `visit` for each distinct row under the current key; `visit` may change the entry's
   * `associations` (never its row or count) and returns true when it did. The key's rows are
   * written back once afterwards when any visit changed something.
   */
  updateEntries(visit: (entry: CountedRow) => boolean): void {
    const rows = this.state.value();
    if (rows === undefined) return;
    let changed = false;
    if (!(rows instanceof Map)) changed = visit(rows);
    else for (const head of rows.values()) for (let entry: CountedRow | null = head; entry !== null; entry = entry.next) if (visit(entry)) changed = true;
    if (changed) this.state.update(rows);
  }

  emitJoined(probe: Row, kind: RowKind, out: ChangeBatch): void {
    const rows = this.state.value();
    if (rows === undefined) return;
    if (!(rows instanceof Map)) return this.emitEntry(rows, probe, kind, out);
    for (const head of rows.values()) for (let entry: CountedRow | null = head; entry !== null; entry = entry.next) this.emitEntry(entry, probe, kind, out);
  }

  private emitEntry(entry: CountedRow, probe: Row, kind: RowKind, out: ChangeBatch): void {
    if (!(this.left ? this.condition(entry.row, probe) : this.condition(probe, entry.row))) return;
    const joined = this.left ? this.combine(entry.row, probe) : this.combine(probe, entry.row);
    for (let c = 0; c < entry.count; c++) out.push(kind, joined);
  }
}
