/**
 * A writer's transactions on a pooled connection: BEGIN takes a client from the pool, statements
 * run on it, and PREPARE TRANSACTION (two-phase), COMMIT or ROLLBACK gives it back. The client is
 * held only while a transaction is open, so the sinks of one job that share a pool (see
 * sink-connections.ts) hold one connection per open transaction, not one each. Statements are
 * built with kysely and run on the client itself, so that pg's command tag is at hand:
 * `PREPARE TRANSACTION` outside a transaction block is no error but a warning with the tag
 * `ROLLBACK` (its writes were already autocommitted, or lost), so anything but `PREPARE` throws.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type pg from 'pg';
import { WeirError } from '../../common/errors.js';

/** The client of the open transaction and the error its connection reported, if any. */
interface Held {
  readonly client: pg.PoolClient;
  readonly onError: (error: Error) => void;
  lost: Error | undefined;
}

/** A session with at most one open transaction. */
export class TransactionSession {
  readonly #pool: pg.Pool;
  readonly #label: string;
  #held: Held | undefined;
  #inTransaction = false;
  /** Set by `destroy`: the session takes no client any more. */
  #destroyed = false;

  /** A session over `pool`; it connects at its first BEGIN. `label` starts error messages (`postgres sink 'orders'`). */
  constructor(pool: pg.Pool, label: string) {
    this.#pool = pool;
    this.#label = label;
  }

  /** True between BEGIN and PREPARE/COMMIT/ROLLBACK. */
  get inTransaction(): boolean {
    return this.#inTransaction;
  }

  /**
   * Runs one statement in the open transaction. A statement carrying `expectedRows` (a multiset
   * DELETE, see postgres-dml.ts) must affect exactly that many rows, or the run fails: the table
   * then lacks rows its changelog retracts, which must never pass unnoticed.
   */
  async run(query: (Compilable & { readonly expectedRows?: number }) | CompiledQuery): Promise<pg.QueryResult> {
    const held = this.#held;
    if (held === undefined) throw new WeirError('INTERNAL_ERROR', `${this.#label}: a statement outside a transaction`);
    const compiled = 'compile' in query ? query.compile() : query;
    const result = await held.client.query(compiled.sql, compiled.parameters as unknown[]);
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

  /** Takes a client from the pool and opens a transaction on it; the session must have none. */
  async begin(): Promise<void> {
    if (this.#inTransaction || this.#held !== undefined) throw new WeirError('INTERNAL_ERROR', `${this.#label}: BEGIN inside an open transaction`);
    const client = await this.#pool.connect();
    if (this.#destroyed) {
      client.release();
      throw new WeirError('CONNECTOR_ERROR', `${this.#label}: the session was closed`);
    }
    const held: Held = { client, lost: undefined, onError: (error) => (held.lost ??= error) };
    client.on('error', held.onError);
    this.#held = held;
    try {
      await client.query('BEGIN');
    } catch (error) {
      this.#giveBack(true);
      throw error;
    }
    this.#inTransaction = true;
  }

  /**
   * Runs `statement`, the `PREPARE TRANSACTION '<gid>'` built by prepared-transactions.ts: the
   * transaction becomes durable and leaves the session, whose client goes back to the pool. Throws
   * unless the server answers with the tag `PREPARE`.
   */
  async prepare(gid: string, statement: Compilable): Promise<void> {
    const result = await this.#ending(() => this.run(statement));
    if (result.command !== 'PREPARE') {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `${this.#label}: PREPARE TRANSACTION '${gid}' answered ${result.command} instead of PREPARE: the transaction was not prepared, so its rows were committed without two-phase commit or lost`,
      );
    }
  }

  /** Commits the open transaction; throws unless the server answers COMMIT (an aborted transaction answers ROLLBACK). */
  async commit(): Promise<void> {
    const result = await this.#ending(() => this.run(CompiledQuery.raw('COMMIT')));
    if (result.command !== 'COMMIT') throw new WeirError('CONNECTOR_ERROR', `${this.#label}: COMMIT answered ${result.command}: the transaction was rolled back`);
  }

  /** Rolls the open transaction back. */
  async rollback(): Promise<void> {
    await this.#ending(() => this.run(CompiledQuery.raw('ROLLBACK')));
  }

  /**
   * Ends the session: the connection of the open transaction is closed at once (a statement in
   * flight, say one waiting for a lock, fails and the server rolls the transaction back), and a
   * BEGIN waiting for a client fails. Prepared transactions are not affected.
   */
  destroy(): void {
    this.#destroyed = true;
    this.#inTransaction = false;
    this.#giveBack(true);
  }

  /**
   * Runs `step`, the statement that ends the transaction, and gives the client back to the pool.
   * When it fails, the connection is closed instead: its state is unknown, and closing it rolls
   * back whatever was not prepared or committed.
   */
  async #ending<T>(step: () => Promise<T>): Promise<T> {
    this.#inTransaction = false;
    let result: T;
    try {
      result = await step();
    } catch (error) {
      this.#giveBack(true);
      throw error;
    }
    this.#giveBack(false);
    return result;
  }

  #giveBack(close: boolean): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    held.client.off('error', held.onError);
    held.client.release(held.lost ?? (close ? true : undefined));
  }
}
