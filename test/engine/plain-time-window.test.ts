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

  it("takes Flink's named arguments (DATA, TIMECOL, SIZE, SLIDE, OFFSET) in any order, and refuses wrong ones by name", async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE events (id INT, at TIMESTAMP(3));
      INSERT INTO events VALUES (1, TIMESTAMP '2024-01-01 10:01:00'), (2, TIMESTAMP '2024-01-01 10:17:00'), (3, TIMESTAMP '2024-01-01 10:44:00');
      SET 'execution.runtime-mode' = 'batch';`);
    const rows = async (sql: string): Promise<string[]> => (await engine.query(sql)).map((r) => JSON.stringify(r)).sort();
    const select = 'SELECT id, CAST(window_start AS STRING) AS ws, CAST(window_end AS STRING) AS we FROM TABLE';
    const positional = await rows(`${select}(HOP(TABLE events, DESCRIPTOR(at), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE, INTERVAL '5' MINUTE))`);
    expect(positional).toHaveLength(9);
    expect(positional).toContain(JSON.stringify({ id: 1, ws: '2024-01-01 09:35:00.000', we: '2024-01-01 10:05:00.000' }));
    expect(await rows(`${select}(HOP(DATA => TABLE events, TIMECOL => DESCRIPTOR(at), SLIDE => INTERVAL '10' MINUTE, SIZE => INTERVAL '30' MINUTE, \`OFFSET\` => INTERVAL '5' MINUTE))`)).toEqual(positional);
    expect(await rows(`${select}(HOP(TABLE events, offset => INTERVAL '5' MINUTE, size => INTERVAL '30' MINUTE, timecol => DESCRIPTOR(at), slide => INTERVAL '10' MINUTE))`)).toEqual(positional);
    const tumbled = await rows(`${select}(TUMBLE(TABLE events, DESCRIPTOR(at), SIZE => INTERVAL '30' MINUTE))`);
    expect(tumbled).toEqual(await rows(`${select}(TUMBLE(TABLE events, DESCRIPTOR(at), INTERVAL '30' MINUTE))`));
    await expect(engine.execute("SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(at), WIDTH => INTERVAL '1' MINUTE))")).rejects.toThrow(
      "TUMBLE has no argument named 'WIDTH' (its arguments are DATA, TIMECOL, SIZE, OFFSET)",
    );
    await expect(engine.execute("SELECT * FROM TABLE(TUMBLE(TABLE events, DATA => DESCRIPTOR(at), SIZE => INTERVAL '1' MINUTE))")).rejects.toThrow('the argument DATA of TUMBLE is given twice');
    await expect(engine.execute("SELECT * FROM TABLE(TUMBLE(TABLE events, TIMECOL => DESCRIPTOR(at), INTERVAL '1' MINUTE))")).rejects.toThrow('a positional argument of TUMBLE cannot follow a named one');
    await expect(engine.execute("SELECT * FROM TABLE(HOP(TABLE events, TIMECOL => DESCRIPTOR(at), SIZE => INTERVAL '1' MINUTE))")).rejects.toThrow('HOP needs its argument SLIDE');
    await engine.close();
  });

  it('joins two window aggregates over plain timestamps on their windows as a regular join: updates flow through', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE ev (id INT, uid INT, v INT, at TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED);
      CREATE TABLE pay (id INT, uid INT, amount INT, at TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED);
      INSERT INTO ev VALUES (1, 1, 4, TIMESTAMP '2024-01-01 10:01:00'), (2, 1, 3, TIMESTAMP '2024-01-01 10:20:00'), (3, 2, 5, TIMESTAMP '2024-01-01 10:40:00');
      INSERT INTO pay VALUES (1, 1, 100, TIMESTAMP '2024-01-01 10:10:00'), (2, 2, 7, TIMESTAMP '2024-01-01 10:05:00');`);
    const windowed = (table: string, value: string): string =>
      `(SELECT window_start, window_end, uid, SUM(${value}) AS total FROM TABLE(TUMBLE(TABLE ${table}, DESCRIPTOR(at), INTERVAL '30' MINUTE)) GROUP BY window_start, window_end, uid)`;
    const query = `SELECT CAST(e.window_start AS STRING) AS ws, e.uid, e.total AS ev_total, p.total AS pay_total FROM ${windowed('ev', 'v')} e JOIN ${windowed('pay', 'amount')} p ON e.window_start = p.window_start AND e.window_end = p.window_end AND e.uid = p.uid`;
    // The streaming result as a multiset of rows, folded from the changes (an interval join would refuse the updating inputs).
    const table = new Map<string, number>();
    const controller = new AbortController();
    const reading = (async () => {
      for await (const change of engine.subscribe(query, { signal: controller.signal })) {
        const key = JSON.stringify(change.row);
        const delta = change.op === '+I' || change.op === '+U' ? 1 : -1;
        table.set(key, (table.get(key) ?? 0) + delta);
        if (table.get(key) === 0) table.delete(key);
      }
    })().catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    });
    const rows = (): string[] => [...table.keys()].sort();
    const first = JSON.stringify({ ws: '2024-01-01 10:00:00.000', uid: 1, ev_total: 7, pay_total: 100 });
    await waitFor(() => rows().length === 1);
    expect(rows()).toEqual([first]);
    // Both sides' sums change: row 3 moves into the 10:00 window, the payment of uid 2 changes.
    await engine.execute(`UPDATE ev SET at = TIMESTAMP '2024-01-01 10:02:00' WHERE id = 3; UPDATE pay SET amount = 8 WHERE id = 2`);
    const second = JSON.stringify({ ws: '2024-01-01 10:00:00.000', uid: 2, ev_total: 5, pay_total: 8 });
    await waitFor(() => table.has(second));
    await engine.execute('UPDATE ev SET v = 1 WHERE id = 1');
    const changed = JSON.stringify({ ws: '2024-01-01 10:00:00.000', uid: 1, ev_total: 4, pay_total: 100 });
    await waitFor(() => table.has(changed) && !table.has(first));
    expect(rows()).toEqual([changed, second].sort());
    expect([...table.values()]).toEqual([1, 1]);
    controller.abort();
    await reading;
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
