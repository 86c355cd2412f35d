/**
 * The sink's view of a PostgreSQL database through kysely: the tables it reads and writes with
 * the query builder, and the pool they run on. Every statement the sink sends is built with
 * kysely (identifiers through `sql.id`, values as parameters); statements that must run on one
 * session compile here and run on a pooled client (see transaction-session.ts).
 */
import { Kysely, PostgresDialect, type ColumnType, type Generated } from 'kysely';
import pg from 'pg';
import type { ConnectionConfig } from './postgres-options.js';

/** The bookkeeping table `weir.sink_commits`: one row per committed (job, sink, subtask, checkpoint). */
export interface SinkCommitsTable {
  readonly job: string;
  readonly sink: string;
  readonly subtask: number;
  /** bigint: read back as text by pg. */
  readonly checkpoint_id: ColumnType<string, number, number>;
  readonly committed_at: Generated<Date>;
  /** The gid of the prepared transaction that wrote the row (absent in rows of older versions). */
  readonly gid: string | null;
}

/** The system view of prepared transactions (cluster-wide; `database` tells them apart). */
export interface PreparedXactsView {
  readonly gid: string;
  readonly database: string;
  readonly transaction: string;
  readonly owner: string;
  readonly prepared: Date;
}

/** The tables the sink reaches with kysely's query builder. */
export interface WeirDatabase {
  readonly 'weir.sink_commits': SinkCommitsTable;
  readonly 'pg_catalog.pg_prepared_xacts': PreparedXactsView;
}

/** A kysely instance over its own pool. */
export interface SinkDatabase {
  readonly db: Kysely<WeirDatabase>;
  readonly pool: pg.Pool;
}

/**
 * Opens a pool of at most `maxConnections` for one writer (one session held for the open
 * transaction, the others for control statements such as COMMIT PREPARED). Errors of idle
 * clients (a server restart) go to `onIdleError` instead of crashing the process.
 */
export function openSinkDatabase(config: ConnectionConfig, applicationName: string, maxConnections: number, onIdleError: (error: Error) => void): SinkDatabase {
  const pool = new pg.Pool({ ...config, application_name: applicationName, max: maxConnections });
  pool.on('error', onIdleError);
  return { db: new Kysely<WeirDatabase>({ dialect: new PostgresDialect({ pool }) }), pool };
}
