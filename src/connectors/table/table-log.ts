/**
 * The durable changelog of a writable table (`CREATE TABLE t (...)` without a connector): one
 * line per change, `<op> <json object>`, appended and fsynced per statement. Sources read it from
 * a byte offset, so a job over the table replays exactly from its checkpoint, and a query created
 * after rows were inserted starts from them.
 */
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { WeirError } from '../../common/errors.js';
import { parseRowKind, RowKind, ROW_KIND_SHORT } from '../../common/row-kind.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import { createRowFormat, type RowFormat } from '../filesystem/row-formats.js';
import { readFormatOptions } from '../formats/format-options.js';
import { createRecordDecoder } from '../formats/record-decoder-factory.js';
import type { RecordDecoder } from '../formats/record-decoder.js';

/** One change of a writable table. */
export interface TableChange {
  readonly kind: RowKind;
  readonly row: Row;
}


/** Bytes read at a time when scanning the log. */
const CHUNK_BYTES = 1 << 20;

/** The log file of one writable table. */
export class TableLog {
  private readonly format: RowFormat;
  private readonly decoder: RecordDecoder;
  /** The columns that cannot be NULL (declared NOT NULL, or in the primary key), by index. */
  private readonly notNull: readonly { readonly index: number; readonly name: string }[];

  constructor(
    readonly path: string,
    readonly table: string,
    schema: Schema,
  ) {
    this.format = createRowFormat('json', schema, { fieldDelimiter: ',' });
    this.decoder = createRecordDecoder(schema, readFormatOptions(`table '${table}'`, new Map([['format', 'json']])));
    this.notNull = schema.flatMap((field, index) => (field.type.nullable ? [] : [{ index, name: field.name }]));
  }

  /**
   * Appends the changes of one statement and makes them durable (fsync) before returning. A row
   * with NULL in a column that cannot be NULL is refused before anything is written, as Flink's
   * sink and PostgreSQL refuse it (written, it would make the log unreadable).
   */
  append(changes: readonly TableChange[]): void {
    if (changes.length === 0) return;
    for (const { row } of changes) {
      for (const { index, name } of this.notNull) {
        if (row[index] !== null && row[index] !== undefined) continue;
        throw new WeirError('EXECUTION_ERROR', `column '${name}' of table '${this.table}' is NOT NULL, however, a null value is being written into it`, {
          hint: 'filter the rows out (WHERE ... IS NOT NULL) or give the column a value (COALESCE)',
          permanent: true,
        });
      }
    }
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, changes.map((c) => `${ROW_KIND_SHORT[c.kind]} ${this.format.serialize(RowKind.INSERT, c.row)}`).join(''));
    const fd = openSync(this.path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** The log's length in bytes (0 when it does not exist yet). */
  size(): number {
    try {
      return statSync(this.path).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /**
   * The complete lines between byte `from` and `to` (at most `maxChanges` of them), and the offset
   * after the last one read.
   */
  read(from: number, to: number, maxChanges: number): { changes: TableChange[]; next: number } {
    const changes: TableChange[] = [];
    if (from >= to) return { changes, next: from };
    const fd = openSync(this.path, 'r');
    let position = from;
    try {
      let pending = Buffer.alloc(0);
      let pendingStart = from;
      while (position < to && changes.length < maxChanges) {
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, to - position));
        const read = readSync(fd, chunk, 0, chunk.length, position);
        if (read === 0) break;
        position += read;
        pending = pending.length === 0 ? chunk.subarray(0, read) : Buffer.concat([pending, chunk.subarray(0, read)]);
        let start = 0;
        for (let end = pending.indexOf(10, start); end >= 0 && changes.length < maxChanges; end = pending.indexOf(10, start)) {
          changes.push(this.decode(pending.toString('utf8', start, end), pendingStart + start));
          start = end + 1;
        }
        pendingStart += start;
        pending = pending.subarray(start);
        if (changes.length >= maxChanges) return { changes, next: pendingStart };
      }
      return { changes, next: pendingStart };
    } finally {
      closeSync(fd);
    }
  }

  /** Every change from the start. */
  readAll(): TableChange[] {
    return this.read(0, this.size(), Infinity).changes;
  }

  /** Deletes the log (DROP TABLE). */
  remove(): void {
    rmSync(this.path, { force: true });
  }

  private decode(line: string, offset: number): TableChange {
    const space = line.indexOf(' ');
    try {
      return { kind: parseRowKind(line.slice(0, space)), row: this.decoder.decode(line.slice(space + 1)) };
    } catch (error) {
      throw this.corrupt(offset, (error as Error).message);
    }
  }

  private corrupt(offset: number, reason: string): WeirError {
    return new WeirError('CONNECTOR_ERROR', `the log of table '${this.table}' (${this.path}) is damaged at byte ${offset}: ${reason}`);
  }
}
