/**
 * Binary strings in keyed state across a savepoint: a GROUP BY on a BYTES key with MIN and MAX of
 * bytes and COUNT(DISTINCT bytes) (accumulators that hold Uint8Arrays, and a distinct map keyed by
 * their encoding), stopped with a savepoint and resumed — at the same parallelism and at another
 * one, so that keyed state is redistributed by the hash of the encoded bytes — leaves exactly the
 * changelog of an uninterrupted run, bytes included.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { resetCollected } from '../support/collect-connector.js';
import { savepointRoundTrip, type RoundTripJob } from '../support/savepoint-round-trip.js';

const JOB: RoundTripJob = {
  pipeline: 'byte_totals',
  views: `CREATE VIEW tagged AS SELECT UNHEX(LPAD(HEX(k * 7), 2 * (1 + MOD(k, 3)), '0')) AS tag, ENCODE(CAST(v AS STRING), 'UTF-16BE') AS payload, UNHEX(HEX(MOD(v, 5))) AS small FROM src;`,
  sink: (name, transactional) =>
    `CREATE TABLE ${name} (tag BYTES, n BIGINT, lo BYTES, hi BYTES, kinds BIGINT) WITH ('connector' = 'collect'${transactional ? ", 'transactional' = 'true'" : ''});`,
  query: (name) => `INSERT INTO ${name} SELECT tag, COUNT(*), MIN(payload), MAX(payload), COUNT(DISTINCT small) FROM tagged GROUP BY tag`,
};

beforeEach(() => resetCollected());

describe('binary strings in checkpoints', () => {
  for (const [before, after] of [
    [1, 1],
    [2, 1],
  ] as const) {
    it(`a job stopped with a savepoint at parallelism ${before} and resumed at ${after} leaves exactly the uninterrupted answer`, async () => {
      const { expected, resumed } = await savepointRoundTrip(JOB, before, after);
      expect(expected.length).toBe(41);
      expect(expected.every((row) => row.every((v, i) => (i === 1 || i === 4 ? typeof v === 'number' : v instanceof Uint8Array)))).toBe(true);
      const key = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => r.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v))).join(' ')).sort();
      expect(key(resumed)).toEqual(key(expected));
    });
  }
});
