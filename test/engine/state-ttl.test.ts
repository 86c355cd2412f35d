/**
 * `table.exec.state.ttl`: the state of a key idle longer than the retention is dropped, so a later
 * change of that key starts afresh (as in Flink); without it, state is kept forever. Time is the
 * test's: the engine's state clock is advanced instead of sleeping, so a loaded machine cannot
 * change the outcome. Every case runs on both keyed state backends (the heap's `hashmap` and the
 * disk backend, `rocksdb`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Change } from '../../src/engine/engine.js';

/** A clock the test moves. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let now = Date.UTC(2026, 0, 1);
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** The changes of a running count per user as clicks of user 'a' arrive `pauseMs` apart (on the state clock). */
async function countsWithPause(backend: string, ttl: string | undefined, pauseMs: number, changes: number): Promise<Change[]> {
  const clock = manualClock();
  const engine = createEngine({ stateClock: clock.now });
  await engine.execute(`SET 'state.backend.type' = '${backend}'; CREATE TABLE clicks (u STRING); ${ttl === undefined ? '' : `SET 'table.exec.state.ttl' = '${ttl}';`}`);
  await engine.execute("INSERT INTO clicks VALUES ('a')");
  const seen: Change[] = [];
  const controller = new AbortController();
  const reading = (async () => {
    for await (const change of engine.subscribe('SELECT u, COUNT(*) AS n FROM clicks GROUP BY u', { signal: controller.signal })) {
      seen.push(change);
      if (seen.length === changes) controller.abort();
    }
  })().catch((error: unknown) => {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  });
  while (seen.length === 0) await sleep(10);
  clock.advance(pauseMs);
  await engine.execute("INSERT INTO clicks VALUES ('a')");
  await reading;
  await engine.execute('DROP TABLE clicks');
  return seen;
}

describe.each(['hashmap', 'rocksdb'])('idle state retention (%s)', (backend) => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-ttl-'))));
  afterAll(() => process.chdir(home));

  it('forgets the count of a key idle for longer than the ttl', async () => {
    expect(await countsWithPause(backend, '200 ms', 200, 2)).toEqual([
      { op: '+I', row: { u: 'a', n: 1 } },
      { op: '+I', row: { u: 'a', n: 1 } },
    ]);
  });

  it('keeps it by default', async () => {
    expect(await countsWithPause(backend, undefined, 600, 3)).toEqual([
      { op: '+I', row: { u: 'a', n: 1 } },
      { op: '-U', row: { u: 'a', n: 1 } },
      { op: '+U', row: { u: 'a', n: 2 } },
    ]);
  });

  it('keeps the count of a key idle for just less than the ttl', async () => {
    expect(await countsWithPause(backend, '200 ms', 199, 3)).toEqual([
      { op: '+I', row: { u: 'a', n: 1 } },
      { op: '-U', row: { u: 'a', n: 1 } },
      { op: '+U', row: { u: 'a', n: 2 } },
    ]);
  });

  it('forgets the rows a join keeps for a key idle for longer than the ttl: later orders miss users (and old orders) past it', async () => {
    const clock = manualClock();
    const engine = createEngine({ stateClock: clock.now });
    await engine.execute(`SET 'state.backend.type' = '${backend}'; CREATE TABLE users (id INT, name STRING); CREATE TABLE orders (user_id INT, item STRING);
      SET 'table.exec.state.ttl' = '1 s';
      INSERT INTO users VALUES (1, 'ann'), (2, 'bob');`);
    const seen: Change[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const change of engine.subscribe('SELECT name, item FROM orders JOIN users ON users.id = orders.user_id', { signal: controller.signal })) {
        seen.push(change);
        if (change.row.item === 'last') controller.abort();
      }
    })().catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    });
    await engine.execute("INSERT INTO orders VALUES (1, 'tea')");
    while (seen.length === 0) await sleep(10);
    clock.advance(2_500);
    await engine.execute("INSERT INTO orders VALUES (2, 'cake'), (1, 'jam')");
    await engine.execute("INSERT INTO users VALUES (1, 'cy'); INSERT INTO orders VALUES (1, 'last')");
    await reading;
    await engine.execute('DROP TABLE users; DROP TABLE orders');
    expect(seen).toEqual([
      { op: '+I', row: { name: 'ann', item: 'tea' } },
      { op: '+I', row: { name: 'cy', item: 'jam' } },
      { op: '+I', row: { name: 'cy', item: 'last' } },
    ]);
  });
});
