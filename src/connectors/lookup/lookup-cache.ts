/**
 * The lookup cache of a lookup function (Flink's LRU lookup cache): the rows of at most `maxRows`
 * keys, each served until `ttlMs` after it was loaded; the least recently used key is evicted
 * first. Entries are encoded keys; the cache is never checkpointed.
 *
 * Invariant: `entries` iterates from least to most recently used (a hit re-inserts its key).
 */
import type { Row } from '../../common/row.js';

/** Keys' rows with expiry and LRU eviction. */
export class LookupCache {
  private readonly entries = new Map<string, { rows: readonly Row[]; expires: number }>();

  constructor(
    private readonly maxRows: number,
    private readonly ttlMs: number,
  ) {}

  /** The cached rows of `key` when present and not expired at `now`. */
  get(key: string, now: number): readonly Row[] | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expires <= now) return undefined;
    this.entries.set(key, entry);
    return entry.rows;
  }

  /** Caches `rows` for `key`, loaded at `now`. */
  put(key: string, rows: readonly Row[], now: number): void {
    if (this.maxRows === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { rows, expires: now + this.ttlMs });
    if (this.entries.size > this.maxRows) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Number of keys held. */
  get size(): number {
    return this.entries.size;
  }
}
