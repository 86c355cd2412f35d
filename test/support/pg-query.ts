/** One query on its own connection, for tests that look into a database from outside weir. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Runs `sql` on a fresh connection to `url` and returns its rows (pg's default value parsing). */
export async function pgQuery<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Creates a fresh database named `<prefix>_<random>` on `server` (default: the suite's cluster, WEIR_TEST_PG_URL) and returns its URL. */
export async function freshDatabase(prefix: string, server: string = process.env.WEIR_TEST_PG_URL!): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await pgQuery(server, `CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Rolls back the prepared transactions a failed job left in the database of `url` and returns
 * their gids. A prepared transaction holds back every replication slot created in the cluster, so
 * a test whose job fails for good must not leave one to the suites that run after it.
 */
export async function rollbackPreparedIn(url: string): Promise<string[]> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const rows = await pgQuery<{ gid: string }>(url, `SELECT gid FROM pg_prepared_xacts WHERE database = '${database.replace(/'/g, "''")}'`);
  for (const { gid } of rows) await pgQuery(url, `ROLLBACK PREPARED '${gid.replace(/'/g, "''")}'`);
  return rows.map((row) => row.gid);
}
