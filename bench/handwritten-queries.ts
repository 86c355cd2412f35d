/**
 * Hand-written TypeScript implementations of Nexmark queries: plain loops over the source's
 * event rows, Maps for state, emitting the same changelog as weir (row layouts, row kinds, one
 * -U/+U pair per changed group per batch). They are the practical limit a JavaScript engine can
 * approach; test/bench proves each one's output equal to weir's.
 */
import { RowKind } from '../src/common/row-kind.js';
import type { ChangeBatch, Row } from '../src/common/row.js';
import type { EventBatch } from './nexmark-events.js';

/** A query run by hand over source batches. */
export interface ReferenceQuery {
  /** Processes one source batch (then its watermark), appending the changes it causes to `out`. */
  process(events: EventBatch, out: ChangeBatch): void;
  /** End of input (the final watermark): appends what is left to emit. */
  finish(out: ChangeBatch): void;
}

const PERSON = 0;
const AUCTION = 1;
const BID = 2;
/** `WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND`. */
const WATERMARK_DELAY = 4000;
/** The bid row's `dateTime` (person 6, auction 5, bid 5). */
const BID_TIME = 5;
const AUCTION_TIME = 5;
const PERSON_TIME = 6;

/** The watermark after a batch: its latest event time minus the delay. */
function watermarkAfter(events: EventBatch): number {
  let max = -Infinity;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const kind = event[0] as number;
    const time = (kind === BID ? (event[3] as Row)[BID_TIME] : kind === AUCTION ? (event[2] as Row)[AUCTION_TIME] : (event[1] as Row)[PERSON_TIME]) as number;
    if (time > max) max = time;
  }
  return max - WATERMARK_DELAY;
}

/** A stateless query: `map` returns the output row of a bid, or undefined to drop it. */
function bidMap(map: (bid: Row) => Row | undefined): () => ReferenceQuery {
  return () => ({
    process(events, out) {
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if (event[0] !== BID) continue;
        const row = map(event[3] as Row);
        if (row !== undefined) out.push(RowKind.INSERT, row);
      }
    },
    finish() {},
  });
}

/** q3: auctions of category 10 joined with their sellers in OR, ID or CA, both sides kept forever. */
class Q3 implements ReferenceQuery {
  private readonly persons = new Map<number, Row[]>();
  private readonly auctions = new Map<number, number[]>();

  process(events: EventBatch, out: ChangeBatch): void {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const kind = event[0];
      if (kind === AUCTION) {
        const a = event[2] as Row;
        if (a[8] !== 10) continue;
        const seller = a[7] as number;
        const id = a[0] as number;
        const list = this.auctions.get(seller);
        if (list === undefined) this.auctions.set(seller, [id]);
        else list.push(id);
        const sellers = this.persons.get(seller);
        if (sellers !== undefined) for (const p of sellers) out.push(RowKind.INSERT, [p[1], p[4], p[5], id]);
      } else if (kind === PERSON) {
        const p = event[1] as Row;
        const state = p[5];
        if (state !== 'OR' && state !== 'ID' && state !== 'CA') continue;
        const id = p[0] as number;
        const list = this.persons.get(id);
        if (list === undefined) this.persons.set(id, [p]);
        else list.push(p);
        const sold = this.auctions.get(id);
        if (sold !== undefined) for (const a of sold) out.push(RowKind.INSERT, [p[1], p[4], p[5], a]);
      }
    }
  }

  finish(): void {}
}

/** q5: bids per auction in HOP(2 s, 10 s) windows; when a window closes, the auctions with its highest count. */
class Q5 implements ReferenceQuery {
  private readonly windows = new Map<number, Map<number, number>>();

  process(events: EventBatch, out: ChangeBatch): void {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event[0] !== BID) continue;
      const bid = event[3] as Row;
      const time = bid[BID_TIME] as number;
      const auction = bid[0] as number;
      for (let start = time - mod(time, 2000); start > time - 10_000; start -= 2000) {
        let counts = this.windows.get(start);
        if (counts === undefined) this.windows.set(start, (counts = new Map()));
        counts.set(auction, (counts.get(auction) ?? 0) + 1);
      }
    }
    this.fire(watermarkAfter(events), out);
  }

  finish(out: ChangeBatch): void {
    this.fire(Infinity, out);
  }

  private fire(watermark: number, out: ChangeBatch): void {
    for (const [start, counts] of this.windows) {
      if (start + 10_000 - 1 > watermark) continue;
      let max = 0;
      for (const n of counts.values()) if (n > max) max = n;
      for (const [auction, n] of counts) if (n >= max) out.push(RowKind.INSERT, [auction, n]);
      this.windows.delete(start);
    }
  }
}

/** q7: the bids at the highest price of their TUMBLE(10 s) window, joined on price and a 10 s range; bids kept forever. */
class Q7 implements ReferenceQuery {
  private readonly maxima = new Map<number, number>();
  private readonly bidsByPrice = new Map<number, Row[]>();
  private readonly windowEndsByPrice = new Map<number, number[]>();

  process(events: EventBatch, out: ChangeBatch): void {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event[0] !== BID) continue;
      const bid = event[3] as Row;
      const time = bid[BID_TIME] as number;
      const price = bid[2] as number;
      const start = time - mod(time, 10_000);
      const max = this.maxima.get(start);
      if (max === undefined || price > max) this.maxima.set(start, price);
      const same = this.bidsByPrice.get(price);
      if (same === undefined) this.bidsByPrice.set(price, [bid]);
      else same.push(bid);
      const ends = this.windowEndsByPrice.get(price);
      if (ends !== undefined) for (const end of ends) if (time >= end - 10_000 && time <= end) out.push(RowKind.INSERT, q7Row(bid));
    }
    this.fire(watermarkAfter(events), out);
  }

  finish(out: ChangeBatch): void {
    this.fire(Infinity, out);
  }

  private fire(watermark: number, out: ChangeBatch): void {
    for (const [start, price] of this.maxima) {
      const end = start + 10_000;
      if (end - 1 > watermark) continue;
      this.maxima.delete(start);
      const ends = this.windowEndsByPrice.get(price);
      if (ends === undefined) this.windowEndsByPrice.set(price, [end]);
      else ends.push(end);
      for (const bid of this.bidsByPrice.get(price) ?? []) {
        const time = bid[BID_TIME] as number;
        if (time >= end - 10_000 && time <= end) out.push(RowKind.INSERT, q7Row(bid));
      }
    }
  }
}

/** q7 selects `auction, price, bidder, dateTime, extra`. */
function q7Row(bid: Row): Row {
  return [bid[0], bid[2], bid[1], bid[5], bid[6]];
}

/** q8: persons who created an auction in the TUMBLE(10 s) window they registered in. */
class Q8 implements ReferenceQuery {
  private readonly persons = new Map<number, Map<number, string>>();
  private readonly sellers = new Map<number, Set<number>>();

  process(events: EventBatch, out: ChangeBatch): void {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const kind = event[0];
      if (kind === PERSON) {
        const p = event[1] as Row;
        const time = p[PERSON_TIME] as number;
        const start = time - mod(time, 10_000);
        let window = this.persons.get(start);
        if (window === undefined) this.persons.set(start, (window = new Map()));
        window.set(p[0] as number, p[1] as string);
      } else if (kind === AUCTION) {
        const a = event[2] as Row;
        const time = a[AUCTION_TIME] as number;
        const start = time - mod(time, 10_000);
        let window = this.sellers.get(start);
        if (window === undefined) this.sellers.set(start, (window = new Set()));
        window.add(a[7] as number);
      }
    }
    this.fire(watermarkAfter(events), out);
  }

  finish(out: ChangeBatch): void {
    this.fire(Infinity, out);
  }

  private fire(watermark: number, out: ChangeBatch): void {
    for (const [start, persons] of this.persons) {
      if (start + 10_000 - 1 > watermark) continue;
      const sellers = this.sellers.get(start);
      if (sellers !== undefined) for (const [id, name] of persons) if (sellers.has(id)) out.push(RowKind.INSERT, [id, name, start]);
      this.persons.delete(start);
    }
    for (const start of this.sellers.keys()) if (start + 10_000 - 1 <= watermark) this.sellers.delete(start);
  }
}

/** A group of {@link GroupBy}: its count and sum, and what they were before the current batch. */
interface CountSum {
  count: number;
  sum: number;
  stamp: number;
  prevCount: number;
  prevSum: number;
}

/** `GROUP BY auction COUNT(*), SUM(price)`: per batch, +I for a new group and -U/+U for a changed one. */
class GroupBy implements ReferenceQuery {
  private readonly groups = new Map<number, CountSum>();
  private readonly touched: CountSum[] = [];
  private readonly keys: number[] = [];
  private batch = 0;

  process(events: EventBatch, out: ChangeBatch): void {
    const stamp = this.batch++;
    const touched = this.touched;
    const keys = this.keys;
    touched.length = 0;
    keys.length = 0;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event[0] !== BID) continue;
      const bid = event[3] as Row;
      const key = bid[0] as number;
      let group = this.groups.get(key);
      if (group === undefined) this.groups.set(key, (group = { count: 0, sum: 0, stamp: -1, prevCount: 0, prevSum: 0 }));
      if (group.stamp !== stamp) {
        group.stamp = stamp;
        group.prevCount = group.count;
        group.prevSum = group.sum;
        touched.push(group);
        keys.push(key);
      }
      group.count++;
      group.sum += bid[2] as number;
    }
    for (let i = 0; i < touched.length; i++) {
      const group = touched[i]!;
      const key = keys[i]!;
      if (group.prevCount === 0) out.push(RowKind.INSERT, [key, group.count, group.sum]);
      else {
        out.push(RowKind.UPDATE_BEFORE, [key, group.prevCount, group.prevSum]);
        out.push(RowKind.UPDATE_AFTER, [key, group.count, group.sum]);
      }
    }
  }

  finish(): void {}
}

function mod(n: number, m: number): number {
  return ((n % m) + m) % m;
}

/** The hand-written queries by name. */
export const HANDWRITTEN_QUERIES: Readonly<Record<string, () => ReferenceQuery>> = {
  q0: bidMap((b) => [b[0], b[1], b[2], b[5], b[6]]),
  q1: bidMap((b) => [b[0], b[1], BigInt(b[2] as number) * 908n, b[5], b[6]]),
  q2: bidMap((b) => ((b[0] as number) % 123 === 0 ? [b[0], b[2]] : undefined)),
  q3: () => new Q3(),
  q5: () => new Q5(),
  q7: () => new Q7(),
  q8: () => new Q8(),
  groupby: () => new GroupBy(),
};
