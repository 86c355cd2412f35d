import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGid, gidName, gidPrefix, MAX_GID_BYTES, newEpoch, parseGid } from '../../../src/connectors/postgres/transaction-ids.js';

describe('gids', () => {
  it('names job, sink, subtask, checkpoint and run epoch, and parses back', () => {
    const gid = buildGid('orders-job', 'daily-totals', 3, 42, 'a1b2c3d4e5f6');
    expect(gid).toBe('weir1.orders-job.daily-totals.3.42.a1b2c3d4e5f6');
    expect(parseGid(gid)).toEqual({ job: 'orders-job', sink: 'daily-totals', subtask: 3, checkpointId: 42, epoch: 'a1b2c3d4e5f6' });
    expect(gid.startsWith(gidPrefix('orders-job', 'daily-totals'))).toBe(true);
  });

  it('keeps names of the whitelist as they are, and replaces others by a readable prefix and a hash', () => {
    expect(gidName('Orders-2')).toBe('Orders-2');
    const long = gidName('insert-into_default_catalog.default_database.out');
    expect(long).toMatch(/^insert-into-default-catalog-default-[a-z-]+-[0-9a-f]{8}$/);
    expect(long.length).toBeLessThanOrEqual(48);
    expect(gidName('a_b')).not.toBe(gidName('a-b'));
    expect(gidName('a_b')).not.toBe(gidName('a.b'));
    expect(gidName("'; DROP TABLE x; --")).toMatch(/^DROP-TABLE-x-[0-9a-f]{8}$/);
    expect(gidName('ümlaut')).toMatch(/^mlaut-[0-9a-f]{8}$/);
    expect(gidName('___')).toMatch(/^[0-9a-f]{8}$/);
    expect(gidName('x'.repeat(49))).toMatch(/^x{39}-[0-9a-f]{8}$/);
  });

  it('stays within the whitelist and under 200 bytes for any names and ids', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(10_000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (job, sink, subtask, checkpoint) => {
        const gid = buildGid(job, sink, subtask, checkpoint, newEpoch());
        expect(gid).toMatch(/^[A-Za-z0-9.-]+$/);
        expect(Buffer.byteLength(gid)).toBeLessThanOrEqual(MAX_GID_BYTES);
        expect(parseGid(gid)).toMatchObject({ job: gidName(job), sink: gidName(sink), subtask, checkpointId: checkpoint });
      }),
    );
  });

  it('makes the prefix of one sink never a prefix of another sink of the same job', () => {
    expect(gidPrefix('j', 'sink').startsWith(gidPrefix('j', 'sin'))).toBe(false);
    expect(gidPrefix('j', 'sink')).toBe('weir1.j.sink.');
  });

  it('rejects anything that is not a weir gid', () => {
    for (const text of ['', 'weir1.a.b.0.1', 'weir2.a.b.0.1.e', 'weir1.a.b.x.1.e', "weir1.a.b.0.1.e'", 'weir1.a_b.c.0.1.e', 'weir1.a.b.0.99999999999999999.e']) {
      expect(parseGid(text)).toBeUndefined();
    }
    expect(() => buildGid('j', 's', -1, 1, 'e')).toThrow('invalid subtask -1 for a gid');
    expect(() => buildGid('j', 's', 0, 1, 'bad epoch')).toThrow("gid 'weir1.j.s.0.1.bad epoch' does not match the gid format");
  });

  it('draws a different epoch for every writer run', () => {
    const epochs = new Set(Array.from({ length: 1000 }, newEpoch));
    expect(epochs.size).toBe(1000);
    for (const epoch of epochs) expect(epoch).toMatch(/^[0-9a-f]{12}$/);
  });
});
