/**
 * OVER aggregates across a stop with savepoint and a resume: the rows waiting for the watermark,
 * the frames (insert-only, event time) and the partitions' rows with their emitted results
 * (updating input), and the general OVER operator's sorted partitions are keyed state, so the
 * resumed job ends with exactly the table of an uninterrupted run, also when resumed at another parallelism (state is redistributed by key).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 20_000;

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

function ddl(dir: string, sink: string, checkpoints: boolean, parallelism = 1): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'parallelism.default' = '${parallelism}';
    ${checkpoints ? "SET 'execution.checkpointing.interval' = '50 ms';" : ''}
    SET 'pipeline.name' = '${sink}';
    CREATE TABLE src (id BIGINT, k INT, v INT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'datagen', 'rows-per-second' = '10000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '9', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE ${sink} (k INT, id BIGINT, s INT, n BIGINT) WITH ('connector' = 'collect', 'transactional' = 'true');`;
}

const QUERIES = {
  'insert-only input on event time': (sink: string) =>
    `INSERT INTO ${sink} SELECT k, id, SUM(v) OVER w, COUNT(*) OVER w FROM src WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)`,
  'updating input': (sink: string) =>
    `INSERT INTO ${sink} SELECT k, last_id, SUM(top) OVER w, COUNT(*) OVER w FROM (SELECT k, MOD(id, 40) AS g, MAX(v) AS top, MAX(id) AS last_id, MAX(ts) AS last_ts FROM src GROUP BY k, MOD(id, 40))
      WINDOW w AS (PARTITION BY k ORDER BY last_ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW)`,
  // The general OVER operator: rows arrive out of the window's order, so neighbours' values change.
  'window functions ordered by a plain column': (sink: string) => `INSERT INTO ${sink} SELECT k, id, LAG(v) OVER w, LEAD(id, 2, -1) OVER w FROM src WINDOW w AS (PARTITION BY k ORDER BY v, id)`,
};

beforeEach(() => resetCollected());

describe('OVER aggregates across a savepoint', () => {
  const cases = [...Object.entries(QUERIES).map(([name, query]) => ({ name, query, resumedParallelism: 1 })), { name: 'updating input', query: QUERIES['updating input'], resumedParallelism: 2 }, { name: 'window functions ordered by a plain column', query: QUERIES['window functions ordered by a plain column'], resumedParallelism: 2 }];
  for (const { name, query, resumedParallelism } of cases) {
    it(`${name}: stopped with a savepoint and resumed${resumedParallelism === 1 ? '' : ` at parallelism ${resumedParallelism}`}, the table equals an uninterrupted run`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'weir-over-'));
      const reference = await startJob(engine(), `${ddl(join(dir, 'reference'), 'reference', false)} ${query('reference')}`);
      expect(await reference.result(), String(reference.error)).toBe("FINISHED");
      const expected = materialize(collected('reference'));
      expect(expected.length).toBeGreaterThan(0);

      const first = await startJob(engine(), `${ddl(dir, 'resumed', true)} ${query('resumed')}`);
      while (first.lastCheckpoint === undefined && first.error === undefined) await new Promise((r) => setTimeout(r, 10));
      expect(first.error).toBeUndefined();
      const savepoint = await first.stopWithSavepoint();
      expect(collected('resumed').length).toBeLessThan(collected('reference').length);
      const second = await startJob(engine(), `${ddl(dir, 'resumed', true, resumedParallelism)} SET 'execution.savepoint.path' = '${savepoint}'; ${query('resumed')}`);
      expect(second.resumedFrom?.path).toBe(savepoint);
      expect(await second.result()).toBe('FINISHED');
      expect(materialize(collected('resumed'))).toEqual(expected);
    });
  }
});
