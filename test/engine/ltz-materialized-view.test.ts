/**
 * Materialized views over TIMESTAMP_LTZ in a session zone: a view keeps computing in the zone it
 * was created in when the session's zone changes and another view restarts the views' job, and a
 * TIMESTAMP_LTZ column reaches Postgres as a timestamptz holding the exact instant. Checked in
 * Postgres against a model of Shanghai (UTC+8) and UTC days.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

const ROWS = 3000;
const STEP = 10 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Day windows of the model: rows at id * 10 minutes, in days of the given offset; [start as text, count, last instant]. */
function days(offset: number): [string, number, number][] {
  const byDay = new Map<number, number[]>();
  for (let id = 1; id <= ROWS; id++) {
    const start = Math.floor((id * STEP + offset) / DAY) * DAY;
    byDay.set(start, [...(byDay.get(start) ?? []), id * STEP]);
  }
  return [...byDay].map(([start, times]) => [new Date(start).toISOString().slice(0, 10), times.length, Math.max(...times)]);
}

const view = (name: string, url: string): string => `CREATE MATERIALIZED VIEW ${name} WITH ('url' = '${url}') AS
  SELECT window_start, window_end, COUNT(*) AS n, MAX(ts) AS last_ts FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end`;

describe('materialized views over TIMESTAMP_LTZ', () => {
  it('keep the zone they were created in, and write TIMESTAMP_LTZ as the exact instant', async () => {
    const url = await freshDatabase('weir_ltz_mv');
    const engine = createEngine({ onWarning: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'weir-ltz-mv-'));
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; SET 'table.local-time-zone' = 'Asia/Shanghai';
      CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * ${STEP}, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'datagen', 'rows-per-second' = '100000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
      ${view('days_shanghai', url)}`);
    for (const job of engine.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');
    await engine.execute(`SET 'table.local-time-zone' = 'UTC'; ${view('days_utc', url)}`);
    for (const job of engine.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');

    const read = async (table: string): Promise<[string, number, number][]> =>
      (
        await pgQuery<{ d: string; n: string; last: string; type: string }>(
          url,
          `SELECT to_char(window_start, 'YYYY-MM-DD') AS d, n::text AS n, (extract(epoch FROM last_ts) * 1000)::bigint::text AS last, pg_typeof(last_ts)::text AS type FROM ${table} ORDER BY window_start`,
        )
      ).map((r) => {
        expect(r.type).toBe('timestamp with time zone');
        return [r.d, Number(r.n), Number(r.last)];
      });
    expect(await read('days_shanghai')).toEqual(days(8 * HOUR));
    expect(await read('days_utc')).toEqual(days(0));
    await engine.close();
  });
});
