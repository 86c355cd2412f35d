/**
 * Processing-time windows in a running job: over an unbounded source, a TUMBLE window over a
 * PROCTIME() column fires on the wall clock, while the source still runs, with the rows that
 * arrived during it; and the legacy GROUP BY TUMBLE(proctime, ...) runs the same way.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const EVENTS = `CREATE TABLE events (k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.k.min' = '1', 'fields.k.max' = '1');
  CREATE VIEW timed AS SELECT k, PROCTIME() AS pt FROM events;`;

describe('processing-time windows', () => {
  for (const [name, query] of [
    ['TUMBLE window TVF', "SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE timed, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end"],
    ['legacy GROUP BY TUMBLE', "SELECT k, COUNT(*) AS n, TUMBLE_START(pt, INTERVAL '1' SECOND) AS ws, TUMBLE_END(pt, INTERVAL '1' SECOND) AS we FROM timed GROUP BY k, TUMBLE(pt, INTERVAL '1' SECOND)"],
  ] as const) {
    it(`${name}: fires each window on the wall clock while the unbounded source runs`, async () => {
      const engine = createEngine();
      await engine.execute(EVENTS);
      const started = Date.now();
      const windows: { n: number; ws: Date; we: Date; at: number }[] = [];
      for await (const change of engine.subscribe(query)) {
        expect(change.op).toBe('+I');
        windows.push({ n: change.row.n as number, ws: change.row.ws as Date, we: change.row.we as Date, at: Date.now() });
        if (windows.length === 2) break;
      }
      const [first, second] = windows as [(typeof windows)[0], (typeof windows)[0]];
      expect(second.ws.getTime()).toBe(first.we.getTime());
      for (const w of windows) {
        expect(w.we.getTime() - w.ws.getTime()).toBe(1000);
        expect(w.at).toBeGreaterThanOrEqual(w.we.getTime() - 5);
        expect(w.we.getTime()).toBeGreaterThan(started);
      }
      expect(second.n).toBeGreaterThan(50);
      expect(engine.session.jobs()[0]?.status).toBe('CANCELED');
    });
  }

  it('lays processing-time windows on the session zone\'s wall clock (PROCTIME() is a TIMESTAMP_LTZ) and fires them on time', async () => {
    const engine = createEngine();
    await engine.execute(`SET 'table.local-time-zone' = 'GMT+05:30'; ${EVENTS}`);
    const offset = 5.5 * 3_600_000;
    const windows: { n: number; ws: number; we: number; at: number }[] = [];
    const query = "SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE timed, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end";
    const started = Date.now();
    for await (const change of engine.subscribe(query)) {
      windows.push({ n: change.row.n as number, ws: (change.row.ws as Date).getTime(), we: (change.row.we as Date).getTime(), at: Date.now() });
      if (windows.length === 2) break;
    }
    for (const w of windows) {
      // Wall-clock bounds 5:30 ahead of UTC; the window fires once its last instant (we - 5:30) has passed (a timer 5:30 late would never fire within the test).
      expect(w.we - w.ws).toBe(1000);
      expect(w.at).toBeGreaterThanOrEqual(w.we - offset - 5);
      expect(w.we - offset).toBeGreaterThan(started);
    }
    expect(windows[1]!.n).toBeGreaterThan(50);
  });

  it('TUMBLE_PROCTIME reads a processing-time window; TUMBLE_ROWTIME is refused on one', async () => {
    const engine = createEngine();
    await engine.execute(EVENTS);
    const plan = await engine.execute("EXPLAIN SELECT k, TUMBLE_PROCTIME(pt, INTERVAL '1' SECOND) AS t FROM timed GROUP BY k, TUMBLE(pt, INTERVAL '1' SECOND)");
    expect(plan[0]).toMatchObject({ kind: 'text' });
    await expect(engine.execute("EXPLAIN SELECT k, TUMBLE_ROWTIME(pt, INTERVAL '1' SECOND) AS t FROM timed GROUP BY k, TUMBLE(pt, INTERVAL '1' SECOND)")).rejects.toThrow(
      'TUMBLE_ROWTIME needs a window over an event-time attribute',
    );
  });
});
