/** CREATE FUNCTION: Nexmark's CountChar by its Flink class name, JavaScript modules, and the errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';

async function select(engine: Engine, expressions: string): Promise<unknown[]> {
  const [result] = await engine.execute(`INSERT INTO out_t SELECT ${expressions} FROM (VALUES ('occurrence', 3)) AS t(s, n)`);
  if (result?.kind !== 'job') throw new Error('expected a job');
  expect(await result.job.result(), String(result.job.error)).toBe('FINISHED');
  return collected('out_t').map(([, row]) => row);
}

beforeEach(() => resetCollected());

describe('CREATE FUNCTION', () => {
  it("registers Nexmark's CountChar under its Flink class name, so q14 runs unmodified", async () => {
    const engine = createEngine({ connectors: [collectConnector] });
    await engine.execute(`CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';
      CREATE TABLE out_t (c BIGINT, none BIGINT) WITH ('connector' = 'collect');`);
    expect(await select(engine, "count_char(s, 'c'), count_char(s, 'z')")).toEqual([[3, 0]]);
  });

  it('loads a JavaScript module exporting { returns, args, eval }', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-udf-'));
    const module = join(dir, 'udfs.mjs');
    writeFileSync(module, "export const repeat_it = { returns: 'STRING', args: ['STRING', 'INT'], eval: (s, n) => s.repeat(n) };\n");
    const engine = createEngine({ connectors: [collectConnector] });
    await engine.execute(`CREATE FUNCTION repeat_it AS '${module}'; CREATE TABLE out_t (r STRING) WITH ('connector' = 'collect');`);
    expect(await select(engine, 'repeat_it(SUBSTRING(s, 1, 2), n)')).toEqual([['ocococ']]);
    await engine.execute('DROP FUNCTION repeat_it');
    await expect(engine.execute('SELECT repeat_it(s, n) FROM (VALUES (1, 2)) AS t(s, n)')).rejects.toThrow("function 'repeat_it' does not exist");
  });

  it('says what is wrong with a function it cannot load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-udf-'));
    writeFileSync(join(dir, 'bad.mjs'), 'export const f = { eval: () => 1 };\n');
    writeFileSync(join(dir, 'badtype.mjs'), "export const g = { returns: 'NUMBERISH', eval: () => 1 };\n");
    const engine = createEngine();
    await expect(engine.execute("CREATE FUNCTION f AS 'com.example.Missing'")).rejects.toMatchObject({
      message: "unknown function implementation 'com.example.Missing'",
      hint: "name a JavaScript module ('./udfs.mjs') exporting 'f', or one of: com.github.nexmark.flink.udf.CountChar",
    });
    await expect(engine.execute(`CREATE FUNCTION f AS '${join(dir, 'bad.mjs')}'`)).rejects.toThrow(`module ${join(dir, 'bad.mjs')} must export 'f' (or a default) as { returns: '<SQL type>', eval(...args) }`);
    await expect(engine.execute(`CREATE FUNCTION g AS '${join(dir, 'badtype.mjs')}'`)).rejects.toThrow("'NUMBERISH' is not a SQL type");
    await expect(engine.execute(`CREATE FUNCTION h AS '${join(dir, 'missing.mjs')}'`)).rejects.toThrow(`cannot load function module ${join(dir, 'missing.mjs')}`);
    await expect(engine.execute("CREATE FUNCTION upper AS 'com.github.nexmark.flink.udf.CountChar'")).rejects.toThrow("function 'upper' already exists");
    await expect(engine.execute('DROP FUNCTION nope')).rejects.toThrow("user-defined function 'nope' does not exist");
  });
});
