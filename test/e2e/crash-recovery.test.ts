/**
 * Exactly-once across crashes, with real processes: a `weir run` of a deterministic source feeding
 * an aggregation and a pass-through into transactional file sinks is killed with SIGKILL at random
 * moments (and at each named failpoint), restarted each time, and finally runs to the end. The
 * committed output must then equal an uninterrupted run's: every source row exactly once, and the
 * aggregate's changelog netting to the batch aggregate of those rows (EXACTLY_ONCE); with
 * AT_LEAST_ONCE nothing may be lost.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { add, committedRecords, crashScriptPreamble, entries, FaultPlan, netTable, runChild, runUntilDone, type Multiset } from '../support/crash-harness.js';

const ROWS = 12_000;

function setup(mode: 'EXACTLY_ONCE' | 'AT_LEAST_ONCE'): { dir: string; script: string } {
  const dir = mkdtempSync(join(tmpdir(), 'weir-crash-'));
  for (const sub of ['raw', 'agg']) mkdirSync(join(dir, sub));
  const script = join(dir, 'job.sql');
  writeFileSync(
    script,
    `${crashScriptPreamble(dir, 'crash-test', ROWS, `SET 'execution.checkpointing.mode' = '${mode}';`)}
     CREATE TABLE raw_out (id BIGINT, k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${dir}/raw', 'format' = 'json');
     CREATE TABLE agg_out (k INT, n BIGINT, total INT, hi INT) WITH ('connector' = 'filesystem', 'path' = '${dir}/agg', 'format' = 'debezium-json');
     EXECUTE STATEMENT SET BEGIN
       INSERT INTO raw_out SELECT id, k, v FROM src;
       INSERT INTO agg_out SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k;
     END;`,
  );
  return { dir, script };
}

/** What an uninterrupted run commits: each source row once, and the aggregate of those rows. */
function check(dir: string, mode: 'EXACTLY_ONCE' | 'AT_LEAST_ONCE'): void {
  const raw = committedRecords(join(dir, 'raw')) as { id: number; k: number; v: number }[];
  const ids = new Set(raw.map((r) => r.id));
  expect(ids.size, 'every source row reaches the sink').toBe(ROWS);
  if (mode === 'AT_LEAST_ONCE') return;
  expect(raw.length, 'no source row is committed twice').toBe(ROWS);
  const expected: Multiset = new Map();
  const groups = new Map<number, { n: number; total: number; hi: number }>();
  for (const { k, v } of raw) {
    const g = groups.get(k) ?? { n: 0, total: 0, hi: -Infinity };
    groups.set(k, { n: g.n + 1, total: g.total + v, hi: Math.max(g.hi, v) });
  }
  for (const [k, g] of groups) add(expected, { k, n: g.n, total: g.total, hi: g.hi });
  expect(entries(netTable(committedRecords(join(dir, 'agg'))))).toEqual(entries(expected));
}

describe('crash recovery (SIGKILL, restart, compare with the uninterrupted result)', () => {
  it('EXACTLY_ONCE: killed at random moments four times, the output is exact', async () => {
    const { dir, script } = setup('EXACTLY_ONCE');
    const plan = new FaultPlan('crash-recovery EXACTLY_ONCE');
    const delays = [350, 700, 500, 900].map((d, i) => plan.delay(`kill ${i + 1}`, d, d + 300));
    const log = await runUntilDone(script, dir, delays.map((killAfterMs) => ({ killAfterMs })));
    expect(log).toMatch(/resumed from checkpoint \d+/);
    check(dir, 'EXACTLY_ONCE');
  });

  it('AT_LEAST_ONCE: killed at random moments, nothing is lost', async () => {
    const { dir, script } = setup('AT_LEAST_ONCE');
    await runUntilDone(script, dir, [400, 800].map((killAfterMs) => ({ killAfterMs })));
    check(dir, 'AT_LEAST_ONCE');
  });

  it('SIGTERM stops the job with a savepoint; the next run resumes from it and the output is exact', async () => {
    const { dir, script } = setup('EXACTLY_ONCE');
    const stopped = await runChild(script, { cwd: dir, killAfterMs: 600, signal: 'SIGTERM' });
    expect(stopped.code, stopped.stderr).toBe(130);
    const savepoint = /Job \w+ stopped with savepoint (\S+)/.exec(stopped.stderr)?.[1];
    expect(savepoint).toMatch(/savepoint-\d+$/);
    const resumed = await runChild(script, { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resumed from savepoint ${/savepoint-(\d+)$/.exec(savepoint!)![1]} at ${savepoint}`);
    check(dir, 'EXACTLY_ONCE');
  });

  it('a second run of a finished job reports it finished and commits nothing more', async () => {
    const { dir, script } = setup('EXACTLY_ONCE');
    await runUntilDone(script, dir, []);
    const again = await runChild(script, { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Job 'crash-test' already finished/);
    check(dir, 'EXACTLY_ONCE');
  });

  const failpoints = [
    'checkpoint.during-state-write=crash@4',
    'checkpoint.after-acks-before-metadata=crash@3',
    'checkpoint.after-metadata-before-notify=crash@3',
    'sink.before-prepare=crash@5',
    'sink.after-prepare-before-ack=crash@5',
    'sink.after-complete-before-commit=crash@4',
    'sink.between-commits=crash@3',
  ];
  for (const failpoint of failpoints) {
    it(`crash at ${failpoint.split('=')[0]}, then restart: the output is exact`, async () => {
      const { dir, script } = setup('EXACTLY_ONCE');
      await runUntilDone(script, dir, [{ failpoints: failpoint }]);
      check(dir, 'EXACTLY_ONCE');
    });
  }

  it('crash during recovery (after an earlier crash), then restart: the output is exact', async () => {
    const { dir, script } = setup('EXACTLY_ONCE');
    await runUntilDone(script, dir, [{ failpoints: 'sink.after-complete-before-commit=crash@3' }, { failpoints: 'recovery.during-restore=crash@1' }]);
    check(dir, 'EXACTLY_ONCE');
  });
});
