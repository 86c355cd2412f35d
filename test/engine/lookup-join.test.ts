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
import { WeirError } from '../../src/common/errors.js';
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

  it('enrich a bounded stream exactly once into Postgres with checkpoints on, equal to the same join run by PostgreSQL', async () => {
    const url = await freshDatabase('weir_lookup');
    await pgQuery(url, "CREATE TABLE customers (id BIGINT PRIMARY KEY, name TEXT); INSERT INTO customers SELECT i, 'c' || i FROM generate_series(0, 5) AS i");
    const engine = createEngine({ onWarning: () => {} });
    const results = await engine.execute(`SET 'state.checkpoints.dir' = '${mkdtempSync(join(tmpdir(), 'weir-lookup-ckpt-'))}';
      SET 'execution.checkpointing.interval' = '20 ms';
      CREATE TABLE orders (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000');
      CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'postgres', 'url' = '${url}');
      CREATE TABLE enriched (id BIGINT, name STRING) WITH ('connector' = 'postgres', 'url' = '${url}');
      INSERT INTO enriched SELECT o.id, c.name FROM (SELECT id, MOD(id, 7) AS customer, PROCTIME() AS pt FROM orders) AS o
        LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON c.id = o.customer;`);
    const job = results[results.length - 1]!;
    if (job.kind !== 'job') throw new Error('no job');
    expect(await job.job.result(), String(job.job.error)).toBe('FINISHED');
    expect(job.job.checkpointStats().completed).toBeGreaterThan(1);
    const reference = "SELECT g.id, c.name FROM generate_series(1, 6000) AS g(id) LEFT JOIN customers c ON c.id = g.id % 7";
    expect(await pgQuery(url, `(SELECT id, name FROM enriched EXCEPT ALL ${reference}) UNION ALL (${reference} EXCEPT ALL SELECT id, name FROM enriched)`)).toEqual([]);
    expect(await pgQuery(url, 'SELECT COUNT(*)::int AS n, COUNT(name)::int AS named FROM enriched')).toEqual([{ n: 6000, named: 6000 - 857 }]);
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

describe('lookup join errors', () => {
  const TABLES = `CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
    CREATE TABLE gen (id BIGINT, name STRING) WITH ('connector' = 'datagen');
    CREATE TABLE side (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-no-side.csv', 'format' = 'csv');
    CREATE VIEW side_view AS SELECT * FROM side;
    CREATE VIEW bid_p AS SELECT *, PROCTIME() AS p FROM bid;`;
  const B = '(SELECT *, PROCTIME() AS p FROM bid) AS b';

  async function failure(sql: string): Promise<WeirError> {
    const engine = createEngine();
    await engine.execute(TABLES);
    const error = await engine.execute(`EXPLAIN ${sql}`).catch((e: unknown) => e);
    if (!(error instanceof WeirError)) throw new Error(`expected a WeirError, got ${String(error)}`);
    return error;
  }

  it('names the connector of a table that cannot be looked up, at the table', async () => {
    const error = await failure(`SELECT * FROM ${B}\nJOIN gen FOR SYSTEM_TIME AS OF b.p ON b.auction = gen.id`);
    expect(error.message).toBe("table 'gen' (connector 'datagen') cannot be looked up, so it cannot be the table of a lookup join");
    expect(error.span?.start).toMatchObject({ line: 2, column: 6 });
  });

  it('refuses an ON condition without an equality on a column of the lookup table', async () => {
    const error = await failure(`SELECT * FROM ${B} JOIN side FOR SYSTEM_TIME AS OF b.p ON b.auction > side.id AND b.price = 3`);
    expect(error.message).toBe("the ON condition of a lookup join must equate a column of the lookup table 'side' with an expression of the left side");
    expect(error.span).toBeDefined();
  });

  it('refuses views, outer joins other than LEFT, times that are no time attribute, and AS OF outside a join', async () => {
    expect((await failure(`SELECT * FROM ${B} JOIN side_view FOR SYSTEM_TIME AS OF b.p ON b.auction = side_view.id`)).message).toContain("'side_view' is a view");
    expect((await failure(`SELECT * FROM ${B} FULL JOIN side FOR SYSTEM_TIME AS OF b.p ON b.auction = side.id`)).message).toContain('FULL JOIN ... FOR SYSTEM_TIME AS OF is not supported');
    expect((await failure(`SELECT * FROM ${B} JOIN side FOR SYSTEM_TIME AS OF b.ts ON b.auction = side.id`)).message).toBe('FOR SYSTEM_TIME AS OF must name a time attribute column of the left side of the join');
    expect((await failure('SELECT * FROM side FOR SYSTEM_TIME AS OF TIMESTAMP \'2024-01-01 00:00:00\'')).message).toContain('only supported on the right side of a JOIN');
  });

  it('refuses a postgres lookup cache with max-rows but no TTL', async () => {
    const engine = createEngine();
    await expect(engine.execute("CREATE TABLE c (id BIGINT) WITH ('connector' = 'postgres', 'url' = 'postgres://localhost/x', 'lookup.cache.max-rows' = '10')")).rejects.toThrow(
      "postgres options 'lookup.cache.max-rows' and 'lookup.cache.ttl' enable the lookup cache together",
    );
  });

  it('refuses processing-time SESSION windows', async () => {
    const error = await failure(`SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE bid_p, DESCRIPTOR(p), INTERVAL '1' SECOND)) GROUP BY window_start, window_end`);
    expect(error.message).toContain('must be an event-time attribute');
  });
});
