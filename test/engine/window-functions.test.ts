/**
 * Window functions in SQL (the general OVER operator): every function's value over a small input
 * written out by hand, ties shared by RANK/PERCENT_RANK/CUME_DIST, an updating input (a GROUP BY)
 * ending in the batch answer, several windows and expressions in one SELECT, and the forms still
 * refused, each saying why and where. PostgreSQL checks the same functions over changing tables in
 * test/slt/suite/window-functions.slt; the operator is checked against a model in
 * test/runtime/operators/over-window-operator.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { createEngine } from '../../src/engine/engine.js';
import { engineWithNexmarkBids } from '../support/nexmark-published.js';

const ROWS = "(VALUES ('a', 1, 10), ('a', 2, 20), ('a', 3, 30), ('a', 4, CAST(NULL AS INT)), ('a', 5, 50), ('b', 1, 7)) AS t(k, o, v)";

const byKeyAndOrder = (rows: Record<string, unknown>[]): Record<string, unknown>[] => [...rows].sort((x, y) => String(x.k).localeCompare(String(y.k)) || (x.o as number) - (y.o as number));

describe('window functions', () => {
  it('compute each row of a partition ordered by a plain column, as PostgreSQL defines them', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, o,
        NTILE(2) OVER w AS n2, NTILE(3) OVER w AS n3, LAG(v, 1, o) OVER w AS lag_v, LEAD(v, 2) OVER w AS lead2,
        FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY o ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS next_first,
        LAST_VALUE(v) OVER w AS last_v,
        SUM(v) OVER (PARTITION BY k ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rest,
        COUNT(v) OVER (PARTITION BY k) AS counted, PERCENT_RANK() OVER w AS pr, CUME_DIST() OVER w AS cd
      FROM ${ROWS} WINDOW w AS (PARTITION BY k ORDER BY o)`);
    const columns = ['k', 'o', 'n2', 'n3', 'lag_v', 'lead2', 'next_first', 'last_v', 'rest', 'counted', 'pr', 'cd'];
    expect(byKeyAndOrder(rows).map((r) => columns.map((c) => r[c]))).toEqual([
      ['a', 1, 1, 1, 1, 30, 20, 10, 110, 4, 0, 0.2],
      ['a', 2, 1, 1, 10, null, 30, 20, 100, 4, 0.25, 0.4],
      ['a', 3, 1, 2, 20, 50, null, 30, 80, 4, 0.5, 0.6],
      ['a', 4, 2, 2, 30, null, 50, null, 50, 4, 0.75, 0.8],
      ['a', 5, 2, 3, null, null, null, 50, 50, 4, 1, 1],
      ['b', 1, 1, 1, 1, null, null, 7, 7, 1, 0, 1],
    ]);
  });

  it('give peers one RANK, PERCENT_RANK and CUME_DIST, beside a ROW_NUMBER and a running SUM in one SELECT', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT id, ROW_NUMBER() OVER w AS rn, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr, PERCENT_RANK() OVER w AS pr, CUME_DIST() OVER w AS cd, SUM(s) OVER w AS running
      FROM (VALUES (1, 10), (2, 20), (3, 20), (4, 30)) AS t(id, s) WINDOW w AS (ORDER BY s)`);
    const byId = [...rows].sort((x, y) => (x.id as number) - (y.id as number));
    expect(byId.map((r) => [r.r, r.dr, r.pr, r.cd, r.running])).toEqual([
      [1, 1, 0, 0.25, 10],
      [2, 2, 1 / 3, 0.75, 50],
      [2, 2, 1 / 3, 0.75, 50],
      [4, 3, 1, 1, 80],
    ]);
    expect(byId.map((r) => r.rn).sort()).toEqual([1, 2, 3, 4]);
  });

  it('follow an updating input (a GROUP BY): the final table equals the batch answer', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT customer, total, LAG(total) OVER (ORDER BY total, customer) AS below, RANK() OVER (ORDER BY total DESC) AS place, NTILE(2) OVER (ORDER BY customer) AS half
      FROM (SELECT customer, SUM(amount) AS total FROM (VALUES (1, 5), (2, 3), (1, -4), (3, 10), (2, 4), (4, 1)) AS o(customer, amount) GROUP BY customer)`);
    // Totals: 1 → 1, 2 → 7, 3 → 10, 4 → 1.
    expect([...rows].sort((x, y) => (x.customer as number) - (y.customer as number)).map((r) => [r.customer, r.total, r.below, r.place, r.half])).toEqual([
      [1, 1, null, 3, 1],
      [2, 7, 1, 2, 1],
      [3, 10, 7, 1, 2],
      [4, 1, 1, 3, 2],
    ]);
  });

  it('partition and order by expressions, several windows chained', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, o, ROW_NUMBER() OVER (PARTITION BY UPPER(k) ORDER BY o * -1) AS down, LAG(k, 1, 'none') OVER (ORDER BY o, k) AS prev_k FROM ${ROWS}`);
    expect(byKeyAndOrder(rows).map((r) => [r.k, r.o, r.down, r.prev_k])).toEqual([
      ['a', 1, 5, 'none'],
      ['a', 2, 4, 'b'],
      ['a', 3, 3, 'a'],
      ['a', 4, 2, 'a'],
      ['a', 5, 1, 'a'],
      ['b', 1, 1, 'a'],
    ]);
    const [plan] = await engine.execute(`EXPLAIN SELECT LAG(v) OVER (PARTITION BY k ORDER BY o DESC) FROM ${ROWS}`);
    expect(plan).toMatchObject({ kind: 'text', text: expect.stringContaining('OverWindow(partitionBy=[k], orderBy=[o DESC], select=[k, o, v, LAG(v, 1) AS w0$o0], changelogMode=[I,UB,UA,D])') });
  });
});

describe('LAG on an event-time stream (Flink streaming LAG)', () => {
  it('runs in the OVER aggregate beside aggregates: insert-only, each bid with the prices of the bids before it in its auction', async () => {
    const { engine, bids } = await engineWithNexmarkBids(3000);
    const sql = 'SELECT auction, price, `dateTime`, LAG(price) OVER w AS prev, LAG(price, 2, -1) OVER w AS prev2, COUNT(*) OVER w AS n FROM bid WINDOW w AS (PARTITION BY auction ORDER BY `dateTime`)';
    const [plan] = await engine.execute(`EXPLAIN ${sql}`);
    expect((plan as { text: string }).text).toContain('window=[RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW], select=[auction, bidder, price, channel, url, dateTime, extra, $f7, LAG(price, 1) AS w0$o0, LAG(price, 2, $f7) AS w0$o1, COUNT(*) AS w0$o2], changelogMode=[I])');
    const ops = new Set<string>();
    const rows: string[] = [];
    for await (const { op, row } of engine.subscribe(sql)) {
      ops.add(op);
      rows.push(JSON.stringify([row.auction, row.price, (row.dateTime as Date).getTime(), row.prev, row.prev2, row.n]));
    }
    expect([...ops]).toEqual(['+I']);
    // Per auction, bids in time order (ties in arrival order, as they reach the operator).
    const byAuction = new Map<unknown, typeof bids>();
    for (const bid of bids) byAuction.set(bid.auction, [...(byAuction.get(bid.auction) ?? []), bid]);
    const expected = [...byAuction.values()].flatMap((list) => {
      const sorted = [...list].sort((a, b) => a.dateTime.getTime() - b.dateTime.getTime());
      return sorted.map((bid, j) => {
        const peersUpTo = sorted.filter((c) => c.dateTime.getTime() <= bid.dateTime.getTime()).length;
        return JSON.stringify([bid.auction, bid.price, bid.dateTime.getTime(), sorted[j - 1]?.price ?? null, sorted[j - 2]?.price ?? -1, peersUpTo]);
      });
    });
    expect(rows.sort()).toEqual(expected.sort());
    expect(expected.some((e) => JSON.parse(e)[4] !== -1)).toBe(true);
  });

  it('take constant expressions where a constant integer is due (reduced as Flink reduces them): LAG/LEAD offsets, NTILE buckets, ROWS offsets', async () => {
    const engine = createEngine();
    const columns = ['k', 'o', 'lag_v', 'lead_v', 'n', 'near'];
    const folded = await engine.query(`SELECT k, o, LAG(v, 0 + 1) OVER w AS lag_v, LEAD(v, CAST('2' AS INT)) OVER w AS lead_v, NTILE(4 - 2) OVER w AS n,
        SUM(v) OVER (PARTITION BY k ORDER BY o ROWS BETWEEN 3 - 2 PRECEDING AND CURRENT ROW) AS near FROM ${ROWS} WINDOW w AS (PARTITION BY k ORDER BY o)`);
    const literal = await engine.query(`SELECT k, o, LAG(v, 1) OVER w AS lag_v, LEAD(v, 2) OVER w AS lead_v, NTILE(2) OVER w AS n,
        SUM(v) OVER (PARTITION BY k ORDER BY o ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS near FROM ${ROWS} WINDOW w AS (PARTITION BY k ORDER BY o)`);
    expect(byKeyAndOrder(folded).map((r) => columns.map((c) => r[c]))).toEqual(byKeyAndOrder(literal).map((r) => columns.map((c) => r[c])));
    expect(byKeyAndOrder(folded).map((r) => r.lag_v)).toEqual([null, 10, 20, 30, null, null]);
  });

  it('over an updating input runs in the general OVER operator', async () => {
    const engine = createEngine();
    const [plan] = await engine.execute(`EXPLAIN SELECT k, LAG(total) OVER (ORDER BY last_ts) AS before FROM (SELECT k, SUM(v) AS total, MAX(ts) AS last_ts FROM (VALUES ('a', 1, TIMESTAMP '2024-01-01 00:00:01')) AS t(k, v, ts) GROUP BY k)`);
    expect((plan as { text: string }).text).toContain('OverWindow(partitionBy=[], orderBy=[last_ts ASC], select=[k, total, last_ts, LAG(total, 1) AS w0$o0], changelogMode=[I,UB,UA,D])');
  });
});

describe('window function forms still refused', () => {
  const refused = async (sql: string, message: string, column: number): Promise<void> => {
    const engine = createEngine();
    const error = await engine.query(sql.replace('$ROWS', ROWS)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).message).toContain(message);
    expect((error as WeirError).span?.start.column).toBe(column);
  };

  it('NTILE of a column', () => refused('SELECT NTILE(v) OVER (ORDER BY o) FROM $ROWS', 'NTILE takes a positive integer constant, the number of buckets', 14));
  it('a LAG offset that is not a constant', () => refused('SELECT LAG(v, o) OVER (ORDER BY o) FROM $ROWS', 'the offset of LAG is a non-negative integer constant', 15));
  it('a LAG offset whose constant is negative or fails', async () => {
    await refused('SELECT LAG(v, 1 - 2) OVER (ORDER BY o) FROM $ROWS', 'the offset of LAG is a non-negative integer constant', 15);
    await refused('SELECT LAG(v, 1 / 0) OVER (ORDER BY o) FROM $ROWS', 'the offset of LAG is a non-negative integer constant', 15);
  });
  it('a LAG default of another type', () => refused("SELECT LAG(v, 1, DATE '2024-01-01') OVER (ORDER BY o) FROM $ROWS", 'the default of LAG must have the value', 18));
  it('arguments to a ranking function', () => refused('SELECT RANK(v) OVER (ORDER BY o), LAG(v) OVER (ORDER BY o) FROM $ROWS', 'RANK takes no arguments', 8));
  it('DISTINCT in a windowed aggregate', () => refused('SELECT COUNT(DISTINCT v) OVER (ORDER BY o) FROM $ROWS', 'DISTINCT is not supported in COUNT(...) OVER', 8));
  it('a RANGE frame with an offset over a plain column', () => refused('SELECT SUM(v) OVER (ORDER BY o RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), LAG(v) OVER (ORDER BY o) FROM $ROWS', 'a RANGE frame with an offset needs a window ordered by one time attribute', 46));
  it('a RANGE frame with an offset over a plain column, the only OVER call', () =>
    refused('SELECT SUM(v) OVER (ORDER BY o RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM $ROWS', "a RANGE frame with an offset needs a window ordered by one time attribute, not by INT column 'o'", 30));
});
