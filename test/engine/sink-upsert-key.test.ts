/**
 * A sink drops update-before rows only when its primary key is a key of the query, and otherwise
 * never writes a table that differs from the query: a primary key that contains a key of the query
 * gets every retraction; one that contains none needs ON CONFLICT (Flink 2.3), which materializes
 * the query's rows per primary key. Each case writes through the postgres sink into the suite's
 * server and is compared with PostgreSQL computing the same query over a copy of the input.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery, rollbackPreparedIn } from '../support/pg-query.js';

/** 3000 rows over 50 values of k: many values share a count, at every moment of the run. */
const SOURCE = `CREATE TABLE src (id BIGINT, k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000', 'fields.k.min' = '1', 'fields.k.max' = '50')`;

async function setUp(sinkKey: string, insert: string, settings = ''): Promise<{ url: string; error: unknown }> {
  const url = await freshDatabase('weir_upsert_key');
  const engine = createEngine();
  const dir = mkdtempSync(join(tmpdir(), 'weir-upsert-key-'));
  try {
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '50 ms'; ${settings} ${SOURCE};
      CREATE TABLE src_copy (id BIGINT, k INT) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'src_copy');
      CREATE TABLE s (n BIGINT NOT NULL, k INT NOT NULL, PRIMARY KEY (${sinkKey}) NOT ENFORCED) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 's');
      EXECUTE STATEMENT SET BEGIN INSERT INTO src_copy SELECT * FROM src; ${insert}; END;`);
    for (const job of engine.session.jobs()) {
      if ((await job.result()) !== 'FAILED') continue;
      // A failed job's transaction of its last checkpoint stays prepared for a recovery that will not come.
      await rollbackPreparedIn(url);
      return { url, error: job.error };
    }
    return { url, error: undefined };
  } finally {
    await engine.close();
  }
}

const COUNTS = 'SELECT count(*) AS n, k FROM src_copy GROUP BY k';

describe('sinks keyed by something other than the key of the query', () => {
  it('refuses an updating query into a primary key that is no key of it, naming both keys', async () => {
    const engine = createEngine();
    await engine.execute(`${SOURCE}; CREATE TABLE s (n BIGINT NOT NULL, k INT, PRIMARY KEY (n) NOT ENFORCED) WITH ('connector' = 'postgres', 'table-name' = 's')`);
    await expect(engine.execute('INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k')).rejects.toThrow(
      /upsert key differs from the primary key of the sink table 'default_catalog\.default_database\.s': primary key \[n\], upsert key \[k\]/,
    );
  });

  it('keeps update-before rows for a primary key that contains the key of the query, leaving no stale row (the upsert-key bug)', async () => {
    const { url, error } = await setUp('n, k', 'INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k');
    expect(error).toBeUndefined();
    expect(await pgQuery(url, `(SELECT n, k FROM s) EXCEPT ALL (${COUNTS})`)).toEqual([]);
    expect(await pgQuery(url, `(${COUNTS}) EXCEPT ALL (SELECT n, k FROM s)`)).toEqual([]);
  });

  it('ON CONFLICT DO DEDUPLICATE: one row per primary key, each a row of the query, none stale', async () => {
    const { url, error } = await setUp('n', 'INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k ON CONFLICT DO DEDUPLICATE');
    expect(error).toBeUndefined();
    // Every row of the table is a current row of the query, and every count the query has is in the table.
    expect(await pgQuery(url, `(SELECT n, k FROM s) EXCEPT ALL (${COUNTS})`)).toEqual([]);
    expect(await pgQuery(url, `(SELECT DISTINCT n FROM (${COUNTS}) q) EXCEPT ALL (SELECT n FROM s)`)).toEqual([]);
  });

  it('ON CONFLICT DO NOTHING: likewise, keeping a row per primary key', async () => {
    const { url, error } = await setUp('n', 'INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k ON CONFLICT DO NOTHING');
    expect(error).toBeUndefined();
    expect(await pgQuery(url, `(SELECT n, k FROM s) EXCEPT ALL (${COUNTS})`)).toEqual([]);
    expect(await pgQuery(url, `(SELECT DISTINCT n FROM (${COUNTS}) q) EXCEPT ALL (SELECT n FROM s)`)).toEqual([]);
  });

  it('ON CONFLICT DO ERROR fails the job when two rows of the query share a primary key, and commits nothing after them', async () => {
    const { url, error } = await setUp('n', 'INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k ON CONFLICT DO ERROR');
    expect(String(error)).toMatch(/ON CONFLICT DO ERROR: the query has \d+ rows with primary key \(n=\d+\) of sink table 's', e\.g\. \(\d+, \d+\) and \(\d+, \d+\)/);
    // Whatever was committed before the conflict was a table of distinct keys.
    expect(await pgQuery(url, 'SELECT n FROM s GROUP BY n HAVING count(*) > 1')).toEqual([]);
  });

  it("with 'table.exec.sink.require-on-conflict' = 'false', deduplicates without the clause", async () => {
    const { url, error } = await setUp('n', 'INSERT INTO s SELECT COUNT(*), k FROM src GROUP BY k', "SET 'table.exec.sink.require-on-conflict' = 'false';");
    expect(error).toBeUndefined();
    expect(await pgQuery(url, `(SELECT n, k FROM s) EXCEPT ALL (${COUNTS})`)).toEqual([]);
    expect(await pgQuery(url, `(SELECT DISTINCT n FROM (${COUNTS}) q) EXCEPT ALL (SELECT n FROM s)`)).toEqual([]);
  });

  it('drops update-before rows only for a primary key equal to the key of the query, as EXPLAIN shows', async () => {
    const engine = createEngine();
    await engine.execute(`${SOURCE};
      CREATE TABLE by_k (k INT NOT NULL, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'postgres', 'table-name' = 'by_k');
      CREATE TABLE by_n (n BIGINT NOT NULL, k INT NOT NULL, PRIMARY KEY (n) NOT ENFORCED) WITH ('connector' = 'postgres', 'table-name' = 'by_n')`);
    const plan = async (sql: string): Promise<string> => {
      const [result] = await engine.execute(`EXPLAIN ${sql}`);
      return result?.kind === 'ok' ? result.message : JSON.stringify(result);
    };
    expect(await plan('INSERT INTO by_k SELECT k, COUNT(*) FROM src GROUP BY k')).toMatch(/GroupAggregate\(groupBy=\[k\].*changelogMode=\[I,UA\]\)/);
    const materialized = await plan('INSERT INTO by_n SELECT COUNT(*), k FROM src GROUP BY k ON CONFLICT DO DEDUPLICATE');
    expect(materialized).toMatch(/Sink\(table=\[default_catalog\.default_database\.by_n\], fields=\[.*\], upsertMaterialize=\[true\], conflictStrategy=\[DEDUPLICATE\]/);
    expect(materialized).toMatch(/GroupAggregate\(groupBy=\[k\].*changelogMode=\[I,UB,UA\]\)/);
  });
});
