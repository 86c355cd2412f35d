/**
 * The published Nexmark queries with windows, joins, Top-N and updating aggregates, run in weir on a
 * bounded stream and compared, as multisets of final rows, with batch SQL in PostgreSQL over the
 * same events. The SQL states each query's meaning from scratch, with window and time semantics
 * spelled out on epoch milliseconds, rather than translating the Flink text.
 *
 * The stream: 30,000 events at 64 per second of event time (15.625 ms apart, truncated to the
 * millisecond), from 23:58:20 UTC over 469 s: 47 tumbling 10 s windows, about 235 hopping ones,
 * and a midnight for DATE_FORMAT to split days at. Every event has its own millisecond, so no two
 * bids share a `dateTime`; and as 2 s hold 128 events (not a multiple of the 50-event
 * person/auction/bid cycle), bids and auctions fall exactly on window bounds, where a window's
 * start is included and its end excluded. Queries with state run with one and with two subtasks
 * per keyed operator (the source reads with one either way, so the events are the same).
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/pg-query.js';
import {
  connectOracle,
  expectSameMultiset,
  expectSubMultiset,
  loadNexmarkEvents,
  nexmarkEngine,
  oracleRows,
  runPublishedToTable,
  type EventCounts,
  type NexmarkStream,
} from '../support/nexmark-postgres-oracle.js';

const STREAM: NexmarkStream = { events: 30_000, eventsPerSecond: 64, baseTime: '2015-07-15T23:58:20Z' };

/** Helpers of the batch SQL: a UTC timestamp from epoch ms, and the tumbling window start of a time. */
const ORACLE_FUNCTIONS = `
  CREATE FUNCTION utc(ms bigint) RETURNS timestamp LANGUAGE sql IMMUTABLE AS $$ SELECT timestamp 'epoch' + ms * interval '1 millisecond' $$;
  CREATE FUNCTION window_start(ms bigint, size bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT ms - ms % size $$;
`;

let client: pg.Client;
let counts: EventCounts;

beforeAll(async () => {
  client = await connectOracle(await freshDatabase('nexmark_oracle'));
  counts = await loadNexmarkEvents(await nexmarkEngine(STREAM), client);
  await client.query(ORACLE_FUNCTIONS);
});

afterAll(async () => {
  await client?.end();
});

/** Parallelisms of the keyed operators that queries with state are run at; 1 only for those without (their operators chain to the source). */
const KEYED = [1, 2];
const STATELESS = [1];

/**
 * Runs `file` in weir at each of `parallelisms` and `oracleSql` in PostgreSQL, and compares the
 * final tables; returns how many rows they have.
 */
async function compare(file: string, sinkTable: string, oracleSql: string, parallelisms = KEYED): Promise<number> {
  const oracle = await oracleRows(client, oracleSql);
  for (const parallelism of parallelisms) {
    const weir = await runPublishedToTable(await nexmarkEngine(STREAM, parallelism), file, sinkTable);
    expectSameMultiset(weir, oracle, `parallelism ${parallelism}: `);
  }
  return oracle.length;
}

/** Asserts that no two bids of `partition` share the whole ordering key, so that a ROW_NUMBER over it is deterministic. */
async function expectNoTies(partition: string, orderKey: string): Promise<void> {
  const ties = await oracleRows(client, `SELECT ${partition}, ${orderKey} FROM bid GROUP BY ${partition}, ${orderKey} HAVING count(*) > 1`);
  expect(ties).toEqual([]);
}

describe('the bounded nexmark stream loaded into PostgreSQL', () => {
  it('has persons, auctions and bids in proportion 1:3:46, over 469 s of event time that cross midnight, with bids on window bounds', async () => {
    expect(counts).toEqual({ person: 600, auction: 1800, bid: 27_600 });
    const [span] = await oracleRows(
      client,
      `SELECT max(date_time) - min(date_time), count(DISTINCT window_start(date_time, 10000)), count(DISTINCT to_char(utc(date_time), 'YYYY-MM-DD'))
       FROM (SELECT date_time FROM person UNION ALL SELECT date_time FROM auction UNION ALL SELECT date_time FROM bid) events`,
    );
    expect(span).toEqual([468_735, 47, 2]);
    const onBounds = await oracleRows(client, 'SELECT count(*) FILTER (WHERE date_time % 2000 = 0), count(*) FILTER (WHERE date_time % 10000 = 0) FROM bid');
    expect(onBounds).toEqual([[215, 37]]);
  });
});

describe('published Nexmark queries equal batch SQL in PostgreSQL over the same events', () => {
  // q4: per category, the average over its auctions of the auction's final price — the highest bid
  // placed while the auction was open, B.dateTime in [A.dateTime, A.expires] with both ends
  // included. Auctions without such a bid have no final price. Both levels update as bids arrive;
  // only the final table is compared. AVG of BIGINT is BIGINT in Flink: the sum divided by the
  // count, truncated (div on numeric truncates toward zero, like Java's long division).
  it('q4: average final price per category', async () => {
    const rows = await compare(
      'q4.sql',
      'nexmark_q4',
      `WITH final AS (
         SELECT a.id, a.category, max(b.price) AS price
         FROM auction a JOIN bid b ON b.auction = a.id AND a.date_time <= b.date_time AND b.date_time <= a.expires
         GROUP BY a.id, a.category)
       SELECT category, div(sum(price), count(*))::bigint FROM final GROUP BY category`,
    );
    expect(rows).toBe(5);
  });

  // q5: hot items. Hopping windows of 10 s every 2 s, aligned to the epoch: a bid at t belongs to the
  // five windows [s, s + 10 s) with s a multiple of 2 s and s <= t < s + 10 s. Per window, every
  // auction whose bid count is at least the window's largest count (so all auctions tied at the
  // maximum) with that count. The join on window bounds matches a window with itself only.
  it('q5: the auctions with the most bids of every hopping window', async () => {
    const rows = await compare(
      'q5.sql',
      'nexmark_q5',
      `WITH windowed AS (
         SELECT b.auction, w.start
         FROM bid b CROSS JOIN LATERAL generate_series(window_start(b.date_time, 2000) - 8000, window_start(b.date_time, 2000), 2000) AS w(start)
         WHERE w.start <= b.date_time AND b.date_time < w.start + 10000),
       counts AS (SELECT auction, start, count(*) AS num FROM windowed GROUP BY auction, start),
       maxima AS (SELECT start, max(num) AS maxn FROM counts GROUP BY start)
       SELECT c.auction, c.num FROM counts c JOIN maxima m ON c.start = m.start AND c.num >= m.maxn`,
    );
    expect(rows).toBeGreaterThanOrEqual(150);
  });

  // q7: per 10 s tumbling window the highest price, then every bid at that price whose dateTime lies
  // in [window_end - 10 s, window_end], both ends included: a bid exactly at window_end (the start
  // of the next window) also matches the previous window's maximum. Columns in the SELECT's order.
  it('q7: the bids at the highest price of each tumbling window', async () => {
    const rows = await compare(
      'q7.sql',
      'nexmark_q7',
      `WITH maxima AS (SELECT window_start(date_time, 10000) + 10000 AS window_end, max(price) AS price FROM bid GROUP BY 1)
       SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
       FROM bid b JOIN maxima m ON b.price = m.price AND m.window_end - 10000 <= b.date_time AND b.date_time <= m.window_end`,
    );
    expect(rows).toBeGreaterThanOrEqual(30);
  });

  // q8: new users. Persons and auctions each in 10 s tumbling windows, deduplicated per window
  // (GROUP BY id, name / seller with the window); a person is reported, with its window start, for
  // each window in which it both registered and sold something.
  it('q8: persons who opened an auction in the window they registered in', async () => {
    const rows = await compare(
      'q8.sql',
      'nexmark_q8',
      `WITH p AS (SELECT DISTINCT id, name, window_start(date_time, 10000) AS start FROM person),
            a AS (SELECT DISTINCT seller, window_start(date_time, 10000) AS start FROM auction)
       SELECT p.id, p.name, p.start FROM p JOIN a ON p.id = a.seller AND p.start = a.start`,
    );
    expect(rows).toBeGreaterThan(0);
  });

  // q9: winning bids. For each auction, among its bids with B.dateTime in [A.dateTime, A.expires]
  // (both included) the one with the highest price, the earliest of equal prices (ROW_NUMBER,
  // ORDER BY price DESC, dateTime ASC, top 1). No two bids of an auction share price and dateTime
  // (asserted), so the winner is unique.
  it('q9: the winning bid of every auction', async () => {
    await expectNoTies('auction', 'price, date_time');
    const rows = await compare(
      'q9.sql',
      'nexmark_q9',
      `SELECT DISTINCT ON (a.id)
              a.id, a.item_name, a.description, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category, a.extra,
              b.auction, b.bidder, b.price, b.date_time, b.extra
       FROM auction a JOIN bid b ON b.auction = a.id AND a.date_time <= b.date_time AND b.date_time <= a.expires
       ORDER BY a.id, b.price DESC, b.date_time ASC`,
    );
    expect(rows).toBeGreaterThan(100);
  });

  // q15–q17: DATE_FORMAT(dateTime, 'yyyy-MM-dd') and 'HH:mm' are the UTC wall-clock fields of the
  // TIMESTAMP(3) (to_char 'YYYY-MM-DD', 'HH24:MI'). Price ranks: < 10^4, [10^4, 10^6), >= 10^6.
  // COUNT(DISTINCT x) FILTER (WHERE p) counts the distinct x among the rows where p holds.
  const RANKS = ['price < 10000', 'price >= 10000 AND price < 1000000', 'price >= 1000000'];
  const rankCounts = (expression: string): string =>
    [`count(${expression})`, ...RANKS.map((rank) => `count(${expression}) FILTER (WHERE ${rank})`)].join(', ');

  it('q15: bids, bidders and auctions per day and price rank', async () => {
    const rows = await compare(
      'q15.sql',
      'nexmark_q15',
      `SELECT to_char(utc(date_time), 'YYYY-MM-DD'), ${rankCounts('*')}, ${rankCounts('DISTINCT bidder')}, ${rankCounts('DISTINCT auction')}
       FROM bid GROUP BY 1`,
    );
    expect(rows).toBe(2);
  });

  // q16: as q15 per channel and day, with the day's latest minute of a bid on the channel: the
  // maximum of the 'HH:mm' texts, compared as strings (COLLATE "C", as Java compares them).
  it('q16: bids, bidders and auctions per channel, day and price rank', async () => {
    const rows = await compare(
      'q16.sql',
      'nexmark_q16',
      `SELECT channel, to_char(utc(date_time), 'YYYY-MM-DD'), max(to_char(utc(date_time), 'HH24:MI') COLLATE "C"),
              ${rankCounts('*')}, ${rankCounts('DISTINCT bidder')}, ${rankCounts('DISTINCT auction')}
       FROM bid GROUP BY channel, 2`,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q17: per auction and day, counts per price rank and min, max, AVG and SUM of the price: AVG and
  // SUM of BIGINT are BIGINT, the average truncated.
  it('q17: price statistics per auction and day', async () => {
    const rows = await compare(
      'q17.sql',
      'nexmark_q17',
      `SELECT auction, to_char(utc(date_time), 'YYYY-MM-DD'), ${rankCounts('*')},
              min(price), max(price), div(sum(price), count(price))::bigint, sum(price)::bigint
       FROM bid GROUP BY auction, 2`,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q18: the latest bid of every (bidder, auction) pair: ROW_NUMBER ORDER BY dateTime DESC, top 1.
  // As bids arrive the pair's row is retracted and replaced, so the final table has one row per
  // pair. No two bids of a pair share a dateTime (asserted).
  it('q18: the last bid of every bidder on every auction', async () => {
    await expectNoTies('bidder, auction', 'date_time');
    const rows = await compare(
      'q18.sql',
      'nexmark_q18',
      `SELECT DISTINCT ON (bidder, auction) auction, bidder, price, channel, url, date_time, extra
       FROM bid ORDER BY bidder, auction, date_time DESC`,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q19: the ten highest bids of every auction, numbered 1..10 by price (ROW_NUMBER, ORDER BY price
  // DESC). Bids of an auction at equal prices do occur (asserted), and ROW_NUMBER orders them as
  // they arrive, so the comparison is tie-insensitive: the (auction, price, number) rows equal those
  // of a ROW_NUMBER in PostgreSQL (the price at each number does not depend on the tie order), and
  // every bid weir keeps is one of the auction's bids ranked 10th or better with ties sharing a
  // rank (RANK), which are the only bids a tie order could pick.
  it('q19: the ten highest bids of every auction', async () => {
    const ties = await oracleRows(client, `SELECT auction, price FROM bid GROUP BY auction, price HAVING count(*) > 1`);
    expect(ties.length).toBeGreaterThan(0);
    const numbered = await oracleRows(
      client,
      `SELECT auction, price, number FROM (SELECT auction, price, row_number() OVER (PARTITION BY auction ORDER BY price DESC) AS number FROM bid) ranked
       WHERE number <= 10`,
    );
    expect(numbered.length).toBeGreaterThan(1000);
    const candidates = await oracleRows(
      client,
      `SELECT auction, bidder, price, channel, url, date_time, extra
       FROM (SELECT *, rank() OVER (PARTITION BY auction ORDER BY price DESC) FROM bid) ranked WHERE rank <= 10`,
    );
    for (const parallelism of KEYED) {
      const weir = await runPublishedToTable(await nexmarkEngine(STREAM, parallelism), 'q19.sql', 'nexmark_q19');
      expectSameMultiset(
        weir.map(([auction, , price, , , , , number]) => [auction!, price!, number!]),
        numbered,
        `parallelism ${parallelism}: `,
      );
      expectSubMultiset(
        weir.map((row) => row.slice(0, 7)),
        candidates,
      );
    }
  });
});

describe('published Nexmark queries without windows, and with regular joins or sessions, equal batch SQL in PostgreSQL', () => {
  it('q0: every bid', async () => {
    const rows = await compare('q0.sql', 'nexmark_q0', 'SELECT auction, bidder, price, date_time, extra FROM bid', STATELESS);
    expect(rows).toBe(counts.bid);
  });

  // q1 and q14 write 0.908 * price into DECIMAL(24, 3): compared as the unscaled value, 908 * price.
  it('q1: every bid with its price in euro', async () => {
    const rows = await compare('q1.sql', 'nexmark_q1', 'SELECT auction, bidder, 908 * price, date_time, extra FROM bid', STATELESS);
    expect(rows).toBe(counts.bid);
  });

  it('q2: the bids of auctions whose id is divisible by 123', async () => {
    const rows = await compare('q2.sql', 'nexmark_q2', 'SELECT auction, price FROM bid WHERE auction % 123 = 0', STATELESS);
    expect(rows).toBeGreaterThan(0);
  });

  // q3: an inner join of the two append-only streams: each auction of category 10 with its seller,
  // when the seller lives in OR, ID or CA; a person generated after the auction still matches.
  it('q3: auctions of category 10 with their sellers from OR, ID or CA', async () => {
    const rows = await compare(
      'q3.sql',
      'nexmark_q3',
      `SELECT p.name, p.city, p.state, a.id FROM auction a JOIN person p ON a.seller = p.id
       WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')`,
    );
    expect(rows).toBeGreaterThan(50);
  });

  // q11: session windows per bidder with a 10 s gap. Each bid opens [t, t + 10 s); windows that
  // overlap or touch merge (Flink's TimeWindow.intersects is inclusive), so a bid starts a new
  // session only when it comes more than 10 s after the bidder's previous bid. The session ends
  // 10 s after its last bid.
  it('q11: the bids of every bidder session', async () => {
    const rows = await compare(
      'q11.sql',
      'nexmark_q11',
      `WITH marked AS (
         SELECT bidder, date_time,
                CASE WHEN date_time - lag(date_time) OVER (PARTITION BY bidder ORDER BY date_time) <= 10000 THEN 0 ELSE 1 END AS opens
         FROM bid),
       numbered AS (SELECT bidder, date_time, sum(opens) OVER (PARTITION BY bidder ORDER BY date_time) AS session FROM marked)
       SELECT bidder, count(*), min(date_time), max(date_time) + 10000 FROM numbered GROUP BY bidder, session`,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q14: HOUR of the UTC wall-clock time; count_char(extra, 'c') counts the occurrences of 'c'.
  it('q14: bids with a converted price between 10^6 and 5 * 10^7, with the time of day and their c count', async () => {
    const rows = await compare(
      'q14.sql',
      'nexmark_q14',
      `SELECT auction, bidder, 908 * price,
              CASE WHEN extract(hour FROM utc(date_time)) BETWEEN 8 AND 18 THEN 'dayTime'
                   WHEN extract(hour FROM utc(date_time)) <= 6 OR extract(hour FROM utc(date_time)) >= 20 THEN 'nightTime'
                   ELSE 'otherTime' END,
              date_time, extra, length(extra) - length(replace(extra, 'c', ''))
       FROM bid WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000`,
      STATELESS,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  it('q20: bids joined with their auction of category 10', async () => {
    const rows = await compare(
      'q20.sql',
      'nexmark_q20',
      `SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.date_time, b.extra,
              a.item_name, a.description, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category, a.extra
       FROM bid b JOIN auction a ON b.auction = a.id WHERE a.category = 10`,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q21: REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) is the second group of the first match, NULL without one.
  it('q21: bids with a known channel or a channel_id', async () => {
    const rows = await compare(
      'q21.sql',
      'nexmark_q21',
      `SELECT auction, bidder, price, channel,
              CASE lower(channel) WHEN 'apple' THEN '0' WHEN 'google' THEN '1' WHEN 'facebook' THEN '2' WHEN 'baidu' THEN '3'
                   ELSE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] END
       FROM bid WHERE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] IS NOT NULL OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')`,
      STATELESS,
    );
    expect(rows).toBeGreaterThan(1000);
  });

  // q22: SPLIT_INDEX(url, '/', i) is the i-th (from 0) piece of the url split at '/', NULL past the last.
  it('q22: the directories of every bid url', async () => {
    const rows = await compare(
      'q22.sql',
      'nexmark_q22',
      `SELECT auction, bidder, price, channel, (string_to_array(url, '/'))[4], (string_to_array(url, '/'))[5], (string_to_array(url, '/'))[6] FROM bid`,
      STATELESS,
    );
    expect(rows).toBe(counts.bid);
  });
});
