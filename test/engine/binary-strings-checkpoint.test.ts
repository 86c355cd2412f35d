/**
 * Binary strings in keyed state across a savepoint: a GROUP BY on a BYTES key with MIN and MAX of
 * bytes and COUNT(DISTINCT bytes) (accumulators that hold Uint8Arrays, and a distinct map keyed by
 * their encoding), stopped with a savepoint and resumed — at the same parallelism and at another
 * one, so that keyed state is redistributed by the hash of the encoded bytes — leaves exactly the
 * changelog of an uninterrupted run, bytes included.
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
    SET 'pipeline.name' = 'byte_totals';
    SET 'parallelism.default' = '${parallelism}';
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '40', 'fields.v.min' = '0', 'fields.v.max' = '300');
    CREATE VIEW tagged AS SELECT UNHEX(LPAD(HEX(k * 7), 2 * (1 + MOD(k, 3)), '0')) AS tag, ENCODE(CAST(v AS STRING), 'UTF-16BE') AS payload, UNHEX(HEX(MOD(v, 5))) AS small FROM src;`;
}

const SINK = (name: string, transactional: boolean): string =>
  `CREATE TABLE ${name} (tag BYTES, n BIGINT, lo BYTES, hi BYTES, kinds BIGINT) WITH ('connector' = 'collect'${transactional ? ", 'transactional' = 'true'" : ''});`;
const QUERY = (name: string): string => `INSERT INTO ${name} SELECT tag, COUNT(*), MIN(payload), MAX(payload), COUNT(DISTINCT small) FROM tagged GROUP BY tag`;

async function waitForCheckpoint(job: JobHandle): Promise<void> {
  while (job.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
}

beforeEach(() => resetCollected());

describe('binary strings in checkpoints', () => {
  for (const [before, after] of [
    [1, 1],
    [2, 1],
  ] as const) {
    it(`a job stopped with a savepoint at parallelism ${before} and resumed at ${after} leaves exactly the uninterrupted answer`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'weir-bytes-ckpt-'));
      const reference = await startJob(engine(), `${ddl(dir, 1, false).replace("'byte_totals'", "'reference'")} ${SINK('reference', false)} ${QUERY('reference')};`);
      expect(await reference.result()).toBe('FINISHED');
      const expected = materialize(collected('reference'));
      expect(expected.length).toBe(41);
      expect(expected.every((row) => row.every((v, i) => (i === 1 || i === 4 ? typeof v === 'number' : v instanceof Uint8Array)))).toBe(true);

      const first = await startJob(engine(), `${ddl(dir, before)} ${SINK('totals', true)} ${QUERY('totals')};`);
      await waitForCheckpoint(first);
      const savepoint = await first.stopWithSavepoint();
      expect(collected('totals').length).toBeGreaterThan(0);
      const second = await startJob(engine(), `${ddl(dir, after)} SET 'execution.savepoint.path' = '${savepoint}'; ${SINK('totals', true)} ${QUERY('totals')};`);
      expect(second.resumedFrom?.path).toBe(savepoint);
      expect(await second.result()).toBe('FINISHED');
      const key = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => r.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v))).join(' ')).sort();
      expect(key(materialize(collected('totals')))).toEqual(key(expected));
    });
  }
});
