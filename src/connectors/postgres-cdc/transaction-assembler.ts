/**
 * Builds the changelog of the captured table, one whole transaction at a time, from the pgoutput
 * messages of the change stream: changes between Begin and Commit are collected and handed out
 * only at Commit, so that a transaction is never split. Changes of other tables of the publication
 * are dropped.
 *
 * Inserts are +I; deletes are -D of the old row; an update is -U old row, +U new row, unless it
 * changes the primary key, when it is -D old row, +I new row (so that -U/+U always share a key, as
 * keyed consumers such as upsert sinks assume). REPLICA IDENTITY FULL makes the server send
 * whole old rows; a TOASTed value that an update did not change is taken from the old row. A
 * TRUNCATE of the table cannot be expressed as row changes and fails the job.
 *
 * With `'changelog-mode' = 'upsert'` (REPLICA IDENTITY DEFAULT: the server sends the old row's key
 * only when an update changes it, and deletes by key) the changelog is an upsert one: an update is
 * +U of the new row (its unchanged TOASTed values {@link UNCHANGED_VALUE}), or -D of the old key and
 * +I when it changes the key; a delete is -D of a row holding the key (other columns NULL). The
 * planner puts a ChangelogNormalize after the source, which makes it whole.
 */
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import { UNCHANGED_VALUE } from '../../common/unchanged-value.js';
import { displayTable } from '../postgres/postgres-ddl.js';
import type { CdcRowDecoder } from './cdc-row-decoder.js';
import { formatLsn, type Lsn } from './lsn-format.js';
import { UNCHANGED_TOAST, type PgoutputMessage, type TupleValue } from './pgoutput-decoder.js';
import type { CdcChangelogMode } from './postgres-cdc-options.js';
import type { CapturedTable } from './source-table-checks.js';

/** The captured table's changes of one committed transaction (possibly none). */
export interface CdcTransaction {
  /** The end of the transaction's commit record: streaming from here continues after it. */
  readonly endLsn: Lsn;
  readonly kinds: readonly RowKind[];
  readonly rows: readonly Row[];
}

/** How the stream's relation lays out the captured table: the tuple position of each weir column. */
interface RelationLayout {
  readonly positions: readonly number[];
  readonly keyPositions: readonly number[];
}

/** A transaction between its Begin and its Commit. */
interface OpenTransaction {
  readonly finalLsn: Lsn;
  readonly kinds: RowKind[];
  readonly rows: Row[];
}

/** Assembles transactions; one per replication session (call {@link reset} when the session is lost). */
export class TransactionAssembler {
  #layouts = new Map<number, RelationLayout | null>();
  #open: OpenTransaction | undefined;

  /** `label` starts messages (`postgres-cdc source 'orders'`). */
  constructor(
    private readonly table: CapturedTable,
    private readonly decoder: CdcRowDecoder,
    private readonly label: string,
    private readonly mode: CdcChangelogMode = 'all',
  ) {}

  /** True between Begin and Commit. */
  get inTransaction(): boolean {
    return this.#open !== undefined;
  }

  /** Forgets a transaction in progress and the relations seen (a new session sends them again). */
  reset(): void {
    this.#open = undefined;
    this.#layouts = new Map();
  }

  /** Takes one message; returns the transaction it completes (at Commit). Throws CONNECTOR_ERROR on what cannot be captured. */
  accept(message: PgoutputMessage): CdcTransaction | undefined {
    switch (message.kind) {
      case 'begin':
        this.#open = { finalLsn: message.finalLsn, kinds: [], rows: [] };
        return undefined;
      case 'commit': {
        const open = this.#requireOpen('Commit');
        this.#open = undefined;
        return { endLsn: message.endLsn, kinds: open.kinds, rows: open.rows };
      }
      case 'relation':
        this.#layouts.set(message.relationId, this.#layoutOf(message));
        return undefined;
      case 'insert': {
        const layout = this.#layout(message.relationId);
        if (layout !== undefined) this.#emit(RowKind.INSERT, this.#decode(message.row, layout));
        return undefined;
      }
      case 'update': {
        const layout = this.#layout(message.relationId);
        if (layout === undefined) return undefined;
        if (this.mode === 'upsert') {
          this.#upsert(message.row, message.old, layout);
          return undefined;
        }
        const old = this.#oldRow(message.old, 'an update');
        const values = message.row.map((value, i) => (value === UNCHANGED_TOAST ? old[i]! : value));
        const keyChanged = layout.keyPositions.some((p) => old[p] !== values[p]);
        this.#emit(keyChanged ? RowKind.DELETE : RowKind.UPDATE_BEFORE, this.#decode(old, layout));
        this.#emit(keyChanged ? RowKind.INSERT : RowKind.UPDATE_AFTER, this.#decode(values, layout));
        return undefined;
      }
      case 'delete': {
        const layout = this.#layout(message.relationId);
        if (layout === undefined) return undefined;
        const old = this.mode === 'upsert' ? this.#oldKey(message.old, 'a delete') : this.#oldRow(message.old, 'a delete');
        this.#emit(RowKind.DELETE, this.#decode(old, layout));
        return undefined;
      }
      case 'truncate':
        if (message.relationIds.some((id) => this.#layout(id) !== undefined)) {
          throw new WeirError('CONNECTOR_ERROR', `${this.label}: ${displayTable(this.table.name)} was truncated (${this.#where()}); a TRUNCATE cannot be captured as row changes`, {
            hint: 'delete the rows with DELETE instead, or start the job afresh (without its checkpoints) to take a new snapshot',
            permanent: true,
          });
        }
        return undefined;
      case 'other':
        return undefined;
    }
  }

  #layoutOf(message: Extract<PgoutputMessage, { kind: 'relation' }>): RelationLayout | null {
    const { name } = this.table;
    if (message.schema !== name.schema || message.table !== name.table) return null;
    const shown = displayTable(name);
    if (this.mode === 'upsert' && message.replicaIdentity !== 'f' && message.replicaIdentity !== 'd') {
      throw new WeirError('CONNECTOR_ERROR', `${this.label}: the replica identity of ${shown} was changed while the job ran, so deletes no longer carry the primary key`, {
        hint: `ALTER TABLE ${shown} REPLICA IDENTITY DEFAULT`,
        permanent: true,
      });
    }
    if (this.mode === 'all' && message.replicaIdentity !== 'f') {
      throw new WeirError('CONNECTOR_ERROR', `${this.label}: the replica identity of ${shown} was changed from FULL while the job ran, so old rows are no longer sent`, {
        hint: `ALTER TABLE ${shown} REPLICA IDENTITY FULL`,
        permanent: true,
      });
    }
    const positions = this.table.columns.map((column) => {
      const position = message.columns.findIndex((c) => c.name === column.name);
      if (position < 0 || message.columns[position]!.typeOid !== column.typeOid) {
        throw new WeirError('CONNECTOR_ERROR', `${this.label}: column '${column.name}' of ${shown} was ${position < 0 ? 'dropped or renamed' : 'changed to another type'} while the job ran`, { permanent: true });
      }
      return position;
    });
    return { positions, keyPositions: this.table.keyIndexes.map((i) => positions[i]!) };
  }

  /**
   * An update read as an upsert: +U of the new row, unchanged TOASTed values filled from a whole old
   * row when the server sent one (REPLICA IDENTITY FULL) and marked unchanged otherwise; -D of the
   * old key and +I of the new row when the update changed the key.
   */
  #upsert(row: readonly TupleValue[], old: { kind: 'full' | 'key'; row: readonly TupleValue[] } | undefined, layout: RelationLayout): void {
    const whole = old?.kind === 'full' && !old.row.includes(UNCHANGED_TOAST) ? old.row : undefined;
    const values = row.map((value, i) => (value !== UNCHANGED_TOAST ? value : whole !== undefined ? whole[i]! : UNCHANGED_VALUE));
    const keyChanged = old !== undefined && layout.keyPositions.some((p) => old.row[p] !== values[p]);
    if (!keyChanged) {
      this.#emit(RowKind.UPDATE_AFTER, this.#decode(values, layout));
      return;
    }
    if (values.includes(UNCHANGED_VALUE)) {
      // The new key has no last row to take them from: only a whole old row can give them.
      throw new WeirError('CONNECTOR_ERROR', `${this.label}: an update of ${displayTable(this.table.name)} changed the primary key but left TOASTed values unsent (${this.#where()})`, {
        hint: `ALTER TABLE ${displayTable(this.table.name)} REPLICA IDENTITY FULL, so that updates carry the whole old row`,
        permanent: true,
      });
    }
    this.#emit(RowKind.DELETE, this.#decode(this.#oldKey(old, 'an update'), layout));
    this.#emit(RowKind.INSERT, this.#decode(values, layout));
  }

  /** The old row of a change read as an upsert: its key columns are what counts (other columns may be NULL or unsent). */
  #oldKey(old: { kind: 'full' | 'key'; row: readonly TupleValue[] } | undefined, what: string): readonly TupleValue[] {
    if (old === undefined) {
      throw new WeirError('CONNECTOR_ERROR', `${this.label}: ${what} of ${displayTable(this.table.name)} came without the old row's key (${this.#where()}); is REPLICA IDENTITY still DEFAULT or FULL?`, { permanent: true });
    }
    return old.row.map((value) => (value === UNCHANGED_TOAST ? null : value));
  }

  #layout(relationId: number): RelationLayout | undefined {
    const layout = this.#layouts.get(relationId);
    if (layout === undefined) throw new WeirError('CONNECTOR_ERROR', `${this.label}: a change of relation ${relationId} came before its description`);
    return layout ?? undefined;
  }

  #oldRow(old: { kind: 'full' | 'key'; row: readonly TupleValue[] } | undefined, what: string): readonly TupleValue[] {
    if (old?.kind !== 'full' || old.row.includes(UNCHANGED_TOAST)) {
      throw new WeirError('CONNECTOR_ERROR', `${this.label}: ${what} of ${displayTable(this.table.name)} came without its whole old row (${this.#where()}); is REPLICA IDENTITY still FULL?`, { permanent: true });
    }
    return old.row;
  }

  #decode(values: readonly (TupleValue | typeof UNCHANGED_VALUE)[], layout: RelationLayout): Row {
    return this.decoder.decode(values as readonly (string | null | typeof UNCHANGED_VALUE)[], this.#where(), layout.positions);
  }

  #emit(kind: RowKind, row: Row): void {
    const open = this.#requireOpen('a change');
    open.kinds.push(kind);
    open.rows.push(row);
  }

  #requireOpen(what: string): OpenTransaction {
    if (this.#open === undefined) throw new WeirError('CONNECTOR_ERROR', `${this.label}: the change stream sent ${what} outside a transaction`);
    return this.#open;
  }

  #where(): string {
    return this.#open === undefined ? 'outside a transaction' : `the transaction committed at ${formatLsn(this.#open.finalLsn)}`;
  }
}
