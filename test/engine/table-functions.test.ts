/**
 * User-defined table functions (`CREATE FUNCTION f AS './module.mjs'` of an export with
 * `kind: 'table'`): one column `f0` for a non-ROW result, renames with `AS t(a)`, and the errors —
 * an unknown function, a scalar function in LATERAL TABLE, a row that does not fit the declared
 * type (failing the query, naming the function and the column), a non-deterministic table function
 * refused, DROP FUNCTION.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { createEngine as createPublicEngine, FunctionRegistry } from '../../src/index.js';
import { SqlTypes } from '../../src/common/sql-type.js';

const MODULE = `
export const chars = { kind: 'table', returns: 'STRING', eval(s) { return s === null ? null : [...s]; } };
export const broken = { kind: 'table', returns: 'ROW<n INT>', eval() { return [['not a number']]; } };
export const shuffled = { kind: 'table', returns: 'INT', deterministic: false, eval() { return [Math.random()]; } };
export const shout = { returns: 'STRING', eval(s) { return s.toUpperCase(); } };
`;

describe('user-defined table functions', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  /** An engine in a fresh working directory (writable tables are kept there) holding the table t and the functions. */
  const engine = async () => {
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-udtf-')));
    writeFileSync('fns.mjs', MODULE);
    const e = createEngine();
    await e.execute(`CREATE TABLE t (id INT, s STRING);
      INSERT INTO t VALUES (1, 'ab'), (2, CAST(NULL AS STRING));
      CREATE FUNCTION chars AS './fns.mjs'; CREATE FUNCTION broken AS './fns.mjs'; CREATE FUNCTION shout AS './fns.mjs';
      SET 'execution.runtime-mode' = 'batch';`);
    return e;
  };

  it('gives one column f0 for a non-ROW result, renamed by AS t(c)', async () => {
    const e = await engine();
    const rows = await e.query('SELECT id, f0 FROM t, LATERAL TABLE(chars(s))');
    expect(rows.sort((a, b) => String(a.f0).localeCompare(String(b.f0)))).toEqual([
      { id: 1, f0: 'a' },
      { id: 1, f0: 'b' },
    ]);
    expect(await e.query('SELECT id, c FROM t LEFT JOIN LATERAL TABLE(chars(s)) AS x(c) ON c = \'b\'')).toEqual(expect.arrayContaining([{ id: 1, c: 'b' }, { id: 2, c: null }]));
    expect(await e.query("SELECT c FROM LATERAL TABLE(chars('xy')) AS x(c)")).toEqual([{ c: 'x' }, { c: 'y' }]);
    const [shown] = await e.execute('SHOW FUNCTIONS');
    expect(shown?.kind === 'rows' ? shown.rows.flat() : []).toEqual(expect.arrayContaining(['CHARS', 'BROKEN', 'SHOUT']));
  });

  it('refuses what is not a table function, and a row that does not fit its type', async () => {
    const e = await engine();
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(nope(s))')).rejects.toThrow("table function 'NOPE' does not exist");
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(upper(s))')).rejects.toThrow('UPPER is a scalar function, not a table function');
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(shout(s))')).rejects.toThrow('SHOUT is a scalar function, not a table function');
    await expect(e.query('SELECT shout(s) AS loud FROM t WHERE id = 1')).resolves.toEqual([{ loud: 'AB' }]);
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(chars(s)) AS x(a, b)')).rejects.toThrow('2 column names given for CHARS, which gives 1 columns (f0)');
    await expect(e.query('SELECT * FROM t FULL JOIN LATERAL TABLE(chars(s)) AS x(c) ON TRUE')).rejects.toThrow('a FULL JOIN with a table function is not supported');
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(broken())')).rejects.toThrow("table function BROKEN gave 'not a number' for column n, which is not a INT value");
    await expect(e.execute("CREATE FUNCTION shuffled AS './fns.mjs'")).rejects.toThrow("table function 'shuffled' of");
  });

  it('registers in code through the public FunctionRegistry', async () => {
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-udtf-')));
    const functions = FunctionRegistry.withBuiltins();
    const pairs = SqlTypes.row([
      { name: 'lo', type: SqlTypes.int() },
      { name: 'hi', type: SqlTypes.int() },
    ]);
    functions.registerTable('ranges', { fn: (n: number) => Array.from({ length: n }, (_, i) => ({ lo: i, hi: i + 1 })), resultType: pairs, argTypes: [SqlTypes.int()] });
    const e = createPublicEngine({ functions });
    await e.execute("SET 'execution.runtime-mode' = 'batch'");
    const rows = await e.query('SELECT n, lo, hi FROM (VALUES (1), (2)) AS t(n) CROSS JOIN LATERAL TABLE(ranges(n))');
    expect(rows).toHaveLength(3);
    expect(rows).toEqual(
      expect.arrayContaining([
        { n: 1, lo: 0, hi: 1 },
        { n: 2, lo: 0, hi: 1 },
        { n: 2, lo: 1, hi: 2 },
      ]),
    );
  });

  it('is dropped by DROP FUNCTION', async () => {
    const e = await engine();
    await e.execute('DROP FUNCTION chars');
    await expect(e.query('SELECT * FROM t, LATERAL TABLE(chars(s))')).rejects.toThrow("table function 'CHARS' does not exist");
    await e.execute("CREATE FUNCTION IF NOT EXISTS broken AS './fns.mjs'");
  });
});
