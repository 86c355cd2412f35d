/**
 * Source and sub-plan reuse (`table.optimizer.reuse-source-enabled` and
 * `table.optimizer.reuse-sub-plan-enabled`, both on by default). A job that scans one table twice
 * — a self-join, or views filtering one stream as the Nexmark person/auction views do — reads it
 * with one source; both branches see every record, and the result equals that of the job with
 * two sources; EXPLAIN shows the reuse as Flink does. A statement set reads a table its INSERTs
 * share once. Equal aggregations (Nexmark q5's) are computed once with the result of computing
 * them twice, unless they call a non-deterministic function.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected } from '../support/collect-connector.js';
import { runJob } from '../support/jobs.js';

const lines = Array.from({ length: 3000 }, (_, i) => `${i % 3},${i},${i % 7}`).join('\n');

/** Runs the self-join with reuse on or off; returns its sorted output and how many source nodes the job had. */
async function selfJoin(reuse: boolean, sink: string): Promise<{ rows: string[]; sources: number; recordsRead: number; explain: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-reuse-'));
  writeFileSync(join(dir, 'events.csv'), lines);
  const engine = createEngine({ connectors: [collectConnector] });
  await engine.execute(`
    SET 'table.optimizer.reuse-source-enabled' = '${reuse}';
    CREATE TABLE events (kind INT, id BIGINT, ref BIGINT) WITH ('connector' = 'filesystem', 'path' = '${dir}/events.csv', 'format' = 'csv');
    CREATE VIEW a AS SELECT id, ref FROM events WHERE kind = 0;
    CREATE VIEW b AS SELECT id, ref FROM events WHERE kind = 1;
    CREATE TABLE ${sink} (x BIGINT, y BIGINT) WITH ('connector' = 'collect');`);
  const insert = `INSERT INTO ${sink} SELECT a.id, b.id FROM a JOIN b ON a.ref = b.ref`;
  const [plan] = await engine.execute(`EXPLAIN ${insert}`);
  if (plan?.kind !== 'text') throw new Error('no plan');
  const job = await runJob(engine, insert);
  const sources = job.metrics().filter((m) => m.node.endsWith('-source'));
  const rows = collected(sink).map((c) => JSON.stringify(c)).sort();
  return { rows, sources: sources.length, recordsRead: sources.reduce((n, m) => n + m.recordsOut, 0), explain: plan.text };
}

describe('source reuse', () => {
  it('reads a self-joined table once, with the result of two separate reads', async () => {
    const reused = await selfJoin(true, 'reuse_on');
    const separate = await selfJoin(false, 'reuse_off');
    expect(reused.sources).toBe(1);
    expect(reused.recordsRead).toBe(3000);
    expect(separate.sources).toBe(2);
    expect(separate.recordsRead).toBe(6000);
    // 1,000 rows of each kind, refs 0..6 spread evenly: every pair with the same ref joins.
    expect(reused.rows.length).toBeGreaterThan(100_000);
    expect(reused.rows).toEqual(separate.rows);
    expect(reused.explain).toMatch(/TableSourceScan\(table=\[\[default_catalog, default_database, events\]\].*\(reuse_id=\[1\]\)\n[\s\S]*\+- Reused\(reference_id=\[1\]\)/);
    expect(separate.explain).not.toMatch(/reuse_id|Reused/);
  });

  it('reads a table once for every INSERT of a statement set', async () => {
    const engine = createEngine();
    await engine.execute(`
      CREATE TABLE g (k BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '10');
      CREATE TABLE small (k BIGINT) WITH ('connector' = 'blackhole');
      CREATE TABLE large (k BIGINT) WITH ('connector' = 'blackhole');`);
    const job = await runJob(
      engine,
      `EXECUTE STATEMENT SET BEGIN
        INSERT INTO small SELECT k FROM g WHERE k <= 3;
        INSERT INTO large SELECT k FROM g WHERE k > 3;
      END`,
    );
    const metrics = job.metrics();
    expect(metrics.filter((m) => m.node.endsWith('-source')).map((m) => m.recordsOut)).toEqual([10]);
    expect(metrics.filter((m) => m.node.endsWith('-sink')).map((m) => m.recordsIn).sort()).toEqual([3, 7]);
  });

  it('computes an aggregation two branches share once, with the result of computing it twice', async () => {
    const run = async (reuse: boolean, sink: string): Promise<{ rows: string[]; aggregates: number; explain: string }> => {
      const engine = createEngine({ connectors: [collectConnector] });
      await engine.execute(`
        SET 'table.optimizer.reuse-sub-plan-enabled' = '${reuse}';
        CREATE TABLE g (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000',
          'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '2000', 'fields.v.min' = '1', 'fields.v.max' = '9');
        CREATE VIEW counts AS SELECT MOD(k, 10) AS bucket, COUNT(*) AS n, SUM(v) AS total FROM g GROUP BY MOD(k, 10);
        CREATE TABLE ${sink} (bucket BIGINT, n BIGINT, top BIGINT) WITH ('connector' = 'collect');`);
      const insert = `INSERT INTO ${sink} SELECT c.bucket, c.n, m.top FROM counts AS c JOIN (SELECT n, MAX(total) AS top FROM counts GROUP BY n) AS m ON c.n = m.n WHERE c.total = m.top`;
      const [plan] = await engine.execute(`EXPLAIN ${insert}`);
      if (plan?.kind !== 'text') throw new Error('no plan');
      const job = await runJob(engine, insert);
      const aggregates = job.metrics().filter((m) => m.node.endsWith('-group-aggregate')).length;
      return { rows: materialize(collected(sink)).map((r) => JSON.stringify(r)).sort(), aggregates, explain: plan.text };
    };
    const shared = await run(true, 'shared_counts');
    const twice = await run(false, 'twice_counts');
    expect(shared.aggregates).toBe(2);
    expect(twice.aggregates).toBe(3);
    expect(shared.rows).toEqual(twice.rows);
    expect(shared.rows.length).toBeGreaterThan(0);
    expect(shared.explain).toMatch(/GroupAggregate\(groupBy=\[\$f0\].*\(reuse_id=\[1\]\)[\s\S]*Reused\(reference_id=\[1\]\)/);
  });

  it('takes the settings in any case, and refuses other values by name', async () => {
    const engine = createEngine();
    await engine.execute(`
      SET 'table.optimizer.reuse-source-enabled' = ' TRUE ';
      CREATE TABLE g (k BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
      CREATE TABLE sink (k BIGINT) WITH ('connector' = 'blackhole');`);
    const job = await runJob(engine, 'INSERT INTO sink SELECT k FROM g UNION ALL SELECT k FROM g');
    expect(job.metrics().filter((m) => m.node.endsWith('-source'))).toHaveLength(1);
    await expect(engine.execute("SET 'table.optimizer.reuse-sub-plan-enabled' = 'maybe'")).rejects.toThrow(
      "'table.optimizer.reuse-sub-plan-enabled' must be one of 'true', 'false', got 'maybe'",
    );
  });

  it('never shares an operator that calls a non-deterministic function', async () => {
    const engine = createEngine();
    await engine.execute(`
      CREATE TABLE g (k BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '10');
      CREATE TABLE sink (k BIGINT, r DOUBLE) WITH ('connector' = 'blackhole');`);
    const job = await runJob(engine, 'INSERT INTO sink SELECT k, RAND() FROM g UNION ALL SELECT k, RAND() FROM g');
    const kinds = job.metrics().map((m) => m.node.replace(/^\d+-/, ''));
    expect(kinds.filter((k) => k === 'source')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'calc')).toHaveLength(2);
  });
});
