/**
 * Turns rows of text values (a snapshot row, a tuple of the change stream) into weir rows of the
 * source's schema, naming the column, the table and where the row came from when a value does not
 * fit its type (the job fails: a value is never silently changed).
 */
import { WeirError } from '../../common/errors.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import { UNCHANGED_VALUE } from '../../common/unchanged-value.js';
import { textParser, type TextParser } from '../postgres/postgres-text-parser.js';

/** Decodes rows of one captured table. */
export class CdcRowDecoder {
  readonly #parsers: readonly TextParser[];
  readonly #names: readonly string[];

  /** `where` prefixes messages: `postgres-cdc source 'orders', table public.orders`. */
  constructor(
    schema: Schema,
    private readonly where: string,
  ) {
    this.#parsers = schema.map((field) => textParser(field.type));
    this.#names = schema.map((field) => field.name);
  }

  /**
   * The weir row whose column i is `values[positions[i]]` (or `values[i]` without positions);
   * `at` says where the row was read (`the snapshot`, `the transaction committed at 0/16B3748`).
   * {@link UNCHANGED_VALUE} (a value the server did not send) is kept as it is.
   */
  decode(values: readonly (string | null | typeof UNCHANGED_VALUE)[], at: string, positions?: readonly number[]): Row {
    const row: unknown[] = new Array(this.#parsers.length);
    for (let i = 0; i < this.#parsers.length; i++) {
      const text = values[positions === undefined ? i : positions[i]!];
      if (text === null || text === undefined || text === UNCHANGED_VALUE) {
        row[i] = text ?? null;
        continue;
      }
      try {
        row[i] = this.#parsers[i]!(text);
      } catch (error) {
        throw new WeirError('CONNECTOR_ERROR', `${this.where}: column '${this.#names[i]}' in ${at}: ${(error as Error).message}`, { permanent: true });
      }
    }
    return row;
  }
}
