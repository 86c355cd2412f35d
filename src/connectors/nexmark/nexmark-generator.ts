/**
 * The nexmark event generator (GENERATOR.md §2–§8): the event a split emits after `k` events is a
 * pure function of (options, split, base time, k). Ids, kinds and timestamps follow Flink's
 * arithmetic exactly; field values are drawn from a stream seeded by (seed, event id) in the draw
 * order of Flink's generators, so they have Flink's distributions and are reproducible.
 */
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch, Row } from '../../common/row.js';
import type { NexmarkConfig } from './nexmark-options.js';
import { NexmarkRandom } from './nexmark-random.js';
import {
  CARD_GROUPS,
  CHANNELS_NUMBER,
  FIRST_NAMES,
  FULL_NAMES,
  HOT_CHANNELS,
  LAST_NAMES,
  nextExtra,
  nextString,
  stringTables,
  US_CITIES,
  US_STATES,
  type StringTables,
} from './nexmark-strings.js';

/** `GeneratorConfig.FIRST_PERSON_ID`. */
export const FIRST_PERSON_ID = 1000;
/** `GeneratorConfig.FIRST_AUCTION_ID`. */
export const FIRST_AUCTION_ID = 1000;
/** `GeneratorConfig.FIRST_CATEGORY_ID`. */
export const FIRST_CATEGORY_ID = 10;
/** `event_type` of a person. */
export const PERSON = 0;
/** `event_type` of an auction. */
export const AUCTION = 1;
/** `event_type` of a bid. */
export const BID = 2;

const PERSON_ID_LEAD = 10;
const AUCTION_ID_LEAD = 10;
const NUM_CATEGORIES = 5;
const HOT_SELLER_RATIO = 100;
const HOT_AUCTION_RATIO = 100;
const HOT_BIDDER_RATIO = 100;
const HOT_CHANNELS_RATIO = 2;
const NUM_ACTIVE_PEOPLE = 1000;
const NUM_IN_FLIGHT_AUCTIONS = 100;
const CARD_LENGTH = 19;
/** The sizes Flink counts for the fields of an event other than its strings (8 bytes per number or time). */
const PERSON_FIXED_SIZE = 8;
const AUCTION_FIXED_SIZE = 8 + 5 * 8;
const BID_FIXED_SIZE = 4 * 8;
/** `ln(10) · 6`: `10^(6u) = e^(u · PRICE_EXPONENT)`. */
const PRICE_EXPONENT = 6 * Math.LN10;
/** Flink's "unbounded" is `Long.MAX_VALUE / (totalProportion × max avg size)`; weir caps it so that ids stay exact. */
const MAX_UNBOUNDED_EVENTS = 2 ** 50;

/** What one generator instance (one subtask) produces: `GeneratorConfig` after `split`. */
export interface NexmarkSplit {
  /** Added to the event number to give the event id; splits have disjoint id ranges. */
  readonly firstEventId: number;
  /** How many events the split emits (its share of `events.num`, cut at its share of `stop-at`). */
  readonly maxEvents: number;
  /** Microseconds of event time between two events of this split: `1e6 / rate × parallelism`. */
  readonly interEventDelayUs: number;
}

/**
 * The share of subtask `subtask` of `parallelism` (`GeneratorConfig.split`): each split gets
 * `maxEvents / parallelism` events (the last one the remainder) and its own id range, and all run
 * on the same time line, so that together they keep `first-event.rate`.
 */
export function splitOf(config: NexmarkConfig, subtask: number, parallelism: number): NexmarkSplit {
  const total = config.eventsNum > 0 ? config.eventsNum : unboundedEvents(config);
  const share = Math.trunc(total / parallelism);
  const last = subtask === parallelism - 1;
  const events = last ? total - share * (parallelism - 1) : share;
  let maxEvents = events;
  if (config.stopAt >= 0) {
    const stopShare = Math.trunc(config.stopAt / parallelism);
    maxEvents = Math.min(events, last ? config.stopAt - stopShare * (parallelism - 1) : stopShare);
  }
  return { firstEventId: 1 + subtask * share, maxEvents, interEventDelayUs: (1_000_000 / config.firstEventRate) * parallelism };
}

function unboundedEvents(config: NexmarkConfig): number {
  const total = config.personProportion + config.auctionProportion + config.bidProportion;
  const size = Math.max(config.avgPersonSize, config.avgAuctionSize, config.avgBidSize, 1);
  const events = (2n ** 63n - 1n) / BigInt(total * size);
  return events > BigInt(MAX_UNBOUNDED_EVENTS) ? MAX_UNBOUNDED_EVENTS : Number(events);
}

/** Per-table proportions, the arithmetic of `lastBase0PersonId` / `lastBase0AuctionId`. */
export interface Proportions {
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
}

/** The last person id (base 0) created at or before `eventId` (`PersonGenerator.lastBase0PersonId`). */
export function lastBase0PersonId(p: Proportions, eventId: number): number {
  const total = p.personProportion + p.auctionProportion + p.bidProportion;
  const epoch = Math.trunc(eventId / total);
  let offset = eventId % total;
  if (offset >= p.personProportion) offset = p.personProportion - 1;
  return epoch * p.personProportion + offset;
}

/** The last auction id (base 0) created at or before `eventId` (`AuctionGenerator.lastBase0AuctionId`). */
export function lastBase0AuctionId(p: Proportions, eventId: number): number {
  const total = p.personProportion + p.auctionProportion + p.bidProportion;
  let epoch = Math.trunc(eventId / total);
  let offset = eventId % total;
  if (offset < p.personProportion) {
    epoch--;
    offset = p.auctionProportion - 1;
  } else if (offset >= p.personProportion + p.auctionProportion) {
    offset = p.auctionProportion - 1;
  } else {
    offset -= p.personProportion;
  }
  return epoch * p.auctionProportion + offset;
}

/**
 * Generates the events of one split. `k` counts the events the split has emitted before: the
 * event's number is `1 + k`, its id `firstEventId + 1 + k`, its kind `id mod total proportion`,
 * its time `baseTime + trunc(trunc(number × delayUs) / 1000)`.
 */
export class NexmarkGenerator {
  readonly #random: NexmarkRandom;
  readonly #seed: number;
  #tables: StringTables | undefined;
  readonly #firstEventId: number;
  readonly #delayUs: number;
  readonly #baseTime: number;
  readonly #proportions: Proportions;
  readonly #person: number;
  readonly #auction: number;
  readonly #total: number;
  readonly #hotAuctionRatio: number;
  readonly #hotSellersRatio: number;
  readonly #hotBiddersRatio: number;
  readonly #avgPersonSize: number;
  readonly #avgAuctionSize: number;
  readonly #bidderOffset: number;
  readonly #eventsForAuctions: number;
  readonly #avgBidSize: number;

  constructor(config: NexmarkConfig, split: NexmarkSplit, baseTime: number) {
    this.#random = NexmarkRandom.forEvents(config.seed);
    this.#seed = config.seed;
    this.#firstEventId = split.firstEventId;
    this.#delayUs = split.interEventDelayUs;
    this.#baseTime = baseTime;
    this.#proportions = { personProportion: config.personProportion, auctionProportion: config.auctionProportion, bidProportion: config.bidProportion };
    this.#person = config.personProportion;
    this.#auction = config.auctionProportion;
    this.#total = config.personProportion + config.auctionProportion + config.bidProportion;
    this.#hotAuctionRatio = config.hotAuctionRatio;
    this.#hotSellersRatio = config.hotSellersRatio;
    this.#hotBiddersRatio = config.hotBiddersRatio;
    this.#avgPersonSize = config.avgPersonSize;
    this.#avgAuctionSize = config.avgAuctionSize;
    this.#avgBidSize = config.avgBidSize;
    this.#bidderOffset = config.bidderOffsetBug ? 2 * FIRST_PERSON_ID : FIRST_PERSON_ID;
    this.#eventsForAuctions = config.auctionProportion === 0 ? 0 : Math.trunc((NUM_IN_FLIGHT_AUCTIONS * this.#total) / config.auctionProportion);
  }

  /** The event time of the event emitted after `k` others (`timestampForEvent(1 + k)`). */
  timestampOf(k: number): number {
    return this.#baseTime + Math.trunc(Math.trunc((1 + k) * this.#delayUs) / 1000);
  }

  /** The id of the event emitted after `k` others. */
  eventIdOf(k: number): number {
    return this.#firstEventId + 1 + k;
  }

  /** The row `[event_type, person, auction, bid]` of the event emitted after `k` others. */
  eventAt(k: number): Row {
    const eventId = this.#firstEventId + 1 + k;
    const timestamp = this.timestampOf(k);
    this.#random.reset(eventId);
    const rem = eventId % this.#total;
    if (rem < this.#person) return [PERSON, this.#nextPerson(eventId, timestamp), null, null];
    if (rem < this.#person + this.#auction) return [AUCTION, null, this.#nextAuction(k, eventId, timestamp), null];
    return [BID, null, null, this.#nextBid(eventId, timestamp)];
  }

  /** Appends the events `k`, `k + 1`, ... `k + count - 1` as inserts. */
  fill(output: ChangeBatch, k: number, count: number): void {
    const end = k + count;
    for (let i = k; i < end; i++) output.push(RowKind.INSERT, this.eventAt(i));
  }

  /**
   * The seed's string tables, built by the first event that needs them rather than when the reader
   * opens: building them is generating events, and is timed as such.
   */
  #strings(): StringTables {
    return (this.#tables ??= stringTables(this.#seed));
  }

  #lastPerson(eventId: number): number {
    return lastBase0PersonId(this.#proportions, eventId);
  }

  #lastAuction(eventId: number): number {
    return lastBase0AuctionId(this.#proportions, eventId);
  }

  /** `PersonGenerator.nextBase0PersonId`: one of the last 1000 persons, or up to 10 not yet created. */
  #randomPerson(eventId: number): number {
    const numPeople = this.#lastPerson(eventId) + 1;
    const active = Math.min(numPeople, NUM_ACTIVE_PEOPLE);
    return numPeople - active + this.#random.nextLong(active + PERSON_ID_LEAD);
  }

  /** `AuctionGenerator.nextBase0AuctionId`: one of the last 100 auctions, or up to 10 not yet created. */
  #randomAuction(eventId: number): number {
    const max = this.#lastAuction(eventId);
    const min = Math.max(max - NUM_IN_FLIGHT_AUCTIONS, 0);
    return min + this.#random.nextLong(max - min + 1 + AUCTION_ID_LEAD);
  }

  /** `PriceGenerator.nextPrice`: log-uniform in [100, 100,000,000]. */
  #nextPrice(): number {
    return Math.round(Math.exp(this.#random.nextDouble() * PRICE_EXPONENT) * 100);
  }

  /** Four groups of four digits separated by spaces. */
  #nextCreditCard(): string {
    const random = this.#random;
    const n = CARD_GROUPS.length;
    return `${CARD_GROUPS[random.nextInt(n)]} ${CARD_GROUPS[random.nextInt(n)]} ${CARD_GROUPS[random.nextInt(n)]} ${CARD_GROUPS[random.nextInt(n)]}`;
  }

  #nextPerson(eventId: number, timestamp: number): Row {
    const random = this.#random;
    const first = random.nextInt(FIRST_NAMES.length);
    const name = FULL_NAMES[first * LAST_NAMES.length + random.nextInt(LAST_NAMES.length)]!;
    const email = `${nextString(random, 7)}@${nextString(random, 5)}.com`;
    const card = this.#nextCreditCard();
    const city = US_CITIES[random.nextInt(US_CITIES.length)]!;
    const state = US_STATES[random.nextInt(US_STATES.length)]!;
    const size = PERSON_FIXED_SIZE + name.length + email.length + CARD_LENGTH + city.length + state.length;
    const extra = nextExtra(random, this.#strings().pool, size, this.#avgPersonSize);
    return [this.#lastPerson(eventId) + FIRST_PERSON_ID, name, email, card, city, state, timestamp, extra];
  }

  #nextAuction(k: number, eventId: number, timestamp: number): Row {
    const random = this.#random;
    const seller =
      (random.nextInt(this.#hotSellersRatio) > 0
        ? Math.trunc(this.#lastPerson(eventId) / HOT_SELLER_RATIO) * HOT_SELLER_RATIO
        : this.#randomPerson(eventId)) + FIRST_PERSON_ID;
    const category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    const initialBid = this.#nextPrice();
    const horizon = this.timestampOf(k + this.#eventsForAuctions) - timestamp;
    const expires = timestamp + 1 + random.nextLong(Math.max(horizon * 2, 1));
    const itemName = nextString(random, 20);
    const description = nextString(random, 100);
    const reserve = initialBid + this.#nextPrice();
    const extra = nextExtra(random, this.#strings().pool, AUCTION_FIXED_SIZE + itemName.length + description.length, this.#avgAuctionSize);
    return [this.#lastAuction(eventId) + FIRST_AUCTION_ID, itemName, description, initialBid, reserve, timestamp, expires, seller, category, extra];
  }

  #nextBid(eventId: number, timestamp: number): Row {
    const random = this.#random;
    const tables = this.#strings();
    const auction =
      (random.nextInt(this.#hotAuctionRatio) > 0
        ? Math.trunc(this.#lastAuction(eventId) / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO
        : this.#randomAuction(eventId)) + FIRST_AUCTION_ID;
    const bidder =
      (random.nextInt(this.#hotBiddersRatio) > 0
        ? Math.trunc(this.#lastPerson(eventId) / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1
        : this.#randomPerson(eventId)) + this.#bidderOffset;
    const price = this.#nextPrice();
    let channel: string;
    let url: string;
    if (random.nextInt(HOT_CHANNELS_RATIO) > 0) {
      const i = random.nextInt(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i]!;
      url = tables.hotUrls[i]!;
    } else {
      const c = random.nextInt(CHANNELS_NUMBER);
      channel = tables.channels[c]!;
      url = tables.channelUrls[c]!;
    }
    const extra = nextExtra(random, tables.pool, BID_FIXED_SIZE, this.#avgBidSize);
    return [auction, bidder, price, channel, url, timestamp, extra];
  }
}
