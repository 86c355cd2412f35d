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
  const urls = buildUrls(random);
  const channels = Array.from({ length: CHANNELS_NUMBER }, (_, i) => `channel-${i}`);
  return { pool, hotUrls: urls.slice(0, HOT_CHANNELS.length), channels, channelUrls: urls.slice(HOT_CHANNELS.length) };
}

const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const URL_HEAD = latin1('https://www.nexmark.com/');
const URL_TAIL = latin1('/item.htm?query=1');
const CHANNEL_ID = latin1('&channel_id=');
const UNDERSCORE = 0x5f;
const SLASH = 0x2f;
/** A URL's longest length: three segments of at most 4 characters, and an int of up to 11 characters. */
const MAX_URL_LENGTH = URL_HEAD.length + 3 * 4 + 2 + URL_TAIL.length + CHANNEL_ID.length + 11;

/**
 * `BidGenerator`'s hot URLs, then the channel cache's URLs (9 in 10 with a channel id), in Flink's
 * draw order. They are written into one buffer and read back as one string, each URL a substring
 * of it: this runs at the start of every job, in tight loops rather than 40,000 small strings.
 */
function buildUrls(random: NexmarkRandom): string[] {
  const count = HOT_CHANNELS.length + CHANNELS_NUMBER;
  const bytes = Buffer.allocUnsafe(count * MAX_URL_LENGTH);
  const ends = new Int32Array(count);
  let at = 0;
  for (let u = 0; u < count; u++) {
    bytes.set(URL_HEAD, at);
    at = writeString(random, 5, UNDERSCORE, bytes, at + URL_HEAD.length);
    bytes[at] = SLASH;
    at = writeString(random, 5, UNDERSCORE, bytes, at + 1);
    bytes[at] = SLASH;
    at = writeString(random, 5, UNDERSCORE, bytes, at + 1);
    bytes.set(URL_TAIL, at);
    at += URL_TAIL.length;
    const channel = u - HOT_CHANNELS.length;
    if (channel >= 0 && random.nextInt(10) > 0) {
      bytes.set(CHANNEL_ID, at);
      at = writeInt(bytes, at + CHANNEL_ID.length, javaAbs(reverseBits32(channel)));
    }
    ends[u] = at;
  }
  const text = bytes.toString('latin1', 0, at);
  const urls: string[] = [];
  for (let u = 0, start = 0; u < count; start = ends[u++]!) urls.push(text.substring(start, ends[u]!));
  return urls;
}

/** Writes the decimal digits of an integer (with its sign) at `at`; returns the end. */
function writeInt(bytes: Uint8Array, at: number, value: number): number {
  if (value < 0) bytes[at++] = 0x2d;
  let magnitude = Math.abs(value);
  let end = at + 1;
  for (let rest = magnitude; rest >= 10; rest = Math.floor(rest / 10)) end++;
  for (let i = end - 1; i >= at; i--) {
    bytes[i] = 0x30 + (magnitude % 10);
    magnitude = Math.floor(magnitude / 10);
  }
  return end;
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
  let end = writeString(random, maxLength, special.charCodeAt(0), stringBytes, 0);
  let start = 0;
  while (start < end && stringBytes[start] === SPACE) start++;
  while (end > start && stringBytes[end - 1] === SPACE) end--;
  return stringBytes.toString('latin1', start, end);
}

/** Draws the characters of {@link nextString} (untrimmed) into `bytes` at `at`; returns the end. */
function writeString(random: NexmarkRandom, maxLength: number, specialCode: number, bytes: Uint8Array, at: number): number {
  const end = at + MIN_STRING_LENGTH + random.nextInt(maxLength - MIN_STRING_LENGTH);
  for (let i = at; i < end; i++) {
    const outcome = random.nextInt(CHAR_OUTCOMES);
    bytes[i] = outcome < 26 ? specialCode : 0x61 + (outcome % 26);
  }
  return end;
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

/**
 * `length` characters, six per 32-bit draw: `'a' + rnd % 26`, then `rnd /= 26`, with Java's
 * truncating signed arithmetic. Unrolled: the 1 MiB POOL is built with it at the start of a job,
 * before the optimising compiler has caught up.
 */
function exactString(random: NexmarkRandom, length: number): string {
  const bytes = Buffer.allocUnsafe(length);
  const whole = length - (length % 6);
  let i = 0;
  while (i < whole) {
    const rnd = random.nextInt32();
    bytes[i] = 0x61 + (rnd % 26);
    bytes[i + 1] = 0x61 + (((rnd / 26) | 0) % 26);
    bytes[i + 2] = 0x61 + (((rnd / 676) | 0) % 26);
    bytes[i + 3] = 0x61 + (((rnd / 17576) | 0) % 26);
    bytes[i + 4] = 0x61 + (((rnd / 456976) | 0) % 26);
    bytes[i + 5] = 0x61 + (((rnd / 11881376) | 0) % 26);
    i += 6;
  }
  if (i < length) {
    let rnd = random.nextInt32();
    for (; i < length; i++) {
      bytes[i] = 0x61 + (rnd % 26);
      rnd = (rnd / 26) | 0;
    }
  }
  return bytes.toString('latin1');
}
