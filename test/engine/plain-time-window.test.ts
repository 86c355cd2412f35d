/**
 * Window TVFs over a plain TIMESTAMP column, streaming: the GROUP BY over the windows is an
 * ordinary updating aggregation, so an UPDATE that moves a row to another window retracts it from
 * the old window at once (no watermark involved); and what the binder refuses, with its message.
 * (A TUMBLE is a Calc; HOP and CUMULATE the window table operator: the property test covers both.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Change } from '../../src/engine/engine.js';

describe('window TVFs over a plain timestamp', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-plain-window-'))));
  afterAll(() => process.chdir(home));

  it('retracts a row from its old window when an UPDATE moves it, streaming', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE events (id INT, at TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED);
      INSERT INTO events VALUES (1, TIMESTAMP '2024-01-01 10:01:00'), (2, TIMESTAMP '2024-01-01 10:02:00');`);
    const seen: Change[] = [];
    const controller = new AbortController();
    const query = "SELECT CAST(window_start AS STRING) AS ws, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(at), INTERVAL '1' HOUR)) GROUP BY window_start, window_end";
    const reading = (async () => {
      for await (const change of engine.subscribe(query, { signal: controller.signal })) {
        seen.push(change);
        if (change.op === '-D') controller.abort();
      }
    })().catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    });
    await waitFor(() => seen.some((c) => c.row.n === 2));
    await engine.execute("UPDATE events SET at = TIMESTAMP '2024-01-01 11:30:00' WHERE id = 2");
    await waitFor(() => seen.some((c) => c.row.ws === '2024-01-01 11:00:00.000'));
    await engine.execute('DELETE FROM events WHERE id = 1');
    await reading;
    const ten = '2024-01-01 10:00:00.000';
    const eleven = '2024-01-01 11:00:00.000';
    expect(seen.filter((c) => c.row.ws === ten).map((c) => [c.op, Number(c.row.n)])).toEqual([
      ['+I', 2],
      ['-U', 2],
      ['+U', 1],
      ['-D', 1],
    ]);
    expect(seen.filter((c) => c.row.ws === eleven).map((c) => [c.op, Number(c.row.n)])).toEqual([['+I', 1]]);
    await engine.close();
  });

  it('refuses SESSION over a plain timestamp, a time column that is no timestamp, and a bad offset', async () => {
    const engine = createEngine();
    await engine.execute('CREATE TABLE events (id INT, at TIMESTAMP(3))');
    await expect(engine.execute("SELECT * FROM TABLE(SESSION(TABLE events, DESCRIPTOR(at), INTERVAL '1' MINUTE))")).rejects.toThrow("the time column 'at' of SESSION must be an event-time attribute");
    await expect(engine.execute("SELECT * FROM TABLE(HOP(TABLE events, DESCRIPTOR(id), INTERVAL '1' MINUTE, INTERVAL '2' MINUTE))")).rejects.toThrow(
      "the time column 'id' of HOP must be a TIMESTAMP or TIMESTAMP_LTZ column, not INT",
    );
    await expect(engine.execute("SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(at), INTERVAL '1' MINUTE, 5))")).rejects.toThrow("the offset of TUMBLE must be an interval such as INTERVAL '10' MINUTE");
    await expect(engine.execute("SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(at), INTERVAL '1' MINUTE, INTERVAL '1' SECOND, INTERVAL '1' SECOND))")).rejects.toThrow(
      'TUMBLE takes TUMBLE(TABLE t, DESCRIPTOR(time_column), size [, offset])',
    );
    await expect(engine.execute("SELECT * FROM TABLE(SESSION(TABLE events, DESCRIPTOR(at), INTERVAL '1' MINUTE, INTERVAL '1' SECOND))")).rejects.toThrow(
      'SESSION takes SESSION(TABLE t [PARTITION BY columns], DESCRIPTOR(time_column), gap)',
    );
    // The function the planner computes a TUMBLE's bounds with is neither callable nor listed.
    await expect(engine.execute("SELECT `$TUMBLE_BOUND`(at, INTERVAL '1' MINUTE, INTERVAL '0' SECOND, INTERVAL '0' SECOND) FROM events")).rejects.toThrow("function '$TUMBLE_BOUND' does not exist");
    const [functions] = await engine.execute('SHOW FUNCTIONS');
    expect(JSON.stringify(functions)).toContain('DATE_FORMAT');
    expect(JSON.stringify(functions)).not.toContain('TUMBLE_BOUND');
    await engine.close();
  });

  it('gives window_time a time attribute only over an event-time column', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE events (id INT, at TIMESTAMP(3));
      CREATE TABLE timed (id INT, at TIMESTAMP(3), WATERMARK FOR at AS at) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
      CREATE VIEW plain_windows AS SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(at), INTERVAL '1' MINUTE));
      CREATE VIEW timed_windows AS SELECT * FROM TABLE(TUMBLE(TABLE timed, DESCRIPTOR(at), INTERVAL '1' MINUTE));`);
    const windowTime = async (view: string): Promise<string> => {
      const [described] = await engine.execute(`DESCRIBE ${view}`);
      const rows = described?.kind === 'rows' ? described.rows : [];
      return JSON.stringify(rows.find((r: unknown) => JSON.stringify(r).includes('window_time')));
    };
    expect(await windowTime('timed_windows')).toContain('ROWTIME');
    expect(await windowTime('plain_windows')).not.toContain('ROWTIME');
    expect(await windowTime('plain_windows')).toContain('TIMESTAMP(3)');
    await engine.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
