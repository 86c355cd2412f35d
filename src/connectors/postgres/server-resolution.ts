/**
 * Which PostgreSQL a postgres table lives in: its `url` option, else the server the environment
 * names (`DATABASE_URL`, the PG* variables), else the embedded one, started on first use. Every
 * user of a postgres table — the sink, SELECTs routed to materialized views, DROP — resolves it
 * here, so that they all reach the same database.
 */
import { acquireEmbeddedPostgres, defaultEmbeddedDirectory, describeEmbedded } from './embedded-postgres.js';
import { resolveConnection, serverInEnvironment, type ConnectionTarget } from './postgres-options.js';

/** A server in use; `release` once done (it may stop the embedded server). */
export interface ResolvedServer {
  readonly connection: ConnectionTarget;
  /** True for the embedded server: one backend session, see embedded-postgres.ts. */
  readonly embedded: boolean;
  release(): Promise<void>;
}

/** The server of the postgres table `table` with `url` (the option, when set) and `env`; throws CONNECTOR_ERROR on a bad URL. */
export async function resolveServer(table: string, url: string | undefined, env: NodeJS.ProcessEnv): Promise<ResolvedServer> {
  if (url !== undefined || serverInEnvironment(env)) {
    return { connection: resolveConnection(table, url, env), embedded: false, release: async () => {} };
  }
  const dir = defaultEmbeddedDirectory();
  const lease = await acquireEmbeddedPostgres(dir);
  return { connection: { ...resolveConnection(table, lease.url, env), display: describeEmbedded(dir) }, embedded: true, release: () => lease.release() };
}
