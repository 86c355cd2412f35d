/**
 * The connections of the postgres sinks of one job run to one database, shared: a small pool of
 * control connections (setup, COMMIT PREPARED, recovery) and a pool that transaction sessions
 * borrow a client from for as long as a transaction is open (see transaction-session.ts).
 *
 * Sharing is what lets a session keep many materialized views: they run as the parts of one job,
 * write into one database and commit each checkpoint in one transaction (transaction-group.ts), so
 * they need one session connection and a few control connections between them — not three each,
 * which exhausted PostgreSQL's default `max_connections` (100) at about 50 views. Sinks that write
 * early (a sink alone with a full buffer) still hold one session connection each while their
 * transaction is open, as before.
 *
 * The two pools are separate on purpose: an early write may wait for a row lock held by the
 * prepared transaction of the previous checkpoint, and the COMMIT PREPARED that releases it must
 * never wait for a connection held by such a write.
 *
 * Pools are shared by writers of the same job run (the runtime's run object), job name and
 * connection settings; a writer outside a job run gets pools of its own. The last writer to
 * release them closes them.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { WeirDatabase } from './postgres-database.js';
import type { ConnectionConfig } from './postgres-options.js';

/** Control connections per job run and database (statements that end at once, queued when all are busy). */
export const CONTROL_CONNECTIONS = 4;

/**
 * A bound on session connections per job run and database; one is held per open transaction, so
 * the bound is never reached in practice: the server's `max_connections` is the limit that counts.
 */
const SESSION_CONNECTIONS = 1_000;

/** A writer's use of the shared pools; `release` once, when the writer closes. */
export interface SinkConnections {
  /** kysely over the control pool. */
  readonly db: Kysely<WeirDatabase>;
  /** The control pool (for statements kysely does not build). */
  readonly control: pg.Pool;
  /** The pool transaction sessions take their client from. */
  readonly sessions: pg.Pool;
  /** Gives the pools back; the last user closes them. */
  release(): Promise<void>;
}

interface Shared {
  readonly db: Kysely<WeirDatabase>;
  readonly control: pg.Pool;
  readonly sessions: pg.Pool;
  /** Errors of idle connections go to the first user's handler (the writers of one run report alike). */
  readonly onIdleError: (error: Error) => void;
  users: number;
}

const byRun = new WeakMap<object, Map<string, Shared>>();

/**
 * The pools of the writers of job run `run` (undefined: a writer alone) named `job` that connect
 * with `config`; connections carry `application_name` `weir <job>`. Errors of idle connections (a
 * server restart) go to `onIdleError` instead of crashing the process.
 */
export function acquireSinkConnections(run: object | undefined, job: string, config: ConnectionConfig, onIdleError: (error: Error) => void): SinkConnections {
  const applicationName = `weir ${job}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 63);
  if (run === undefined) return use(open(config, applicationName, onIdleError), () => undefined);
  let shared = byRun.get(run);
  if (shared === undefined) {
    shared = new Map();
    byRun.set(run, shared);
  }
  const byKey = shared;
  const key = JSON.stringify([job, config]);
  let pools = byKey.get(key);
  if (pools === undefined) {
    pools = open(config, applicationName, onIdleError);
    byKey.set(key, pools);
  }
  const opened = pools;
  return use(opened, () => {
    if (byKey.get(key) === opened) byKey.delete(key);
  });
}

function open(config: ConnectionConfig, applicationName: string, onIdleError: (error: Error) => void): Shared {
  const control = new pg.Pool({ ...config, application_name: applicationName, max: CONTROL_CONNECTIONS });
  const sessions = new pg.Pool({ ...config, application_name: applicationName, max: SESSION_CONNECTIONS });
  const shared: Shared = { db: new Kysely<WeirDatabase>({ dialect: new PostgresDialect({ pool: control }) }), control, sessions, onIdleError, users: 0 };
  control.on('error', (error) => shared.onIdleError(error));
  sessions.on('error', (error) => shared.onIdleError(error));
  return shared;
}

function use(shared: Shared, forget: () => void): SinkConnections {
  shared.users++;
  let released = false;
  return {
    db: shared.db,
    control: shared.control,
    sessions: shared.sessions,
    release: async () => {
      if (released) return;
      released = true;
      if (--shared.users > 0) return;
      forget();
      await Promise.all([shared.db.destroy(), shared.sessions.end()]);
    },
  };
}
