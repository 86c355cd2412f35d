/** The nexmark reader: offsets and seek, bounded end, keep-alive and stop-at, pacing, base time `now`, splits. */
import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { NexmarkClock } from '../../../src/connectors/nexmark/nexmark-reader.js';
import { events, openReader, readRows } from './nexmark-test-util.js';

/** A clock that moves only when told. */
function manualClock(wall = 0): NexmarkClock & { advance(ms: number): void } {
  let elapsed = 0;
  return { wall: () => wall + elapsed, monotonic: () => elapsed, advance: (ms) => void (elapsed += ms) };
}

const eventTime = (row: Row): number => {
  const kind = row[0] as number;
  return (row[kind + 1] as Row)[kind === 0 ? 6 : 5] as number;
};

describe('nexmark reader: offsets', () => {
  it('emits insert-only records and counts them in its offset', async () => {
    const reader = await openReader();
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 10)).toBe('more');
    expect(batch.kinds).toEqual(new Array(10).fill(RowKind.INSERT));
    expect(reader.currentOffset()).toBe(10);
  });

  it('continues after a seek exactly as the uninterrupted stream', async () => {
    const whole = await events(3000);
    for (const cut of [0, 1, 48, 1234]) {
      const first = await openReader();
      const head = readRows(first, cut).rows;
      const offset: unknown = JSON.parse(JSON.stringify(first.currentOffset()));
      const tail = readRows(await openReader({}, { offset }), 3000 - cut, 1024).rows;
      expect([...head, ...tail]).toEqual(whole);
    }
  });

  it('rejects an offset it did not produce', async () => {
    await expect(openReader({}, { offset: 'x' })).rejects.toThrow('nexmark cannot resume from offset "x": expected a count of events, or { events, baseTime }');
    await expect(openReader({}, { offset: -1 })).rejects.toThrow('nexmark cannot resume from offset -1');
  });
});

describe('nexmark reader: end of input', () => {
  it("ends after 'events.num' events", async () => {
    const { rows, status } = readRows(await openReader({ 'events.num': '1000' }), Infinity, 64);
    expect(rows).toHaveLength(1000);
    expect(status).toBe('end');
  });

  it('ends exactly at events.num after a seek', async () => {
    const reader = await openReader({ 'events.num': '1000' }, { offset: 990 });
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 1024)).toBe('end');
    expect(batch.size).toBe(10);
  });

  it("stops at 'stop-at' and idles instead of ending with 'keep-alive'", async () => {
    expect(readRows(await openReader({ 'stop-at': '120' })).rows).toHaveLength(120);
    const reader = await openReader({ 'events.num': '100', 'keep-alive': 'true' });
    const { rows, status } = readRows(reader, Infinity, 97, true);
    expect(rows).toHaveLength(100);
    expect(status).toBe('idle');
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 10)).toBe('idle');
    expect(batch.size).toBe(0);
  });
});

describe('nexmark reader: pacing', () => {
  it("holds events back until their event time has passed on the clock with 'max-emit-speed' = false", async () => {
    const clock = manualClock();
    const reader = await openReader({ 'max-emit-speed': 'false', 'first-event.rate': '1000' }, { clock });
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 100)).toBe('idle');
    expect(batch.size).toBe(0);
    clock.advance(10);
    expect(reader.poll(batch, 100)).toBe('idle');
    expect(batch.size).toBe(10);
    clock.advance(1000);
    batch.clear();
    expect(reader.poll(batch, 100)).toBe('more');
    expect(batch.size).toBe(100);
  });

  it('resumes pacing at the restored event, not at the first one', async () => {
    const clock = manualClock();
    const reader = await openReader({ 'max-emit-speed': 'false', 'first-event.rate': '1000' }, { clock, offset: 5000 });
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 100)).toBe('idle');
    clock.advance(3);
    reader.poll(batch, 100);
    expect(batch.size).toBe(3);
  });

  it('paces by the real clock (generous bounds)', async () => {
    const reader = await openReader({ 'max-emit-speed': 'false', 'first-event.rate': '2000', 'events.num': '100' });
    const start = performance.now();
    let count = 0;
    const batch = new ChangeBatch();
    for (;;) {
      batch.clear();
      const status = reader.poll(batch, 1024);
      count += batch.size;
      if (status === 'end') break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const elapsed = performance.now() - start;
    expect(count).toBe(100);
    expect(elapsed).toBeGreaterThanOrEqual(40);
    expect(elapsed).toBeLessThan(2000);
  });

  it("emits as fast as possible by default, whatever 'first-event.rate'", async () => {
    const { rows } = readRows(await openReader({ 'first-event.rate': '1', 'events.num': '500' }));
    expect(rows).toHaveLength(500);
    expect(eventTime(rows[499]!) - eventTime(rows[0]!)).toBe(499_000);
  });
});

describe("nexmark reader: 'base-time'", () => {
  it("takes 'now' from the wall clock at the first start and keeps it in the offset", async () => {
    const wall = Date.UTC(2030, 0, 1);
    const reader = await openReader({ 'base-time': 'now', 'first-event.rate': '1000' }, { clock: manualClock(wall) });
    const head = readRows(reader, 100).rows;
    expect(eventTime(head[0]!)).toBe(wall + 1);
    const offset = reader.currentOffset();
    expect(offset).toEqual({ events: 100, baseTime: wall });
    const resumed = await openReader({ 'base-time': 'now', 'first-event.rate': '1000' }, { clock: manualClock(wall + 3_600_000), offset });
    expect(eventTime(readRows(resumed, 1).rows[0]!)).toBe(wall + 101);
  });

  it('starts at the given instant', async () => {
    const [first] = await events(1, { 'base-time': '2020-02-29T12:00:00+01:00', 'first-event.rate': '1000' });
    expect(eventTime(first!)).toBe(Date.parse('2020-02-29T11:00:00.001Z'));
  });
});

describe('nexmark reader: parallel subtasks', () => {
  it('splits events.num between subtasks with disjoint ids and the same time line', async () => {
    const options = { 'events.num': '1001', 'first-event.rate': '1000' };
    const a = readRows(await openReader(options, { subtask: 0, parallelism: 2 })).rows;
    const b = readRows(await openReader(options, { subtask: 1, parallelism: 2 })).rows;
    expect([a.length, b.length]).toEqual([500, 501]);
    expect(a.slice(0, 3).map(eventTime)).toEqual(b.slice(0, 3).map(eventTime));
    expect(eventTime(a[1]!) - eventTime(a[0]!)).toBe(2);
    const auctionIds = (rows: Row[]) => new Set(rows.filter((r) => r[0] === 1).map((r) => (r[2] as Row)[0]));
    const shared = [...auctionIds(a)].filter((id) => auctionIds(b).has(id));
    expect(shared).toEqual([]);
  });
});
