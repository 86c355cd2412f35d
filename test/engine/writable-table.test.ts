/**
 * Writable tables (declared without a connector): INSERT (an existing primary key is an update),
 * UPDATE and DELETE change a durable log under `.weir/tables/`; batch queries read the current
 * contents; streaming queries and materialized views follow later changes incrementally and, when
 * created after rows were inserted, start from them; a new engine in the same directory sees them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Change } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

const ACCOUNTS = 'CREATE TABLE accounts (id INT, owner STRING, balance DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)';

describe('writable tables', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-writable-'))));
  afterAll(() => process.chdir(home));

  it('upserts by primary key, updates and deletes, durably', async () => {
    const engine = createEngine();
    const results = await engine.execute(`${ACCOUNTS};
      INSERT INTO accounts VALUES (1, 'ann', 10.00), (2, 'bob', 20.00), (3, 'cy', 5.00);
      INSERT INTO accounts VALUES (1, 'ann', 15.00);
      UPDATE accounts SET balance = balance + 1 WHERE owner <> 'ann';
      DELETE FROM accounts WHERE id = 3;
      SET 'execution.runtime-mode' = 'batch';`);
    expect(results.map((r) => (r.kind === 'ok' ? r.message : r.kind))).toEqual([
      'Execute statement succeeded.',
      "Inserted into 'accounts'.",
      "Inserted into 'accounts'.",
      "Updated 2 rows in 'accounts'.",
      "Deleted 1 row from 'accounts'.",
      'Session property has been set.',
    ]);
    const rows = await engine.query('SELECT id, owner, balance FROM accounts');
    expect(rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: 1, owner: 'ann', balance: '15.00' },
      { id: 2, owner: 'bob', balance: '21.00' },
    ]);
    const again = createEngine();
    await again.execute(`${ACCOUNTS}; SET 'execution.runtime-mode' = 'batch';`);
    expect((await again.query('SELECT SUM(balance) AS total FROM accounts'))).toEqual([{ total: '36.00' }]);
    await engine.execute('DROP TABLE accounts');
    const fresh = createEngine();
    await fresh.execute(`${ACCOUNTS}; SET 'execution.runtime-mode' = 'batch';`);
    expect(await fresh.query('SELECT * FROM accounts')).toEqual([]);
  });

  it('without a primary key is a multiset: duplicates stay, DELETE removes every match', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE tags (tag STRING);
      INSERT INTO tags VALUES ('a'), ('a'), ('b'), ('a');
      SET 'execution.runtime-mode' = 'batch';`);
    expect(await engine.query('SELECT tag, COUNT(*) AS n FROM tags GROUP BY tag')).toEqual(expect.arrayContaining([{ tag: 'a', n: 3 }, { tag: 'b', n: 1 }]));
    const [deleted] = await engine.execute("DELETE FROM tags WHERE tag = 'a'");
    expect(deleted).toEqual({ kind: 'ok', message: "Deleted 3 rows from 'tags'." });
    expect(await engine.query('SELECT tag FROM tags')).toEqual([{ tag: 'b' }]);
  });

  it('feeds streaming queries from the rows already there, then incrementally', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE readings (sensor STRING, v INT);
      INSERT INTO readings VALUES ('s1', 1), ('s2', 5), ('s1', 2);`);
    const seen: Change[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const change of engine.subscribe('SELECT sensor, SUM(v) AS total FROM readings GROUP BY sensor', { signal: controller.signal })) {
        seen.push(change);
        if (change.op === '+U' && change.row.sensor === 's2' && change.row.total === 50) controller.abort();
      }
    })().catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    });
    await waitFor(() => seen.some((c) => c.row.sensor === 's1' && c.row.total === 3));
    await engine.execute("UPDATE readings SET v = 50 WHERE sensor = 's2'");
    await reading;
    expect(seen.filter((c) => c.row.sensor === 's2')).toEqual([
      { op: '+I', row: { sensor: 's2', total: 5 } },
      { op: '-U', row: { sensor: 's2', total: 5 } },
      { op: '+U', row: { sensor: 's2', total: 50 } },
    ]);
  });

  it('is kept in Postgres by a materialized view, following UPDATE and DELETE', async () => {
    const url = await freshDatabase('weir_writable');
    const engine = createEngine();
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}';
      CREATE TABLE orders (id INT, customer STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED);
      INSERT INTO orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'ann', 5);
      CREATE MATERIALIZED VIEW per_customer WITH ('url' = '${url}') AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer;
      FLUSH;`);
    expect(await pgQuery(url, 'SELECT customer, total FROM per_customer ORDER BY customer')).toEqual([{ customer: 'ann', total: 15 }, { customer: 'bob', total: 20 }]);
    await engine.execute(`UPDATE orders SET amount = 100 WHERE id = 2; DELETE FROM orders WHERE id = 1; FLUSH;`);
    expect(await pgQuery(url, 'SELECT customer, total FROM per_customer ORDER BY customer')).toEqual([{ customer: 'ann', total: 5 }, { customer: 'bob', total: 100 }]);
    await engine.close({ graceful: true });
  });

  it('FLUSH makes a large INSERT visible in a materialized view, not just its first poll of rows', async () => {
    const url = await freshDatabase('weir_writable_flush');
    const engine = createEngine();
    const count = 20_000;
    const rows = Array.from({ length: count }, (_, i) => `(${i}, 'c${i % 4}', ${i % 100})`).join(', ');
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}';
      CREATE TABLE sales (id INT, customer STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED);
      CREATE MATERIALIZED VIEW sales_per_customer WITH ('url' = '${url}') AS SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM sales GROUP BY customer;
      FLUSH;`);
    await engine.execute(`INSERT INTO sales VALUES ${rows}; FLUSH;`);
    const expected = [0, 1, 2, 3].map((c) => {
      const own = Array.from({ length: count / 4 }, (_, k) => (c + 4 * k) % 100);
      return { customer: `c${c}`, n: String(own.length), total: String(own.reduce((a, b) => a + b, 0)) };
    });
    expect(await pgQuery(url, 'SELECT customer, n::text, total::text FROM sales_per_customer ORDER BY customer')).toEqual(expected);
    await engine.close({ graceful: true });
  });

  it('stores string literals as values of their columns, as PostgreSQL does, and keys a table by a column-level primary key', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE events (id BIGINT PRIMARY KEY NOT ENFORCED, ts TIMESTAMP(3), amount DECIMAL(8, 2), note STRING);
      INSERT INTO events VALUES ('8821808526777993', '2022-06-10 12:20:04.858', '12.5', 'first'), (2, '2022-06-11 00:00:00', 3, '7');
      INSERT INTO events (id, note) VALUES ('2', 'replaced');
      UPDATE events SET ts = '2023-01-02 03:04:05.006', amount = '0.25' WHERE id = 8821808526777993;
      SET 'execution.runtime-mode' = 'batch';`);
    const rows = await engine.query('SELECT id, ts, amount, note, CAST(ts AS STRING) AS ts_text FROM events');
    expect(rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: 2, ts: null, amount: null, note: 'replaced', ts_text: null },
      { id: 8821808526777993, ts: new Date(Date.UTC(2023, 0, 2, 3, 4, 5, 6)), amount: '0.25', note: 'first', ts_text: '2023-01-02 03:04:05.006' },
    ]);
    const [described] = await engine.execute('DESCRIBE events');
    expect(described).toMatchObject({ kind: 'rows', rows: [['id', 'BIGINT', 'FALSE', 'PRI(id)', null, null], expect.anything(), expect.anything(), expect.anything()] });
    await expect(engine.execute("INSERT INTO events VALUES ('9223372036854775808', '2022-06-10 12:20:04.858', 1, 'x')")).rejects.toThrow(
      "column 'id' of 'events' has type BIGINT, and '9223372036854775808' is outside its range",
    );
    await expect(engine.execute("INSERT INTO events VALUES (3, '2022-06-10 25:00:00', 1, 'x')")).rejects.toThrow(
      "column 'ts' of 'events' has type TIMESTAMP(3), and '2022-06-10 25:00:00' is not a valid TIMESTAMP(3)",
    );
    await expect(engine.execute("UPDATE events SET amount = 'lots'")).rejects.toThrow("column 'amount' of 'events' has type DECIMAL(8, 2), and 'lots' is not a valid DECIMAL(8, 2)");
    expect(await engine.query('SELECT COUNT(*) AS n FROM events'), 'the refused statements changed nothing').toEqual([{ n: 2 }]);
  });

  it('refuses UPDATE of a connector table and of a primary key column, saying why', async () => {
    const engine = createEngine();
    await engine.execute(`${ACCOUNTS}; CREATE TABLE gen (x INT) WITH ('connector' = 'datagen');`);
    await expect(engine.execute('UPDATE gen SET x = 1')).rejects.toThrow("UPDATE needs a table stored by weir, but 'gen' is read through connector 'datagen'");
    await expect(engine.execute('UPDATE accounts SET id = 9')).rejects.toThrow("UPDATE cannot change the primary key column 'id' of 'accounts'");
    await expect(engine.execute("UPDATE accounts SET balance = 'x'")).rejects.toThrow(/column 'balance' of 'accounts' has type DECIMAL\(10, 2\)/);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
