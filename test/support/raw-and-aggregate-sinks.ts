/**
 * The sinks the exactly-once crash tests share: every row of `src (id, k, v)` into a table `raw`
 * and a GROUP BY k (count, sum, max) upserted into `agg`, both in one PostgreSQL database and one
 * job; and the check that, after the crashes, both equal the batch answer with nothing left
 * prepared.
 */
import { expect } from 'vitest';
import { pgQuery } from './pg-query.js';

/** DDL of the two postgres sinks into `url` and the statement set that feeds them from `src`. */
export function rawAndAggregateSinks(url: string, semantic = 'exactly-once'): string {
  return `CREATE TABLE raw_pg (id BIGINT, k INT, v INT)
       WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'raw', 'sink.semantic' = '${semantic}');
     CREATE TABLE agg_pg (k INT, n BIGINT, total INT, hi INT, PRIMARY KEY (k) NOT ENFORCED)
       WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'agg', 'sink.semantic' = '${semantic}');
     EXECUTE STATEMENT SET BEGIN
       INSERT INTO raw_pg SELECT id, k, v FROM src;
       INSERT INTO agg_pg SELECT k, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY k;
     END;`;
}

/**
 * Asserts `raw` holds ids 1..rows exactly once, `agg` equals the GROUP BY over `raw`, no prepared
 * transaction is left in the database, and (with `job`) every commit marker is that job's.
 */
export async function expectRawAndAggregateExact(url: string, rows: number, job?: string): Promise<void> {
  const [raw] = await pgQuery<{ n: string; ids: string; lo: string; hi: string }>(url, 'SELECT count(*) AS n, count(DISTINCT id) AS ids, min(id) AS lo, max(id) AS hi FROM raw');
  expect(raw).toEqual({ n: String(rows), ids: String(rows), lo: '1', hi: String(rows) });
  const batch = 'SELECT k, count(*) AS n, sum(v) AS total, max(v) AS hi FROM raw GROUP BY k';
  const sink = 'SELECT k, n, total, hi FROM agg';
  expect(await pgQuery(url, `(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
  expect(await pgQuery(url, `(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
  expect(await pgQuery(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()')).toEqual([]);
  if (job === undefined) return;
  const [markers] = await pgQuery<{ bad: string }>(url, `SELECT count(*) AS bad FROM weir.sink_commits WHERE job <> '${job}'`);
  expect(markers?.bad).toBe('0');
}
