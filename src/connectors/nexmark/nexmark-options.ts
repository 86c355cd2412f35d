/**
 * The options of the `nexmark` connector (Flink's `NexmarkSourceOptions`, plus weir's `seed`,
 * `base-time` and `bid.bidder-offset-bug`), parsed into a {@link NexmarkConfig}. Every error is a
 * WeirError('INVALID_OPTION') naming the option, so that DDL fails early.
 */
import { parseTimestamp } from '../../common/datetime.js';
import { parseDuration } from '../../common/duration.js';
import { closestName, WeirError } from '../../common/errors.js';

/** Beam's `NexmarkUtils.BASE_TIME`, 2015-07-15T00:00:00Z: the default start of event time. */
export const DEFAULT_BASE_TIME = Date.UTC(2015, 6, 15);
/** The seed used when the `seed` option is absent. */
export const DEFAULT_SEED = 0;

/** A nexmark table's options. Defaults are Flink's (GENERATOR.md §1). */
export interface NexmarkConfig {
  /** Events per second of event time over all subtasks; fixes the spacing of timestamps. */
  readonly firstEventRate: number;
  /** Total events over all subtasks; 0 = unbounded. */
  readonly eventsNum: number;
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
  /** Average sizes in bytes that `extra` pads each event kind to. */
  readonly avgPersonSize: number;
  readonly avgAuctionSize: number;
  readonly avgBidSize: number;
  /** 1 in `ratio` picks are not hot: a bid's auction, an auction's seller, a bid's bidder. */
  readonly hotAuctionRatio: number;
  readonly hotSellersRatio: number;
  readonly hotBiddersRatio: number;
  /** False: emit each event no earlier than its event time, measured from the wall clock at start. */
  readonly maxEmitSpeed: boolean;
  /** True: idle instead of ending once all events are emitted. */
  readonly keepAlive: boolean;
  /** Stop after this many events over all subtasks (Flink's V2 warm-up phase); -1 = no stop. */
  readonly stopAt: number;
  readonly seed: number;
  /** Event time of event number 0, in epoch ms; `'now'` = the wall clock when the source first starts. */
  readonly baseTime: number | 'now';
  /** True (Flink): `bid.bidder` gets FIRST_PERSON_ID twice (nexmark/nexmark#30); false: once, as in Beam. */
  readonly bidderOffsetBug: boolean;
}

/** One option key with its default and meaning, for the descriptor. */
export interface NexmarkOptionInfo {
  readonly key: string;
  readonly default: string;
  readonly description: string;
}

/** Every option the connector accepts, in documentation order. */
export const NEXMARK_OPTIONS: readonly NexmarkOptionInfo[] = [
  { key: 'first-event.rate', default: '10000', description: 'Events per second of event time (the spacing of timestamps), over all subtasks.' },
  { key: 'next-event.rate', default: '10000', description: 'Accepted for compatibility; unused, as in Flink.' },
  { key: 'events.num', default: '0', description: 'Number of events over all subtasks; 0 = unbounded.' },
  { key: 'person.proportion', default: '1', description: 'Persons in each block of person + auction + bid proportion events.' },
  { key: 'auction.proportion', default: '3', description: 'Auctions in each block of events.' },
  { key: 'bid.proportion', default: '46', description: 'Bids in each block of events.' },
  { key: 'person.avg-size', default: '200b', description: 'Average size of a person; `extra` pads it.' },
  { key: 'auction.avg-size', default: '500b', description: 'Average size of an auction; `extra` pads it.' },
  { key: 'bid.avg-size', default: '100b', description: 'Average size of a bid; `extra` pads it.' },
  { key: 'bid.hot-ratio.auctions', default: '2', description: '1 in this many bids is for a random auction, the others for the hot one.' },
  { key: 'auction.hot-ratio.sellers', default: '4', description: '1 in this many auctions has a random seller, the others the hot one.' },
  { key: 'bid.hot-ratio.bidders', default: '4', description: '1 in this many bids has a random bidder, the others the hot one.' },
  { key: 'max-emit-speed', default: 'true', description: 'true: emit as fast as possible; false: no event before its event time (wall clock from the start).' },
  { key: 'keep-alive', default: 'false', description: 'Idle instead of ending after the last event.' },
  { key: 'stop-at', default: '-1', description: 'Stop after this many events (Flink V2 warm-up); -1 = no stop.' },
  { key: 'rate.shape', default: 'SQUARE', description: "Accepted for compatibility ('SQUARE' or 'SINE'); unused, as in Flink." },
  { key: 'rate.period', default: '600 s', description: 'Accepted for compatibility; unused, as in Flink.' },
  { key: 'rate.limited', default: 'false', description: 'Accepted for compatibility; unused, as in Flink.' },
  { key: 'seed', default: String(DEFAULT_SEED), description: 'Seed of the generator: the same seed and options give the same events.' },
  {
    key: 'base-time',
    default: '2015-07-15T00:00:00Z',
    description: "Event time of the start: an ISO instant, or 'now' (the wall clock at the first start, kept in checkpoints).",
  },
  { key: 'bid.bidder-offset-bug', default: 'true', description: 'true: bidder ids are person ids + 1000, as in Flink (nexmark/nexmark#30); false: as in Beam.' },
];

const KNOWN_KEYS = NEXMARK_OPTIONS.map((o) => o.key);
const MAX_AVG_SIZE = 2147483647;
const MEMORY_UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, bytes: 1,
  k: 1024, kb: 1024, kibibytes: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mebibytes: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gibibytes: 1024 ** 3,
};

/** Parses and checks the options of a nexmark table (the `connector` key is ignored). */
export function parseNexmarkOptions(options: ReadonlyMap<string, string>): NexmarkConfig {
  for (const key of options.keys()) {
    if (key !== 'connector' && !KNOWN_KEYS.includes(key)) {
      const guess = closestName(key, KNOWN_KEYS);
      throw invalid(`nexmark does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`} Known options: ${KNOWN_KEYS.join(', ')}`);
    }
  }
  const read = (key: string): string | undefined => options.get(key);
  const integer = (key: string, fallback: number, lowest: number): number => parseInteger(key, read(key), fallback, lowest);

  integer('next-event.rate', 10000, 1);
  rateShape(read('rate.shape'));
  const period = read('rate.period');
  if (period !== undefined) duration('rate.period', period);
  boolean('rate.limited', read('rate.limited'), false);

  const config: NexmarkConfig = {
    firstEventRate: integer('first-event.rate', 10000, 1),
    eventsNum: integer('events.num', 0, 0),
    personProportion: integer('person.proportion', 1, 0),
    auctionProportion: integer('auction.proportion', 3, 0),
    bidProportion: integer('bid.proportion', 46, 0),
    avgPersonSize: memorySize('person.avg-size', read('person.avg-size'), 200),
    avgAuctionSize: memorySize('auction.avg-size', read('auction.avg-size'), 500),
    avgBidSize: memorySize('bid.avg-size', read('bid.avg-size'), 100),
    hotAuctionRatio: integer('bid.hot-ratio.auctions', 2, 1),
    hotSellersRatio: integer('auction.hot-ratio.sellers', 4, 1),
    hotBiddersRatio: integer('bid.hot-ratio.bidders', 4, 1),
    maxEmitSpeed: boolean('max-emit-speed', read('max-emit-speed'), true),
    keepAlive: boolean('keep-alive', read('keep-alive'), false),
    stopAt: integer('stop-at', -1, -1),
    seed: integer('seed', DEFAULT_SEED, Number.MIN_SAFE_INTEGER),
    baseTime: baseTime(read('base-time')),
    bidderOffsetBug: boolean('bid.bidder-offset-bug', read('bid.bidder-offset-bug'), true),
  };
  if (config.personProportion + config.auctionProportion + config.bidProportion === 0) {
    throw invalid("nexmark options 'person.proportion', 'auction.proportion' and 'bid.proportion' must not all be 0");
  }
  return config;
}

/** True when a table with these options ends by itself. */
export function isBounded(config: NexmarkConfig): boolean {
  return !config.keepAlive && (config.eventsNum > 0 || config.stopAt >= 0);
}

function parseInteger(key: string, text: string | undefined, fallback: number, lowest: number): number {
  if (text === undefined) return fallback;
  const value = Number(text.trim());
  if (!/^\s*[+-]?\d+\s*$/.test(text) || !Number.isSafeInteger(value)) throw invalid(`nexmark option '${key}' must be an integer, got '${text}'`);
  if (value < lowest) {
    const what = lowest === 1 ? 'a positive integer' : lowest === 0 ? 'a non-negative integer' : `an integer of at least ${lowest}`;
    throw invalid(`nexmark option '${key}' must be ${what}, got '${text}'`);
  }
  return value;
}

function boolean(key: string, text: string | undefined, fallback: boolean): boolean {
  if (text === undefined) return fallback;
  const lower = text.trim().toLowerCase();
  if (lower !== 'true' && lower !== 'false') throw invalid(`nexmark option '${key}' must be 'true' or 'false', got '${text}'`);
  return lower === 'true';
}

function rateShape(text: string | undefined): void {
  if (text === undefined) return;
  const upper = text.trim().toUpperCase();
  if (upper !== 'SQUARE' && upper !== 'SINE') throw invalid(`nexmark option 'rate.shape' must be 'SQUARE' or 'SINE', got '${text}'`);
}

function duration(key: string, text: string): number {
  try {
    return parseDuration(text, key);
  } catch {
    throw invalid(`nexmark option '${key}' must be a duration such as '600 s' or '10 min', got '${text}'`);
  }
}

/** Flink's MemorySize: a byte count with an optional binary unit (`200`, `200b`, `1 kb`, `2m`). */
function memorySize(key: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const match = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const factor = match === null ? undefined : MEMORY_UNITS[match[2]!.toLowerCase()];
  if (match === null || factor === undefined) throw invalid(`nexmark option '${key}' must be a size in bytes such as '200b' or '1kb', got '${text}'`);
  const value = Number(match[1]) * factor;
  if (value > MAX_AVG_SIZE) throw invalid(`nexmark option '${key}' must be at most ${MAX_AVG_SIZE} bytes, got '${text}'`);
  return value;
}

const ZONE_SUFFIX = /(?:Z|([+-])(\d{2}):?(\d{2}))$/i;

/** `now`, or an ISO instant: `yyyy-MM-dd[(T| )HH:mm[:ss[.fff]]]` with an optional `Z` or `±HH:MM` (UTC when absent). */
function baseTime(text: string | undefined): number | 'now' {
  if (text === undefined) return DEFAULT_BASE_TIME;
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'now') return 'now';
  const zone = ZONE_SUFFIX.exec(trimmed);
  const local = parseTimestamp(zone === null ? trimmed : trimmed.slice(0, zone.index));
  if (local === undefined) throw invalid(`nexmark option 'base-time' must be 'now' or an instant such as '2015-07-15T00:00:00Z', got '${text}'`);
  if (zone === null || zone[1] === undefined) return local;
  const offsetMinutes = Number(zone[2]) * 60 + Number(zone[3]);
  return local - (zone[1] === '-' ? -offsetMinutes : offsetMinutes) * 60_000;
}

function invalid(message: string): WeirError {
  return new WeirError('INVALID_OPTION', message);
}
