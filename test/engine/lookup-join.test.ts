/**
 * Lookup joins (`JOIN t FOR SYSTEM_TIME AS OF s.proc_time`) in running jobs: a Postgres table is
 * queried by key as rows arrive, and its rows are served from the lookup cache until the cache's
 * TTL has passed (a change in Postgres is seen after it, not before); a LEFT join keeps rows
 * without a match; a filesystem table is loaded into memory and loaded again after its TTL.
 * Expected rows are written out by hand from the data each test puts in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Change, type Engine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A subscription whose next rows a test takes as it needs them. */
function follow(engine: Engine, sql: string): { take(n: number): Promise<Record<string, unknown>[]>; stop(): Promise<void> } {
  const changes: AsyncGenerator<Change> = engine.subscribe(sql);
  return {
    async take(n) {
      const rows: Record<string, unknown>[] = [];
      while (rows.length < n) {
        const next = await changes.next();
        if (next.done === true) throw new Error(`the subscription ended after ${rows.length} of ${n} rows`);
        expect(next.value.op).toBe('+I');
        rows.push(next.value.row);
      }
      return rows.sort((a, b) => Number(a.id) - Number(b.id));
    },
    async stop() {
      await changes.return(undefined);
    },
  };
}

describe('lookup joins', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-lookup-'))));
  afterAll(() => process.chdir(home));

  it('look Postgres rows up when orders arrive, from the cache until its TTL has passed; LEFT keeps orders without a customer', async () => {
    const url = await freshDatabase('weir_lookup');
    await pgQuery(url, "CREATE TABLE customers (id BIGINT PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'ann'), (2, 'bob')");
    const engine = createEngine();
    await engine.execute(`CREATE TABLE orders (id BIGINT, customer BIGINT);
      CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'postgres', 'url' = '${url}', 'lookup.cache.max-rows' = '100', 'lookup.cache.ttl' = '3 s');`);
    const joined = follow(engine, 'SELECT o.id, c.name FROM (SELECT *, PROCTIME() AS pt FROM orders) AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.id');
    try {
      const firstLookup = Date.now();
      await engine.execute('INSERT INTO orders VALUES (1, 1), (2, 2), (3, 99)');
      expect(await joined.take(3)).toEqual([
        { id: 1, name: 'ann' },
        { id: 2, name: 'bob' },
        { id: 3, name: null },
      ]);
      const cachedUntil = Date.now() + 3000;
      await pgQuery(url, "UPDATE customers SET name = 'anna' WHERE id = 1; INSERT INTO customers VALUES (99, 'zed')");
      await engine.execute('INSERT INTO orders VALUES (4, 1), (5, 99)');
      expect(await joined.take(2)).toEqual([
        { id: 4, name: 'ann' },
        { id: 5, name: null },
      ]);
      expect(Date.now() - firstLookup, 'the second lookup must come within the TTL for this test to mean anything').toBeLessThan(3000);
      await sleep(cachedUntil + 200 - Date.now());
      await engine.execute('INSERT INTO orders VALUES (6, 1), (7, 99), (8, 2)');
      expect(await joined.take(3)).toEqual([
        { id: 6, name: 'anna' },
        { id: 7, name: 'zed' },
        { id: 8, name: 'bob' },
      ]);
    } finally {
      await joined.stop();
    }
  });

  it('without cache options, see every change in Postgres at once; an inner join drops orders without a match', async () => {
    const url = await freshDatabase('weir_lookup');
    await pgQuery(url, "CREATE TABLE rates (cur TEXT, day INT, rate NUMERIC(10, 4), PRIMARY KEY (cur, day)); INSERT INTO rates VALUES ('EUR', 1, 1.1000), ('EUR', 2, 1.2000), ('GBP', 1, 1.3000)");
    const engine = createEngine();
    await engine.execute(`CREATE TABLE payments (id BIGINT, cur STRING, day INT, amount DECIMAL(10, 2));
      CREATE TABLE rates (cur STRING, day INT, rate DECIMAL(10, 4)) WITH ('connector' = 'postgres', 'url' = '${url}');`);
    const joined = follow(
      engine,
      'SELECT p.id, r.rate, p.amount * r.rate AS converted FROM (SELECT *, PROCTIME() AS pt FROM payments) AS p JOIN rates FOR SYSTEM_TIME AS OF p.pt AS r ON r.cur = p.cur AND p.day = r.day AND r.rate > 1.15',
    );
    try {
      await engine.execute("INSERT INTO payments VALUES (1, 'EUR', 1, 10.00), (2, 'EUR', 2, 10.00), (3, 'GBP', 1, 1.00), (4, 'USD', 1, 5.00)");
      expect(await joined.take(2)).toEqual([
        { id: 2, rate: '1.2000', converted: '12.000000' },
        { id: 3, rate: '1.3000', converted: '1.300000' },
      ]);
      await pgQuery(url, "UPDATE rates SET rate = 2.0000 WHERE cur = 'EUR' AND day = 1");
      await engine.execute("INSERT INTO payments VALUES (5, 'EUR', 1, 10.00)");
      expect(await joined.take(1)).toEqual([{ id: 5, rate: '2.0000', converted: '20.000000' }]);
    } finally {
      await joined.stop();
    }
  });

  it('load a filesystem table into memory and load it again once lookup.cache.ttl has passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-lookup-file-'));
    const file = join(dir, 'names.csv');
    writeFileSync(file, '1,one\n2,two\n');
    const engine = createEngine();
    await engine.execute(`CREATE TABLE events (id BIGINT, k BIGINT);
      CREATE TABLE names (k BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'csv', 'lookup.cache.ttl' = '1 s');`);
    const joined = follow(engine, 'SELECT e.id, n.name FROM (SELECT *, PROCTIME() AS pt FROM events) AS e LEFT JOIN names FOR SYSTEM_TIME AS OF e.pt AS n ON e.k = n.k');
    try {
      await engine.execute('INSERT INTO events VALUES (1, 1), (2, 3)');
      expect(await joined.take(2)).toEqual([
        { id: 1, name: 'one' },
        { id: 2, name: null },
      ]);
      const loaded = Date.now();
      writeFileSync(file, '1,uno\n3,tres\n');
      await engine.execute('INSERT INTO events VALUES (3, 1)');
      expect(await joined.take(1)).toEqual([{ id: 3, name: 'one' }]);
      await sleep(loaded + 1200 - Date.now());
      await engine.execute('INSERT INTO events VALUES (4, 1), (5, 3), (6, 2)');
      expect(await joined.take(3)).toEqual([
        { id: 4, name: 'uno' },
        { id: 5, name: 'tres' },
        { id: 6, name: null },
      ]);
    } finally {
      await joined.stop();
    }
  });
});
