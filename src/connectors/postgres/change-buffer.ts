/**
 * Changes buffered between two writes to PostgreSQL. An upsert sink keeps only the net change
 * per primary key (the last change wins: +I/+U upsert the row, -U/-D delete the key, and a +U
 * after a -U overrides it), so a key touched many times in a checkpoint costs one row. An append
 * sink keeps every row. Keys are compared by the text PostgreSQL receives, so two values that
 * reach the database as the same key are one key here too.
 */
import { RowKind } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import type { ValueEncoder } from './postgres-types.js';

/** What a buffer holds, ready to be written: rows to upsert (or insert) and rows whose keys to delete. */
export interface BufferedWrites {
  readonly rows: readonly Row[];
  readonly deletes: readonly Row[];
}

/** Changes waiting to be written. */
export interface ChangeBuffer {
  /** Buffered entries: net changes for an upsert buffer, rows for an append buffer. */
  readonly size: number;
  /** Adds a change; an append buffer takes only +I, which the caller checks. */
  add(kind: RowKind, row: Row): void;
  /** Takes everything out, leaving the buffer empty. */
  drain(): BufferedWrites;
}

/** Every row, in order. */
export class AppendBuffer implements ChangeBuffer {
  #rows: Row[] = [];

  get size(): number {
    return this.#rows.length;
  }

  add(_kind: RowKind, row: Row): void {
    this.#rows.push(row);
  }

  drain(): BufferedWrites {
    const rows = this.#rows;
    this.#rows = [];
    return { rows, deletes: [] };
  }
}

interface NetChange {
  row: Row;
  upsert: boolean;
}

/** The last change per key. */
export class UpsertBuffer implements ChangeBuffer {
  #changes = new Map<string, NetChange>();
  readonly #keyOf: (row: Row) => string;

  /** `keyIndexes` are the primary key's columns; `encoders` turn their values into PostgreSQL text. */
  constructor(keyIndexes: readonly number[], encoders: readonly ValueEncoder[]) {
    this.#keyOf = keyText(keyIndexes, encoders);
  }

  get size(): number {
    return this.#changes.size;
  }

  add(kind: RowKind, row: Row): void {
    const upsert = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER;
    const key = this.#keyOf(row);
    const change = this.#changes.get(key);
    if (change === undefined) {
      this.#changes.set(key, { row, upsert });
    } else {
      change.row = row;
      change.upsert = upsert;
    }
  }

  drain(): BufferedWrites {
    const rows: Row[] = [];
    const deletes: Row[] = [];
    for (const change of this.#changes.values()) (change.upsert ? rows : deletes).push(change.row);
    this.#changes = new Map();
    return { rows, deletes };
  }
}

function keyText(indexes: readonly number[], encoders: readonly ValueEncoder[]): (row: Row) => string {
  if (indexes.length === 1) {
    const index = indexes[0]!;
    const encode = encoders[index]!;
    return (row) => encode(row[index]) ?? '\u0000';
  }
  return (row) => {
    let key = '';
    for (const index of indexes) {
      const text = encoders[index]!(row[index]);
      key += text === null ? '~' : `${text.length}:${text}`;
    }
    return key;
  };
}
