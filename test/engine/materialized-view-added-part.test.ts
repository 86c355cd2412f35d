/**
 * CREATE MATERIALIZED VIEW adds the view to the running views' job at a checkpoint boundary: the
 * earlier views never stop (the same job, no savepoint, no restart) and stay exactly-once and equal
 * to their query while rows keep arriving; every checkpoint still commits all views in one
 * transaction; CREATE returns once the views hold their answer over the rows written before it;
 * the views share a few connections; a view that was alone and had written early into its open
 * transaction keeps those rows when the next view joins its transaction group. DROP MATERIALIZED VIEW removes the view at a
 * checkpoint boundary the same way; a changed job setting makes the next CREATE restart the job
 * under it instead.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROL_CONNECTIONS } from '../../src/connectors/postgres/sink-connections.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { freshDatabase, pgQuery, rollbackPreparedIn } from '../support/pg-query.js';

/** The views, each a different shape over `t` (mirrored into Postgres as `t_copy` for the batch answer). */
const VIEWS: readonly View[] = [
  { name: 'per_group', query: 'SELECT g, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY g', columns: 'g, n, s' },
  { name: 'per_parity', query: 'SELECT v % 2 AS p, MAX(v) AS top, MIN(id) AS first_id FROM t GROUP BY v % 2', columns: 'p, top, first_id' },
  { name: 'big_rows', query: 'SELECT id, g, v FROM t WHERE v > 50', columns: 'id, g, v' },
  { name: 'groups_of_size', query: 'SELECT n, COUNT(*) AS groups FROM (SELECT g, COUNT(*) AS n FROM t GROUP BY g) GROUP BY n', columns: 'n, groups' },
  { name: 'total', query: 'SELECT COUNT(*) AS n, SUM(v) AS s FROM t', columns: 'n, s' },
  { name: 'distinct_values', query: 'SELECT g, COUNT(DISTINCT v % 10) AS d FROM t GROUP BY g', columns: 'g, d' },
];

interface View {
  readonly name: string;
  readonly query: string;
  /** The view's columns, as its query names them. */
  readonly columns: string;
}

/** Postgres's answer of a view's query over the mirror of `t`. */
function batchOf(query: string): string {
  return query.replace(/\bFROM t\b/g, 'FROM t_copy').replace(/\) GROUP BY n$/, ') AS sizes GROUP BY n');
}

async function viewsJob(engine: Engine): Promise<JobHandle> {
  const jobs = engine.session.jobs().filter((j) => j.name.startsWith('materialized views'));
  expect(jobs.length).toBeGreaterThan(0);
  return jobs.at(-1)!;
}

/** The job keeping the mirror `t_copy` of `t`. */
function mirrorJob(engine: Engine): JobHandle {
  const job = engine.session.jobs().find((j) => j.name.includes('t_copy'));
  expect(job, 'the mirror job').toBeDefined();
  return job!;
}

async function expectEqualToBatch(url: string, view: View): Promise<void> {
  const stored = `SELECT ${view.columns} FROM ${view.name}`;
  const batch = batchOf(view.query);
  expect(await pgQuery(url, `(${batch}) EXCEPT ALL (${stored})`), `${view.name}: rows the view lacks`).toEqual([]);
  expect(await pgQuery(url, `(${stored}) EXCEPT ALL (${batch})`), `${view.name}: rows the view has in excess`).toEqual([]);
}

/**
 * Runs `body` with a fresh engine whose session has table `t` and its mirror `t_copy` (kept by an
 * INSERT job) in a fresh database `url`, checkpoints every `interval` and the SET statements
 * `settings`; afterwards closes the engine gracefully, which commits the last checkpoint, and
 * checks that nothing is left prepared (a leftover would also hold up logical replication slots
 * in the shared test cluster).
 */
async function withViewEngine(interval: string, settings: string, body: (engine: Engine, url: string) => Promise<void>): Promise<void> {
  const url = await freshDatabase('weir_mv_added');
  const dir = mkdtempSync(join(tmpdir(), 'weir-mv-added-'));
  const engine = createEngine();
  try {
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}';
      SET 'execution.checkpointing.interval' = '${interval}';
      ${settings}
      CREATE TABLE t (id INT, g INT, v INT, PRIMARY KEY (id) NOT ENFORCED);
      CREATE TABLE t_copy (id INT, g INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 't_copy');
      INSERT INTO t_copy SELECT * FROM t;`);
    await body(engine, url);
  } finally {
    await engine.close({ graceful: true });
    expect(await rollbackPreparedIn(url)).toEqual([]);
  }
}

describe('a materialized view added to the running job', () => {
  it('keeps every earlier view running, exactly-once and equal to its query while rows keep arriving', async () => {
    await withViewEngine('100 ms', '', async (engine, url) => {
      let next = 1;
      const round = async (): Promise<void> => {
        const rows = Array.from({ length: 40 }, () => {
          const id = next++;
          return `(${id}, ${id % 7}, ${(id * 37) % 101})`;
        });
        await engine.execute(`INSERT INTO t VALUES ${rows.join(', ')}`);
        // Updates move rows between groups and values; deletes empty some groups.
        await engine.execute(`UPDATE t SET g = g + 1, v = v + 3 WHERE id % 5 = 0`);
        await engine.execute(`DELETE FROM t WHERE id % 11 = 0`);
      };
      let first: JobHandle | undefined;
      for (const [i, view] of VIEWS.entries()) {
        await round();
        await engine.execute(`CREATE MATERIALIZED VIEW ${view.name} WITH ('url' = '${url}') AS ${view.query}`);
        const job = await viewsJob(engine);
        first ??= job;
        // Every view after the first joins the job that runs already.
        expect(job).toBe(first);
        expect(job.status).toBe('RUNNING');
        expect(job.name).toBe(`materialized views (${VIEWS.slice(0, i + 1).map((v) => v.name).join(', ')})`);
        // CREATE returned once the views held the answer over the rows written before it: no FLUSH,
        // only the mirror's job (which read those rows before CREATE returned) commits them too.
        await mirrorJob(engine).commitNow(false);
        for (const earlier of VIEWS.slice(0, i + 1)) await expectEqualToBatch(url, earlier);
      }
      // The views share their connections: a few control connections and one for the open transaction, not some each.
      const connections = await pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'weir materialized-views'");
      expect(connections[0]!.n).toBeLessThanOrEqual(CONTROL_CONNECTIONS + 1);
      await round();
      await engine.execute('FLUSH');
      for (const view of VIEWS) await expectEqualToBatch(url, view);
      const job = await viewsJob(engine);
      expect(job.restarts).toBe(0);
      expect(job.checkpointHistory().filter((c) => c.kind === 'savepoint')).toEqual([]);
      // One transaction per checkpoint for all views: the last checkpoint's markers carry one gid.
      const last = await pgQuery<{ sinks: number; gids: number }>(
        url,
        `SELECT count(DISTINCT sink)::int AS sinks, count(DISTINCT gid)::int AS gids FROM weir.sink_commits
           WHERE job = 'materialized-views' AND checkpoint_id = (SELECT max(checkpoint_id) FROM weir.sink_commits WHERE job = 'materialized-views')`,
      );
      expect(last).toEqual([{ sinks: VIEWS.length, gids: 1 }]);
    });
  }, 120_000);

  it('removes a dropped view from the running job, the others going on; a changed job setting restarts the job instead', async () => {
    await withViewEngine('100 ms', '', async (engine, url) => {
      const insert = (from: number, to: number): Promise<unknown> =>
        engine.execute(`INSERT INTO t VALUES ${Array.from({ length: to - from }, (_, i) => `(${from + i}, ${(from + i) % 4}, ${from + i})`).join(', ')}`);
      await insert(0, 50);
      for (const view of VIEWS.slice(0, 3)) await engine.execute(`CREATE MATERIALIZED VIEW ${view.name} WITH ('url' = '${url}') AS ${view.query}`);
      const job = await viewsJob(engine);
      await insert(50, 100);
      const [dropped] = await engine.execute(`DROP MATERIALIZED VIEW ${VIEWS[1]!.name}`);
      expect(dropped).toEqual({ kind: 'ok', message: `Materialized view '${VIEWS[1]!.name}' dropped, and its table '${VIEWS[1]!.name}' with it.` });
      expect(await viewsJob(engine)).toBe(job);
      expect(job.status).toBe('RUNNING');
      expect(job.name).toBe(`materialized views (${VIEWS[0]!.name}, ${VIEWS[2]!.name})`);
      expect(job.metrics().filter((m) => m.node.includes(VIEWS[1]!.name)), 'the dropped view has no operator left in the job').toEqual([]);
      expect(await pgQuery(url, `SELECT to_regclass('${VIEWS[1]!.name}') IS NULL AS gone`)).toEqual([{ gone: true }]);
      await insert(100, 150);
      await engine.execute(`UPDATE t SET g = g + 1 WHERE id % 3 = 0`);
      await engine.execute('FLUSH');
      for (const view of [VIEWS[0]!, VIEWS[2]!]) await expectEqualToBatch(url, view);
      // Created again under its old name, the view starts from nothing of its dropped self.
      await engine.execute(`CREATE MATERIALIZED VIEW ${VIEWS[1]!.name} WITH ('url' = '${url}') AS ${VIEWS[1]!.query}`);
      expect(await viewsJob(engine)).toBe(job);
      await engine.execute(`DELETE FROM t WHERE id % 7 = 0`);
      await engine.execute('FLUSH');
      for (const view of VIEWS.slice(0, 3)) await expectEqualToBatch(url, view);
      expect(job.checkpointHistory().filter((c) => c.kind === 'savepoint')).toEqual([]);
      // Another checkpoint interval is a setting the running job does not have: the job restarts under it.
      await engine.execute(`SET 'execution.checkpointing.interval' = '200 ms'`);
      await engine.execute(`CREATE MATERIALIZED VIEW ${VIEWS[3]!.name} WITH ('url' = '${url}') AS ${VIEWS[3]!.query}`);
      const restarted = await viewsJob(engine);
      expect(restarted).not.toBe(job);
      expect(job.status).toBe('CANCELED');
      expect(job.checkpointHistory().filter((c) => c.kind === 'savepoint' && c.status === 'COMPLETED').length).toBe(1);
      const savepoint = restarted.resumedFrom!.metadata.checkpointId;
      await insert(150, 200);
      await engine.execute('FLUSH');
      for (const view of VIEWS.slice(0, 4)) await expectEqualToBatch(url, view);
      // Every view added or kept while the job ran resumed from the savepoint (a part starting
      // afresh would have begun its commit history again after it): the fingerprints the running
      // job recorded for its parts are those of their plans.
      const histories = await pgQuery<{ sink: string; first: string; last: string }>(
        url,
        "SELECT sink, min(checkpoint_id) AS first, max(checkpoint_id) AS last FROM weir.sink_commits WHERE job = 'materialized-views' GROUP BY sink ORDER BY sink",
      );
      expect(histories.map((h) => h.sink)).toEqual(VIEWS.slice(0, 4).map((v) => v.name).sort());
      for (const history of histories) {
        if (history.sink === VIEWS[3]!.name) expect(Number(history.first), history.sink).toBeGreaterThan(savepoint);
        else expect(Number(history.first), history.sink).toBeLessThan(savepoint);
        expect(Number(history.last), history.sink).toBeGreaterThan(savepoint);
      }
      // Under the same settings again, the next view joins the restarted job.
      await engine.execute(`CREATE MATERIALIZED VIEW ${VIEWS[4]!.name} WITH ('url' = '${url}') AS ${VIEWS[4]!.query}`);
      expect(await viewsJob(engine)).toBe(restarted);
      await engine.execute('FLUSH');
      for (const view of VIEWS.slice(0, 5)) await expectEqualToBatch(url, view);
    });
  }, 120_000);

  it('restarts after a failure with the views added while it ran', async () => {
    await withViewEngine('100 ms', `SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.attempts' = '5'; SET 'restart-strategy.fixed-delay.delay' = '100 ms';`, async (engine, url) => {
      await engine.execute(`INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 1, 30);`);
      for (const view of VIEWS.slice(0, 3)) await engine.execute(`CREATE MATERIALIZED VIEW ${view.name} WITH ('url' = '${url}') AS ${view.query}`);
      const job = await viewsJob(engine);
      await engine.execute('FLUSH');
      // The next write into per_group fails once (a sequence is not rolled back with its transaction), and the job restarts.
      await pgQuery(url, `CREATE SEQUENCE fail_once;
        CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF nextval('fail_once') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER fail_once BEFORE INSERT OR UPDATE ON per_group FOR EACH ROW EXECUTE FUNCTION fail_once()`);
      await engine.execute(`INSERT INTO t VALUES (6, 1, 60)`);
      for (let waited = 0; job.restarts === 0 || job.status !== 'RUNNING'; waited++) {
        expect(waited, 'the job restarted').toBeLessThan(1000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await viewsJob(engine)).toBe(job);
      await engine.execute(`INSERT INTO t VALUES (4, 2, 40), (5, 3, 50)`);
      await engine.execute(`UPDATE t SET v = v + 1 WHERE g = 1`);
      await engine.execute('FLUSH');
      for (const view of VIEWS.slice(0, 3)) await expectEqualToBatch(url, view);
      const [fired] = await pgQuery<{ last_value: string }>(url, 'SELECT last_value FROM fail_once');
      expect(Number(fired!.last_value), 'the trigger failed one write and let the later ones pass').toBeGreaterThan(1);
    });
  }, 60_000);

  it('fails a CREATE whose view fails before it holds its answer, and runs the other views on without it', async () => {
    await withViewEngine('100 ms', '', async (engine, url) => {
      await engine.execute(`INSERT INTO t VALUES (1, 1, 10), (2, 2, 0), (3, 1, 30)`);
      await engine.execute(`CREATE MATERIALIZED VIEW per_group WITH ('url' = '${url}') AS ${VIEWS[0]!.query}`);
      await expect(engine.execute(`CREATE MATERIALIZED VIEW quotients WITH ('url' = '${url}') AS SELECT id, 100 / v AS q FROM t`)).rejects.toThrow(/division by zero/i);
      expect(engine.session.catalog.materializedView('quotients')).toBeUndefined();
      const job = await viewsJob(engine);
      expect(job.status).toBe('RUNNING');
      expect(job.name).toBe('materialized views (per_group)');
      await engine.execute(`INSERT INTO t VALUES (4, 2, 40)`);
      await engine.execute('FLUSH');
      await expectEqualToBatch(url, VIEWS[0]!);
    });
  }, 60_000);

  it('keeps the rows a view wrote early into its open transaction when the next view joins its transaction group', async () => {
    await withViewEngine('1 h', '', async (engine, url) => {
      // A long interval: the rows below reach the first view's sink between two checkpoints.
      await engine.execute(`CREATE MATERIALIZED VIEW early WITH ('url' = '${url}', 'sink.buffer-flush.max-rows' = '1') AS SELECT id, g, v FROM t;`);
      const job = await viewsJob(engine);
      const rows = 300;
      await engine.execute(`INSERT INTO t VALUES ${Array.from({ length: rows }, (_, i) => `(${i}, ${i % 3}, ${i})`).join(', ')}`);
      // Until the view's source has read every row: its sink, alone in its group, wrote them early.
      for (let waited = 0; job.progress().rows < rows; waited++) {
        expect(waited, 'the view read the rows').toBeLessThan(500);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const open = await pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND application_name = 'weir materialized-views'");
      expect(open, 'the first view holds an open transaction with its early writes').toEqual([{ n: 1 }]);
      await engine.execute(`CREATE MATERIALIZED VIEW joined WITH ('url' = '${url}') AS SELECT g, COUNT(*) AS n FROM t GROUP BY g`);
      expect(await viewsJob(engine)).toBe(job);
      await engine.execute('FLUSH');
      await expectEqualToBatch(url, { name: 'early', query: 'SELECT id, g, v FROM t', columns: 'id, g, v' });
      await expectEqualToBatch(url, { name: 'joined', query: 'SELECT g, COUNT(*) AS n FROM t GROUP BY g', columns: 'g, n' });
      const markers = await pgQuery<{ sink: string; gid: string }>(
        url,
        "SELECT sink, gid FROM weir.sink_commits WHERE job = 'materialized-views' AND checkpoint_id = (SELECT max(checkpoint_id) FROM weir.sink_commits) ORDER BY sink",
      );
      expect(markers.map((m) => m.sink)).toEqual(['early', 'joined']);
      expect(new Set(markers.map((m) => m.gid)).size, 'both views committed in one transaction').toBe(1);
    });
  }, 60_000);
});
