/** The nexmark generator against GENERATOR.md: ids, kinds, timestamps, distributions, determinism. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { lastBase0AuctionId, lastBase0PersonId, splitOf } from '../../../src/connectors/nexmark/nexmark-generator.js';
import { DEFAULT_BASE_TIME, parseNexmarkOptions } from '../../../src/connectors/nexmark/nexmark-options.js';
import { CHANNELS_NUMBER, FIRST_NAMES, HOT_CHANNELS, LAST_NAMES, POOL_LENGTH, reverseBits32, stringTables, US_CITIES, US_STATES } from '../../../src/connectors/nexmark/nexmark-strings.js';
import { eventsWithIds, generatorFor } from './nexmark-test-util.js';

const DEFAULT = { personProportion: 1, auctionProportion: 3, bidProportion: 46 };
const N = 50_000;
const sample = eventsWithIds(generatorFor(), N);
const persons = sample.filter((e) => e.row[0] === 0).map((e) => ({ id: e.id, p: e.row[1] as Row }));
const auctions = sample.filter((e) => e.row[0] === 1).map((e) => ({ id: e.id, a: e.row[2] as Row }));
const bids = sample.filter((e) => e.row[0] === 2).map((e) => ({ id: e.id, b: e.row[3] as Row }));

const fraction = (count: number, of: number): number => count / of;
const javaAbs = (value: number): number => (value === -(2 ** 31) ? value : Math.abs(value));
const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / values.length;

describe('nexmark ids and kinds (§3)', () => {
  it('numbers the events of split 0 from id 2: auctions at 2–3, bids at 4–49, the first person at 50', () => {
    const first = sample.slice(0, 52);
    expect(first.map((e) => e.id)).toEqual(Array.from({ length: 52 }, (_, k) => k + 2));
    expect(first.map((e) => e.row[0])).toEqual([1, 1, ...new Array(46).fill(2), 0, 1, 1, 1]);
    expect((first[48]!.row[1] as Row)[0]).toBe(1001);
    expect(first.filter((e) => e.row[0] === 1).map((e) => (e.row[2] as Row)[0])).toEqual([1001, 1002, 1003, 1004, 1005]);
  });

  it('sets exactly the ROW column of the event kind and leaves the other two NULL', () => {
    for (const { row } of sample.slice(0, 200)) {
      const kind = row[0] as number;
      expect(row).toHaveLength(4);
      [1, 2, 3].forEach((column) => expect(row[column] === null).toBe(column !== kind + 1));
    }
  });

  it('computes lastBase0PersonId and lastBase0AuctionId as Flink does', () => {
    const person = [0, 1, 49, 50, 51, 99, 100, 5000].map((id) => lastBase0PersonId(DEFAULT, id));
    expect(person).toEqual([0, 0, 0, 1, 1, 1, 2, 100]);
    const auction = [0, 1, 2, 3, 4, 49, 50, 51, 53, 54, 100].map((id) => lastBase0AuctionId(DEFAULT, id));
    expect(auction).toEqual([-1, 0, 1, 2, 2, 2, 2, 3, 5, 5, 5]);
    const custom = { personProportion: 2, auctionProportion: 2, bidProportion: 6 };
    expect([10, 11, 12, 13, 19].map((id) => lastBase0PersonId(custom, id))).toEqual([2, 3, 3, 3, 3]);
    expect([10, 11, 12, 13, 19].map((id) => lastBase0AuctionId(custom, id))).toEqual([1, 1, 2, 3, 3]);
  });

  it('gives consecutive ids: person id = eventId / 50 + 1000, three new auction ids per 50 events', () => {
    for (const { id, p } of persons) expect(p[0]).toBe(Math.trunc(id / 50) + 1000);
    expect(auctions.map(({ a }) => a[0])).toEqual(Array.from({ length: auctions.length }, (_, i) => 1001 + i));
  });

  it('keeps the proportions exactly over 50,000 events: 1 : 3 : 46', () => {
    expect([persons.length, auctions.length, bids.length]).toEqual([1000, 3000, 46000]);
  });

  it('follows other proportions', () => {
    const rows = eventsWithIds(generatorFor({ 'person.proportion': '2', 'auction.proportion': '3', 'bid.proportion': '5' }), 1000);
    const counts = [0, 1, 2].map((kind) => rows.filter((e) => e.row[0] === kind).length);
    expect(counts).toEqual([200, 300, 500]);
  });
});

describe('nexmark timestamps (§4)', () => {
  it("puts events 1/rate apart from Beam's base time: 'first-event.rate' = 1000 gives 1 ms", () => {
    const generator = generatorFor({ 'first-event.rate': '1000' });
    const times = Array.from({ length: 5 }, (_, k) => generator.timestampOf(k) - DEFAULT_BASE_TIME);
    expect(times).toEqual([1, 2, 3, 4, 5]);
    expect(DEFAULT_BASE_TIME).toBe(Date.parse('2015-07-15T00:00:00Z'));
  });

  it('truncates like Java at the default rate: 10 events per millisecond', () => {
    const generator = generatorFor();
    const times = Array.from({ length: 21 }, (_, k) => generator.timestampOf(k) - DEFAULT_BASE_TIME);
    expect(times).toEqual([...new Array(9).fill(0), ...new Array(10).fill(1), 2, 2]);
    expect(generator.timestampOf(49_999) - DEFAULT_BASE_TIME).toBe(5000);
  });

  it('stamps each event row with its event time', () => {
    const generator = generatorFor({ 'first-event.rate': '1000', 'base-time': '2024-01-02T03:04:05Z' });
    const base = Date.parse('2024-01-02T03:04:05Z');
    eventsWithIds(generator, 60).forEach(({ row }, k) => {
      const kind = row[0] as number;
      const time = (row[kind + 1] as Row)[kind === 0 ? 6 : 5];
      expect(time).toBe(base + k + 1);
    });
  });

  it('lets an auction live about as long as the next 100 auctions take to appear (1–334 ms at 10,000/s)', () => {
    const lives = auctions.map(({ a }) => (a[6] as number) - (a[5] as number));
    expect(Math.min(...lives)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...lives)).toBeLessThanOrEqual(334);
    expect(mean(lives)).toBeGreaterThan(150);
    expect(mean(lives)).toBeLessThan(185);
  });
});

describe('nexmark values (§5–§8)', () => {
  it('makes 50% of bids go to the hot auction and 75% come from the hot bidder', () => {
    const hotAuction = bids.filter(({ id, b }) => b[0] === Math.trunc(lastBase0AuctionId(DEFAULT, id) / 100) * 100 + 1000).length;
    const hotBidder = bids.filter(({ id, b }) => b[1] === Math.trunc(lastBase0PersonId(DEFAULT, id) / 100) * 100 + 1 + 2000).length;
    expect(fraction(hotAuction, bids.length)).toBeGreaterThan(0.48);
    expect(fraction(hotAuction, bids.length)).toBeLessThan(0.56);
    expect(fraction(hotBidder, bids.length)).toBeGreaterThan(0.73);
    expect(fraction(hotBidder, bids.length)).toBeLessThan(0.78);
  });

  it('makes 75% of auctions be sold by the hot seller', () => {
    const hot = auctions.filter(({ id, a }) => a[7] === Math.trunc(lastBase0PersonId(DEFAULT, id) / 100) * 100 + 1000).length;
    expect(fraction(hot, auctions.length)).toBeGreaterThan(0.7);
    expect(fraction(hot, auctions.length)).toBeLessThan(0.8);
  });

  it('follows the hot ratio options', () => {
    const rows = eventsWithIds(generatorFor({ 'bid.hot-ratio.auctions': '1', 'bid.hot-ratio.bidders': '1' }), 5000).filter((e) => e.row[0] === 2);
    const hot = rows.filter(({ id, row }) => (row[3] as Row)[0] === Math.trunc(lastBase0AuctionId(DEFAULT, id) / 100) * 100 + 1000).length;
    expect(fraction(hot, rows.length)).toBeLessThan(0.05);
  });

  it('references recent auctions and persons, with leads of at most 10', () => {
    const outside = bids.filter(({ id, b }) => {
      const lastAuction = lastBase0AuctionId(DEFAULT, id) + 1000;
      const lastPerson = lastBase0PersonId(DEFAULT, id) + 2000;
      const auction = b[0] as number;
      const bidder = b[1] as number;
      return auction < Math.max(lastAuction - 100, 1000) || auction > lastAuction + 10 || bidder < Math.max(lastPerson - 999, 2000) || bidder > lastPerson + 10;
    });
    expect(outside).toEqual([]);
  });

  it('adds FIRST_PERSON_ID to bidders twice by default, as Flink does, and once without the bug', () => {
    const fixed = eventsWithIds(generatorFor({ 'bid.bidder-offset-bug': 'false' }), 500);
    sample.slice(0, 500).forEach(({ row }, k) => {
      if (row[0] !== 2) return expect(fixed[k]!.row).toEqual(row);
      const bid = row[3] as Row;
      expect(fixed[k]!.row[3]).toEqual([bid[0], (bid[1] as number) - 1000, ...bid.slice(2)]);
    });
  });

  it('draws prices log-uniformly from [100, 10^8]: a third each below 10^4, below 10^6 and above', () => {
    const prices = bids.map(({ b }) => b[2] as number);
    expect(prices.every((p) => Number.isInteger(p) && p >= 100 && p <= 100_000_000)).toBe(true);
    for (const [low, high] of [[0, 1e4], [1e4, 1e6], [1e6, Infinity]] as const) {
      const share = fraction(prices.filter((p) => p >= low && p < high).length, prices.length);
      expect(share).toBeGreaterThan(0.31);
      expect(share).toBeLessThan(0.36);
    }
    for (const { a } of auctions) expect(a[4] as number).toBeGreaterThanOrEqual((a[3] as number) + 100);
  });

  it('draws categories 10 to 14', () => {
    const categories = auctions.map(({ a }) => a[8] as number);
    expect(new Set(categories)).toEqual(new Set([10, 11, 12, 13, 14]));
  });

  it('pads events to their average sizes with extra', () => {
    const bidExtra = bids.map(({ b }) => (b[6] as string).length);
    expect(Math.min(...bidExtra)).toBe(54);
    expect(Math.max(...bidExtra)).toBe(81);
    expect(mean(bidExtra)).toBeCloseTo(67.5, 0);
    const personSize = persons.map(({ p }) => 8 + [1, 2, 3, 4, 5, 7].reduce((s, i) => s + (p[i] as string).length, 0));
    expect(mean(personSize)).toBeGreaterThan(195);
    expect(mean(personSize)).toBeLessThan(202);
    const auctionSize = auctions.map(({ a }) => 48 + [1, 2, 9].reduce((s, i) => s + (a[i] as string).length, 0));
    expect(mean(auctionSize)).toBeGreaterThan(495);
    expect(mean(auctionSize)).toBeLessThan(502);
    const small = eventsWithIds(generatorFor({ 'bid.avg-size': '20b', 'auction.avg-size': '1kb' }), 100);
    expect(small.filter((e) => e.row[0] === 2).every((e) => (e.row[3] as Row)[6] === '')).toBe(true);
    expect(mean(small.filter((e) => e.row[0] === 1).map((e) => ((e.row[2] as Row)[9] as string).length))).toBeGreaterThan(800);
  });

  it("fills extra from the POOL's characters 'H'..'z', as Java's signed arithmetic does", () => {
    const text = bids.slice(0, 2000).map(({ b }) => b[6] as string).join('');
    expect(text).toMatch(/^[H-z]+$/);
    expect(new Set(text).size).toBe(0x7a - 0x48 + 1);
  });

  it('draws an extra of half of POOL or more character by character', () => {
    const generator = generatorFor({ 'auction.avg-size': '1mb' });
    const extra = (generator.eventAt(0)[2] as Row)[9] as string;
    expect(extra.length).toBeGreaterThan(512 * 1024);
    expect(extra.length).toBeLessThan(1.2 * 1024 * 1024);
    expect(extra).toMatch(/^[H-z]+$/);
    expect((generatorFor({ 'auction.avg-size': '1mb' }).eventAt(0)[2] as Row)[9]).toBe(extra);
  });

  it('generates persons from the fixed lists', () => {
    for (const { p } of persons) {
      const [first, last] = (p[1] as string).split(' ');
      expect(FIRST_NAMES).toContain(first);
      expect(LAST_NAMES).toContain(last);
      expect(p[2]).toMatch(/^[a-z ]*@[a-z ]*\.com$/);
      expect(p[2]).not.toMatch(/^ |@ | @|\s\.com$/);
      expect(p[3]).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
      expect(US_CITIES).toContain(p[4]);
      expect(US_STATES).toContain(p[5]);
    }
    const states = persons.map(({ p }) => p[5]);
    expect(fraction(states.filter((s) => s === 'OR' || s === 'ID' || s === 'CA').length, states.length)).toBeCloseTo(0.5, 1);
  });

  it('generates auction names of up to 19 and descriptions of up to 99 characters', () => {
    for (const { a } of auctions) {
      expect(a[1]).toMatch(/^[a-z](?:[a-z ]{0,17}[a-z])?$|^$/);
      expect((a[2] as string).length).toBeLessThanOrEqual(99);
    }
  });

  it('picks a hot channel for half of the bids, else a cached channel with a stable URL', () => {
    const hot = bids.filter(({ b }) => HOT_CHANNELS.includes(b[3] as string));
    expect(fraction(hot.length, bids.length)).toBeGreaterThan(0.48);
    expect(fraction(hot.length, bids.length)).toBeLessThan(0.52);
    const urls = new Map<string, string>();
    const wrong: string[] = [];
    for (const { b } of bids) {
      const [channel, url] = [b[3] as string, b[4] as string];
      if (!/^(Google|Facebook|Baidu|Apple|channel-\d{1,4})$/.test(channel)) wrong.push(channel);
      if (!/^https:\/\/www\.nexmark\.com\/[a-z_]{3,4}\/[a-z_]{3,4}\/[a-z_]{3,4}\/item\.htm\?query=1(&channel_id=-?\d+)?$/.test(url)) wrong.push(url);
      if ((urls.get(channel) ?? url) !== url) wrong.push(`${channel} has two URLs`);
      urls.set(channel, url);
      const id = /channel_id=(-?\d+)$/.exec(url)?.[1];
      if (id !== undefined && Number(id) !== javaAbs(reverseBits32(Number(channel.slice('channel-'.length))))) wrong.push(url);
    }
    expect(wrong).toEqual([]);
    const cached = [...urls].filter(([channel]) => channel.startsWith('channel-'));
    expect(fraction(cached.filter(([, url]) => url.includes('&channel_id=')).length, cached.length)).toBeGreaterThan(0.85);
  });

  it('builds the channel cache of every channel, with the URL drawn for it', () => {
    const tables = stringTables(0);
    expect(tables.pool).toHaveLength(POOL_LENGTH);
    expect(tables.channels).toEqual(Array.from({ length: CHANNELS_NUMBER }, (_, i) => `channel-${i}`));
    const wrong = [...tables.hotUrls, ...tables.channelUrls].filter((url) => !/^https:\/\/www\.nexmark\.com\/[a-z_]{3,4}\/[a-z_]{3,4}\/[a-z_]{3,4}\/item\.htm\?query=1(&channel_id=-?\d+)?$/.test(url));
    expect(wrong).toEqual([]);
    const ids = tables.channelUrls.map((url, i) => [/channel_id=(-?\d+)$/.exec(url)?.[1], i] as const).filter(([id]) => id !== undefined);
    expect(ids.filter(([id, i]) => Number(id) !== javaAbs(reverseBits32(i)))).toEqual([]);
    expect(tables.channelUrls[1]).toBe('https://www.nexmark.com/uckv/hlb/gaht/item.htm?query=1&channel_id=-2147483648');
    // The tables of seed 0 as first published: a change here changes every generated event.
    const digest = createHash('sha256').update(tables.pool).update(tables.hotUrls.join('\n')).update(tables.channelUrls.join('\n')).digest('hex');
    expect(digest.slice(0, 16)).toBe('a96fe8c92cecaf46');
  });

  it("reverses bits like Java's Integer.reverse", () => {
    expect([0, 1, 2, 3, 0x80000000, -1].map(reverseBits32)).toEqual([0, -2147483648, 0x40000000, -1073741824, 1, -1]);
  });
});

describe('nexmark determinism (§9)', () => {
  it('generates identical rows for the same seed, also out of order', () => {
    const again = generatorFor();
    expect(eventsWithIds(again, 2000)).toEqual(sample.slice(0, 2000));
    expect(again.eventAt(12_345)).toEqual(sample[12_345]!.row);
  });

  it('keeps ids, kinds and times but changes values with another seed', () => {
    const other = eventsWithIds(generatorFor({ seed: '42' }), 2000);
    other.forEach(({ id, row }, k) => {
      expect(id).toBe(sample[k]!.id);
      expect(row[0]).toBe(sample[k]!.row[0]);
    });
    const otherBids = other.filter((e) => e.row[0] === 2).map((e) => e.row[3] as Row);
    const sameBids = bids.slice(0, otherBids.length).map(({ b }) => b);
    otherBids.forEach((b, i) => expect(b[5]).toBe(sameBids[i]![5]));
    const samePrice = otherBids.filter((b, i) => b[2] === sameBids[i]![2]).length;
    expect(samePrice).toBeLessThan(otherBids.length / 50);
    expect(otherBids.filter((b, i) => b[6] === sameBids[i]![6]).length).toBe(0);
  });
});

describe('nexmark splits (§2)', () => {
  const config = (options: Record<string, string>) => parseNexmarkOptions(new Map(Object.entries(options)));

  it('gives each subtask its own id range and the remainder to the last, on a shared time line', () => {
    expect(splitOf(config({ 'events.num': '101' }), 0, 2)).toEqual({ firstEventId: 1, maxEvents: 50, interEventDelayUs: 200 });
    expect(splitOf(config({ 'events.num': '101' }), 1, 2)).toEqual({ firstEventId: 51, maxEvents: 51, interEventDelayUs: 200 });
    expect(splitOf(config({ 'events.num': '100', 'stop-at': '31' }), 1, 2)).toMatchObject({ maxEvents: 16 });
    expect(splitOf(config({}), 0, 1)).toEqual({ firstEventId: 1, maxEvents: 368934881474191, interEventDelayUs: 100 });
  });

  it('references only entities of its own split', () => {
    const second = eventsWithIds(generatorFor({ 'events.num': '100000' }, 1, 2), 5000);
    expect(second[0]!.id).toBe(50_002);
    const secondBids = second.filter((e) => e.row[0] === 2).map((e) => e.row[3] as Row);
    expect(Math.min(...secondBids.map((b) => b[0] as number))).toBeGreaterThanOrEqual(lastBase0AuctionId(DEFAULT, 50_002) - 100 + 1000);
  });
});
