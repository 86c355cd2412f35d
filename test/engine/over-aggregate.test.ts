/**
 * OVER aggregates and RANK/DENSE_RANK in SQL. On the bounded Nexmark bid stream (event time),
 * OVER aggregates with ROWS and RANGE frames are insert-only and equal a hand-written computation
 * over the same bids; RANK and DENSE_RANK Top-N number ties as Flink does; Top-N and OVER over
 * updating inputs end in the batch result; unsupported forms are refused with their position.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { createEngine } from '../../src/engine/engine.js';
import { engineWithNexmarkBids, publishedSql, type NexmarkBid } from '../support/nexmark-published.js';

const DDL = publishedSql('ddl.sql', { EVENTS_NUM: '6000', TPS: '2000' });

type Bid = NexmarkBid;

const setup = (): ReturnType<typeof engineWithNexmarkBids> => engineWithNexmarkBids(6000);

/** Per partition (default: auction), each bid with the prices of its frame: the bids of its partition ordered by time (ties in arrival order) that `inFrame` keeps. */
function framePrices(
  bids: readonly Bid[],
  inFrame: (candidate: Bid, position: number, current: Bid, currentPosition: number) => boolean,
  partitionOf: (bid: Bid) => unknown = (bid) => bid.auction,
): { bid: Bid; prices: number[] }[] {
  const byAuction = new Map<unknown, Bid[]>();
  for (const b of bids) byAuction.set(partitionOf(b), [...(byAuction.get(partitionOf(b)) ?? []), b]);
  return [...byAuction.values()].flatMap((list) => {
    const sorted = [...list].sort((a, b) => a.dateTime.getTime() - b.dateTime.getTime());
    return sorted.map((bid, j) => ({ bid, prices: sorted.filter((c, i) => inFrame(c, i, bid, j)).map((c) => c.price) }));
  });
}

const line = (auction: unknown, price: unknown, time: unknown, ...values: unknown[]): string => JSON.stringify([auction, price, (time as Date).getTime(), ...values]);

describe('OVER aggregates on an event-time stream', () => {
  it('ROWS BETWEEN 2 PRECEDING AND CURRENT ROW: insert-only, every bid with the sum, count and max of its last three', async () => {
    const { engine, bids } = await setup();
    const ops = new Set<string>();
    const rows: string[] = [];
    for await (const { op, row } of engine.subscribe(
      'SELECT auction, price, `dateTime`, SUM(price) OVER w AS s, COUNT(*) OVER w AS n, MAX(price) OVER w AS m FROM bid WINDOW w AS (PARTITION BY auction ORDER BY `dateTime` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)',
    )) {
      ops.add(op);
      rows.push(line(row.auction, row.price, row.dateTime, row.s, row.n, row.m));
    }
    expect(ops).toEqual(new Set(['+I']));
    const expected = framePrices(bids, (_c, i, _b, j) => i <= j && i >= j - 2).map(({ bid, prices }) =>
      line(bid.auction, bid.price, bid.dateTime, prices.reduce((a, b) => a + b, 0), prices.length, Math.max(...prices)),
    );
    expect(rows.sort()).toEqual(expected.sort());
    expect(expected.some((e) => JSON.parse(e)[4] === 3)).toBe(true);
  });

  it("RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW: bids of the same time are peers", async () => {
    const { engine, bids } = await setup();
    const rows = await engine.query(
      "SELECT auction, price, `dateTime`, COUNT(*) OVER (PARTITION BY auction ORDER BY `dateTime` RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS n, AVG(price) OVER (PARTITION BY auction ORDER BY `dateTime` RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS a FROM bid",
    );
    const expected = framePrices(bids, (c, _i, b) => c.dateTime.getTime() <= b.dateTime.getTime() && c.dateTime.getTime() >= b.dateTime.getTime() - 10_000).map(({ bid, prices }) =>
      line(bid.auction, bid.price, bid.dateTime, prices.length, Math.trunc(prices.reduce((a, b) => a + b, 0) / prices.length)),
    );
    expect(rows.map((r) => line(r.auction, r.price, r.dateTime, r.n, r.a)).sort()).toEqual(expected.sort());
  });

  it('without a frame (RANGE UNBOUNDED PRECEDING) and with ROWS UNBOUNDED PRECEDING: running counts', async () => {
    const { engine, bids } = await setup();
    const rows = await engine.query(
      'SELECT auction, price, `dateTime`, COUNT(*) OVER (PARTITION BY auction ORDER BY `dateTime`) AS r, COUNT(*) OVER (PARTITION BY auction ORDER BY `dateTime`) + 0 AS r2 FROM bid',
    );
    const expected = framePrices(bids, (c, _i, b) => c.dateTime.getTime() <= b.dateTime.getTime()).map(({ bid, prices }) => line(bid.auction, bid.price, bid.dateTime, prices.length, prices.length));
    expect(rows.map((r) => line(r.auction, r.price, r.dateTime, r.r, r.r2)).sort()).toEqual(expected.sort());
    const running = await engine.query('SELECT auction, price, `dateTime`, COUNT(*) OVER (PARTITION BY auction ORDER BY `dateTime` ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r FROM bid');
    const expectedRunning = framePrices(bids, (_c, i, _b, j) => i <= j).map(({ bid, prices }) => line(bid.auction, bid.price, bid.dateTime, prices.length));
    expect(running.map((r) => line(r.auction, r.price, r.dateTime, r.r)).sort()).toEqual(expectedRunning.sort());
  });

  it('several different windows in one query, one partitioned by an expression: each aggregate over its own window', async () => {
    const { engine, bids } = await setup();
    const rows = await engine.query(
      `SELECT auction, price, \`dateTime\`,
        SUM(price) OVER (PARTITION BY auction ORDER BY \`dateTime\` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s,
        COUNT(*) OVER (ORDER BY \`dateTime\` RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS n,
        MAX(price) OVER (PARTITION BY auction ORDER BY \`dateTime\` ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m,
        COUNT(*) OVER (PARTITION BY MOD(auction, 3) ORDER BY \`dateTime\`) AS c
      FROM bid`,
    );
    // Each window after the first sees the rows of one time in the order the one before emitted
    // them, so ROWS frames there would number ties arbitrarily (as SQL allows); those are RANGE.
    const key = (bid: Bid): string => JSON.stringify([bid.auction, bid.price, bid.dateTime.getTime()]);
    const perAuction = new Map(framePrices(bids, (_c, i, _b, j) => i <= j && i >= j - 2).map(({ bid, prices }) => [key(bid), prices]));
    const recent = new Map(framePrices(bids, (c, _i, b) => c.dateTime.getTime() <= b.dateTime.getTime() && c.dateTime.getTime() >= b.dateTime.getTime() - 10_000, () => 'all').map(({ bid, prices }) => [key(bid), prices.length]));
    const running = new Map(framePrices(bids, (c, _i, b) => c.dateTime.getTime() <= b.dateTime.getTime(), (bid) => bid.auction % 3).map(({ bid, prices }) => [key(bid), prices.length]));
    // A bid is found by auction, price and time; the few bids equal in all three are left out.
    const copies = new Map<string, number>();
    for (const bid of bids) copies.set(key(bid), (copies.get(key(bid)) ?? 0) + 1);
    const unique = bids.filter((bid) => copies.get(key(bid)) === 1);
    expect(unique.length).toBeGreaterThan(bids.length * 0.9);
    const expected = unique.map((bid) => {
      const prices = perAuction.get(key(bid))!;
      return line(bid.auction, bid.price, bid.dateTime, prices.reduce((a, b) => a + b, 0), recent.get(key(bid)), Math.max(...prices), running.get(key(bid)));
    });
    const actual = rows.filter((r) => copies.get(JSON.stringify([r.auction, r.price, (r.dateTime as Date).getTime()])) === 1);
    expect(actual.map((r) => line(r.auction, r.price, r.dateTime, r.s, r.n, r.m, r.c)).sort()).toEqual(expected.sort());
    expect(rows).toHaveLength(bids.length);
  });

  it('EXPLAIN shows the OverAggregate with its window, insert-only', async () => {
    const { engine } = await setup();
    const [plan] = await engine.execute('EXPLAIN SELECT auction, AVG(price) OVER (PARTITION BY auction ORDER BY `dateTime` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) FROM bid');
    expect(plan).toMatchObject({ kind: 'text' });
    expect((plan as { text: string }).text).toContain(
      'OverAggregate(partitionBy=[auction], orderBy=[dateTime ASC], window=[ROWS BETWEEN 10 PRECEDING AND CURRENT ROW], select=[auction, bidder, price, channel, url, dateTime, extra, AVG(price) AS w0$o0], changelogMode=[I])',
    );
  });
});

describe('OVER aggregates on processing time', () => {
  it('process rows on arrival: a running count per key numbers its rows 1..n', async () => {
    const engine = createEngine();
    await engine.execute("CREATE TABLE t (k INT, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '200', 'fields.k.min' = '1', 'fields.k.max' = '3')");
    const rows = await engine.query('SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n FROM t');
    const perKey = new Map<unknown, number[]>();
    for (const r of rows) perKey.set(r.k, [...(perKey.get(r.k) ?? []), r.n as number]);
    expect(rows).toHaveLength(200);
    for (const counts of perKey.values()) expect(counts.sort((a, b) => a - b)).toEqual(counts.map((_, i) => i + 1));
  });
});

describe('OVER aggregates over an updating input', () => {
  it('follow their input: the final table equals the batch computation over the final input', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE VIEW events AS SELECT * FROM (VALUES
        ('a', 1, TIMESTAMP '2024-01-01 00:00:03'), ('a', 2, TIMESTAMP '2024-01-01 00:00:01'), ('a', 4, TIMESTAMP '2024-01-01 00:00:02'),
        ('b', 8, TIMESTAMP '2024-01-01 00:00:05'), ('a', 16, TIMESTAMP '2024-01-01 00:00:04'), ('a', 32, TIMESTAMP '2024-01-01 00:00:02')) AS t(k, v, ts)`);
    // The latest time per value parity is an updating input (a GROUP BY); its rows change as rows arrive.
    const rows = await engine.query(`SELECT k, total, last_ts, SUM(total) OVER (PARTITION BY k ORDER BY last_ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s
      FROM (SELECT k, MOD(v, 3) AS g, SUM(v) AS total, MAX(ts) AS last_ts FROM events GROUP BY k, MOD(v, 3))`);
    // Groups of a: v mod 3 = 1 → 1, 4, 16 (sum 21, last 00:04); 2 → 2, 32 (sum 34, last 00:02). b: 8 mod 3 = 2 → 8.
    expect(rows.map((r) => [r.k, r.total, (r.last_ts as Date).getUTCSeconds(), r.s]).sort()).toEqual(
      [
        ['a', 34, 2, 34],
        ['a', 21, 4, 55],
        ['b', 8, 5, 8],
      ].sort(),
    );
  });

  it('ordered by a plain TIMESTAMP over an insert-only input run on the general OVER operator; a RANGE interval there is refused, as in Flink', async () => {
    const engine = createEngine();
    const values = "(VALUES ('a', TIMESTAMP '2024-01-01 00:00:02'), ('a', TIMESTAMP '2024-01-01 00:00:01'), ('a', TIMESTAMP '2024-01-01 00:00:03')) AS t(k, ts)";
    const rows = await engine.query(`SELECT k, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts) AS c FROM ${values}`);
    expect(rows.map((r) => [(r.ts as Date).getUTCSeconds(), r.c]).sort()).toEqual([[1, 1], [2, 2], [3, 3]]);
    await expect(engine.query(`SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM ${values}`)).rejects.toThrow(
      "OVER windows over an insert-only input must be ordered by a time attribute, but 'ts' is a plain TIMESTAMP(0)",
    );
  });
});

describe('RANK and DENSE_RANK Top-N', () => {
  const TIES = `(VALUES ('a', 9, 1), ('a', 9, 2), ('a', 7, 3), ('a', 5, 4), ('a', 7, 5), ('b', 1, 6)) AS t(k, score, id)`;

  it('RANK: ties share a number and the next number is skipped', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, id, r FROM (SELECT *, RANK() OVER (PARTITION BY k ORDER BY score DESC) AS r FROM ${TIES}) WHERE r <= 3`);
    expect(rows.map((r) => [r.k, r.id, r.r]).sort()).toEqual(
      [
        ['a', 1, 1],
        ['a', 2, 1],
        ['a', 3, 3],
        ['a', 5, 3],
        ['b', 6, 1],
      ].sort(),
    );
  });

  it('DENSE_RANK: ties share a number and none is skipped', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, id, r FROM (SELECT *, DENSE_RANK() OVER (PARTITION BY k ORDER BY score DESC) AS r FROM ${TIES}) WHERE r <= 3`);
    expect(rows.map((r) => [r.k, r.id, r.r]).sort()).toEqual(
      [
        ['a', 1, 1],
        ['a', 2, 1],
        ['a', 3, 2],
        ['a', 5, 2],
        ['a', 4, 3],
        ['b', 6, 1],
      ].sort(),
    );
  });

  it('Top-N over an updating input (a GROUP BY) ends with the batch Top-N of the final groups', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, g, total, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY total DESC) AS rn FROM (SELECT k, MOD(id, 3) AS g, SUM(score) AS total FROM ${TIES} GROUP BY k, MOD(id, 3))
      ) WHERE rn <= 1`);
    // a: ids 1, 4 → g 1 (9 + 5 = 14); ids 2, 5 → g 2 (9 + 7 = 16); id 3 → g 0 (7). b: id 6 → g 0 (1).
    expect(rows.map((r) => [r.k, r.g, r.total, r.rn]).sort()).toEqual([['a', 2, 16, 1], ['b', 0, 1, 1]].sort());
  });
});

describe('unsupported OVER forms are refused with their position', () => {
  const refused = async (sql: string, message: string, column: number): Promise<void> => {
    const engine = createEngine();
    await engine.execute(DDL);
    const error = await engine.query(sql).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).message).toContain(message);
    expect((error as WeirError).span?.start.column).toBe(column);
  };

  // ORDER BY several or non-time columns, descending, or frames reaching past the current row run
  // on the general OVER operator (test/engine/window-functions.test.ts).
  it('a RANGE frame with a row count', () => refused('SELECT SUM(price) OVER (ORDER BY `dateTime` RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM bid', 'RANGE frames take a non-negative interval', 59));
  it('an unknown named window', () => refused('SELECT SUM(price) OVER w2 FROM bid WINDOW w AS (ORDER BY `dateTime`)', "window 'w2' is not defined", 24));
  // A window function of a grouped SELECT runs over the groups (analytic-shapes.slt): it may only
  // read grouped columns and aggregates, as any expression of that SELECT.
  it('OVER in a query with GROUP BY reading a column that is not grouped', () =>
    refused('SELECT auction, SUM(price) OVER (ORDER BY `dateTime`) FROM bid GROUP BY auction', "column 'bid.price' must appear in the GROUP BY clause or be used in an aggregate function", 21));
  it('a RANGE frame with an interval beside a window function', () =>
    refused("SELECT LEAD(price) OVER (ORDER BY `dateTime`), SUM(price) OVER (ORDER BY `dateTime` RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM bid", 'a RANGE frame with an offset needs a window ordered by one time attribute', 99));
  it('an unknown function with OVER', () => refused('SELECT UPPER(channel) OVER (ORDER BY price) FROM bid', 'UPPER(...) OVER is not supported; aggregate functions and ROW_NUMBER, RANK', 8));
  it('NTILE without a positive constant', () => refused('SELECT NTILE(0) OVER (ORDER BY price) FROM bid', 'NTILE takes a positive integer constant', 14));
  it('a RANGE frame with an offset over several columns', () =>
    refused('SELECT LAG(price) OVER (ORDER BY price), COUNT(*) OVER (ORDER BY price, auction RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bid', 'a RANGE frame with an offset needs a window ordered by one time attribute', 95));
});
