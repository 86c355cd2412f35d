/**
 * The postgres lookup function against the suite's server, on a clock the test moves: a batch of
 * keys is answered in one query (a promise), then from the cache (synchronously) until the TTL
 * has passed; keys without rows are cached only with 'lookup.cache.caching-missing-key'; the
 * least recently used key is evicted beyond 'lookup.cache.max-rows'; composite keys work.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { postgresConnector } from '../../../src/connectors/postgres/postgres-connector.js';
import type { LookupTableSpec } from '../../../src/dataflow/job-graph.js';
import type { LookupFunction, LookupResult } from '../../../src/runtime/lookup-source.js';
import { ManualClock } from '../../runtime/operator-harness.js';
import { freshDatabase, pgQuery } from '../../support/pg-query.js';

async function open(spec: LookupTableSpec, clock: ManualClock): Promise<LookupFunction> {
  const lookup = postgresConnector.lookup!.createLookup(spec);
  await lookup.open({ subtask: 0, parallelism: 1, processingTime: clock, warn: () => {} });
  return lookup;
}

const CUSTOMERS = [
  { name: 'id', type: SqlTypes.bigint() },
  { name: 'name', type: SqlTypes.string() },
];

describe('postgres lookup function', () => {
  it('fetches the missing keys of a batch in one query and serves them from the cache until the TTL has passed', async () => {
    const url = await freshDatabase('weir_lookup_fn');
    await pgQuery(url, "CREATE TABLE customers (id BIGINT PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'ann'), (2, 'bob')");
    const clock = new ManualClock();
    const lookup = await open({ table: 'customers', connector: 'postgres', options: { url, 'lookup.cache.max-rows': '2', 'lookup.cache.ttl': '10 s', 'lookup.cache.caching-missing-key': 'false' }, schema: CUSTOMERS, keys: [0] }, clock);
    try {
      const first = lookup.lookup([[1], [2], [3]]);
      expect(first).toBeInstanceOf(Promise);
      expect(await first).toEqual([[[1, 'ann']], [[2, 'bob']], []]);
      await pgQuery(url, "UPDATE customers SET name = 'anna' WHERE id = 1; INSERT INTO customers VALUES (3, 'cy')");
      clock.advance(9_999);
      const cached: LookupResult | Promise<LookupResult> = lookup.lookup([[2], [1]]);
      expect(cached).toEqual([[[2, 'bob']], [[1, 'ann']]]);
      expect(await lookup.lookup([[3]])).toEqual([[[3, 'cy']]]);
      // The cache holds two keys: 3 was added last, 2 is now the least recently used one and evicted.
      expect(lookup.lookup([[1], [3]])).toEqual([[[1, 'ann']], [[3, 'cy']]]);
      await pgQuery(url, "UPDATE customers SET name = 'bobby' WHERE id = 2");
      expect(await lookup.lookup([[2]])).toEqual([[[2, 'bobby']]]);
      clock.advance(10_000);
      expect(await lookup.lookup([[1]])).toEqual([[[1, 'anna']]]);
    } finally {
      await lookup.close();
    }
  });

  it('caches missing keys by default, and looks composite keys up', async () => {
    const url = await freshDatabase('weir_lookup_fn');
    await pgQuery(url, "CREATE TABLE rates (cur TEXT, day INT, rate NUMERIC(10, 4), PRIMARY KEY (cur, day)); INSERT INTO rates VALUES ('EUR', 1, 1.1), ('EUR', 2, 1.2), ('GBP', 1, 1.3)");
    const clock = new ManualClock();
    const schema = [
      { name: 'cur', type: SqlTypes.string() },
      { name: 'day', type: SqlTypes.int() },
      { name: 'rate', type: SqlTypes.decimal(10, 4) },
    ];
    const lookup = await open({ table: 'rates', connector: 'postgres', options: { url, 'lookup.cache.max-rows': '100', 'lookup.cache.ttl': '1 min' }, schema, keys: [1, 0] }, clock);
    try {
      const keys: Row[] = [[1, 'EUR'], [2, 'EUR'], [2, 'GBP']];
      expect(await lookup.lookup(keys)).toEqual([[['EUR', 1, 11000n]], [['EUR', 2, 12000n]], []]);
      await pgQuery(url, "INSERT INTO rates VALUES ('GBP', 2, 1.4)");
      expect(lookup.lookup([[2, 'GBP']])).toEqual([[]]);
    } finally {
      await lookup.close();
    }
  });

  it('looks up a bytea key with BYTES values (equal bytes in another array find the row, then the cache), alone and in a composite key', async () => {
    const url = await freshDatabase('weir_lookup_fn');
    await pgQuery(url, "CREATE TABLE blobs (k bytea, n INT, v bytea, PRIMARY KEY (k, n)); INSERT INTO blobs VALUES ('\\x0aff', 1, '\\x01'), ('\\x', 1, '\\x'), ('\\x0a', 2, NULL)");
    const schema = [
      { name: 'k', type: SqlTypes.bytes() },
      { name: 'n', type: SqlTypes.int() },
      { name: 'v', type: SqlTypes.bytes() },
    ];
    const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
    const single = await open({ table: 'blobs', connector: 'postgres', options: { url, 'lookup.cache.max-rows': '10', 'lookup.cache.ttl': '1 min' }, schema, keys: [0] }, new ManualClock());
    const composite = await open({ table: 'blobs', connector: 'postgres', options: { url }, schema, keys: [1, 0] }, new ManualClock());
    try {
      expect(await single.lookup([[bytes(0x0a, 0xff)], [bytes()], [bytes(0x0a, 0xfe)]])).toEqual([[[bytes(0x0a, 0xff), 1, bytes(1)]], [[bytes(), 1, bytes()]], []]);
      expect(single.lookup([[bytes(0x0a, 0xff)]])).toEqual([[[bytes(0x0a, 0xff), 1, bytes(1)]]]);
      expect(await composite.lookup([[2, bytes(0x0a)], [1, bytes(0x0a)]])).toEqual([[[bytes(0x0a), 2, null]], []]);
    } finally {
      await single.close();
      await composite.close();
    }
  });

  it('fails at once, naming the table, when the table does not exist', async () => {
    const url = await freshDatabase('weir_lookup_fn');
    const lookup = await open({ table: 'nowhere', connector: 'postgres', options: { url }, schema: CUSTOMERS, keys: [0] }, new ManualClock());
    try {
      const started = Date.now();
      await expect(lookup.lookup([[1]])).rejects.toThrow(/postgres lookup table 'nowhere': the lookup query failed: relation "nowhere" does not exist .*\(SQLSTATE 42P01\)/);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await lookup.close();
    }
  });

  it('retries a lookup the server could not answer lookup.max-retries times, warning each time, then fails', async () => {
    const warnings: string[] = [];
    const lookup = postgresConnector.lookup!.createLookup({ table: 't', connector: 'postgres', options: { url: 'postgres://weir@127.0.0.1:1/none', 'lookup.max-retries': '1' }, schema: CUSTOMERS, keys: [0] });
    await lookup.open({ subtask: 0, parallelism: 1, processingTime: new ManualClock(), warn: (m) => warnings.push(m) });
    try {
      await expect(lookup.lookup([[1]])).rejects.toThrow("postgres lookup table 't': lookup failed after 2 attempts");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^postgres lookup table 't': lookup failed \(.*ECONNREFUSED.*\); retry 1 of 1$/);
    } finally {
      await lookup.close();
    }
  });
});
