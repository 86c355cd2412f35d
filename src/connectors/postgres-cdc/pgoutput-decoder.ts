/**
 * Decodes the messages of PostgreSQL's `pgoutput` logical-decoding plugin, protocol version 1
 * ("Logical Replication Message Formats"): transaction bounds, relation descriptions and row
 * changes with their tuples in text format. Pure: bytes in, typed messages out.
 */
import { WeirError } from '../../common/errors.js';
import type { Lsn } from './lsn-format.js';

/** One column value of a tuple: NULL, a TOASTed value the change did not touch (not sent), or text. */
export type TupleValue = null | typeof UNCHANGED_TOAST | string;

/** The marker of an unchanged TOASTed value (`u`): the server did not send it. */
export const UNCHANGED_TOAST: unique symbol = Symbol('unchanged-toast');

/** A column of a relation as the server describes it. */
export interface RelationColumn {
  readonly name: string;
  /** Part of the replica identity (the key sent with updates and deletes). */
  readonly key: boolean;
  readonly typeOid: number;
  readonly typmod: number;
}

/** A decoded pgoutput message. */
export type PgoutputMessage =
  | { readonly kind: 'begin'; readonly finalLsn: Lsn; readonly xid: number }
  | { readonly kind: 'commit'; readonly commitLsn: Lsn; readonly endLsn: Lsn }
  | {
      readonly kind: 'relation';
      readonly relationId: number;
      readonly schema: string;
      readonly table: string;
      /** `d` default (primary key), `n` nothing, `f` full, `i` index. */
      readonly replicaIdentity: string;
      readonly columns: readonly RelationColumn[];
    }
  | { readonly kind: 'insert'; readonly relationId: number; readonly row: readonly TupleValue[] }
  | {
      readonly kind: 'update';
      readonly relationId: number;
      /** The old row: whole (`O`, replica identity full), the key columns only (`K`), or absent. */
      readonly old: { readonly kind: 'full' | 'key'; readonly row: readonly TupleValue[] } | undefined;
      readonly row: readonly TupleValue[];
    }
  | { readonly kind: 'delete'; readonly relationId: number; readonly old: { readonly kind: 'full' | 'key'; readonly row: readonly TupleValue[] } }
  | { readonly kind: 'truncate'; readonly relationIds: readonly number[] }
  /** Origin, Type and logical Message: nothing a table's changelog needs. */
  | { readonly kind: 'other'; readonly tag: string };

/** Decodes one message; throws CONNECTOR_ERROR when it is malformed. */
export function decodePgoutput(data: Buffer): PgoutputMessage {
  const reader = new ByteReader(data);
  const tag = String.fromCharCode(reader.byte());
  switch (tag) {
    case 'B': {
      const finalLsn = reader.uint64();
      reader.uint64();
      return { kind: 'begin', finalLsn, xid: reader.uint32() };
    }
    case 'C': {
      reader.byte();
      const commitLsn = reader.uint64();
      return { kind: 'commit', commitLsn, endLsn: reader.uint64() };
    }
    case 'R': {
      const relationId = reader.uint32();
      const schema = reader.cstring();
      const table = reader.cstring();
      const replicaIdentity = String.fromCharCode(reader.byte());
      const count = reader.uint16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < count; i++) {
        const flags = reader.byte();
        columns.push({ key: (flags & 1) === 1, name: reader.cstring(), typeOid: reader.uint32(), typmod: reader.int32() });
      }
      return { kind: 'relation', relationId, schema, table, replicaIdentity, columns };
    }
    case 'I': {
      const relationId = reader.uint32();
      reader.expect('N');
      return { kind: 'insert', relationId, row: reader.tuple() };
    }
    case 'U': {
      const relationId = reader.uint32();
      let marker = String.fromCharCode(reader.byte());
      let old: { kind: 'full' | 'key'; row: readonly TupleValue[] } | undefined;
      if (marker === 'O' || marker === 'K') {
        old = { kind: marker === 'O' ? 'full' : 'key', row: reader.tuple() };
        marker = String.fromCharCode(reader.byte());
      }
      if (marker !== 'N') throw malformed(`update with tuple marker '${marker}'`);
      return { kind: 'update', relationId, old, row: reader.tuple() };
    }
    case 'D': {
      const relationId = reader.uint32();
      const marker = String.fromCharCode(reader.byte());
      if (marker !== 'O' && marker !== 'K') throw malformed(`delete with tuple marker '${marker}'`);
      return { kind: 'delete', relationId, old: { kind: marker === 'O' ? 'full' : 'key', row: reader.tuple() } };
    }
    case 'T': {
      const count = reader.uint32();
      reader.byte();
      const relationIds: number[] = [];
      for (let i = 0; i < count; i++) relationIds.push(reader.uint32());
      return { kind: 'truncate', relationIds };
    }
    case 'O':
    case 'Y':
    case 'M':
      return { kind: 'other', tag };
    default:
      throw malformed(`unknown message type '${tag}'`);
  }
}

function malformed(what: string): WeirError {
  return new WeirError('CONNECTOR_ERROR', `malformed pgoutput message: ${what}`);
}

/** Reads big-endian fields off a message, checking every read against its length. */
class ByteReader {
  #offset = 0;
  constructor(private readonly data: Buffer) {}

  byte(): number {
    this.#need(1);
    return this.data[this.#offset++]!;
  }

  expect(char: string): void {
    const found = String.fromCharCode(this.byte());
    if (found !== char) throw malformed(`expected '${char}', found '${found}'`);
  }

  uint16(): number {
    this.#need(2);
    const value = this.data.readUInt16BE(this.#offset);
    this.#offset += 2;
    return value;
  }

  uint32(): number {
    this.#need(4);
    const value = this.data.readUInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  int32(): number {
    this.#need(4);
    const value = this.data.readInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  uint64(): bigint {
    this.#need(8);
    const value = this.data.readBigUInt64BE(this.#offset);
    this.#offset += 8;
    return value;
  }

  cstring(): string {
    const end = this.data.indexOf(0, this.#offset);
    if (end < 0) throw malformed('unterminated string');
    const text = this.data.toString('utf8', this.#offset, end);
    this.#offset = end + 1;
    return text;
  }

  tuple(): TupleValue[] {
    const count = this.uint16();
    const values: TupleValue[] = [];
    for (let i = 0; i < count; i++) {
      const kind = String.fromCharCode(this.byte());
      if (kind === 'n') values.push(null);
      else if (kind === 'u') values.push(UNCHANGED_TOAST);
      else if (kind === 't') {
        const length = this.uint32();
        this.#need(length);
        values.push(this.data.toString('utf8', this.#offset, this.#offset + length));
        this.#offset += length;
      } else throw malformed(`column value of kind '${kind}' (only text is requested)`);
    }
    return values;
  }

  #need(bytes: number): void {
    if (this.#offset + bytes > this.data.length) throw malformed(`truncated after ${this.#offset} of ${this.data.length} bytes`);
  }
}
