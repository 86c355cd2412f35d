/**
 * The sqllogictest runner itself: the parser's records and errors, the Flink-to-Postgres
 * mapping, and that every check fails when it should — a view whose table differs from its query,
 * a view Postgres cannot check, a `statement error` that succeeds, a query's wrong rows.
 */
import { describe, expect, it } from 'vitest';
import { postgresType, toPostgresSql } from './postgres-oracle.js';
import { parseSlt } from './slt-parser.js';
import { render, runSlt } from './slt-runner.js';

describe('the .slt parser', () => {
  it('reads statements, queries, comments, conditions and halt', () => {
    const records = parseSlt(
      [
        '# a comment',
        'statement ok',
        'CREATE TABLE t (a INT,',
        '  b STRING)',
        '',
        'skipif weir',
        'statement ok',
        'SELECT skipped',
        '',
        'onlyif weir',
        'statement error does not (exist|matter)',
        'SELECT nope FROM t',
        '',
        'onlyif postgres',
        'query I',
        'SELECT 1',
        '----',
        '1',
        '',
        '# postgres: SELECT a,',
        '# postgres:   b FROM t',
        'statement ok',
        'CREATE MATERIALIZED VIEW v AS SELECT a, b FROM t',
        '',
        'query IT rowsort',
        'SELECT a, b',
        'FROM t',
        '----',
        '1   x  y',
        '2 (empty)',
        '',
        'query error division',
        'SELECT 1 / 0',
        '',
        'halt',
        '',
        'statement ok',
        'SELECT never',
      ].join('\n'),
      'f.slt',
    );
    expect(records).toEqual([
      { kind: 'statement', line: 2, sql: 'CREATE TABLE t (a INT,\n  b STRING)', expect: { kind: 'ok' } },
      { kind: 'statement', line: 11, sql: 'SELECT nope FROM t', expect: { kind: 'error', pattern: /does not (exist|matter)/ } },
      { kind: 'statement', line: 22, sql: 'CREATE MATERIALIZED VIEW v AS SELECT a, b FROM t', expect: { kind: 'ok' }, postgres: 'SELECT a,\n  b FROM t' },
      { kind: 'query', line: 25, sql: 'SELECT a, b\nFROM t', types: ['I', 'T'], sort: 'rowsort', expect: { kind: 'ok' }, rows: ['1 x y', '2 (empty)'] },
      { kind: 'query', line: 32, sql: 'SELECT 1 / 0', sort: 'nosort', expect: { kind: 'error', pattern: /division/ }, rows: [] },
      { kind: 'halt', line: 35 },
    ]);
  });

  it.each([
    ['statemnt ok\nSELECT 1', "f.slt:1: expected 'statement', 'query', 'halt', 'skipif', 'onlyif' or a '#' comment, got 'statemnt'"],
    ['statement fine\nSELECT 1', "f.slt:1: expected 'ok' or 'error [regex]' after 'statement', got 'fine'"],
    ['query X\nSELECT 1', "f.slt:1: 'query' needs column types (letters I, T, R, B), got 'X'"],
    ['query I somesort\nSELECT 1', "f.slt:1: unknown sort mode 'somesort' (nosort, rowsort or valuesort)"],
    ['query I rowsort label-1\nSELECT 1', "f.slt:1: unexpected 'label-1' after the sort mode (labels and hashes are not supported)"],
    ['statement error (\nSELECT 1', 'f.slt:1: invalid error regex /(/'],
    ['statement ok\n\nSELECT 1', 'f.slt:1: the statement has no SQL'],
    ['statement ok\nSELECT 1\n----\nx', "f.slt:3: a statement has no '----' section"],
    ['# postgres: SELECT 1\nquery I\nSELECT 1', "f.slt:1: a '# postgres:' line belongs before a statement that creates a materialized view, not before a query"],
    ['# postgres: SELECT 1\n\nstatement ok\nSELECT 1', "f.slt:1: a '# postgres:' line must come right before the statement it belongs to"],
  ])('refuses %j', (text, message) => {
    expect(() => parseSlt(text, 'f.slt')).toThrow(message);
  });
});

describe('the Flink-to-PostgreSQL mapping', () => {
  it('quotes backtick identifiers and renames types, leaving literals and comments alone', () => {
    expect(toPostgresSql("SELECT `order`, CAST(x AS STRING), CAST(y AS DOUBLE), CAST(z AS DOUBLE PRECISION) FROM `my``t` WHERE s = 'STRING `a`' -- DOUBLE\nAND t = \"STRING\""))
      .toBe("SELECT \"order\", CAST(x AS TEXT), CAST(y AS DOUBLE PRECISION), CAST(z AS DOUBLE PRECISION) FROM \"my`t\" WHERE s = 'STRING `a`' -- DOUBLE\nAND t = \"STRING\"");
    expect(toPostgresSql("SELECT CAST(a AS TINYINT), CAST(b AS TIMESTAMP_LTZ(3)), 'it''s STRING' FROM t")).toBe("SELECT CAST(a AS SMALLINT), CAST(b AS TIMESTAMPTZ(3)), 'it''s STRING' FROM t");
  });

  it('types mirror columns from what DESCRIBE prints', () => {
    expect(['INT', 'BIGINT NOT NULL', 'STRING', 'VARCHAR(10)', 'CHAR(3)', 'DECIMAL(10, 2)', 'TIMESTAMP(3) *ROWTIME*', 'TIMESTAMP_LTZ(3)', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIME(0)'].map(postgresType))
      .toEqual(['integer', 'bigint', 'text', 'text', 'text', 'numeric(10, 2)', 'timestamp(3)', 'timestamptz(3)', 'double precision', 'boolean', 'date', 'time(0)']);
    expect(['ARRAY<INT>', 'ARRAY<STRING NOT NULL>', 'ARRAY<DECIMAL(5, 1)>'].map(postgresType)).toEqual(['integer[]', 'text[]', 'numeric(5, 1)[]']);
    expect(['ARRAY<ARRAY<INT>>', 'MAP<STRING, INT>', 'ARRAY<ROW<x INT>>'].map(postgresType)).toEqual([undefined, undefined, undefined]);
  });

  it('renders values as result lines show them', () => {
    expect([null, '', 'a b', 12, 1.5, 2n ** 60n, true, new Date(Date.UTC(2022, 5, 10, 12, 20, 4, 858))].map(render))
      .toEqual(['NULL', '(empty)', 'a b', '12', '1.5', '1152921504606846976', 'true', '2022-06-10 12:20:04.858']);
  });
});

const ORDERS = `
statement ok
CREATE TABLE orders (id INT PRIMARY KEY NOT ENFORCED, customer STRING, amount INT)

statement ok
INSERT INTO orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'ann', 5)
`;

describe('the runner', () => {
  it('passes a file whose views equal their queries, and counts what it checked', async () => {
    const report = await runSlt(
      `${ORDERS}
statement ok
CREATE MATERIALIZED VIEW totals AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer

query TI rowsort
SELECT customer, total FROM totals
----
ann 15
bob 20

statement ok
UPDATE orders SET amount = 1 WHERE id = 2

statement ok
FLUSH
`,
      'passing.slt',
    );
    // Checks after the FLUSH before the query and after the file's FLUSH; the end of the file
    // changed nothing since, so it needs no FLUSH.
    expect(report).toEqual({ statements: 5, queries: 1, viewChecks: 2, views: ['totals'] });
  });

  it('fails when a view table differs from its query in Postgres, naming the view, the moment and the rows', async () => {
    let round = 0;
    const run = runSlt(
      `${ORDERS}
statement ok
CREATE MATERIALIZED VIEW totals AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer

statement ok
INSERT INTO orders VALUES (4, 'cy', 7)

statement ok
FLUSH
`,
      'tampered.slt',
      {
        // The views are right; the test makes one wrong behind weir's back before the check.
        beforeCheck: async (oracle) => {
          if (round++ === 0) await oracle.query("UPDATE public.totals SET total = 99 WHERE customer = 'cy'");
        },
      },
    );
    await expect(run).rejects.toThrow(
      "tampered.slt: after FLUSH at line 14:\nmaterialized view 'totals' (created at line 8) differs from its query run by PostgreSQL (translated: SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer):\n  missing from the view: (cy,7)\n  not in the query result: (cy,99)",
    );
  });

  it('fails a view whose query Postgres cannot run, and takes a # postgres: line for it', async () => {
    const view = "CREATE MATERIALIZED VIEW sizes AS SELECT id, IF(amount > 8, 'big', 'small') AS size FROM orders";
    await expect(runSlt(`${ORDERS}\nstatement ok\n${view}\n`, 'untranslatable.slt')).rejects.toThrow(
      /untranslatable\.slt: after the end of the file:\nmaterialized view 'sizes' \(created at line 8\) could not be checked: PostgreSQL could not run its translated query: function if\(boolean, unknown, unknown\) does not exist\n.*\n  give the view's PostgreSQL text in a '# postgres: <sql>' line right before the statement/,
    );
    const report = await runSlt(`${ORDERS}\n# postgres: SELECT id, CASE WHEN amount > 8 THEN 'big' ELSE 'small' END FROM orders\nstatement ok\n${view}\n`, 'overridden.slt');
    expect(report.viewChecks).toBe(1);
    await expect(runSlt(`${ORDERS}\n# postgres: SELECT id, 'small' FROM orders\nstatement ok\n${view}\n`, 'wrong-override.slt')).rejects.toThrow(
      "materialized view 'sizes' (created at line 9) differs from its query run by PostgreSQL (# postgres: SELECT id, 'small' FROM orders):\n  missing from the view: (1,small)\n  missing from the view: (2,small)\n  not in the query result: (1,big)\n  not in the query result: (2,big)",
    );
  });

  it('fails a statement error that succeeds, an error that does not match, and a query with other rows', async () => {
    await expect(runSlt(`${ORDERS}\nstatement error\nDELETE FROM orders WHERE id = 3\n`, 'no-error.slt')).rejects.toThrow(
      'no-error.slt:8: expected an error, but it succeeded\nDELETE FROM orders WHERE id = 3',
    );
    await expect(runSlt(`${ORDERS}\nstatement error column .* missing\nSELECT nope FROM orders\n`, 'other-error.slt')).rejects.toThrow(
      "other-error.slt:8: the error does not match /column .* missing/: column 'nope' does not exist",
    );
    await expect(runSlt(`${ORDERS}\nquery TI rowsort\nSELECT customer, amount FROM orders\n----\nann 10\nann 5\nbob 21\n`, 'wrong-rows.slt')).rejects.toThrow(
      'wrong-rows.slt:8: the query\'s rows differ (rowsort)\nSELECT customer, amount FROM orders\nexpected (3):\n  ann 10\n  ann 5\n  bob 21\nactual (3):\n  ann 10\n  ann 5\n  bob 20',
    );
    await expect(runSlt(`${ORDERS}\nquery II\nSELECT customer, amount FROM orders WHERE id = 1\n----\nann 10\n`, 'wrong-type.slt')).rejects.toThrow(
      'wrong-type.slt:8: column 1 is declared I but holds ann (string)',
    );
    await expect(runSlt(`${ORDERS}\nquery I\nSELECT customer, amount FROM orders WHERE id = 1\n----\nann 10\n`, 'wrong-width.slt')).rejects.toThrow(
      "wrong-width.slt:8: the query gives 2 columns but 'query I' declares 1",
    );
  });
});
