/**
 * Checkpoint failures through the engine: none is silent. A bounded job whose checkpoint counter
 * cannot be read fails (it used to retry its final checkpoint for ever at full CPU), naming the
 * file, and `weir.checkpoints` shows each failed checkpoint with its reason.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { collectConnector, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

function engine(warnings: string[] = []): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: (m) => void warnings.push(m) });
}

function script(dir: string, settings = ''): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'pipeline.name' = 'counted';
    SET 'restart-strategy.type' = 'none';
    ${settings}
    CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2000');
    CREATE TABLE out (id BIGINT) WITH ('connector' = 'collect', 'transactional' = 'true');
    INSERT INTO out SELECT id FROM src;`;
}

beforeEach(() => resetCollected());

describe('checkpoint failures', () => {
  it('a bounded job whose checkpoint counter cannot be read fails with the reason instead of retrying for ever', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-fail-'));
    mkdirSync(join(dir, 'counted', 'checkpoint-counter'), { recursive: true });
    const e = engine();
    const job = await startJob(e, script(dir));
    expect(await job.result()).toBe('FAILED');
    expect(String(job.error)).toMatch(/checkpoint could not be triggered: cannot read .*counted\/checkpoint-counter: EISDIR; 1 checkpoints failed in a row, more than tolerated/);
    const [failed] = await e.query(`SELECT checkpoint_id, status, failure FROM weir.checkpoints WHERE job_id = '${job.id}'`);
    expect(failed).toEqual({ checkpoint_id: null, status: 'FAILED', failure: expect.stringContaining('EISDIR') });
  });

  it('with failures tolerated, the final checkpoint is retried at the interval until the tolerance is exhausted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ckpt-fail-'));
    mkdirSync(join(dir, 'counted', 'checkpoint-counter'), { recursive: true });
    const warnings: string[] = [];
    const e = engine(warnings);
    const job = await startJob(e, script(dir, "SET 'execution.checkpointing.tolerable-failed-checkpoints' = '3';"));
    expect(await job.result()).toBe('FAILED');
    expect(String(job.error)).toContain('4 checkpoints failed in a row');
    expect(job.checkpointStats().failed).toBe(4);
  });
});
