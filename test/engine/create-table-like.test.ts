/**
 * Flink's CREATE TABLE ... LIKE: a table built on another's definition, merged feature by feature
 * (columns first from the source, then the new ones; the primary key, computed columns, options,
 * partitions and watermark INCLUDING, EXCLUDING or OVERWRITING, options overwritten by default),
 * with Flink's messages for what cannot merge. The new table's DDL is the merged definition.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';

const BASE = `CREATE TABLE clicks (
    id BIGINT,
    user_name STRING,
    ts TIMESTAMP(3),
    cost AS id * 2,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
    PRIMARY KEY (id) NOT ENFORCED
  ) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10')`;

async function withBase(): Promise<Engine> {
  const engine = createEngine();
  await engine.execute(BASE);
  return engine;
}

/** DESCRIBE's name, type and key columns. */
async function described(engine: Engine, table: string): Promise<unknown[][]> {
  const [result] = await engine.execute(`DESCRIBE ${table}`);
  if (result?.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(result)}`);
  return result.rows.map((r) => [r[0], r[1], r[3]]);
}

async function showCreate(engine: Engine, table: string): Promise<string> {
  const [result] = await engine.execute(`SHOW CREATE TABLE ${table}`);
  if (result?.kind !== 'text') throw new Error(`expected text, got ${JSON.stringify(result)}`);
  return result.text;
}

describe('CREATE TABLE ... LIKE', () => {
  it('takes the source’s columns, key, computed column, watermark and options, the new columns after them and the new options over them', async () => {
    const engine = await withBase();
    await engine.execute(`CREATE TABLE more_clicks (region STRING, tripled AS id * 3) WITH ('number-of-rows' = '3') LIKE clicks`);
    expect(await described(engine, 'more_clicks')).toEqual([
      ['id', 'BIGINT', 'PRI(id)'],
      ['user_name', 'STRING', null],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', null],
      ['cost', 'BIGINT', null],
      ['region', 'STRING', null],
      ['tripled', 'BIGINT', null],
    ]);
    const ddl = await showCreate(engine, 'more_clicks');
    expect(ddl).toContain("WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n  PRIMARY KEY (id) NOT ENFORCED");
    expect(ddl).toContain("'number-of-rows' = '3'");
    expect(ddl).not.toContain('LIKE');
    await engine.execute("SET 'execution.runtime-mode' = 'batch'");
    const rows = await engine.query('SELECT id, cost, tripled FROM more_clicks');
    expect(rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([1, 2, 3].map((id) => ({ id, cost: id * 2, tripled: id * 3 })));
  });

  it('merges by the options given: ALL first, then single features; no column list needed', async () => {
    const engine = await withBase();
    await engine.execute(`CREATE TABLE bare WITH ('connector' = 'blackhole') LIKE clicks (EXCLUDING ALL)`);
    expect(await described(engine, 'bare')).toEqual([
      ['id', 'BIGINT', null],
      ['user_name', 'STRING', null],
      ['ts', 'TIMESTAMP(3)', null],
    ]);
    await engine.execute(`CREATE TABLE computed_only (WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'blackhole') LIKE clicks (EXCLUDING ALL INCLUDING GENERATED)`);
    expect(await described(engine, 'computed_only')).toEqual([
      ['id', 'BIGINT', null],
      ['user_name', 'STRING', null],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', null],
      ['cost', 'BIGINT', null],
    ]);
    expect(await showCreate(engine, 'computed_only')).toContain("WATERMARK FOR ts AS ts - INTERVAL '1' SECOND");
    await engine.execute(`CREATE TABLE later (cost AS id + 1, WATERMARK FOR ts AS ts) LIKE clicks (OVERWRITING GENERATED OVERWRITING WATERMARKS)`);
    const ddl = await showCreate(engine, 'later');
    expect(ddl).toContain('cost AS id + 1,\n  WATERMARK FOR ts AS ts,');
    expect(ddl).not.toContain("INTERVAL '5' SECOND");
    // A table LIKE a table that was itself LIKE another reads the merged definition.
    await engine.execute(`CREATE TABLE later_still (note STRING) LIKE later`);
    expect((await described(engine, 'later_still')).map((r) => r[0])).toEqual(['id', 'user_name', 'ts', 'cost', 'note']);
  });

  it('refuses what cannot merge with Flink’s messages', async () => {
    const engine = await withBase();
    await engine.execute('CREATE VIEW recent AS SELECT id FROM clicks');
    const refused: [string, string][] = [
      ['CREATE TABLE t (id INT) LIKE clicks', "A column named 'id' already exists in the base table."],
      ['CREATE TABLE t (cost AS id) LIKE clicks', "A generated column named 'cost' already exists in the base table. You might want to specify EXCLUDING GENERATED or OVERWRITING GENERATED."],
      ['CREATE TABLE t (user_name AS id) LIKE clicks (OVERWRITING GENERATED)', "A column named 'user_name' already exists in the base table. Computed columns can only overwrite other computed columns."],
      ["CREATE TABLE t WITH ('number-of-rows' = '1') LIKE clicks (INCLUDING OPTIONS)", "There already exists an option ['number-of-rows' -> '10'] in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS."],
      ['CREATE TABLE t (PRIMARY KEY (user_name) NOT ENFORCED) LIKE clicks', 'The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.'],
      ['CREATE TABLE t (WATERMARK FOR ts AS ts) LIKE clicks', "There already exists a watermark spec for column 'ts' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS."],
      ['CREATE TABLE t (x INT) LIKE clicks (EXCLUDING OPTIONS INCLUDING OPTIONS)', 'each LIKE option feature can be declared only once, but OPTIONS is declared twice'],
      ['CREATE TABLE t (x INT) LIKE clicks (OVERWRITING CONSTRAINTS)', "Illegal merging strategy 'OVERWRITING' for 'CONSTRAINTS' option."],
      ['CREATE TABLE t (x INT) LIKE recent', "Source table 'recent' of the LIKE clause can not be a view"],
      ['CREATE TABLE t (x INT) LIKE nowhere', "table or view 'nowhere' does not exist"],
    ];
    for (const [sql, message] of refused) await expect(engine.execute(sql), sql).rejects.toThrow(message);
    // The new table's own key, once the source's is left out.
    await engine.execute('CREATE TABLE rekeyed (PRIMARY KEY (user_name) NOT ENFORCED) LIKE clicks (EXCLUDING CONSTRAINTS)');
    expect((await described(engine, 'rekeyed'))[1]).toEqual(['user_name', 'STRING', 'PRI(user_name)']);
  });
});
