/**
 * Window aggregation over the window TVFs (and the legacy group windows) on the Nexmark bid stream (event time with a 4 s
 * watermark delay): each window's rows are emitted once, insert-only, when the watermark passes
 * its end (or at the end of input), and equal a hand-written computation over the same bids.
 */
import { describe, expect, it } from 'vitest';
import { engineWithNexmarkBids, type NexmarkBid } from '../support/nexmark-published.js';

type Bid = NexmarkBid;

const setup = (): ReturnType<typeof engineWithNexmarkBids> => engineWithNexmarkBids(60000);

function key(row: Record<string, unknown>): string {
  return JSON.stringify(row, (_k, v: unknown) => v);
}

describe('window aggregation', () => {
  it('TUMBLE: bids per auction and 10 s window', async () => {
    const { engine, bids } = await setup();
    const changes: string[] = [];
    const rows: string[] = [];
    for await (const { op, row } of engine.subscribe(
      "SELECT auction, window_start, window_end, COUNT(*) AS bids, MAX(price) AS top FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
    )) {
      changes.push(op);
      rows.push(key(row));
    }
    expect(new Set(changes)).toEqual(new Set(['+I']));
    const expected = new Map<string, { auction: number; window_start: Date; window_end: Date; bids: number; top: number }>();
    for (const b of bids) {
      const start = Math.floor(b.dateTime.getTime() / 10_000) * 10_000;
      const id = `${b.auction}/${start}`;
      const e = expected.get(id) ?? { auction: b.auction, window_start: new Date(start), window_end: new Date(start + 10_000), bids: 0, top: -Infinity };
      e.bids++;
      e.top = Math.max(e.top, b.price);
      expected.set(id, e);
    }
    expect(rows.sort()).toEqual([...expected.values()].map(key).sort());
    expect(rows.length).toBeGreaterThan(100);
  });

  it('HOP: bids per 10 s window sliding by 2 s (every bid in five windows)', async () => {
    const { engine, bids } = await setup();
    const rows = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS bids FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    );
    const expected = new Map<number, number>();
    for (const b of bids) {
      const t = b.dateTime.getTime();
      for (let start = Math.floor(t / 2000) * 2000; start > t - 10_000; start -= 2000) expected.set(start, (expected.get(start) ?? 0) + 1);
    }
    expect(rows.map((r) => [(r.window_start as Date).getTime(), r.bids]).sort()).toEqual([...expected.entries()].sort());
    expect(rows.reduce((n, r) => n + (r.bids as number), 0)).toBe(bids.length * 5);
  });

  it('CUMULATE: running counts within each 10 s window, every 5 s', async () => {
    const { engine, bids } = await setup();
    const rows = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS bids FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    );
    const expected = new Map<string, number>();
    for (const b of bids) {
      const t = b.dateTime.getTime();
      const base = Math.floor(t / 10_000) * 10_000;
      for (const end of [base + 5000, base + 10_000]) if (end > t) expected.set(`${base}-${end}`, (expected.get(`${base}-${end}`) ?? 0) + 1);
    }
    expect(rows.map((r) => [`${(r.window_start as Date).getTime()}-${(r.window_end as Date).getTime()}`, r.bids]).sort()).toEqual([...expected.entries()].sort());
  });

  it('SESSION: bids per auction in sessions with a 1 s gap, and MAX(price) merged across a session', async () => {
    const { engine, bids } = await setup();
    const changes: string[] = [];
    const rows: string[] = [];
    for await (const { op, row } of engine.subscribe(
      "SELECT auction, window_start, window_end, COUNT(*) AS bids, MAX(price) AS top FROM TABLE(SESSION(TABLE bid PARTITION BY auction, DESCRIPTOR(`dateTime`), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end",
    )) {
      changes.push(op);
      rows.push(key(row));
    }
    expect(new Set(changes)).toEqual(new Set(['+I']));
    const byAuction = new Map<number, Bid[]>();
    for (const b of bids) byAuction.set(b.auction, [...(byAuction.get(b.auction) ?? []), b]);
    const expected: string[] = [];
    for (const [auction, list] of byAuction) {
      list.sort((x, y) => x.dateTime.getTime() - y.dateTime.getTime());
      let session: Bid[] = [];
      const close = (): void => {
        const end = session[session.length - 1]!.dateTime.getTime() + 1000;
        expected.push(key({ auction, window_start: session[0]!.dateTime, window_end: new Date(end), bids: session.length, top: Math.max(...session.map((b) => b.price)) }));
      };
      for (const b of list) {
        if (session.length > 0 && b.dateTime.getTime() - session[session.length - 1]!.dateTime.getTime() > 1000) {
          close();
          session = [];
        }
        session.push(b);
      }
      close();
    }
    expect(rows.sort()).toEqual(expected.sort());
    expect(rows.length).toBeLessThan(bids.length);
  });

  it('the legacy GROUP BY TUMBLE(...) with TUMBLE_START/TUMBLE_END gives the rows of the TUMBLE window TVF', async () => {
    const { engine } = await setup();
    const tvf = await engine.query(
      "SELECT auction, window_start AS s, window_end AS e, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
    );
    const legacy = await engine.query(
      "SELECT auction, TUMBLE_START(`dateTime`, INTERVAL '10' SECOND) AS s, TUMBLE_END(`dateTime`, INTERVAL '10' SECOND) AS e, COUNT(*) AS n FROM bid GROUP BY auction, TUMBLE(`dateTime`, INTERVAL '10' SECOND)",
    );
    expect(legacy.map(key).sort()).toEqual(tvf.map(key).sort());
  });

  it('explains the window aggregation and refuses a window without GROUP BY window_start, window_end', async () => {
    const { engine } = await setup();
    const [plan] = await engine.execute(
      "EXPLAIN SELECT auction, window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
    );
    expect(plan).toMatchObject({ kind: 'text', text: expect.stringContaining('WindowAggregate(window=[TUMBLE(size=[10 s])], time=[dateTime], groupBy=[auction, window_start, window_end], select=[auction, window_start, window_end, COUNT(*) AS EXPR$0], changelogMode=[I])') });
    await expect(engine.query("SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction")).rejects.toThrow(
      'a GROUP BY over a TUMBLE window must include window_start and window_end',
    );
    await expect(engine.query("SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(price), INTERVAL '10' SECOND))")).rejects.toThrow("the time column 'price' of TUMBLE must be a TIMESTAMP or TIMESTAMP_LTZ column, not BIGINT");
  });
});
