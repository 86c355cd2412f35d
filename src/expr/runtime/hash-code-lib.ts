/**
 * HASH_CODE of each type Flink's HASH_CODE takes, as Flink computes it (CodeGenUtils.hashCodeForType
 * over its internal data structures): Java's `Boolean/Byte/Short/Integer/Long/Float/Double.hashCode`
 * of the primitive, `BigDecimal.hashCode` of a DECIMAL (its unscaled value and the type's scale),
 * `TimestampData.hashCode` of a TIMESTAMP (its epoch millisecond and nanos of that millisecond),
 * and Flink's MurmurHashUtil.hashUnsafeBytes (Murmur3 32-bit, seed 42, tail bytes one by one) of a
 * binary string. Every result is a Java int (a 32-bit signed number).
 */
import type { Bytes } from '../../common/bytes.js';
import { millisOfNanos, nanoOfMilliOf, type EpochNanos } from '../../common/epoch-nanos.js';
import type { Int64 } from '../../common/int64.js';

const TWO_32 = 2 ** 32;
const scratch = new DataView(new ArrayBuffer(8));

/** Java's Boolean.hashCode: 1231 for TRUE, 1237 for FALSE. */
export function hashCodeOfBoolean(value: boolean): number {
  return value ? 1231 : 1237;
}

/** The high and low 32-bit words of a 64-bit two's complement integer (each as a signed int). */
function words(value: Int64): [number, number] {
  if (typeof value === 'bigint') return [Number(BigInt.asIntN(32, value >> 32n)), Number(BigInt.asIntN(32, value))];
  const high = Math.floor(value / TWO_32);
  return [high | 0, (value - high * TWO_32) | 0];
}

/** Java's Long.hashCode: `(int) (v ^ (v >>> 32))`, of a BIGINT in either form (common/int64.ts). */
export function hashCodeOfLong(value: Int64): number {
  const [high, low] = words(value);
  return high ^ low;
}

/** Java's Float.hashCode: the bits of the float (floatToIntBits: every NaN is 0x7fc00000). */
export function hashCodeOfFloat(value: number): number {
  if (Number.isNaN(value)) return 0x7fc00000;
  scratch.setFloat32(0, value);
  return scratch.getInt32(0);
}

/** Java's Double.hashCode: the two words of doubleToLongBits xored (every NaN is 0x7ff8000000000000). */
export function hashCodeOfDouble(value: number): number {
  if (Number.isNaN(value)) return 0x7ff80000;
  scratch.setFloat64(0, value);
  return scratch.getInt32(0) ^ scratch.getInt32(4);
}

const WORD = 0xffffffffn;

/**
 * Java's BigDecimal.hashCode of `unscaled / 10^scale`: `31 * BigInteger.hashCode(unscaled) + scale`,
 * where a BigInteger hashes its magnitude's 32-bit words, most significant first (`h = 31 * h + w`),
 * times its sign. The scale is the DECIMAL type's, as Flink's DecimalData keeps it (1.50 in a
 * DECIMAL(10, 2) is 150 at scale 2).
 */
export function hashCodeOfDecimal(unscaled: bigint, scale: number): number {
  const sign = unscaled < 0n ? -1 : unscaled > 0n ? 1 : 0;
  let magnitude = unscaled < 0n ? -unscaled : unscaled;
  const magnitudeWords: number[] = [];
  while (magnitude > 0n) {
    magnitudeWords.push(Number(magnitude & WORD));
    magnitude >>= 32n;
  }
  let hash = 0;
  for (let i = magnitudeWords.length - 1; i >= 0; i--) hash = (Math.imul(31, hash) + magnitudeWords[i]!) | 0;
  return (Math.imul(31, Math.imul(hash, sign)) + scale) | 0;
}

/** Flink's TimestampData.hashCode: `31 * ((int) millis ^ (int) (millis >> 32)) + nanoOfMillisecond`. */
function hashCodeOfTimestampData(millis: number, nanoOfMilli: number): number {
  const [high, low] = words(millis);
  return (Math.imul(31, low ^ high) + nanoOfMilli) | 0;
}

/** HASH_CODE of a TIMESTAMP(p <= 3) value (epoch milliseconds). */
export function hashCodeOfTimestamp(millis: number): number {
  return hashCodeOfTimestampData(millis, 0);
}

/** HASH_CODE of a TIMESTAMP(p > 3) value (epoch nanos, common/epoch-nanos.ts). */
export function hashCodeOfTimestampNanos(nanos: EpochNanos): number {
  return hashCodeOfTimestampData(millisOfNanos(nanos), nanoOfMilliOf(nanos));
}

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK1(k: number): number {
  const k1 = Math.imul(k, C1);
  return Math.imul((k1 << 15) | (k1 >>> 17), C2);
}

function mixH1(h: number, k: number): number {
  const h1 = h ^ k;
  return (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0;
}

/**
 * Flink's MurmurHashUtil.hashUnsafeBytes with its default seed 42: Murmur3 (32-bit) over the
 * little-endian 4-byte words, then each remaining byte (signed) mixed as a word of its own, and
 * the final mix with the length.
 */
export function hashCodeOfBytes(bytes: Bytes): number {
  const aligned = bytes.length - (bytes.length % 4);
  let h = 42;
  for (let i = 0; i < aligned; i += 4) {
    const word = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h = mixH1(h, mixK1(word));
  }
  for (let i = aligned; i < bytes.length; i++) h = mixH1(h, mixK1((bytes[i]! << 24) >> 24));
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
