/** The lookup cache: entries expire after the TTL, the least recently used key is evicted first, and max-rows 0 caches nothing. */
import { describe, expect, it } from 'vitest';
import { LookupCache } from '../../../src/connectors/lookup/lookup-cache.js';

describe('lookup cache', () => {
  it('serves a key until its TTL has passed since it was loaded', () => {
    const cache = new LookupCache(10, 1000);
    cache.put('a', [[1, 'x']], 5000);
    expect(cache.get('a', 5999)).toEqual([[1, 'x']]);
    expect(cache.get('a', 6000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used key beyond max-rows', () => {
    const cache = new LookupCache(2, 1000);
    cache.put('a', [], 0);
    cache.put('b', [[2]], 0);
    expect(cache.get('a', 1)).toEqual([]);
    cache.put('c', [[3]], 1);
    expect(cache.get('b', 2)).toBeUndefined();
    expect(cache.get('a', 2)).toEqual([]);
    expect(cache.get('c', 2)).toEqual([[3]]);
  });

  it('caches nothing with max-rows 0', () => {
    const cache = new LookupCache(0, 1000);
    cache.put('a', [[1]], 0);
    expect(cache.get('a', 0)).toBeUndefined();
  });
});
