/**
 * Throughput of weir's decision-support workload (test/support/dss-generator.ts and
 * dss-queries.ts): the tables loaded as writable weir tables, every analytic query a materialized
 * view into a throwaway PostgreSQL 15 cluster (created over the empty tables), then the load and
 * rounds of inserts, updates and deletes, each round's statements followed by FLUSH. The figure is
 * rows changed per second with every view maintained: from the first statement of the first round
 * until the last round's FLUSH returns (every view's change committed in PostgreSQL). The load is
 * timed apart (bulk INSERTs of 500 rows, also with every view maintained).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine/engine.js';
import { DSS_TABLES, generateDss, type DssSizes } from '../test/support/dss-generator.js';
import { DSS_QUERIES } from '../test/support/dss-queries.js';
import { freshDatabase } from '../test/support/pg-query.js';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';

/** The name `--only` selects this benchmark by. */
export const DSS_BENCH = 'dss';

/** What to run. */
export interface DssBenchOptions {
  readonly sizes: DssSizes;
  log(line: string): void;
}

/** The section of the results. */
export interface DssSection {
  readonly measuredAt: string;
  readonly sizes: DssSizes;
  readonly views: number;
  readonly cluster: string;
  /** CREATE of every view over the empty tables, and the FLUSH after it. */
  readonly createViewsMs: number;
  /** Rows the load inserted, and its rate with every view maintained (INSERT ... VALUES statements of 500 rows, then FLUSH). */
  readonly loadRows: number;
  readonly loadRowsPerSecond: number;
  /** The change rounds: rows inserted, updated and deleted, and the time until the last FLUSH returned. */
  readonly rowsChanged: number;
  readonly changeSeconds: number;
  readonly rowsChangedPerSecond: number;
  /** Per round, statements plus FLUSH: median and max. */
  readonly roundMs: { readonly median: number; readonly max: number };
  /** The share of the change rounds spent in FLUSH (the rest: executing the INSERT, UPDATE and DELETE statements). */
  readonly flushShare: number;
  /** Statements per round (each UPDATE changes one row: the rate includes each statement's own cost). */
  readonly statementsPerRound: number;
}

/** Runs the workload once and returns the section for the results. */
export async function runDssBench(options: DssBenchOptions): Promise<DssSection> {
  const workload = generateDss(options.sizes);
  const cluster = await startPostgresCluster({ fsync: 'on' });
  const dir = mkdtempSync(join(tmpdir(), 'weir-dss-bench-'));
  const engine = createEngine();
  try {
    const url = await freshDatabase('weir_dss_bench', cluster.url);
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}'; ${DSS_TABLES.map((t) => t.weir).join('; ')}`);
    // The views are created over the empty tables: each CREATE restarts the views' job from a
    // savepoint, and over loaded tables the heap grew by 100-200 MiB per CREATE (8K rows, see
    // the README), so 37 views over the loaded tables did not fit in Node's default heap.
    let start = performance.now();
    for (const [name, query] of Object.entries(DSS_QUERIES)) {
      const before = performance.now();
      await engine.execute(`CREATE MATERIALIZED VIEW ${name} WITH ('url' = '${url}') AS ${query}`);
      if (process.env.WEIR_DSS_TRACE !== undefined) {
        options.log(`    CREATE ${name}: ${(performance.now() - before).toFixed(0)} ms, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
      }
    }
    await engine.execute('FLUSH');
    const createViewsMs = performance.now() - start;
    options.log(`  ${Object.keys(DSS_QUERIES).length} views created over the empty tables in ${createViewsMs.toFixed(0)} ms`);
    start = performance.now();
    for (const statement of workload.load) await engine.execute(statement);
    await engine.execute('FLUSH');
    const loadSeconds = (performance.now() - start) / 1000;
    options.log(`  loaded ${workload.loadRows} rows in ${loadSeconds.toFixed(1)} s, every view maintained, until FLUSH returned`);
    const rounds: number[] = [];
    let flushMs = 0;
    const changeStart = performance.now();
    for (const round of workload.rounds) {
      const roundStart = performance.now();
      await engine.execute(round.statements.join('; '));
      const flushStart = performance.now();
      await engine.execute('FLUSH');
      flushMs += performance.now() - flushStart;
      rounds.push(performance.now() - roundStart);
    }
    const changeSeconds = (performance.now() - changeStart) / 1000;
    const rowsChanged = workload.rounds.reduce((sum, round) => sum + round.rowsChanged, 0);
    const sorted = [...rounds].sort((a, b) => a - b);
    const section: DssSection = {
      measuredAt: new Date().toISOString(),
      sizes: options.sizes,
      views: Object.keys(DSS_QUERIES).length,
      cluster: 'PostgreSQL 15, throwaway cluster, fsync=on; checkpoints to local files',
      loadRows: workload.loadRows,
      loadRowsPerSecond: Math.round(workload.loadRows / loadSeconds),
      createViewsMs: Math.round(createViewsMs),
      rowsChanged,
      changeSeconds: Number(changeSeconds.toFixed(2)),
      rowsChangedPerSecond: Math.round(rowsChanged / changeSeconds),
      flushShare: Number((flushMs / 1000 / changeSeconds).toFixed(2)),
      statementsPerRound: workload.rounds[0]?.statements.length ?? 0,
      roundMs: { median: Math.round(sorted[Math.floor(sorted.length / 2)]!), max: Math.round(sorted[sorted.length - 1]!) },
    };
    options.log(`  ${rowsChanged} rows changed in ${workload.rounds.length} rounds in ${section.changeSeconds} s: ${section.rowsChangedPerSecond} rows/s with every view maintained (${Math.round(section.flushShare * 100)}% of it in FLUSH)`);
    return section;
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    cluster.destroy();
  }
}

/** The section of latest.md. */
export function dssMarkdown(section: DssSection): string[] {
  const { sizes } = section;
  return [
    '',
    `### Decision-support workload: ${section.views} materialized views maintained through change rounds (${sizes.orders.toLocaleString('en-US')} orders, ${section.loadRows.toLocaleString('en-US')} rows loaded)`,
    '',
    `weir's own analytic queries (test/support/dss-queries.ts: correlated subqueries, EXISTS / NOT IN, outer joins, set operations, ROLLUP, pivots) over ${sizes.customers} customers, ${sizes.suppliers} suppliers and ${sizes.orders} orders with their lines, every query a materialized view created over the empty tables, then the load (INSERTs of 500 rows). ` +
      `${sizes.rounds} rounds of ${sizes.changesPerRound} new orders (with lines), ${sizes.changesPerRound} updates each of status, quantity and balance and ${sizes.changesPerRound} deleted orders (with lines), each round followed by FLUSH. ${section.cluster}. ` +
      `A round is ${section.statementsPerRound} statements (each UPDATE one row); ${Math.round(section.flushShare * 100)}% of the rounds' time was FLUSH, the rest executing the statements.`,
    '',
    '| CREATE views (empty tables) ms | load rows/s (all views maintained) | rows changed | change rounds s | rows changed/s (all views maintained) | round ms (median / max) |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${section.createViewsMs} | ${section.loadRowsPerSecond.toLocaleString('en-US')} | ${section.rowsChanged.toLocaleString('en-US')} | ${section.changeSeconds} | ${section.rowsChangedPerSecond.toLocaleString('en-US')} | ${section.roundMs.median} / ${section.roundMs.max} |`,
  ];
}
