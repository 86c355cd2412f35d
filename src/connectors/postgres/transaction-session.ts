/**
 * One database session held for a writer's transactions: BEGIN, statements, then PREPARE
 * TRANSACTION (two-phase) or COMMIT (plain). Statements are built with kysely and run on the
 * session's own client, so that pg's command tag is at hand: `PREPARE TRANSACTION` outside a
 * transaction block is no error but a warning with the tag `ROLLBACK` (its writes were already
 * autocommitted, or lost), so anything but `PREPARE` throws.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type pg from 'pg';
import { WeirError } from '../../common/errors.js';

/** A session with at most one open transaction. */
export class TransactionSession {
  readonly #client: pg.PoolClient;
  readonly #label: string;
  #inTransaction = false;
  #lost: Error | undefined;

  private constructor(client: pg.PoolClient, label: string) {
    this.#client = client;
    this.#label = label;
    client.on('error', (error) => {
      this.#lost ??= error;
    });
  }

  /** Takes a client out of the pool for the session's lifetime; `label` starts error messages (`postgres sink 'orders'`). */
  static async open(pool: pg.Pool, label: string): Promise<TransactionSession> {
    return new TransactionSession(await pool.connect(), label);
  }

  /** True between BEGIN and PREPARE/COMMIT/ROLLBACK. */
  get inTransaction(): boolean {
    return this.#inTransaction;
  }

  /**
   * Runs one statement on the session. A statement carrying `expectedRows` (a multiset DELETE, see
   * postgres-dml.ts) must affect exactly that many rows, or the run fails: the table then lacks
   * rows its changelog retracts, which must never pass unnoticed.
   */
  async run(query: (Compilable & { readonly expectedRows?: number }) | CompiledQuery): Promise<pg.QueryResult> {
    const compiled = 'compile' in query ? query.compile() : query;
    const result = await this.#client.query(compiled.sql, compiled.parameters as unknown[]);
    const expected = 'compile' in query ? query.expectedRows : undefined;
    if (expected !== undefined && result.rowCount !== expected) {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `${this.#label}: the table lacks ${expected - (result.rowCount ?? 0)} of the ${expected} rows its changelog retracts (only ${result.rowCount ?? 0} were found), so it no longer holds what weir wrote into it; was it changed outside weir?`,
        { hint: 'drop the table (DROP MATERIALIZED VIEW, or DROP TABLE in Postgres) so that weir writes it again from the start' },
      );
    }
    return result;
  }

  /** Opens a transaction; the session must have none. */
  async begin(): Promise<void> {
    if (this.#inTransaction) throw new WeirError('INTERNAL_ERROR', `${this.#label}: BEGIN inside an open transaction`);
    await this.#client.query('BEGIN');
    this.#inTransaction = true;
  }

  /**
   * Runs `statement`, the `PREPARE TRANSACTION '<gid>'` built by prepared-transactions.ts: the
   * transaction becomes durable and leaves the session. Throws unless the server answers with the
   * tag `PREPARE`.
   */
  async prepare(gid: string, statement: Compilable): Promise<void> {
    this.#inTransaction = false;
    const result = await this.run(statement);
    if (result.command !== 'PREPARE') {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `${this.#label}: PREPARE TRANSACTION '${gid}' answered ${result.command} instead of PREPARE: the transaction was not prepared, so its rows were committed without two-phase commit or lost`,
      );
    }
  }

  /** Commits the open transaction; throws unless the server answers COMMIT (an aborted transaction answers ROLLBACK). */
  async commit(): Promise<void> {
    this.#inTransaction = false;
    const result = await this.#client.query('COMMIT');
    if (result.command !== 'COMMIT') throw new WeirError('CONNECTOR_ERROR', `${this.#label}: COMMIT answered ${result.command}: the transaction was rolled back`);
  }

  /** Rolls the open transaction back. */
  async rollback(): Promise<void> {
    this.#inTransaction = false;
    await this.#client.query('ROLLBACK');
  }

  /** Returns the client to the pool, or closes it when the connection failed or a transaction may still be open. */
  release(): void {
    this.#client.release(this.#lost ?? (this.#inTransaction ? true : undefined));
  }

  /**
   * Closes the connection at once: a statement in flight (say, one waiting for a lock) fails and
   * the server rolls back the open transaction. Prepared transactions are not affected.
   */
  destroy(): void {
    this.#inTransaction = false;
    this.#client.release(true);
  }
}
