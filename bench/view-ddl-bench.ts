/**
 * CREATE and DROP MATERIALIZED VIEW beside running views: every view runs as a part of one job,
 * and CREATE adds the new view's part to it at a checkpoint boundary (DROP removes one there),
 * the other views going on; so the statement should cost the same however many views run.
 * Measured for 1, 10, 25 and 50 running views over a writable table of `rows` rows (each view a
 * GROUP BY holding state), in this process, into a throwaway PostgreSQL 15 cluster with the default
 * max_connections; CREATE returns once the new view has committed its answer, and a FLUSH after
 * it (every view committing once more) is measured apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine/engine.js';
import { freshDatabase } from '../test/support/pg-query.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { spread, type Spread } from './pg-sink-bench.js';

/** The name `--only` selects this benchmark by. */
export const VIEW_DDL_BENCH = 'view-ddl';

/** What to run. */
export interface ViewDdlBenchOptions {
  /** Rows of the table the views read. */
  readonly rows: number;
  /** CREATE/DROP pairs measured per case. */
  readonly repeats: number;
  log(line: string): void;
}

/** One case: how many views ran while another was created and dropped. */
export interface ViewDdlCase {
  readonly runningViews: number;
  /** CREATE MATERIALIZED VIEW of one more view. */
  readonly createMs: Spread;
  /** DROP MATERIALIZED VIEW of it. */
  readonly dropMs: Spread;
  /** FLUSH right after the CREATE: until every view, the new one included, has committed. */
  readonly flushAfterCreateMs: Spread;
}

/** The section of the results. */
export interface ViewDdlSection {
  readonly measuredAt: string;
  readonly rows: number;
  readonly repeats: number;
  readonly cluster: string;
  readonly cases: readonly ViewDdlCase[];
}

const CASES = [1, 10, 25, 50];

/** The spread of measurements taken at least once. */
function spreadOf(values: readonly number[]): Spread {
  return spread(values)!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function measureCase(cluster: PostgresCluster, views: number, options: ViewDdlBenchOptions): Promise<ViewDdlCase> {
  const url = await freshDatabase('weir_view_ddl', cluster.url);
  const dir = mkdtempSync(join(tmpdir(), 'weir-view-ddl-'));
  const engine = createEngine();
  try {
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
      CREATE TABLE t (id INT, g INT, v INT, PRIMARY KEY (id) NOT ENFORCED);
      CREATE TABLE gen (id INT, v INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '${options.rows}', 'fields.v.min' = '1', 'fields.v.max' = '1000', 'rows-per-second' = '10000000');
      INSERT INTO t SELECT id, id % 5000, v FROM gen;`);
    for (const job of engine.session.jobs()) await job.result();
    for (let i = 0; i < views; i++) {
      await engine.execute(`CREATE MATERIALIZED VIEW v${i} WITH ('url' = '${url}') AS SELECT g, COUNT(*) AS n, SUM(v) AS s FROM t WHERE g % ${views} = ${i} GROUP BY g`);
    }
    await engine.execute('FLUSH');
    const create: number[] = [];
    const drop: number[] = [];
    const flush: number[] = [];
    for (let r = 0; r < options.repeats; r++) {
      create.push(await timed(() => engine.execute(`CREATE MATERIALIZED VIEW extra WITH ('url' = '${url}') AS SELECT v, COUNT(*) AS n FROM t GROUP BY v`)));
      flush.push(await timed(() => engine.execute('FLUSH')));
      drop.push(await timed(() => engine.execute('DROP MATERIALIZED VIEW extra')));
    }
    const result = { runningViews: views, createMs: spreadOf(create), dropMs: spreadOf(drop), flushAfterCreateMs: spreadOf(flush) };
    options.log(`  ${views} running view(s): CREATE ${result.createMs.median} ms, DROP ${result.dropMs.median} ms (medians), FLUSH after CREATE ${result.flushAfterCreateMs.median} ms`);
    return result;
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs every case and returns the section for the results. */
export async function runViewDdlBench(options: ViewDdlBenchOptions): Promise<ViewDdlSection> {
  // PostgreSQL's default max_connections (100): the views of the job share a few connections.
  const cluster = await startPostgresCluster({ fsync: 'on', max_connections: '100' });
  try {
    const cases: ViewDdlCase[] = [];
    for (const views of CASES) cases.push(await measureCase(cluster, views, options));
    return {
      measuredAt: new Date().toISOString(),
      rows: options.rows,
      repeats: options.repeats,
      cluster: 'PostgreSQL 15, throwaway cluster, fsync=on, max_connections=100; checkpoints every 1 s to local files',
      cases,
    };
  } finally {
    cluster.destroy();
  }
}

/** The section of latest.md. */
export function viewDdlMarkdown(section: ViewDdlSection): string[] {
  return [
    '',
    `### CREATE and DROP of a materialized view beside running ones (${section.rows.toLocaleString('en-US')} rows, ${section.repeats} CREATE/DROP pairs per case)`,
    '',
    'Every view is a part of one job; CREATE adds the new view to it at a checkpoint boundary and returns once a checkpoint has committed its answer over the table, and DROP removes one at a boundary, the running views going on. ' +
      `${section.cluster}.`,
    '',
    '| running views | CREATE ms (median / p90 / max) | DROP ms (median / p90 / max) | FLUSH after CREATE ms (median) |',
    '|---:|---:|---:|---:|',
    ...section.cases.map(
      (c) => `| ${c.runningViews} | ${c.createMs.median} / ${c.createMs.p90} / ${c.createMs.max} | ${c.dropMs.median} / ${c.dropMs.p90} / ${c.dropMs.max} | ${c.flushAfterCreateMs.median} |`,
    ),
  ];
}
