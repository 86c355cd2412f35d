/**
 * The strings of the nexmark generator (GENERATOR.md §5, §7, §8): the fixed word lists, the random
 * strings drawn per event, and the tables built once per seed — the 1 MiB POOL that `extra` values
 * are slices of, the four hot URLs and the 10,000 (channel, URL) pairs of the channel cache.
 */
import { NexmarkRandom } from './nexmark-random.js';

/** `PersonGenerator.US_STATES`. */
export const US_STATES: readonly string[] = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'];
/** `PersonGenerator.US_CITIES`. */
export const US_CITIES: readonly string[] = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'];
/** `PersonGenerator.FIRST_NAMES`. */
export const FIRST_NAMES: readonly string[] = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter'];
/** `PersonGenerator.LAST_NAMES`. */
export const LAST_NAMES: readonly string[] = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'];
/** `BidGenerator.HOT_CHANNELS`; hot URL i belongs to hot channel i. */
export const HOT_CHANNELS: readonly string[] = ['Google', 'Facebook', 'Baidu', 'Apple'];
/** `BidGenerator.CHANNELS_NUMBER`: the size of the channel cache. */
export const CHANNELS_NUMBER = 10_000;
/** The length of POOL (`StringsGenerator.REUSABLE_EXTRA_STRING`). */
export const POOL_LENGTH = 1024 * 1024;

/** "First Last" for first name f and last name l at index `f * LAST_NAMES.length + l`. */
export const FULL_NAMES: readonly string[] = FIRST_NAMES.flatMap((first) => LAST_NAMES.map((last) => `${first} ${last}`));

/** `String.format("%04d", i)` for i in [0, 10000): the groups of a credit card number. */
export const CARD_GROUPS: readonly string[] = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'));

const MIN_STRING_LENGTH = 3;
const SPACE = 0x20;
/** One draw decides both "special character?" (1 in 13) and the letter: 13 × 26 outcomes. */
const CHAR_OUTCOMES = 13 * 26;

/** The strings built once per seed. */
export interface StringTables {
  /** 1 MiB of characters in 'H'..'z' (Java's `'a' + rnd % 26` over signed ints); `extra` values are slices of it. */
  readonly pool: string;
  /** `BidGenerator.HOT_URLS`. */
  readonly hotUrls: readonly string[];
  /** Channel names of the channel cache: `channel-<i>`. */
  readonly channels: readonly string[];
  /** URLs of the channel cache; 9 in 10 end with `&channel_id=<abs(Integer.reverse(i))>`. */
  readonly channelUrls: readonly string[];
}

const tablesBySeed = new Map<number, StringTables>();

/** The tables of `seed`, built on first use and kept for the life of the process. */
export function stringTables(seed: number): StringTables {
  let tables = tablesBySeed.get(seed);
  if (tables === undefined) {
    tables = buildTables(NexmarkRandom.forTables(seed));
    tablesBySeed.set(seed, tables);
  }
  return tables;
}

function buildTables(random: NexmarkRandom): StringTables {
  const pool = exactString(random, POOL_LENGTH);
  const hotUrls = HOT_CHANNELS.map(() => baseUrl(random));
  const channels: string[] = [];
  const channelUrls: string[] = [];
  for (let i = 0; i < CHANNELS_NUMBER; i++) {
    const url = baseUrl(random);
    channelUrls.push(random.nextInt(10) > 0 ? `${url}&channel_id=${javaAbs(reverseBits32(i))}` : url);
    channels.push(`channel-${i}`);
  }
  return { pool, hotUrls, channels, channelUrls };
}

function baseUrl(random: NexmarkRandom): string {
  return `https://www.nexmark.com/${nextString(random, 5, '_')}/${nextString(random, 5, '_')}/${nextString(random, 5, '_')}/item.htm?query=1`;
}

/** `Integer.reverse`: the 32 bits in reverse order, as a signed integer. */
export function reverseBits32(value: number): number {
  let v = value | 0;
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
  return ((v >>> 16) | (v << 16)) | 0;
}

/** Java's `Math.abs(int)`, which leaves `Integer.MIN_VALUE` negative. */
function javaAbs(value: number): number {
  return value === -2147483648 ? value : Math.abs(value);
}

const stringBytes = Buffer.alloc(128);

/**
 * `StringsGenerator.nextString`: 3 to `maxLength - 1` characters, each `special` with probability
 * 1/13, else a random letter a–z; surrounding spaces trimmed (only `' '` can produce them).
 * `maxLength` is at most 128.
 */
export function nextString(random: NexmarkRandom, maxLength: number, special: string = ' '): string {
  const length = MIN_STRING_LENGTH + random.nextInt(maxLength - MIN_STRING_LENGTH);
  const specialCode = special.charCodeAt(0);
  for (let i = 0; i < length; i++) {
    const outcome = random.nextInt(CHAR_OUTCOMES);
    stringBytes[i] = outcome < 26 ? specialCode : 0x61 + (outcome % 26);
  }
  let start = 0;
  let end = length;
  while (start < end && stringBytes[start] === SPACE) start++;
  while (end > start && stringBytes[end - 1] === SPACE) end--;
  return stringBytes.toString('latin1', start, end);
}

/**
 * `StringsGenerator.nextExtra`: a string whose length brings `currentSize` to `desiredAverage` on
 * average (uniform in [d − δ, d + δ) with d = desiredAverage − currentSize, δ = round(0.2·d));
 * empty when `currentSize` already exceeds it.
 */
export function nextExtra(random: NexmarkRandom, pool: string, currentSize: number, desiredAverage: number): string {
  if (currentSize > desiredAverage) return '';
  const desired = desiredAverage - currentSize;
  const delta = Math.round(desired * 0.2);
  const size = desired - delta + (delta === 0 ? 0 : random.nextInt(2 * delta));
  return nextExactString(random, pool, size);
}

/** `StringsGenerator.nextExactString`: a slice of POOL, or freshly drawn characters when `length` is half of POOL or more. */
function nextExactString(random: NexmarkRandom, pool: string, length: number): string {
  if (length < POOL_LENGTH / 2) {
    const offset = random.nextInt(POOL_LENGTH - length);
    return pool.substring(offset, offset + length);
  }
  return exactString(random, length);
}

/** `length` characters, six per 32-bit draw: `'a' + rnd % 26`, then `rnd /= 26`, with Java's truncating signed arithmetic. */
function exactString(random: NexmarkRandom, length: number): string {
  const bytes = Buffer.allocUnsafe(length);
  let rnd = 0;
  let left = 0;
  for (let i = 0; i < length; i++) {
    if (left === 0) {
      rnd = random.nextInt32();
      left = 6;
    }
    bytes[i] = 0x61 + (rnd % 26);
    rnd = (rnd / 26) | 0;
    left--;
  }
  return bytes.toString('latin1');
}
