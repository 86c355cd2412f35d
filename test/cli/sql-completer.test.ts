/**
 * The shell's Tab completion as a pure function over a catalog snapshot: keywords, relations,
 * columns (also through aliases), functions, connector names and option keys inside WITH (...),
 * setting keys inside SET '...'; and the snapshot an engine gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completeSql } from '../../src/cli/sql-completer.js';
import { SQL_KEYWORDS } from '../../src/cli/sql-keywords.js';
import { catalogSnapshot, type CatalogSnapshot } from '../../src/engine/catalog-snapshot.js';
import { createEngine } from '../../src/engine/engine.js';
import { ROOT } from '../support/weir-cli.js';

const names: CatalogSnapshot = {
  relations: [
    { name: 'clicks', kind: 'table', columns: ['user_id', 'url', 'ts'] },
    { name: 'customers', kind: 'table', columns: ['id', 'name'] },
    { name: 'per_user', kind: 'materialized-view', columns: ['user_id', 'n'] },
  ],
  functions: ['COALESCE', 'COUNT', 'UPPER'],
  connectors: [
    { name: 'datagen', options: [{ key: 'rows-per-second' }, { key: 'number-of-rows' }, { key: 'fields.<field>.kind', values: ['random', 'sequence'] }] },
    { name: 'print', options: [{ key: 'print-identifier' }] },
  ],
  settings: ['execution.runtime-mode', 'parallelism.default', 'sql-client.execution.result-mode'],
};

describe('Tab completion', () => {
  it('completes keywords and functions in the case typed', () => {
    expect(completeSql('SELECT * FR', names)).toEqual([['FROM'], 'FR']);
    expect(completeSql('sel', names)).toEqual([['select'], 'sel']);
    expect(completeSql('SELECT COU', names)).toEqual([['COUNT'], 'COU']);
    expect(completeSql('SELECT up', names)[0]).toContain('upper');
  });

  it('completes relation names after FROM, JOIN, INTO, DESCRIBE', () => {
    expect(completeSql('SELECT * FROM c', names)).toEqual([['clicks', 'customers'], 'c']);
    expect(completeSql('SELECT * FROM clicks JOIN cu', names)).toEqual([['customers'], 'cu']);
    expect(completeSql('DESCRIBE ', names)).toEqual([['clicks', 'customers', 'per_user'], '']);
    expect(completeSql('INSERT INTO p', names)).toEqual([['per_user'], 'p']);
    expect(completeSql('CREATE TABLE c', names)).toEqual([[], 'c']);
  });

  it('completes the columns of the relations the statement mentions, also through an alias', () => {
    expect(completeSql('SELECT u', names)[0]).not.toContain('user_id');
    expect(completeSql('SELECT * FROM clicks WHERE u', names)[0]).toEqual(expect.arrayContaining(['upper', 'url', 'user_id']));
    expect(completeSql('SELECT * FROM clicks WHERE ', names)).toEqual([['ts', 'url', 'user_id'], '']);
    expect(completeSql('SELECT * FROM clicks c JOIN customers k ON c.', names)).toEqual([['ts', 'url', 'user_id'], '']);
    expect(completeSql('SELECT * FROM clicks c JOIN customers k ON c.user_id = k.n', names)).toEqual([['name'], 'n']);
    expect(completeSql('SELECT customers.i', names)).toEqual([['id'], 'i']);
  });

  it('looks at the statement being typed, across lines, and not into comments', () => {
    expect(completeSql('SELECT 1;\nSELECT * FROM clicks\nWHERE ur', names)).toEqual([['url'], 'ur']);
    expect(completeSql('SELECT * FROM customers; SELECT * FROM clicks WHERE n', names)[0]).not.toContain('name');
    expect(completeSql('SELECT 1 -- FR', names)).toEqual([[], '']);
  });

  it('completes setting keys inside SET quotes', () => {
    expect(completeSql("SET 'sql", names)).toEqual([['sql-client.execution.result-mode'], 'sql']);
    expect(completeSql("RESET '", names)[0]).toHaveLength(3);
    expect(completeSql("SELECT 'sql", names)).toEqual([[], 'sql']);
  });

  it('completes connector names and their option keys inside WITH (', () => {
    const table = 'CREATE TABLE t (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (';
    expect(completeSql(`${table}'`, names)).toEqual([['connector'], '']);
    expect(completeSql(`${table}'connector' = '`, names)).toEqual([['datagen', 'print'], '']);
    expect(completeSql(`${table}'connector' = 'd`, names)).toEqual([['datagen'], 'd']);
    expect(completeSql(`${table}'connector' = 'datagen', '`, names)).toEqual([
      ['fields.id.kind', 'fields.name.kind', 'number-of-rows', 'rows-per-second'],
      '',
    ]);
    expect(completeSql(`${table}'connector' = 'datagen', 'rows-per-second' = '5',\n  'f`, names)).toEqual([['fields.id.kind', 'fields.name.kind'], 'f']);
    expect(completeSql(`${table}'connector' = 'datagen', 'fields.id.kind' = 's`, names)).toEqual([['sequence'], 's']);
    expect(completeSql(`${table}'connector' = 'datagen') AND '`, names)).toEqual([[], '']);
  });

  it('takes its keywords from the grammar', () => {
    const rules = new Set([...readFileSync(join(ROOT, 'grammar/flink-sql.peggy'), 'utf8').matchAll(/^([A-Z_]+) "/gm)].map((m) => m[1]));
    expect(SQL_KEYWORDS.filter((k) => !rules.has(k))).toEqual([]);
  });

  it("snapshots an engine's relations, functions, connectors and settings", async () => {
    const engine = createEngine();
    await engine.execute("CREATE TABLE src (a INT, b STRING) WITH ('connector' = 'datagen'); CREATE VIEW v AS SELECT b FROM src; SET 'my.key' = 'x'");
    const snapshot = catalogSnapshot(engine.session);
    expect(snapshot.relations.filter((r) => !r.name.startsWith('weir.'))).toEqual([
      { name: 'src', kind: 'table', columns: ['a', 'b'] },
      { name: 'v', kind: 'view', columns: ['b'] },
    ]);
    expect(snapshot.relations.filter((r) => r.name.startsWith('weir.')).map((r) => r.name)).toEqual(['weir.checkpoints', 'weir.jobs', 'weir.operators']);
    expect(snapshot.relations.find((r) => r.name === 'weir.jobs')!.columns).toContain('records_in');
    expect(completeSql('SELECT * FROM weir.op', snapshot)).toEqual([['operators'], 'op']);
    expect(snapshot.functions).toContain('COUNT');
    expect(snapshot.connectors.map((c) => c.name)).toContain('datagen');
    expect(snapshot.connectors.find((c) => c.name === 'datagen')!.options.map((o) => o.key)).toContain('rows-per-second');
    expect(snapshot.settings).toEqual(expect.arrayContaining(['sql-client.execution.result-mode', 'my.key']));
  });
});
