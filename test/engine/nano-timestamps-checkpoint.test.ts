/**
 * TIMESTAMP(9) values (epoch nanos, bigints beyond 2^53) in keyed state across a savepoint: a
 * GROUP BY on a TIMESTAMP(9) key with MIN and MAX of TIMESTAMP_LTZ(9) values and COUNT(DISTINCT)
 * of a TIMESTAMP(6), stopped with a savepoint and resumed — at the same parallelism and at
 * another one, so that keyed state is redistributed by the hash of the keys — leaves exactly the
 * changelog of an uninterrupted run, every nanosecond included, and the values are epoch nanos
 * again after the restore (a value turned into a number would lose its last digits and split its
 * group).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { resetCollected } from '../support/collect-connector.js';
import { savepointRoundTrip, type RoundTripJob } from '../support/savepoint-round-trip.js';

const JOB: RoundTripJob = {
  pipeline: 'nano_totals',
  views: `CREATE VIEW stamped AS SELECT
      CAST(TO_TIMESTAMP_LTZ(1700000000000000000 + k * 1000000007, 9) AS TIMESTAMP(9)) AS at,
      TO_TIMESTAMP_LTZ(1700000000000000000 + v * 999999937, 9) AS seen,
      CAST(TO_TIMESTAMP_LTZ(1700000000000000000 + MOD(v, 5) * 1001, 9) AS TIMESTAMP(6)) AS coarse
      FROM src;`,
  sink: (name, transactional) =>
    `CREATE TABLE ${name} (at TIMESTAMP(9), n BIGINT, lo TIMESTAMP_LTZ(9), hi TIMESTAMP_LTZ(9), kinds BIGINT) WITH ('connector' = 'collect'${transactional ? ", 'transactional' = 'true'" : ''});`,
  query: (name) => `INSERT INTO ${name} SELECT at, COUNT(*), MIN(seen), MAX(seen), COUNT(DISTINCT coarse) FROM stamped GROUP BY at`,
};

const text = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => r.map((v) => `${typeof v}:${String(v)}`).join(' ')).sort();

beforeEach(() => resetCollected());

describe('TIMESTAMP(9) in checkpoints', () => {
  for (const [before, after] of [
    [1, 1],
    [2, 1],
  ] as const) {
    it(`a job stopped with a savepoint at parallelism ${before} and resumed at ${after} leaves exactly the uninterrupted answer`, async () => {
      const { expected, resumed } = await savepointRoundTrip(JOB, before, after);
      expect(expected.length).toBe(41);
      // Epoch nanos: bigints, with digits a double would not hold.
      expect(expected.every((row) => [0, 2, 3].every((i) => typeof row[i] === 'bigint'))).toBe(true);
      expect(expected.some((row) => (row[0] as bigint) % 1000n !== 0n && !Number.isSafeInteger(Number(row[0])))).toBe(true);
      expect(expected.every((row) => row[4] === 5)).toBe(true);
      expect(text(resumed)).toEqual(text(expected));
    });
  }
});
