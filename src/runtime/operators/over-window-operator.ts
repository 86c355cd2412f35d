/**
 * Window functions over any input, ordered by any columns (see {@link OverWindowSpec} and
 * common/window-function.ts): the general OVER operator, for LAG, LEAD, FIRST_VALUE, LAST_VALUE,
 * NTILE, PERCENT_RANK, CUME_DIST, ranks without a Top-N bound, and aggregates whose window is not
 * ordered by one time attribute. Its output is the dynamic table of every input row followed by
 * its current values, as PostgreSQL computes them over the input's current rows.
 *
 * Each partition keeps its rows sorted by the order keys (peers in arrival order), each with the
 * values last emitted for it, in one keyed value. A batch's changes are applied to their
 * partitions first (an insert goes after its peers; a retraction removes a row equal to it, and
 * one the partition does not hold is ignored with one warning); then each touched partition's
 * values are computed again in one pass, aggregates with one accumulator sliding over the frames,
 * from the first row whose values can have changed: a few rows before the first change for
 * LAG, LEAD, ranks and bounded ROWS frames (so appending in order costs O(batch)), the whole
 * partition for NTILE, PERCENT_RANK, CUME_DIST and frames to UNBOUNDED FOLLOWING, and from the
 * partition's start for aggregates from UNBOUNDED PRECEDING. Only what changed is emitted: -D for
 * removed rows, -U/+U for rows whose values changed, +I for new rows.
 */
import { keySelector, rowsEqual, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowFrame, WindowFunction } from '../../common/window-function.js';
import type { AggregateCallSpec, OverWindowSpec } from '../../dataflow/job-graph.js';
import { generateSlidingAggregate, type SlidingAggregateProgram } from '../aggregates/sliding-aggregate-codegen.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { rowOrder } from './row-order.js';
import { sameResults } from './updating-over-aggregate-operator.js';

/** A row of a partition with the values last emitted for it; null until it is first emitted. */
interface WindowEntry {
  readonly row: Row;
  values: unknown[] | null;
}

/** A partition touched by the current batch: its rows after the batch's changes, and the emitted rows it lost. */
interface TouchedPartition {
  readonly entries: WindowEntry[];
  readonly removed: WindowEntry[];
  /** The lowest position a change inserted at or removed from: rows before it kept their place. */
  firstChanged: number;
  /** The row inserted or removed there (of several, the one ordering first): its peers before it are recomputed too (their RANGE frames hold it). */
  changedRow: Row | null;
}

/** The runtime implementation of an `over-window` job-graph node. */
export class OverWindowOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly before: (a: Row, b: Row) => boolean;
  private readonly compute: WindowValues;
  /** How far before a partition's first change rows can get other values (see {@link windowReach}). */
  private readonly reach: number;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private state!: ValueState<WindowEntry[]>;
  private warnedMissing = false;

  /** Generates the aggregates' code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: OverWindowSpec) {
    this.partitionOf = keySelector(spec.partitionKeys);
    this.before = rowOrder(spec.orderKeys);
    this.compute = windowValues(spec.functions, this.before);
    this.reach = windowReach(spec.functions);
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.state = context.keyedState.getValueState<WindowEntry[]>({ name: 'over-window.rows' });
  }

  processBatch(batch: ChangeBatch): void {
    const keyed = this.context.keyedState;
    const touched = new Map<Key, TouchedPartition>();
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const key = this.partitionOf(row);
      let partition = touched.get(key);
      if (partition === undefined) {
        keyed.setCurrentKey(key);
        partition = { entries: this.state.value() ?? [], removed: [], firstChanged: Infinity, changedRow: null };
        touched.set(key, partition);
      }
      const kind = batch.kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        const at = this.upperBound(partition.entries, row);
        partition.entries.splice(at, 0, { row, values: null });
        this.changedAt(partition, at, row);
      } else {
        const at = this.indexOf(partition.entries, row);
        if (at < 0) {
          this.missing();
          continue;
        }
        const [removed] = partition.entries.splice(at, 1);
        this.changedAt(partition, at, row);
        if (removed!.values !== null) partition.removed.push(removed!);
      }
    }
    const out = this.out;
    out.clear();
    for (const [key, { entries, removed, firstChanged, changedRow }] of touched) {
      for (const entry of removed) out.push(RowKind.DELETE, [...entry.row, ...entry.values!]);
      // Rows far enough before the first change, and not its peers, keep their values (none do for NTILE and the like).
      let from = changedRow === null ? entries.length : this.reach === Infinity ? 0 : Math.max(0, firstChanged - this.reach);
      if (changedRow !== null) while (from > 0 && !this.before(entries[from - 1]!.row, changedRow)) from--;
      const values = this.compute(entries, from);
      for (let j = from; j < entries.length; j++) {
        const entry = entries[j]!;
        const next = values[j - from]!;
        if (entry.values === null) out.push(RowKind.INSERT, [...entry.row, ...next]);
        else if (!sameResults(entry.values, next)) {
          out.push(RowKind.UPDATE_BEFORE, [...entry.row, ...entry.values]);
          out.push(RowKind.UPDATE_AFTER, [...entry.row, ...next]);
        } else continue;
        entry.values = next;
      }
      keyed.setCurrentKey(key);
      if (entries.length === 0) this.state.clear();
      else this.state.update(entries);
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /**
   * Records a change at position `at` of `partition`, of `row`. Of two changes at the lowest
   * position, the row that orders first is kept: its peers reach further back (a retraction and an
   * insertion of rows of different peer groups can land at the same position).
   */
  private changedAt(partition: TouchedPartition, at: number, row: Row): void {
    if (at > partition.firstChanged) return;
    if (at === partition.firstChanged && partition.changedRow !== null && !this.before(row, partition.changedRow)) return;
    partition.firstChanged = at;
    partition.changedRow = row;
  }

  /** The position after every row that does not order after `row` (peers keep arrival order). */
  private upperBound(entries: readonly WindowEntry[], row: Row): number {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(row, entries[mid]!.row)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The index of a row equal to `row` among its peers, the last one first (the latest arrival), or -1. */
  private indexOf(entries: readonly WindowEntry[], row: Row): number {
    for (let i = this.upperBound(entries, row) - 1; i >= 0 && !this.before(entries[i]!.row, row); i--) if (rowsEqual(entries[i]!.row, row)) return i;
    return -1;
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`over window ${this.context.operatorId}: ignored a retraction of a row its partition does not hold; further ones are ignored silently`);
  }
}

/**
 * Computes the values of the rows of a partition (rows in order) from index `from` on, one list
 * per row (the first for row `from`), function by function. Rows before `from` keep the values
 * they have (`values`, read for DENSE_RANK's count of the peer groups before).
 */
export type WindowValues = (entries: readonly { readonly row: Row; readonly values: readonly unknown[] | null }[], from: number) => unknown[][];

/**
 * How far before the first changed position of a partition rows can get other values: LEAD's
 * offset, a ROWS frame's end after the current row; Infinity for the functions that depend on the
 * partition's size or its last rows (NTILE, PERCENT_RANK, CUME_DIST, frames to UNBOUNDED
 * FOLLOWING). Peers of the first row recomputed are recomputed too (RANGE frames end at the last peer).
 */
export function windowReach(functions: readonly WindowFunction<unknown>[]): number {
  let reach = 0;
  for (const f of functions) {
    switch (f.kind) {
      case 'ranking':
        if (f.function === 'PERCENT_RANK' || f.function === 'CUME_DIST') return Infinity;
        break;
      case 'ntile':
        return Infinity;
      case 'offset':
        if (f.function === 'LEAD') reach = Math.max(reach, f.offset);
        break;
      case 'frame-value':
      case 'aggregate':
        if (f.frame.end === null) return Infinity;
        if (f.frame.unit === 'ROWS') reach = Math.max(reach, f.frame.end);
        break;
      default: {
        const unknown: never = f;
        throw new Error(`unknown window function ${JSON.stringify(unknown)}`);
      }
    }
  }
  return reach;
}

/**
 * The computation of `functions` over a partition whose rows are in the order `before` defines
 * (exported for the model test, which checks it indirectly through the operator).
 */
export function windowValues(functions: readonly WindowFunction<AggregateCallSpec>[], before: (a: Row, b: Row) => boolean): WindowValues {
  const programs = functions.map((f) => (f.kind === 'aggregate' ? generateSlidingAggregate([f.aggregate]) : undefined));
  return (entries, from) => {
    const n = entries.length;
    const values: unknown[][] = [];
    for (let j = from; j < n; j++) values.push(new Array<unknown>(functions.length));
    if (from >= n) return values;
    // Peer groups from the first peer of row `from` on: the first and last index of each row's
    // peers, and the number of peer groups before each row's, counted from there.
    let base = from;
    while (base > 0 && !before(entries[base - 1]!.row, entries[base]!.row)) base--;
    const first: number[] = [];
    const last: number[] = [];
    const group: number[] = [];
    for (let j = base, g = 0; j < n; j++) {
      const tie = j > base && !before(entries[j - 1]!.row, entries[j]!.row);
      if (j > base && !tie) g++;
      first.push(tie ? first[j - 1 - base]! : j);
      group.push(g);
    }
    for (let j = n - 1; j >= base; j--) last[j - base] = j < n - 1 && first[j + 1 - base] === first[j - base] ? last[j + 1 - base]! : j;
    const peers: Peers = { firstPeer: (j) => first[j - base]!, lastPeer: (j) => last[j - base]! };
    functions.forEach((f, c) => {
      switch (f.kind) {
        case 'ranking': {
          // DENSE_RANK continues from the rows kept before the first peer group recomputed.
          const groupsBefore = base === 0 ? 0 : (entries[base - 1]!.values![c] as number);
          for (let j = from; j < n; j++) values[j - from]![c] = ranking(f.function, j, n, peers, groupsBefore + group[j - base]!);
          return;
        }
        case 'ntile': {
          const size = Math.floor(n / f.buckets);
          const larger = n % f.buckets;
          for (let j = from; j < n; j++) values[j - from]![c] = j < larger * (size + 1) ? Math.floor(j / (size + 1)) + 1 : larger + Math.floor((j - larger * (size + 1)) / size) + 1;
          return;
        }
        case 'offset': {
          const step = f.function === 'LAG' ? -f.offset : f.offset;
          for (let j = from; j < n; j++) {
            const k = j + step;
            values[j - from]![c] = k >= 0 && k < n ? entries[k]!.row[f.arg] ?? null : f.default === null ? null : entries[j]!.row[f.default] ?? null;
          }
          return;
        }
        case 'frame-value':
          for (let j = from; j < n; j++) {
            const start = frameStart(f.frame, j, peers);
            const end = frameEnd(f.frame, j, n, peers);
            values[j - from]![c] = start > end ? null : entries[f.function === 'FIRST_VALUE' ? start : end]!.row[f.arg] ?? null;
          }
          return;
        case 'aggregate':
          slide(programs[c]!, f.frame, entries, from, peers, (j, result) => (values[j - from]![c] = result));
          return;
        default: {
          const unknown: never = f;
          throw new Error(`unknown window function ${JSON.stringify(unknown)}`);
        }
      }
    });
    return values;
  };
}

/** The first and last index of the peers of row `j` (for rows from the first one computed on). */
interface Peers {
  firstPeer(j: number): number;
  lastPeer(j: number): number;
}

/** A ranking function's value for row `j` of `n`, `groupsBefore` peer groups ordering before its own. */
function ranking(name: Extract<WindowFunction<unknown>, { kind: 'ranking' }>['function'], j: number, n: number, peers: Peers, groupsBefore: number): number {
  switch (name) {
    case 'ROW_NUMBER':
      return j + 1;
    case 'RANK':
      return peers.firstPeer(j) + 1;
    case 'DENSE_RANK':
      return groupsBefore + 1;
    case 'PERCENT_RANK':
      return n > 1 ? peers.firstPeer(j) / (n - 1) : 0;
    case 'CUME_DIST':
      return (peers.lastPeer(j) + 1) / n;
    default: {
      const unknown: never = name;
      throw new Error(`unknown ranking function ${String(unknown)}`);
    }
  }
}

/** The first index of row `j`'s frame (may lie beyond the partition: an empty frame). */
function frameStart(frame: WindowFrame, j: number, peers: Peers): number {
  if (frame.start === null) return 0;
  if (frame.unit === 'RANGE') return peers.firstPeer(j);
  return Math.max(0, j + frame.start);
}

/** The last index of row `j`'s frame (may lie before the partition: an empty frame). */
function frameEnd(frame: WindowFrame, j: number, n: number, peers: Peers): number {
  if (frame.end === null) return n - 1;
  if (frame.unit === 'RANGE') return peers.lastPeer(j);
  return Math.min(n - 1, j + frame.end);
}

/**
 * Slides one accumulator over the frames of the rows in order from row `from`: every frame
 * supported starts and ends no earlier than the one before, so each row is added and retracted at
 * most once (the first frame is accumulated whole: from the partition's start for UNBOUNDED PRECEDING).
 */
function slide(program: SlidingAggregateProgram, frame: WindowFrame, entries: readonly { readonly row: Row }[], from: number, peers: Peers, set: (j: number, result: unknown) => void): void {
  const n = entries.length;
  const acc = program.create();
  let lo = 0;
  let hi = -1;
  for (let j = from; j < n; j++) {
    const start = frameStart(frame, j, peers);
    const end = frameEnd(frame, j, n, peers);
    if (start > hi) {
      while (lo <= hi) program.retract(acc, entries[lo++]!.row);
      lo = start;
      hi = start - 1;
    } else {
      while (lo < start) program.retract(acc, entries[lo++]!.row);
    }
    while (hi < end) program.accumulate(acc, entries[++hi]!.row);
    set(j, (hi < lo ? program.empty() : program.results(acc))[0]);
  }
}
