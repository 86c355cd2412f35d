/**
 * Event-time temporal joins against a versioned table (PRIMARY KEY and watermark): each order is
 * joined with the rate of its currency valid at the order's time (the latest update at or before
 * it), compared with a hand-written reference over the same random data; LEFT keeps orders placed
 * before their currency's first rate. Both sides are bounded CSV files, so the end of input fires
 * what the watermarks have not.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const CURRENCIES = ['EUR', 'GBP', 'JPY', 'CHF', 'NOK'];

/** A small deterministic generator (mulberry32), so that a failure can be reproduced. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

describe('event-time temporal join', () => {
  it.each([['INNER'], ['LEFT']] as const)('%s JOIN joins each order with the rate valid at its time', async (type) => {
    const next = random(type === 'LEFT' ? 7 : 11);
    const base = Date.UTC(2024, 0, 1);
    const rates: { currency: string; rate: number; time: number }[] = [];
    for (let i = 0, t = base + 5_000; i < 120; i++, t += Math.floor(next() * 2_000)) rates.push({ currency: CURRENCIES[Math.floor(next() * 5)]!, rate: 1 + Math.floor(next() * 10_000) / 10_000, time: t });
    const orders: { id: number; currency: string; time: number }[] = [];
    for (let i = 0, t = base; i < 400; i++, t += Math.floor(next() * 700)) orders.push({ id: i, currency: CURRENCIES[Math.floor(next() * 5)]!, time: t });
    const dir = mkdtempSync(join(tmpdir(), 'weir-temporal-'));
    writeFileSync(join(dir, 'rates.csv'), rates.map((r) => `${r.currency},${r.rate.toFixed(4)},${stamp(r.time)}`).join('\n') + '\n');
    writeFileSync(join(dir, 'orders.csv'), orders.map((o) => `${o.id},${o.currency},${stamp(o.time)}`).join('\n') + '\n');

    const engine = createEngine();
    await engine.execute(`
      CREATE TABLE orders (id BIGINT, currency STRING, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '2' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'orders.csv')}', 'format' = 'csv');
      CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'rates.csv')}', 'format' = 'csv');`);
    const rows = await engine.query(`SELECT o.id, r.rate, r.update_time FROM orders AS o ${type} JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`);

    const expected: string[] = [];
    for (const order of orders) {
      const valid = rates.filter((r) => r.currency === order.currency && r.time <= order.time).at(-1);
      if (valid !== undefined) expected.push(`${order.id}|${valid.rate.toFixed(4)}|${valid.time}`);
      else if (type === 'LEFT') expected.push(`${order.id}|null|null`);
    }
    const actual = rows.map((r) => `${r.id as number}|${r.rate as string | null}|${r.update_time === null ? null : (r.update_time as Date).getTime()}`);
    expect(actual.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(300);
    if (type === 'LEFT') expect(expected.filter((e) => e.endsWith('|null|null')).length).toBeGreaterThan(0);
    else expect(expected.length).toBeLessThan(orders.length);
  });

  it('refuses a right side without a primary key, and an ON condition missing a key column', async () => {
    const engine = createEngine();
    await engine.execute(`
      CREATE TABLE orders (id BIGINT, currency STRING, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time) WITH ('connector' = 'datagen');
      CREATE TABLE plain (currency STRING, rate DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
      CREATE TABLE keyed (currency STRING, day INT, rate DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (currency, day) NOT ENFORCED) WITH ('connector' = 'datagen');`);
    await expect(engine.execute('EXPLAIN SELECT * FROM orders o JOIN plain FOR SYSTEM_TIME AS OF o.order_time ON o.currency = plain.currency')).rejects.toThrow(
      "'plain' is not a versioned table: it has no primary key",
    );
    await expect(engine.execute('EXPLAIN SELECT * FROM orders o JOIN keyed FOR SYSTEM_TIME AS OF o.order_time ON o.currency = keyed.currency')).rejects.toThrow(
      "must equate every primary key column of 'keyed' with the left side; missing: day",
    );
  });
});
