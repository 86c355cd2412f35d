/**
 * Window Top-N and window join across a savepoint: a job stopped mid-stream with a savepoint and
 * resumed (at another parallelism, so keyed state is redistributed) leaves exactly the output of
 * an uninterrupted run — the windows open at the savepoint keep their buffered rows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 12_000;

function ddl(dir: string, name: string, options: { parallelism: number; checkpoints: boolean }): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    ${options.checkpoints ? "SET 'execution.checkpointing.interval' = '50 ms';" : ''}
    SET 'pipeline.name' = '${name}';
    SET 'parallelism.default' = '${options.parallelism}';
    CREATE TABLE src (id BIGINT, k INT, v INT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'datagen', 'rows-per-second' = '8000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '9', 'fields.v.min' = '0', 'fields.v.max' = '100000');
    CREATE TABLE top3_${name} (window_start TIMESTAMP(3), id BIGINT, v INT, rn BIGINT) WITH ('connector' = 'collect', 'transactional' = '${options.checkpoints}');
    CREATE TABLE joined_${name} (k INT, window_start TIMESTAMP(3), id BIGINT, other BIGINT) WITH ('connector' = 'collect', 'transactional' = '${options.checkpoints}');
    EXECUTE STATEMENT SET BEGIN
      INSERT INTO top3_${name} SELECT window_start, id, v, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, id) AS rn
        FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
      ) WHERE rn <= 3;
      INSERT INTO joined_${name} SELECT L.k, L.window_start, L.id, R.id FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) L
      JOIN (SELECT * FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE v < 2000) R
      ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
    END;`;
}

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

beforeEach(() => resetCollected());

describe('window Top-N and window join across a savepoint', () => {
  it('resume at another parallelism with the output of an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-window-ckpt-'));
    const reference = await startJob(engine(), ddl(dir, 'reference', { parallelism: 1, checkpoints: false }));
    expect(await reference.result()).toBe('FINISHED');

    const first = await startJob(engine(), ddl(dir, 'resumed', { parallelism: 1, checkpoints: true }));
    while (first.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
    await first.stopWithSavepoint();
    const partial = collected('top3_resumed').length;
    const second = await startJob(engine(), ddl(dir, 'resumed', { parallelism: 2, checkpoints: true }));
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');

    expect(partial).toBeLessThan(collected('top3_resumed').length);
    expect(materialize(collected('top3_resumed'))).toEqual(materialize(collected('top3_reference')));
    expect(materialize(collected('joined_resumed'))).toEqual(materialize(collected('joined_reference')));
    // Row `id` is at id * 10 ms: 120 windows of 1 s with at least 3 rows, and the last one (id 12000 alone).
    expect(collected('top3_reference')).toHaveLength((ROWS / 100) * 3 + 1);
    expect(collected('joined_reference').length).toBeGreaterThan(ROWS / 10);
    expect(new Set([...collected('top3_resumed'), ...collected('joined_resumed')].map(([kind]) => kind))).toEqual(new Set(['+I']));
  });
});
