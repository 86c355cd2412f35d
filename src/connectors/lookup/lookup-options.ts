/**
 * The lookup options of Flink's JDBC and filesystem lookup sources, shared by the connectors that
 * can be looked up: a cache of at most `'lookup.cache.max-rows'` keys whose entries expire after
 * `'lookup.cache.ttl'`, whether keys without rows are cached (`'lookup.cache.caching-missing-key'`),
 * and how often a failed lookup is retried (`'lookup.max-retries'`).
 */
import type { OptionSpec } from '../../common/connector-descriptor.js';
import { parseDuration } from '../../common/duration.js';
import { WeirError } from '../../common/errors.js';

/** How a connector caches and retries lookups. */
export interface LookupOptions {
  /** Keys kept in the cache; 0 disables caching (Flink's default for JDBC). */
  readonly cacheMaxRows: number;
  /** Milliseconds a cached key is served before it is looked up again. */
  readonly cacheTtlMs: number;
  readonly cacheMissingKey: boolean;
  readonly maxRetries: number;
}

/** The options of {@link LookupOptions}, for connector descriptors. */
export const LOOKUP_OPTION_SPECS: readonly OptionSpec[] = [
  { key: 'lookup.cache.max-rows', description: 'Lookup joins: how many keys the lookup cache holds (least recently used ones are evicted); 0 disables the cache.', default: '0' },
  { key: 'lookup.cache.ttl', description: 'Lookup joins: how long a cached key (or, for filesystem tables, the whole loaded file) is used before it is read again.' },
  { key: 'lookup.cache.caching-missing-key', description: 'Lookup joins: whether keys with no rows are cached too.', values: ['true', 'false'], default: 'true' },
  { key: 'lookup.max-retries', description: 'Lookup joins: how many times a failed lookup query is retried before the job fails.', default: '3' },
];

/** The keys of {@link LOOKUP_OPTION_SPECS}. */
export const LOOKUP_OPTION_KEYS: readonly string[] = LOOKUP_OPTION_SPECS.map((o) => o.key);

/** Reads the lookup options; `defaultTtlMs` applies when `'lookup.cache.ttl'` is absent. Throws INVALID_OPTION naming the option. */
export function parseLookupOptions(options: ReadonlyMap<string, string>, defaultTtlMs: number): LookupOptions {
  const ttlText = options.get('lookup.cache.ttl');
  const cacheTtlMs = ttlText === undefined ? defaultTtlMs : parseDuration(ttlText, 'lookup.cache.ttl');
  if (cacheTtlMs < 0) throw new WeirError('INVALID_OPTION', `option 'lookup.cache.ttl' must not be negative, got '${ttlText}'`);
  return {
    cacheMaxRows: count(options, 'lookup.cache.max-rows', 0),
    cacheTtlMs,
    cacheMissingKey: (options.get('lookup.cache.caching-missing-key') ?? 'true') === 'true',
    maxRetries: count(options, 'lookup.max-retries', 3),
  };
}

function count(options: ReadonlyMap<string, string>, key: string, fallback: number): number {
  const text = options.get(key);
  if (text === undefined) return fallback;
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 0 || text.trim() === '') throw new WeirError('INVALID_OPTION', `option '${key}' must be a non-negative integer, got '${text}'`);
  return value;
}
