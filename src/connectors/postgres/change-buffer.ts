/**
 * Changes buffered between two writes to PostgreSQL. An upsert sink keeps only the net change
 * per primary key (the last change wins: +I/+U upsert the row, -U/-D delete the key, and a +U
 * after a -U overrides it), so a key touched many times in a checkpoint costs one row. An append
 * sink keeps every row. A multiset sink keeps the net count per distinct row (+I/+U add one, -U/-D
 * take one away), so a row inserted and retracted within a checkpoint costs nothing. Keys and rows
 * are compared by the text PostgreSQL receives, so two values that reach the database as the same
 * value are one here too.
 */
import { RowKind } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import type { ValueEncoder } from './postgres-types.js';

/** What a buffer holds, ready to be written: rows to upsert (or insert) and rows whose keys to delete. */
export interface BufferedWrites {
  readonly rows: readonly Row[];
  readonly deletes: readonly Row[];
  /** From a multiset buffer: per row of `rows` and of `deletes`, how many copies to insert or remove, and the hash of its content. */
  readonly multiset?: MultisetCounts;
}

/** The copies and content hashes of a multiset buffer's rows (parallel to `rows` and `deletes`). */
export interface MultisetCounts {
  readonly rowCopies: readonly number[];
  readonly rowHashes: readonly number[];
  readonly deleteCopies: readonly number[];
  readonly deleteHashes: readonly number[];
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

interface NetCount {
  readonly row: Row;
  readonly hash: number;
  count: number;
}

/** The net count per distinct row, for a table that holds a multiset (see the module comment). */
export class MultisetBuffer implements ChangeBuffer {
  #changes = new Map<string, NetCount>();
  readonly #contentOf: (row: Row) => string;

  /** `encoders` turn every column's values into PostgreSQL text. */
  constructor(encoders: readonly ValueEncoder[]) {
    this.#contentOf = keyText(
      encoders.map((_, i) => i),
      encoders,
    );
  }

  get size(): number {
    return this.#changes.size;
  }

  add(kind: RowKind, row: Row): void {
    const delta = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER ? 1 : -1;
    const content = this.#contentOf(row);
    const change = this.#changes.get(content);
    if (change === undefined) this.#changes.set(content, { row, hash: contentHash(content), count: delta });
    else change.count += delta;
  }

  drain(): BufferedWrites {
    const rows: Row[] = [];
    const deletes: Row[] = [];
    const counts = { rowCopies: [] as number[], rowHashes: [] as number[], deleteCopies: [] as number[], deleteHashes: [] as number[] };
    for (const { row, hash, count } of this.#changes.values()) {
      if (count > 0) {
        rows.push(row);
        counts.rowCopies.push(count);
        counts.rowHashes.push(hash);
      } else if (count < 0) {
        deletes.push(row);
        counts.deleteCopies.push(-count);
        counts.deleteHashes.push(hash);
      }
    }
    this.#changes = new Map();
    return { rows, deletes, multiset: counts };
  }
}

/**
 * A 53-bit hash of a row's content text (the value of a multiset table's hidden hash column): the
 * same in every process, so that rows written by an earlier run are found again. Equal content has
 * equal hashes; a retraction compares the content itself too, so a collision costs a comparison only.
 */
export function contentHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
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
