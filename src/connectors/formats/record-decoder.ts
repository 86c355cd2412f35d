/**
 * The contract of the source-side formats (`'format' = 'json' | 'csv'`): turning one record's
 * bytes (a line of a file, a NATS message) into a row of the table's physical schema, and what
 * happens to a record that does not fit (Flink's `format.fail-on-error` /
 * `format.ignore-parse-errors`). Implementations live beside this file; sources only call
 * {@link RecordDecoder.decode} and hand failures to a {@link BadRecordPolicy}:
 * `readFormatOptions` (format-options.ts) reads the options, `createRecordDecoder`
 * (record-decoder-factory.ts) and `createBadRecordPolicy` (bad-record-policy.ts) make the rest.
 */
import type { Row } from '../../common/row.js';

/** Where a record came from, for error messages and dead letters: `file /data/a.json, line 7 (byte 812)`. */
export interface RecordOrigin {
  /** The file, subject or table the record was read from. */
  readonly source: string;
  /** A human-readable position inside it: `line 7 (byte 812)`, `stream sequence 42`. */
  readonly position: string;
}

/** Why one record could not be decoded: a short reason naming the column when there is one. */
export class RecordDecodeError extends Error {
  constructor(
    message: string,
    /** The column the problem is in, when it is one column's. */
    readonly column?: string,
  ) {
    super(message);
    this.name = 'RecordDecodeError';
  }
}

/** Decodes records of one format into rows of one schema; compiled once per source. */
export interface RecordDecoder {
  /** The row of `text` (one record, without its line terminator); throws {@link RecordDecodeError}. */
  decode(text: string): Row;
}

/**
 * What a source does with a record that failed to decode: throw a WeirError naming the origin
 * and the reason (fail-on-error, the default), or keep the record in the dead-letter file and
 * count it (ignore-parse-errors). Never drops a record silently.
 */
export interface BadRecordPolicy {
  /** Called with the record's raw text; returns normally only when the record was set aside. */
  reject(text: string, origin: RecordOrigin, error: RecordDecodeError): void | Promise<void>;
  /** How many records were set aside so far (for metrics). */
  readonly rejected: number;
}
