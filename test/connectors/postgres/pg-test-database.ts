/**
 * A fresh database in the suite's PostgreSQL cluster for one test file, so that files running in
 * parallel never see each other's tables, markers or prepared transactions; dropped afterwards,
 * with whatever it still has prepared rolled back first.
 */
import pg from 'pg';
import { freshDatabase } from '../../support/pg-query.js';

/** A database of the test cluster and a superuser connection to it. */
export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  /** Connected to the database, outside any transaction. */
  readonly client: pg.Client;
  /** Rows of a query, for assertions. */
  rows<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Gids prepared in this database, sorted. */
  preparedGids(): Promise<string[]>;
  drop(): Promise<void>;
}

/** The URL of the suite's cluster (set by the global setup). */
export function clusterUrl(): string {
  const url = process.env.WEIR_TEST_PG_URL;
  if (url === undefined) throw new Error('WEIR_TEST_PG_URL is not set: run the tests through vitest (test/global-setup.ts)');
  return url;
}

/** Creates `weir_<tag>_<random>` and connects to it. */
export async function createTestDatabase(tag: string, baseUrl = clusterUrl()): Promise<TestDatabase> {
  const url = new URL(await freshDatabase(`weir_${tag}`, baseUrl));
  const name = url.pathname.slice(1);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const database: TestDatabase = {
    name,
    url: url.toString(),
    client,
    rows: async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await client.query<R>(text, values)).rows,
    preparedGids: async () =>
      (await client.query<{ gid: string }>('SELECT gid FROM pg_prepared_xacts WHERE database = current_database() ORDER BY gid')).rows.map((r) => r.gid),
    drop: async () => {
      for (const gid of await database.preparedGids()) await client.query(`ROLLBACK PREPARED '${gid.replace(/'/g, "''")}'`);
      await client.end();
      const admin2 = new pg.Client({ connectionString: baseUrl });
      await admin2.connect();
      try {
        await admin2.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin2.end();
      }
    },
  };
  return database;
}
