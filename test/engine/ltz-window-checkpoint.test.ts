/**
 * A job over TIMESTAMP_LTZ windows keeps its session zone across a savepoint: the zone is part of
 * its job graph, so the resumed job (in a session of the same zone) leaves exactly the output of
 * an uninterrupted run — which matches a model of Asia/Shanghai days — and a session in another
 * zone is refused the savepoint with an error naming both zones, instead of silently computing
 * the open windows on another clock.
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
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function ddl(dir: string, name: string, zone: string, checkpoints: boolean): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    ${checkpoints ? "SET 'execution.checkpointing.interval' = '50 ms';" : ''}
    SET 'pipeline.name' = '${name}';
    SET 'table.local-time-zone' = '${zone}';
    CREATE TABLE src (id BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(id * ${MINUTE}, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'datagen', 'rows-per-second' = '8000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE days_${name} (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, first_local STRING) WITH ('connector' = 'collect', 'transactional' = '${checkpoints}');
    INSERT INTO days_${name} SELECT window_start, window_end, COUNT(*), MIN(CAST(ts AS STRING))
      FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;`;
}

function engine(): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: () => {} });
}

beforeEach(() => resetCollected());

describe('TIMESTAMP_LTZ windows across a savepoint', () => {
  it('resume in the zone they were planned in, and are refused in another one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ltz-ckpt-'));
    const reference = await startJob(engine(), ddl(dir, 'reference', 'Asia/Shanghai', false));
    expect(await reference.result()).toBe('FINISHED');
    // The model: row id at id minutes after the epoch, in Shanghai days (UTC+8).
    const days = new Map<number, number[]>();
    for (let id = 1; id <= ROWS; id++) {
      const start = Math.floor((id * MINUTE + 8 * HOUR) / DAY) * DAY;
      days.set(start, [...(days.get(start) ?? []), id]);
    }
    const local = (id: number): string => new Date(id * MINUTE + 8 * HOUR).toISOString().replace('T', ' ').replace('Z', '');
    const expected = [...days].map(([start, ids]) => [start, start + DAY, ids.length, local(ids[0]!)]);
    expect(materialize(collected('days_reference')).map((r) => JSON.stringify(r)).sort()).toEqual(expected.map((r) => JSON.stringify(r)).sort());

    const first = await startJob(engine(), ddl(dir, 'resumed', 'Asia/Shanghai', true));
    while (first.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
    await first.stopWithSavepoint();
    const partial = collected('days_resumed').length;

    const elsewhere = engine();
    const refused = await elsewhere.execute(ddl(dir, 'resumed', 'UTC', true)).then(
      async (results) => {
        const last = results[results.length - 1]!;
        return last.kind === 'job' && (await last.job.result()) === 'FAILED' ? last.job.error : undefined;
      },
      (error: unknown) => error,
    );
    expect(String(refused)).toContain("computing in time zone 'Asia/Shanghai', not 'UTC'; it cannot be restored in another zone");

    const second = await startJob(engine(), ddl(dir, 'resumed', 'Asia/Shanghai', true));
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');
    expect(partial).toBeLessThan(collected('days_resumed').length);
    expect(materialize(collected('days_resumed'))).toEqual(materialize(collected('days_reference')));
  });
});
