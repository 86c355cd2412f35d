/** The session in process: DDL, SHOW / DESCRIBE / SET, and jobs over datagen and VALUES. */
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { runJob } from '../support/jobs.js';

function engine(): Engine {
  return createEngine({ connectors: [collectConnector] });
}


beforeEach(() => resetCollected());

describe('session', () => {
  it('aggregates a bounded datagen stream: the changelog ends at the batch answer', async () => {
    const e = engine();
    await runJob(
      e,
      `CREATE TABLE src (id BIGINT, k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000',
         'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000',
         'fields.k.min' = '0', 'fields.k.max' = '9', 'fields.v.min' = '0', 'fields.v.max' = '100');
       CREATE TABLE raw (id BIGINT, k INT, v BIGINT) WITH ('connector' = 'collect');
       CREATE TABLE agg (k INT, n BIGINT, total BIGINT, lo BIGINT) WITH ('connector' = 'collect');
       EXECUTE STATEMENT SET BEGIN
         INSERT INTO raw SELECT id, k, v FROM src;
         INSERT INTO agg SELECT k, COUNT(*), SUM(v), MIN(v) FROM src GROUP BY k;
       END;`,
    );
    const raw = collected('raw').map(([, row]) => row as [number, number, number]);
    expect(raw.map((r) => r[0])).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    const expected = new Map<number, [number, number, number, number]>();
    for (const [, k, v] of raw) {
      const acc = expected.get(k) ?? [k, 0, 0, Infinity];
      expected.set(k, [k, acc[1] + 1, acc[2] + v, Math.min(acc[3], v)]);
    }
    expect(materialize(collected('agg'))).toEqual(materialize([...expected.values()].map((r) => ['+I', r])));
  });

  it('answers SHOW TABLES, SHOW VIEWS and DESCRIBE like Flink', async () => {
    const e = engine();
    await e.execute(`CREATE TABLE t (
        id BIGINT NOT NULL, ts TIMESTAMP(3), d AS id * 2,
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (id) NOT ENFORCED
      ) WITH ('connector' = 'datagen');
      CREATE VIEW v AS SELECT id, d FROM t;`);
    const [tables, views, describe] = await e.execute('SHOW TABLES; SHOW VIEWS; DESCRIBE t;');
    expect(tables).toMatchObject({ kind: 'rows', rows: [['t'], ['v']] });
    expect(views).toMatchObject({ kind: 'rows', rows: [['v']] });
    expect(describe).toMatchObject({
      kind: 'rows',
      rows: [
        ['id', 'BIGINT', 'FALSE', 'PRI(id)', null, null],
        ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', null, null, "ts - INTERVAL '5' SECOND"],
        ['d', 'BIGINT', 'FALSE', null, 'AS id * 2', null],
      ],
    });
  });

  it('validates connector options when the table is created', async () => {
    const e = engine();
    await expect(e.execute("CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '5')")).rejects.toThrow(
      "unknown option 'rows-per-secnd' for connector 'datagen'",
    );
    await expect(e.execute("CREATE TABLE t (a INT) WITH ('connector' = 'datagn')")).rejects.toMatchObject({
      message: "unknown connector 'datagn'",
      hint: "did you mean 'datagen'?",
    });
    await expect(e.execute("CREATE TABLE t (a INT) WITH ('format' = 'json')")).rejects.toThrow("table 't' needs a 'connector' option");
  });

  it('validates known settings and keeps unknown ones, as Flink does', async () => {
    const e = engine();
    await expect(e.execute("SET 'parallelism.default' = 'zero'")).rejects.toThrow("'parallelism.default' must be a positive integer, got 'zero'");
    const [set, list] = await e.execute("SET 'my.own.key' = 'x'; SET;");
    expect(set).toEqual({ kind: 'ok', message: 'Session property has been set.' });
    expect(list).toMatchObject({ kind: 'rows', rows: [['my.own.key', 'x']] });
  });

  it("refuses a bad 'table.local-time-zone' at SET and keeps the zone it had", async () => {
    const e = engine();
    await e.execute("SET 'table.local-time-zone' = 'Asia/Shanghai'");
    for (const bad of ['Mars/Olympus', 'PST', 'UTC+8']) {
      await expect(e.execute(`SET 'table.local-time-zone' = '${bad}'`)).rejects.toThrow(`'table.local-time-zone' must be a zone id such as 'Asia/Shanghai', 'UTC' or 'GMT+08:00', got '${bad}'`);
    }
    expect(await e.query('SELECT CAST(TO_TIMESTAMP_LTZ(0) AS STRING) AS t')).toEqual([{ t: '1970-01-01 08:00:00.000' }]);
    await e.execute("SET 'table.local-time-zone' = 'GMT+01:00'");
    expect(await e.query('SELECT CAST(TO_TIMESTAMP_LTZ(0) AS STRING) AS t')).toEqual([{ t: '1970-01-01 01:00:00.000' }]);
    await e.execute("RESET 'table.local-time-zone'");
    expect(e.session.config.timeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('rejects a duplicate table and drops with IF EXISTS', async () => {
    const e = engine();
    await e.execute("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')");
    await expect(e.execute("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')")).rejects.toThrow("table 't' already exists");
    await e.execute("CREATE TABLE IF NOT EXISTS t (a INT) WITH ('connector' = 'datagen'); DROP TABLE t; DROP TABLE IF EXISTS t;");
    await expect(e.execute('DROP TABLE t')).rejects.toThrow("table or view 't' does not exist");
  });

  it('runs the same job at parallelism 4 with the same result (hash exchange by key group)', async () => {
    const sql = `CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000', 'number-of-rows' = '3000',
         'fields.k.min' = '0', 'fields.k.max' = '50', 'fields.v.min' = '-1000', 'fields.v.max' = '1000');
       CREATE TABLE agg (k INT, n BIGINT, total BIGINT) WITH ('connector' = 'collect');
       INSERT INTO agg SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;`;
    await runJob(engine(), sql);
    const serial = materialize(collected('agg'));
    resetCollected();
    await runJob(engine(), `SET 'parallelism.default' = '4';\n${sql}`);
    expect(materialize(collected('agg'))).toEqual(serial);
    expect(serial).toHaveLength(51);
  });
});
