/**
 * `table.exec.source.idle-timeout`: a window over the union of two monitored directories, one of
 * which never receives a file, fires only when the empty source is declared idle (Flink's
 * semantics); without the timeout the empty source holds the watermark back forever.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createEngine, type Change } from '../../src/engine/engine.js';

async function firstWindows(idleTimeout: string | undefined, waitMs: number): Promise<Change[]> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-idle-'));
  const busy = join(dir, 'busy');
  const quiet = join(dir, 'quiet');
  mkdirSync(busy);
  mkdirSync(quiet);
  writeFileSync(join(busy, 'clicks.csv'), ['a,2026-01-01 00:00:00.100', 'b,2026-01-01 00:00:00.900', 'a,2026-01-01 00:00:01.500', 'c,2026-01-01 00:00:05.000'].join('\n') + '\n');
  const engine = createEngine();
  const table = (name: string, path: string): string =>
    `CREATE TABLE ${name} (u STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv', 'source.monitor-interval' = '50 ms');`;
  await engine.execute(`${table('busy', busy)} ${table('quiet', quiet)}
    CREATE VIEW clicks AS SELECT * FROM busy UNION ALL SELECT * FROM quiet;
    ${idleTimeout === undefined ? '' : `SET 'table.exec.source.idle-timeout' = '${idleTimeout}';`}`);
  const seen: Change[] = [];
  const controller = new AbortController();
  const reading = (async () => {
    for await (const change of engine.subscribe(
      'SELECT window_start, COUNT(*) AS clicks FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL \'1\' SECOND)) GROUP BY window_start, window_end',
      { signal: controller.signal },
    )) {
      seen.push(change);
    }
  })().catch((error: unknown) => {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  });
  await sleep(waitMs);
  controller.abort();
  await reading;
  return seen;
}

describe('source idle timeout', () => {
  it('lets the watermark of the other source fire windows once the empty source is idle', async () => {
    const seen = await firstWindows('300 ms', 2_500);
    expect(seen.map((c) => [c.op, String(c.row.window_start), c.row.clicks])).toEqual([
      ['+I', String(new Date(Date.UTC(2026, 0, 1, 0, 0, 0))), 2],
      ['+I', String(new Date(Date.UTC(2026, 0, 1, 0, 0, 1))), 1],
    ]);
  });

  it('without it, the empty source holds every window back', async () => {
    expect(await firstWindows(undefined, 2_500)).toEqual([]);
  });
});
