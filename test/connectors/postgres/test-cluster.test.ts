/** The suite's throwaway PostgreSQL cluster has what the two-phase-commit and CDC tests need. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';

describe('test PostgreSQL cluster', () => {
  it('runs with prepared transactions and logical WAL enabled', async () => {
    const url = process.env.WEIR_TEST_PG_URL;
    expect(url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ setting: string; name: string }>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('max_prepared_transactions', 'wal_level') ORDER BY name",
      );
      expect(rows).toEqual([
        { name: 'max_prepared_transactions', setting: '64' },
        { name: 'wal_level', setting: 'logical' },
      ]);
    } finally {
      await client.end();
    }
  });
});
