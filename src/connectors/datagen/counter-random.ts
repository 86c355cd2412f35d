/**
 * A counter-based pseudo-random generator: a draw is a pure function of a stream key and a row
 * index, so any row can be generated without generating the rows before it. That is what makes
 * datagen seekable (replay from an offset) and splittable across subtasks. Only 32-bit integer
 * arithmetic (`Math.imul`) in the draw path, and no state.
 */

const GOLDEN = 0x9e3779b9 | 0;
const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;

/** The murmur3 finaliser: a bijection on 32-bit integers with full avalanche. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * The key of one random stream (one field, one purpose). Two numbers so that streams are not
 * shifted copies of each other: `k1` offsets the counter, `k2` is mixed in after the first round.
 */
export interface StreamKey {
  readonly k1: number;
  readonly k2: number;
}

/**
 * The key of the stream named by `path` under `seed` (any safe integer). Different paths give
 * unrelated streams; a path is a list of small integers, e.g. [column, purpose].
 */
export function streamKey(seed: number, path: readonly number[]): StreamKey {
  let h = fmix32((seed >>> 0) ^ 0x5bd1e995);
  h = fmix32((h + Math.imul(Math.floor(seed / TWO_POW_32) >>> 0, GOLDEN)) | 0);
  for (const step of path) h = fmix32(((h ^ Math.imul(step + 1, 0xcc9e2d51)) + GOLDEN) | 0);
  return { k1: h, k2: fmix32(h ^ 0x1b873593) };
}

/** 32 uniformly distributed bits, as an unsigned integer, for row `row` (a non-negative safe integer). */
export function draw(k1: number, k2: number, row: number): number {
  const z = fmix32((k1 + Math.imul(row >>> 0, GOLDEN)) | 0);
  return fmix32(z ^ k2 ^ Math.imul((row / TWO_POW_32) >>> 0, 0x27d4eb2f)) >>> 0;
}

/** A uniform double in [0, 1) with 53 random bits, from two streams. */
export function unit53(a: StreamKey, b: StreamKey, row: number): number {
  return ((draw(a.k1, a.k2, row) >>> 5) * 67108864 + (draw(b.k1, b.k2, row) >>> 6)) / TWO_POW_53;
}

/** A uniform double in [0, 1) with 32 random bits. */
export function unit32(a: StreamKey, row: number): number {
  return draw(a.k1, a.k2, row) / TWO_POW_32;
}
