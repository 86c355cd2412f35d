/**
 * The random numbers of the nexmark generator. Every event draws from its own short stream, seeded
 * from (table seed, event id), so an event's values never depend on the events before it: replay
 * after a seek and splitting across subtasks reproduce them exactly (GENERATOR.md §9). A stream is
 * a Weyl sequence passed through a 32-bit integer hash (lowbias32), so only `Math.imul` and shifts
 * run in the hot path.
 */
import { draw, streamKey, type StreamKey } from '../datagen/counter-random.js';

const WEYL = 0x9e3779b9 | 0;
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;
const TWO_POW_32 = 4294967296;
const TWO_POW_MINUS_53 = 1.1102230246251565e-16;

/** The purposes random streams serve, so that they never coincide for the same seed. */
const EVENT_STREAM = 0;
const TABLE_STREAM = 1;

/**
 * A resettable stream of random numbers. Draw methods mirror `java.util.SplittableRandom`'s
 * contracts (`nextInt(n)` uniform in [0, n), `nextDouble()` uniform in [0, 1)), not its values.
 */
export class NexmarkRandom {
  #state = 0;
  readonly #key: StreamKey;

  private constructor(key: StreamKey) {
    this.#key = key;
  }

  /** A stream to be {@link reset} to each event id: the per-event values of the table with this seed. */
  static forEvents(seed: number): NexmarkRandom {
    return new NexmarkRandom(streamKey(seed, [EVENT_STREAM]));
  }

  /** A sequential stream for the tables built once per seed (POOL, URLs); starts at position 0. */
  static forTables(seed: number): NexmarkRandom {
    const random = new NexmarkRandom(streamKey(seed, [TABLE_STREAM]));
    random.reset(0);
    return random;
  }

  /** Restarts the stream at the values of `position` (an event id: a non-negative safe integer). */
  reset(position: number): void {
    this.#state = draw(this.#key.k1, this.#key.k2, position) | 0;
  }

  /** 32 random bits as a signed integer, like `SplittableRandom.nextInt()`. */
  nextInt32(): number {
    const s = (this.#state = (this.#state + WEYL) | 0);
    let z = Math.imul(s ^ (s >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return z ^ (z >>> 15);
  }

  /** Uniform in [0, n) for an integer 1 ≤ n ≤ 2^32. */
  nextInt(n: number): number {
    return Math.floor((this.nextInt32() >>> 0) * n * TWO_POW_MINUS_32);
  }

  /** Uniform in [0, n) for any positive safe integer n (`LongGenerator.nextLong`). */
  nextLong(n: number): number {
    return n <= TWO_POW_32 ? this.nextInt(n) : Math.floor(this.nextDouble() * n);
  }

  /** Uniform in [0, 1) with 53 random bits. */
  nextDouble(): number {
    const high = this.nextInt32() >>> 5;
    const low = this.nextInt32() >>> 6;
    return (high * 67108864 + low) * TWO_POW_MINUS_53;
  }
}
