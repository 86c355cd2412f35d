/**
 * TIMESTAMP(9) values (epoch nanos, bigints beyond 2^53) in keyed state across a savepoint: a
 * GROUP BY on a TIMESTAMP(9) key with MIN and MAX of TIMESTAMP_LTZ(9) values and COUNT(DISTINCT)
 * of a TIMESTAMP(6), stopped with a savepoint and resumed — at the same parallelism and at
 * another one, so that keyed state is redistributed by the hash of the keys — leaves exactly the
 * changelog of an uninterrupted run, every nanosecond included, and the values are epoch nanos
 * again after the restore (a value turned into a number would lose its last digits and split its
 * group).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 20_000;

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

function ddl(dir: string, parallelism: number, checkpoints = true): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    ${checkpoints ? "SET 'execution.checkpointing.interval' = '50 ms';" : ''}
    SET 'pipeline.name' = 'nano_totals';
    SET 'parallelism.default' = '${parallelism}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '40', 'fields.v.min' = '0', 'fields.v.max' = '300');
    CREATE VIEW stamped AS SELECT
      CAST(TO_TIMESTAMP_LTZ(1700000000000000000 + k * 1000000007, 9) AS TIMESTAMP(9)) AS at,
      TO_TIMESTAMP_LTZ(1700000000000000000 + v * 999999937, 9) AS seen,
      CAST(TO_TIMESTAMP_LTZ(1700000000000000000 + MOD(v, 5) * 1001, 9) AS TIMESTAMP(6)) AS coarse
      FROM src;`;
}

const SINK = (name: string, transactional: boolean): string =>
  `CREATE TABLE ${name} (at TIMESTAMP(9), n BIGINT, lo TIMESTAMP_LTZ(9), hi TIMESTAMP_LTZ(9), kinds BIGINT) WITH ('connector' = 'collect'${transactional ? ", 'transactional' = 'true'" : ''});`;
const QUERY = (name: string): string => `INSERT INTO ${name} SELECT at, COUNT(*), MIN(seen), MAX(seen), COUNT(DISTINCT coarse) FROM stamped GROUP BY at`;

async function waitForCheckpoint(job: JobHandle): Promise<void> {
  while (job.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
}

const text = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => r.map((v) => `${typeof v}:${String(v)}`).join(' ')).sort();

beforeEach(() => resetCollected());

describe('TIMESTAMP(9) in checkpoints', () => {
  for (const [before, after] of [
    [1, 1],
    [2, 1],
  ] as const) {
    it(`a job stopped with a savepoint at parallelism ${before} and resumed at ${after} leaves exactly the uninterrupted answer`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'weir-nanos-ckpt-'));
      const reference = await startJob(engine(), `${ddl(dir, 1, false).replace("'nano_totals'", "'reference'")} ${SINK('reference', false)} ${QUERY('reference')};`);
      expect(await reference.result()).toBe('FINISHED');
      const expected = materialize(collected('reference'));
      expect(expected.length).toBe(41);
      // Epoch nanos: bigints, with digits a double would not hold.
      expect(expected.every((row) => [0, 2, 3].every((i) => typeof row[i] === 'bigint'))).toBe(true);
      expect(expected.some((row) => (row[0] as bigint) % 1000n !== 0n && !Number.isSafeInteger(Number(row[0])))).toBe(true);
      expect(expected.every((row) => row[4] === 5)).toBe(true);

      const first = await startJob(engine(), `${ddl(dir, before)} ${SINK('totals', true)} ${QUERY('totals')};`);
      await waitForCheckpoint(first);
      const savepoint = await first.stopWithSavepoint();
      expect(collected('totals').length).toBeGreaterThan(0);
      const second = await startJob(engine(), `${ddl(dir, after)} SET 'execution.savepoint.path' = '${savepoint}'; ${SINK('totals', true)} ${QUERY('totals')};`);
      expect(second.resumedFrom?.path).toBe(savepoint);
      expect(await second.result()).toBe('FINISHED');
      expect(text(materialize(collected('totals')))).toEqual(text(expected));
    });
  }
});
