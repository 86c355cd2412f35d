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
