/**
 * Joins through the engine: regular inner joins (matches in both directions, retractions of an
 * updating input, residual conditions); LEFT / RIGHT / FULL outer joins over updating inputs,
 * whose final table equals PostgreSQL's answer to the same query, kept in Postgres by a
 * materialized view under INSERT/UPDATE/DELETE, and resumed from a savepoint at another
 * parallelism; interval joins over the Nexmark streams, equal to a nested-loop join of the same
 * rows and feeding a window aggregation without making it drop rows; window joins (q8) equal to a
 * hand-computed join; refusals with their positions.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { WeirError } from '../../src/common/errors.js';
import { publishedSql } from '../support/nexmark-published.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

const sort = (rows: Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('inner join', () => {
  it('joins an updating aggregate with a table: the final table equals the batch join', async () => {
    const engine = createEngine();
    await engine.execute(`
      CREATE VIEW orders AS SELECT * FROM (VALUES (1, 10), (2, 5)) AS t(customer, amount)
        UNION ALL SELECT * FROM (VALUES (1, 7), (3, 1), (2, 2)) AS u(customer, amount);
      CREATE VIEW customers AS SELECT * FROM (VALUES (1, 'ann'), (2, 'bob'), (4, 'dan')) AS c(id, name);`);
    const rows = await engine.query(`
      SELECT c.name, t.total FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) AS t
      JOIN customers AS c ON t.customer = c.id`);
    expect(sort(rows)).toEqual(sort([{ name: 'ann', total: 17 }, { name: 'bob', total: 7 }]));
    const ops = new Set<string>();
    for await (const { op } of engine.subscribe('SELECT c.name, t.total FROM customers AS c JOIN (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) AS t ON t.customer = c.id')) ops.add(op);
    expect([...ops].sort()).toEqual(['+I', '-D']);
  });

  it('keeps duplicates on both sides and applies the rest of the ON condition as a filter', async () => {
    const engine = createEngine();
    const rows = await engine.query(`
      SELECT a.k, a.v, b.w FROM (VALUES (1, 1), (1, 1), (2, 5)) AS a(k, v)
      INNER JOIN (VALUES (1, 3), (2, 4), (2, 9), (CAST(NULL AS INT), 0)) AS b(k, w) ON a.k = b.k AND b.w > a.v`);
    expect(sort(rows)).toEqual(sort([{ k: 1, v: 1, w: 3 }, { k: 1, v: 1, w: 3 }, { k: 2, v: 5, w: 9 }]));
  });

  it('refuses a USING column one input lacks or that does not compare, and an ON condition that is not BOOLEAN, saying where', async () => {
    const engine = createEngine();
    const missing = await engine.query('SELECT * FROM (VALUES (1)) AS a(x)\nJOIN (VALUES (1)) AS b(y) USING (x)').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(WeirError);
    expect((missing as WeirError).message).toBe("column 'x' does not exist");
    expect((missing as WeirError).span?.start).toMatchObject({ line: 2, column: 34 });
    await expect(engine.query("SELECT * FROM (VALUES (1)) AS a(x) JOIN (VALUES ('a')) AS b(x) USING (x, x)")).rejects.toThrow("column 'x' appears more than once in USING");
    await expect(engine.query('SELECT * FROM (VALUES (1)) AS a(x) JOIN (VALUES (true)) AS b(x) USING (x)')).rejects.toThrow("the USING column 'x' is INT on the left and BOOLEAN on the right, which do not compare");
    await expect(engine.query('SELECT * FROM (VALUES (1)) AS a(x) JOIN (VALUES (1)) AS b(y) ON a.x + b.y')).rejects.toThrow('ON condition must be BOOLEAN, got INT');
  });
});

/** Sorted JSON text of rows, for order-insensitive comparison. */
const canonical = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

/**
 * Customers' order totals (an updating aggregate: the second VALUES changes totals the first
 * produced) outer-joined with customers; the totals are the preserved input of a LEFT join and of
 * a RIGHT join with the inputs swapped, so that both pad and unpad them.
 */
const totals = `(
    SELECT customer, CAST(SUM(amount) AS INT) AS total
    FROM (SELECT * FROM (VALUES (1, 10), (2, 5), (3, 4), (6, 1)) AS o(customer, amount)
          UNION ALL SELECT * FROM (VALUES (1, -8), (3, 9), (5, 7), (6, 1), (CAST(NULL AS INT), 3)) AS p(customer, amount)) AS u
    GROUP BY customer
  ) AS t`;
const customers = "(VALUES (1, 'ann'), (2, 'bob'), (3, 'cy'), (4, 'dan'), (6, 'eve'), (CAST(NULL AS INT), 'nobody')) AS c(id, name)";
const outerJoinQuery = (type: string): string => `
  SELECT t.customer AS customer, t.total AS total, c.id AS id, c.name AS name
  FROM ${type === 'RIGHT' ? `${customers} RIGHT JOIN ${totals}` : `${totals} ${type} JOIN ${customers}`}
    ON t.customer = c.id AND t.total > 2 AND c.name <> 'eve'`;

describe('outer join', () => {
  for (const type of ['LEFT', 'RIGHT', 'FULL OUTER']) {
    it(`${type} JOIN over an updating input: the final table equals PostgreSQL's, through padded rows retracted and re-emitted`, async () => {
      const engine = createEngine();
      const sql = outerJoinQuery(type);
      const ops = new Set<string>();
      for await (const { op } of engine.subscribe(sql)) ops.add(op);
      expect([...ops].sort()).toEqual(['+I', '-D']);
      const expected = await pgQuery(process.env.WEIR_TEST_PG_URL!, sql);
      expect(expected.length).toBeGreaterThan(3);
      expect(canonical(await engine.query(sql))).toEqual(canonical(expected));
    });
  }

  it('makes the padded side nullable and keeps WHERE conditions on it above the join', async () => {
    const engine = createEngine();
    const sql = `SELECT a.k AS ak, b.k AS bk, b.w AS w FROM (VALUES (1), (2), (3)) AS a(k)
      LEFT JOIN (VALUES (1, 10), (2, 20)) AS b(k, w) ON a.k = b.k WHERE b.w IS NULL OR b.w > 15`;
    expect(canonical(await engine.query(sql))).toEqual(canonical([{ ak: 2, bk: 2, w: 20 }, { ak: 3, bk: null, w: null }]));
    const computed = `SELECT a.k AS ak, b.k AS bk, b.v AS v FROM (VALUES (1, 5), (2, 5), (3, 1)) AS a(k, x)
      RIGHT JOIN (VALUES (CAST(2 AS BIGINT), 'x'), (CAST(3 AS BIGINT), 'y'), (CAST(4 AS BIGINT), 'z')) AS b(k, v) ON a.k + 1 = b.k AND a.x > 2 AND b.v <> 'z'`;
    expect(canonical(await engine.query(computed))).toEqual(canonical([{ ak: 1, bk: 2, v: 'x' }, { ak: 2, bk: 3, v: 'y' }, { ak: null, bk: 4, v: 'z' }]));
    const [, described] = await engine.execute(`CREATE VIEW v AS ${sql}; DESCRIBE v`);
    expect(described?.kind === 'rows' ? described.rows.map((r) => [r[0], r[2]]) : undefined).toEqual([
      ['ak', 'FALSE'],
      ['bk', 'TRUE'],
      ['w', 'TRUE'],
    ]);
  });
});

interface Timed {
  readonly id: number;
  readonly time: number;
}

/** The auctions and bids of a bounded Nexmark run, and an engine over it. */
async function nexmark() {
  const engine = createEngine();
  await engine.execute(publishedSql('ddl.sql', { EVENTS_NUM: '20000', TPS: '200' }));
  const time = (v: unknown): number => (v as Date).getTime();
  const auctions: Timed[] = (await engine.query('SELECT id, `dateTime` FROM auction')).map((r) => ({ id: r.id as number, time: time(r.dateTime) }));
  const bids: Timed[] = (await engine.query('SELECT auction, `dateTime` FROM bid')).map((r) => ({ id: r.auction as number, time: time(r.dateTime) }));
  return { engine, auctions, bids };
}

/** Bids placed from 1 s before to `upper` s after their auction opened, by a nested loop. */
function nestedLoop(bids: readonly Timed[], auctions: readonly Timed[], upper = 2): { bid: Timed; auction: Timed }[] {
  return bids.flatMap((bid) => auctions.filter((a) => a.id === bid.id && bid.time >= a.time - 1000 && bid.time <= a.time + upper * 1000).map((auction) => ({ bid, auction })));
}

const intervalJoin = (upper = 2): string => `SELECT B.auction AS auction, B.\`dateTime\` AS bidTime, A.\`dateTime\` AS auctionTime
  FROM bid AS B JOIN auction AS A
  ON B.auction = A.id AND B.\`dateTime\` BETWEEN A.\`dateTime\` - INTERVAL '1' SECOND AND A.\`dateTime\` + INTERVAL '${upper}' SECOND`;
const INTERVAL_JOIN = intervalJoin();

describe('interval join', () => {
  it('plans an IntervalJoin and returns what a nested loop over the same rows finds, at parallelism 1 and 3', async () => {
    const { engine, auctions, bids } = await nexmark();
    const [plan] = await engine.execute(`EXPLAIN ${INTERVAL_JOIN}`);
    expect(plan?.kind === 'text' ? plan.text : '').toContain('IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-1000, leftUpperBound=2000');
    const expected = nestedLoop(bids, auctions).map(({ bid, auction }) => ({ auction: bid.id, bidTime: bid.time, auctionTime: auction.time }));
    expect(expected.length).toBeGreaterThan(50);
    for (const parallelism of [1, 3]) {
      await engine.execute(`SET 'parallelism.default' = '${parallelism}'`);
      const rows = (await engine.query(INTERVAL_JOIN)).map((r) => ({ auction: r.auction, bidTime: (r.bidTime as Date).getTime(), auctionTime: (r.auctionTime as Date).getTime() }));
      expect(canonical(rows)).toEqual(canonical(expected));
    }
  });

  it('joins on time bounds alone, with no equality, in one subtask: what a nested loop over time finds', async () => {
    const { engine, auctions, bids } = await nexmark();
    const sql = `SELECT B.auction AS auction, B.\`dateTime\` AS bidTime, A.id AS opened, A.\`dateTime\` AS auctionTime
      FROM bid AS B JOIN auction AS A ON B.\`dateTime\` BETWEEN A.\`dateTime\` AND A.\`dateTime\` + INTERVAL '0.02' SECOND`;
    const [plan] = await engine.execute(`EXPLAIN ${sql}`);
    const text = plan?.kind === 'text' ? plan.text : '';
    expect(text).toContain('IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=0, leftUpperBound=20');
    expect(text).toContain('Exchange(distribution=[single]');
    const expected = bids.flatMap((bid) => auctions.filter((a) => bid.time >= a.time && bid.time <= a.time + 20).map((a) => ({ auction: bid.id, bidTime: bid.time, opened: a.id, auctionTime: a.time })));
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.some((r) => r.auction !== r.opened)).toBe(true);
    await engine.execute("SET 'parallelism.default' = '3'");
    const rows = (await engine.query(sql)).map((r) => ({ auction: r.auction, bidTime: (r.bidTime as Date).getTime(), opened: r.opened, auctionTime: (r.auctionTime as Date).getTime() }));
    expect(canonical(rows)).toEqual(canonical(expected));
  });

  it('holds its output watermark back, so a window aggregation over its output drops nothing', async () => {
    // Bids up to 10 s after their auction arrive when the watermark (4 s behind the bids) is past
    // the auction's time: without the hold-back, the auction's window would have fired already.
    const { engine, auctions, bids } = await nexmark();
    await engine.execute(`CREATE VIEW early_bids AS ${intervalJoin(10)}`);
    const rows = await engine.query("SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE early_bids, DESCRIPTOR(auctionTime), INTERVAL '2' SECOND)) GROUP BY window_start, window_end");
    const expected = new Map<number, number>();
    for (const { auction } of nestedLoop(bids, auctions, 10)) {
      const start = Math.floor(auction.time / 2000) * 2000;
      expected.set(start, (expected.get(start) ?? 0) + 1);
    }
    expect(canonical(rows.map((r) => ({ start: (r.window_start as Date).getTime(), n: r.n })))).toEqual(canonical([...expected].map(([start, n]) => ({ start, n }))));
  });

  it('keeps both rowtime attributes (bounds in the WHERE too): a group window over its output runs in event time and counts what a nested loop finds', async () => {
    // A regular join would leave plain TIMESTAMPs, which a group window refuses (regular-join-time-attributes.slt).
    const { engine, auctions, bids } = await nexmark();
    const sql = `SELECT TUMBLE_START(bidTime, INTERVAL '2' SECOND) AS ws, COUNT(*) AS n, MIN(auctionTime) AS first FROM (
      SELECT B.auction AS auction, B.\`dateTime\` AS bidTime, A.\`dateTime\` AS auctionTime FROM bid AS B JOIN auction AS A ON B.auction = A.id
      WHERE B.\`dateTime\` BETWEEN A.\`dateTime\` - INTERVAL '1' SECOND AND A.\`dateTime\` + INTERVAL '10' SECOND) GROUP BY TUMBLE(bidTime, INTERVAL '2' SECOND)`;
    const [plan] = await engine.execute(`EXPLAIN ${sql}`);
    const text = plan?.kind === 'text' ? plan.text : '';
    expect(text).toContain('IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-1000, leftUpperBound=10000');
    expect(text).toContain('WindowAggregate(window=[TUMBLE(size=[2 s])], time=[bidTime]');
    const expected = new Map<number, { n: number; first: number }>();
    for (const { bid, auction } of nestedLoop(bids, auctions, 10)) {
      const start = Math.floor(bid.time / 2000) * 2000;
      const seen = expected.get(start);
      expected.set(start, { n: (seen?.n ?? 0) + 1, first: Math.min(seen?.first ?? Infinity, auction.time) });
    }
    expect(expected.size).toBeGreaterThan(5);
    const rows = await engine.query(sql);
    expect(canonical(rows.map((r) => ({ ws: (r.ws as Date).getTime(), n: r.n, first: (r.first as Date).getTime() })))).toEqual(canonical([...expected].map(([ws, v]) => ({ ws, ...v }))));
  });

  it('LEFT: auctions without a bid in their first 2 s come out NULL-padded', async () => {
    const { engine, auctions, bids } = await nexmark();
    const rows = await engine.query(`SELECT A.id AS id, B.\`dateTime\` AS bidTime FROM auction AS A LEFT JOIN bid AS B
      ON A.id = B.auction AND B.\`dateTime\` >= A.\`dateTime\` AND B.\`dateTime\` < A.\`dateTime\` + INTERVAL '2' SECOND`);
    const expected = auctions.flatMap((a): { id: number; bidTime: number | null }[] => {
      const matches = bids.filter((b) => b.id === a.id && b.time >= a.time && b.time < a.time + 2000);
      return matches.length === 0 ? [{ id: a.id, bidTime: null }] : matches.map((b) => ({ id: a.id, bidTime: b.time }));
    });
    expect(expected.some((r) => r.bidTime === null) && expected.some((r) => r.bidTime !== null)).toBe(true);
    expect(canonical(rows.map((r) => ({ id: r.id, bidTime: r.bidTime === null ? null : (r.bidTime as Date).getTime() })))).toEqual(canonical(expected));
  });
});

/** Nexmark q8's window join (people who opened auctions in the 10 s window they registered in), or an outer variant. */
const windowJoin = (type: string): string => `SELECT P.id AS id, P.name AS name, P.starttime AS starttime, A.seller AS seller
  FROM (SELECT id, name, window_start AS starttime, window_end AS endtime
        FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(\`dateTime\`), INTERVAL '10' SECOND)) GROUP BY id, name, window_start, window_end) P
  ${type} JOIN (SELECT seller, window_start AS starttime, window_end AS endtime
        FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(\`dateTime\`), INTERVAL '10' SECOND)) GROUP BY seller, window_start, window_end) A
  ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime`;

describe('window join', () => {
  for (const type of ['INNER', 'LEFT', 'RIGHT', 'FULL OUTER']) {
    it(`${type}: equals the join of the windowed rows computed by hand, at parallelism 1 and 2`, async () => {
      const engine = createEngine();
      await engine.execute(publishedSql('ddl.sql', { EVENTS_NUM: '20000', TPS: '200' }));
      const [plan] = await engine.execute(`EXPLAIN ${windowJoin(type)}`);
      expect(plan?.kind === 'text' ? plan.text : '').toContain(`WindowJoin(leftWindow=[TUMBLE(win_start=[starttime], win_end=[endtime], size=[10 s])]`);
      const window = (v: unknown): number => Math.floor((v as Date).getTime() / 10_000) * 10_000;
      const people = new Map((await engine.query('SELECT id, name, `dateTime` FROM person')).map((r) => [`${r.id}/${r.name}/${window(r.dateTime)}`, { id: r.id, name: r.name, start: window(r.dateTime) }]));
      const sellers = new Map((await engine.query('SELECT seller, `dateTime` FROM auction')).map((r) => [`${r.seller}/${window(r.dateTime)}`, r.seller]));
      const padsPeople = type === 'LEFT' || type === 'FULL OUTER';
      const padsSellers = type === 'RIGHT' || type === 'FULL OUTER';
      const matched = [...people.values()].flatMap((p) => (sellers.has(`${p.id}/${p.start}`) ? [{ ...p, seller: p.id }] : padsPeople ? [{ ...p, seller: null }] : []));
      const personKeys = new Set([...people.values()].map((p) => `${p.id}/${p.start}`));
      const lonelySellers = padsSellers ? [...sellers].filter(([key]) => !personKeys.has(key)).map(([, seller]) => ({ id: null, name: null, start: null, seller })) : [];
      const expected = [...matched, ...lonelySellers];
      expect(expected.some((r) => r.seller !== null && r.id !== null)).toBe(true);
      if (type !== 'INNER') expect(expected.some((r) => r.seller === null || r.id === null)).toBe(true);
      for (const parallelism of [1, 2]) {
        await engine.execute(`SET 'parallelism.default' = '${parallelism}'`);
        const rows = (await engine.query(windowJoin(type))).map((r) => ({ id: r.id, name: r.name, start: r.starttime === null ? null : (r.starttime as Date).getTime(), seller: r.seller }));
        expect(canonical(rows)).toEqual(canonical(expected));
      }
    });
  }
});

describe('outer join kept in Postgres', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-outer-join-'))));
  afterAll(() => process.chdir(home));

  it('a materialized LEFT JOIN of tables changed by INSERT, UPDATE and DELETE, keyed by the orders, equals the same query run by Postgres', async () => {
    const url = await freshDatabase('weir_outer_join');
    const engine = createEngine();
    const changes = [
      "INSERT INTO customers VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')",
      'INSERT INTO orders VALUES (10, 1, 50), (11, 1, 3), (12, 4, 70), (13, 2, 8)',
      'UPDATE orders SET amount = 9 WHERE id = 11',
      'DELETE FROM orders WHERE id = 13',
      "UPDATE customers SET name = 'bea' WHERE id = 2",
      'UPDATE orders SET customer = 3 WHERE id = 12',
      'DELETE FROM customers WHERE id = 1',
      'INSERT INTO orders VALUES (14, 2, 1), (15, 5, 100)',
    ];
    await pgQuery(url, 'CREATE TABLE customers (id INT PRIMARY KEY, name TEXT); CREATE TABLE orders (id INT PRIMARY KEY, customer INT, amount INT)');
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}';
      CREATE TABLE customers (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED);
      CREATE TABLE orders (id INT, customer INT, amount INT, PRIMARY KEY (id) NOT ENFORCED);
      CREATE MATERIALIZED VIEW customer_orders WITH ('url' = '${url}') AS
        SELECT c.id AS cid, c.name AS name, o.id AS oid, o.amount AS amount
        FROM orders AS o LEFT JOIN customers AS c ON c.id = o.customer AND c.name <> 'cy' AND o.amount > 5;`);
    const batch = `SELECT c.id AS cid, c.name AS name, o.id AS oid, o.amount AS amount FROM orders AS o LEFT JOIN customers AS c ON c.id = o.customer AND c.name <> 'cy' AND o.amount > 5`;
    const view = 'SELECT cid, name, oid, amount FROM customer_orders';
    for (const change of changes) {
      await engine.execute(`${change}; FLUSH;`);
      await pgQuery(url, change);
      expect(await pgQuery(url, `(${batch}) EXCEPT ALL (${view})`)).toEqual([]);
      expect(await pgQuery(url, `(${view}) EXCEPT ALL (${batch})`)).toEqual([]);
    }
    expect((await pgQuery(url, view)).length).toBeGreaterThan(3);
    const [key] = await pgQuery<{ columns: string }>(url, "SELECT string_agg(a.attname, ',') AS columns FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'customer_orders'::regclass AND i.indisprimary");
    expect(key?.columns).toBe('oid');
    // A FULL JOIN keyed by neither side alone: both ids together (either may be NULL) key its table.
    await engine.execute(`CREATE MATERIALIZED VIEW everyone WITH ('url' = '${url}') AS SELECT c.id AS cid, o.id AS oid FROM orders AS o FULL JOIN customers AS c ON c.id = o.customer`);
    const everyone = 'SELECT c.id AS cid, o.id AS oid FROM orders AS o FULL JOIN customers AS c ON c.id = o.customer';
    for (const change of ["INSERT INTO customers VALUES (7, 'dee')", 'DELETE FROM orders WHERE id = 14', 'UPDATE orders SET customer = 7 WHERE id = 15']) {
      await engine.execute(`${change}; FLUSH;`);
      await pgQuery(url, change);
      expect(await pgQuery(url, `(${everyone}) EXCEPT ALL (SELECT cid, oid FROM everyone)`)).toEqual([]);
      expect(await pgQuery(url, `(SELECT cid, oid FROM everyone) EXCEPT ALL (${everyone})`)).toEqual([]);
    }
    await engine.close({ graceful: true });
  });
});

describe('outer join across a savepoint', () => {
  const sources = (dir: string, parallelism: number): string => `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'pipeline.name' = 'outer';
    SET 'parallelism.default' = '${parallelism}';
    CREATE TABLE l (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '8000', 'fields.k.min' = '0', 'fields.k.max' = '99', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE r (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '8000', 'fields.k.min' = '50', 'fields.k.max' = '149', 'fields.v.min' = '0', 'fields.v.max' = '1000');`;
  const query = (sink: string): string => `CREATE TABLE ${sink} (lk INT, n BIGINT, rk INT, m INT) WITH ('connector' = 'collect', 'transactional' = 'true');
    INSERT INTO ${sink} SELECT a.k, a.n, b.k, b.m
    FROM (SELECT k, COUNT(*) AS n FROM l GROUP BY k) AS a
    FULL JOIN (SELECT k, MAX(v) AS m FROM r GROUP BY k) AS b ON a.k = b.k AND b.m > 990`;
  const run = async (e: ReturnType<typeof createEngine>, sql: string): Promise<JobHandle> => {
    const results = await e.execute(sql);
    const last = results[results.length - 1]!;
    if (last.kind !== 'job') throw new Error(`expected a job, got ${last.kind}`);
    return last.job;
  };
  const engine = (): ReturnType<typeof createEngine> => createEngine({ connectors: [collectConnector], onWarning: () => {} });

  it('stopped with a savepoint and resumed at another parallelism, leaves the table of an uninterrupted run', async () => {
    resetCollected();
    const dir = mkdtempSync(join(tmpdir(), 'weir-outer-ckpt-'));
    const reference = await run(engine(), `${sources(mkdtempSync(join(tmpdir(), 'weir-outer-ref-')), 1)} ${query('reference')}`);
    expect(await reference.result()).toBe('FINISHED');
    const expected = materialize(collected('reference'));
    expect(expected.some((row) => row[0] === null) && expected.some((row) => row[2] === null) && expected.some((row) => row[0] !== null && row[2] !== null)).toBe(true);
    const first = await run(engine(), `${sources(dir, 1)} ${query('joined')}`);
    while (first.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
    await first.stopWithSavepoint();
    const partial = collected('joined').length;
    expect(partial).toBeGreaterThan(0);
    const second = await run(engine(), `${sources(dir, 3)} ${query('joined')}`);
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');
    expect(collected('joined').length).toBeGreaterThan(partial);
    expect(materialize(collected('joined'))).toEqual(expected);
  });
});
