import { describe, expect, it } from 'vitest';
import type { CreateTable, Expr, InsertStatement, Query, QueryStatement, SelectQuery, Statement } from '../../../src/sql/parse/ast.js';
import { parseExpression, parseScript, parseStatement } from '../../../src/sql/parse/parser.js';

/** The tree without its spans, for comparing shapes. */
function withoutSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSpans);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'span').map(([key, field]) => [key, withoutSpans(field)]));
}

const id = (name: string, quoted = false) => ({ kind: 'identifier', name, quoted });
const col = (...parts: string[]) => ({ kind: 'column-ref', parts: parts.map((part) => id(part)) });
const num = (text: string) => ({ kind: 'literal', type: 'number', text });
const str = (value: string) => ({ kind: 'literal', type: 'string', value });
const name = (...parts: string[]) => ({ kind: 'qualified-name', parts: parts.map((part) => id(part)) });
const binary = (op: string, left: unknown, right: unknown) => ({ kind: 'binary', op, left, right });
const call = (fn: string, args: unknown[], extra: object = {}) => ({ kind: 'call', name: name(fn), args, distinct: false, ...extra });
const type = (typeName: string, params: number[] = [], notNull = false) => ({ kind: 'type', name: typeName, params, notNull });
const table = (tableName: string, extra: object = {}) => ({ kind: 'named-table', name: name(tableName), ...extra });
const select = (fields: object) => ({ kind: 'select', distinct: false, groupBy: [], windows: [], orderBy: [], ...fields });
const item = (expr: unknown, alias?: string) => (alias === undefined ? { kind: 'select-expr', expr } : { kind: 'select-expr', expr, alias: id(alias) });

function expression(text: string): unknown {
  return withoutSpans(parseExpression(text));
}

function query(text: string): Query {
  const statement = parseStatement(text);
  expect(statement.kind).toBe('query');
  return (statement as QueryStatement).query;
}

describe('scripts', () => {
  it('splits statements at semicolons and keeps the exact text of each', () => {
    const script = parseScript("SELECT 'a;b' FROM t; -- done;\n\nSET 'k' = 'v'");
    expect(script.map((entry) => entry.text)).toEqual(["SELECT 'a;b' FROM t", "SET 'k' = 'v'"]);
    expect(script[1]!.span.start).toEqual({ offset: 31, line: 3, column: 1 });
    expect(script[1]!.span.end).toEqual({ offset: 44, line: 3, column: 14 });
  });

  it('accepts an empty script, comments only and a trailing semicolon', () => {
    expect(parseScript('')).toEqual([]);
    expect(parseScript('/* nothing */ -- here')).toEqual([]);
    expect(parseScript('FLUSH;')).toHaveLength(1);
  });

  it('reads keywords in any case and keeps the case of identifiers', () => {
    expect(withoutSpans(query('select Price FrOm Bid'))).toEqual(select({ items: [item(col('Price'))], from: table('Bid') }));
  });

  it('reads backtick identifiers with doubled backticks', () => {
    expect(expression('`date``Time`.`x`')).toEqual({ kind: 'column-ref', parts: [id('date`Time', true), id('x', true)] });
  });

  it('gives spans with 1-based lines and columns to nodes on later lines', () => {
    const select = query('SELECT\n  a,\n  price * 2 AS b\nFROM t') as SelectQuery;
    const second = select.items[1]!;
    expect(second.span).toEqual({ start: { offset: 14, line: 3, column: 3 }, end: { offset: 28, line: 3, column: 17 } });
    expect(second.kind === 'select-expr' && second.expr.span.end).toEqual({ offset: 23, line: 3, column: 12 });
  });

  it('parses BEGIN STATEMENT SET; ...; END as one statement of the script', () => {
    const script = parseScript('BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;\nFLUSH');
    expect(script.map((entry) => entry.statement.kind)).toEqual(['statement-set', 'flush']);
    expect(script[0]!.text).toBe('BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND');
  });
});

describe('CREATE TABLE', () => {
  const ddl = `CREATE TEMPORARY TABLE IF NOT EXISTS cat.db.bids (
      id BIGINT NOT NULL,
      bid ROW<auction BIGINT, \`dateTime\` TIMESTAMP(3), tags ARRAY<STRING>>,
      attrs MAP<STRING, DECIMAL(10, 2)>,
      pair ROW(a INT, b VARCHAR(10) NOT NULL) COMMENT 'a pair',
      ts AS bid.\`dateTime\` COMMENT 'event time',
      part INT METADATA FROM 'partition' VIRTUAL,
      WATERMARK FOR ts AS ts - INTERVAL '4' SECOND,
      CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED
    ) COMMENT 'bids' PARTITIONED BY (id) WITH ('connector' = 'nexmark', 'rate' = '1''000')`;

  it('has columns of every kind, the watermark, the key and the options', () => {
    const statement = parseStatement(ddl) as CreateTable;
    expect(withoutSpans(statement)).toEqual({
      kind: 'create-table',
      name: name('cat', 'db', 'bids'),
      temporary: true,
      ifNotExists: true,
      columns: [
        { kind: 'physical-column', name: id('id'), type: type('BIGINT', [], true), primaryKey: false },
        {
          kind: 'physical-column',
          name: id('bid'),
          type: {
            kind: 'row-type',
            fields: [
              { name: id('auction'), type: type('BIGINT') },
              { name: id('dateTime', true), type: type('TIMESTAMP', [3]) },
              { name: id('tags'), type: { kind: 'array-type', element: type('VARCHAR'), notNull: false } },
            ],
            notNull: false,
          },
          primaryKey: false,
        },
        { kind: 'physical-column', name: id('attrs'), type: { kind: 'map-type', key: type('VARCHAR'), value: type('DECIMAL', [10, 2]), notNull: false }, primaryKey: false },
        {
          kind: 'physical-column',
          name: id('pair'),
          type: { kind: 'row-type', fields: [{ name: id('a'), type: type('INT') }, { name: id('b'), type: type('VARCHAR', [10], true) }], notNull: false },
          comment: 'a pair',
          primaryKey: false,
        },
        { kind: 'computed-column', name: id('ts'), expr: { kind: 'column-ref', parts: [id('bid'), id('dateTime', true)] }, comment: 'event time' },
        { kind: 'metadata-column', name: id('part'), type: type('INT'), from: 'partition', virtual: true },
      ],
      watermark: { column: id('ts'), expr: binary('-', col('ts'), { kind: 'interval', value: '4', sign: 1, from: 'SECOND' }) },
      primaryKey: { columns: [id('id')], notEnforced: true },
      partitionedBy: [id('id')],
      comment: 'bids',
      options: [
        { kind: 'option', key: 'connector', value: 'nexmark' },
        { kind: 'option', key: 'rate', value: "1'000" },
      ],
    });
  });

  it('points option spans at their keys', () => {
    const statement = parseStatement("CREATE TABLE t (a INT) WITH ('connector' = 'x')") as CreateTable;
    expect(statement.options[0]!.span.start.column).toBe(30);
    expect(statement.options[0]!.span.end.column).toBe(41);
  });

  it('takes a column-level primary key as the table key', () => {
    const statement = parseStatement('CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, v STRING)') as CreateTable;
    expect(statement.columns[0]).toMatchObject({ kind: 'physical-column', primaryKey: true });
    expect(withoutSpans(statement.primaryKey)).toEqual({ columns: [id('id')], notEnforced: true });
    const later = parseStatement('CREATE TABLE t (v STRING, id INT PRIMARY KEY NOT ENFORCED COMMENT \'the key\')') as CreateTable;
    expect(later.columns.map((c) => c.kind === 'physical-column' && c.primaryKey)).toEqual([false, true]);
    expect(withoutSpans(later.primaryKey)).toEqual({ columns: [id('id')], notEnforced: true });
  });

  it('normalises type synonyms', () => {
    const types = 'a INTEGER, b STRING, c BYTES, d DEC(5), e NUMERIC, f REAL, g DOUBLE PRECISION, h TIMESTAMP(3) WITH LOCAL TIME ZONE, '
      + 'i TIMESTAMP_LTZ(6), j TIMESTAMP WITHOUT TIME ZONE, k INTERVAL DAY TO SECOND, l INTERVAL YEAR TO MONTH, m INTERVAL MINUTE, n CHAR, o BINARY(4), p TIME(0), q BOOLEAN NULL, '
      + 'r INTERVAL DAY(2) TO SECOND(3), s INTERVAL YEAR(4) TO MONTH, u INTERVAL SECOND(3, 6)';
    const statement = parseStatement(`CREATE TABLE t (${types})`) as CreateTable;
    const written = statement.columns.map((column) => column.kind === 'computed-column' ? undefined : withoutSpans(column.type));
    expect(written).toEqual([
      type('INT'), type('VARCHAR'), type('VARBINARY'), type('DECIMAL', [5]), type('DECIMAL'), type('FLOAT'), type('DOUBLE'),
      type('TIMESTAMP_LTZ', [3]), type('TIMESTAMP_LTZ', [6]), type('TIMESTAMP'), type('INTERVAL_DAY_TIME'), type('INTERVAL_YEAR_MONTH'),
      type('INTERVAL_DAY_TIME'), type('CHAR'), type('BINARY', [4]), type('TIME', [0]), type('BOOLEAN'),
      type('INTERVAL_DAY_TIME'), type('INTERVAL_YEAR_MONTH'), type('INTERVAL_DAY_TIME'),
    ]);
    expect(() => parseStatement('CREATE TABLE t (d INTERVAL DAY(9) TO SECOND)')).toThrow('the precision of DAY must be between 1 and 6, got 9');
  });
});

describe('other statements', () => {
  it('CREATE VIEW keeps the query text exactly', () => {
    const statement = parseStatement('CREATE TEMPORARY VIEW v (a, b) AS  SELECT x, y\n FROM t -- why\n;');
    expect(statement).toMatchObject({ kind: 'create-view', temporary: true, ifNotExists: false, queryText: 'SELECT x, y\n FROM t' });
  });

  it('CREATE MATERIALIZED VIEW, CREATE FUNCTION, DROP', () => {
    expect(withoutSpans(parseStatement("CREATE MATERIALIZED VIEW IF NOT EXISTS mv WITH ('sink' = 'pg') AS SELECT 1"))).toMatchObject({
      kind: 'create-materialized-view', name: name('mv'), ifNotExists: true, options: [{ kind: 'option', key: 'sink', value: 'pg' }], queryText: 'SELECT 1',
    });
    expect(withoutSpans(parseStatement("CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS f AS './f.js' LANGUAGE javascript"))).toEqual({
      kind: 'create-function', name: name('f'), temporary: true, ifNotExists: true, identifier: './f.js', language: 'JAVASCRIPT',
    });
    expect(withoutSpans(parseStatement('DROP MATERIALIZED VIEW IF EXISTS mv'))).toEqual({ kind: 'drop', object: 'MATERIALIZED VIEW', name: name('mv'), ifExists: true, temporary: false, cascade: false });
    expect(withoutSpans(parseStatement('DROP TEMPORARY FUNCTION f'))).toEqual({ kind: 'drop', object: 'FUNCTION', name: name('f'), ifExists: false, temporary: true, cascade: false });
    expect(withoutSpans(parseStatement('DROP VIEW v CASCADE'))).toEqual({ kind: 'drop', object: 'VIEW', name: name('v'), ifExists: false, temporary: false, cascade: true });
    expect(withoutSpans(parseStatement('DROP TABLE t RESTRICT'))).toEqual({ kind: 'drop', object: 'TABLE', name: name('t'), ifExists: false, temporary: false, cascade: false });
  });

  it('INSERT with partition, columns and a parenthesised query', () => {
    const statement = parseStatement("INSERT OVERWRITE t PARTITION (dt = '2024') (a, b) (SELECT 1, 2)") as InsertStatement;
    expect(withoutSpans(statement)).toMatchObject({
      kind: 'insert', target: name('t'), overwrite: true, columns: [id('a'), id('b')], partition: [{ name: id('dt'), value: str('2024') }],
    });
    expect(statement.query.kind).toBe('select');
    expect(statement.onConflict).toBeUndefined();
  });

  it('INSERT ... ON CONFLICT DO NOTHING | ERROR | DEDUPLICATE (Flink 2.3)', () => {
    for (const strategy of ['NOTHING', 'ERROR', 'DEDUPLICATE'] as const) {
      const statement = parseStatement(`INSERT INTO t SELECT a, COUNT(*) FROM s GROUP BY a ON CONFLICT DO ${strategy.toLowerCase()}`) as InsertStatement;
      expect(statement.onConflict).toBe(strategy);
      expect(statement.query.kind).toBe('select');
    }
    expect(() => parseStatement('INSERT INTO t SELECT 1 ON CONFLICT DO UPDATE')).toThrow();
  });

  it('CREATE MATERIALIZED VIEW with a column list', () => {
    const statement = parseStatement("CREATE MATERIALIZED VIEW v (a, b) WITH ('url' = 'x') AS SELECT 1, 2");
    expect(statement).toMatchObject({ kind: 'create-materialized-view', columns: [{ name: 'a' }, { name: 'b' }], options: [{ key: 'url', value: 'x' }] });
  });

  it('statement sets, EXPLAIN', () => {
    const set = parseStatement('EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END');
    expect(set.kind === 'statement-set' && set.inserts.map((insert) => insert.target.parts[0]!.name)).toEqual(['a', 'b']);
    expect(parseStatement('EXPLAIN PLAN FOR SELECT 1')).toMatchObject({ kind: 'explain', details: [], statement: { kind: 'query' } });
    expect(parseStatement('EXPLAIN CHANGELOG_MODE, ESTIMATED_COST INSERT INTO t SELECT 1')).toMatchObject({
      kind: 'explain', details: ['CHANGELOG_MODE', 'ESTIMATED_COST'], statement: { kind: 'insert' },
    });
  });

  it('SET, RESET, SHOW, DESCRIBE, STOP JOB, UPDATE, DELETE, FLUSH', () => {
    const cases: [string, object][] = [
      ['SET', { kind: 'set' }],
      ["SET 'execution.checkpointing.interval' = '10s'", { kind: 'set', key: 'execution.checkpointing.interval', value: '10s' }],
      ['SET table.exec.mini-batch.enabled = true', { kind: 'set', key: 'table.exec.mini-batch.enabled', value: 'true' }],
      ['RESET', { kind: 'reset' }],
      ["RESET 'parallelism.default'", { kind: 'reset', key: 'parallelism.default' }],
      ['SHOW MATERIALIZED VIEWS', { kind: 'show', what: 'MATERIALIZED VIEWS' }],
      ['show user functions', { kind: 'show', what: 'USER FUNCTIONS' }],
      ['SHOW CURRENT DATABASE', { kind: 'show', what: 'CURRENT DATABASE' }],
      ['SHOW CREATE VIEW v', { kind: 'show', what: 'CREATE VIEW', name: name('v') }],
      ['DESC t', { kind: 'describe', name: name('t') }],
      ["STOP JOB 'a1' WITH SAVEPOINT", { kind: 'stop-job', jobId: 'a1', withSavepoint: true, withDrain: false }],
      ['UPDATE t SET a = 1, b = b + 1 WHERE id = 2', {
        kind: 'update', target: name('t'), assignments: [{ column: id('a'), value: num('1') }, { column: id('b'), value: binary('+', col('b'), num('1')) }],
        where: binary('=', col('id'), num('2')),
      }],
      ['DELETE FROM t', { kind: 'delete', target: name('t') }],
      ['FLUSH', { kind: 'flush' }],
    ];
    for (const [text, expected] of cases) expect(withoutSpans(parseStatement(text)), text).toEqual(expected);
  });
});

describe('queries', () => {
  it('SELECT with GROUP BY, aggregates, HAVING, ORDER BY and LIMIT', () => {
    const text = 'SELECT DISTINCT auction, count(*) AS n, COUNT(DISTINCT bidder) FILTER (WHERE price > 10) c FROM bid '
      + 'WHERE price > 0 GROUP BY auction HAVING count(*) > 1 ORDER BY n DESC NULLS LAST LIMIT 10 OFFSET 5';
    expect(withoutSpans(query(text))).toEqual({
      kind: 'select',
      distinct: true,
      items: [
        item(col('auction')),
        item(call('count', [{ kind: 'star', qualifier: [] }]), 'n'),
        item(call('COUNT', [col('bidder')], { distinct: true, filter: binary('>', col('price'), num('10')) }), 'c'),
      ],
      from: table('bid'),
      where: binary('>', col('price'), num('0')),
      groupBy: [{ kind: 'group-expr', expr: col('auction') }],
      having: binary('>', call('count', [{ kind: 'star', qualifier: [] }]), num('1')),
      windows: [],
      orderBy: [{ kind: 'order-item', expr: col('n'), descending: true, nullsFirst: false }],
      limit: num('10'),
      offset: num('5'),
    });
  });

  it('stars, qualified stars and FETCH FIRST', () => {
    expect(withoutSpans(query('SELECT *, B.*, x FROM bid B FETCH FIRST 3 ROWS ONLY'))).toEqual(select({
      items: [{ kind: 'select-star', qualifier: [] }, { kind: 'select-star', qualifier: [id('B')] }, item(col('x'))],
      from: table('bid', { alias: id('B') }),
      limit: num('3'),
    }));
  });

  it('VALUES as a query and as a derived table with column aliases', () => {
    expect(withoutSpans(query("VALUES (1, 'a'), (2, 'b')"))).toEqual({ kind: 'values', rows: [[num('1'), str('a')], [num('2'), str('b')]] });
    expect(withoutSpans(query('SELECT k FROM (VALUES (1, 10), (2, 20)) AS t(k, v)'))).toEqual(select({
      items: [item(col('k'))],
      from: {
        kind: 'derived-table',
        query: { kind: 'values', rows: [[num('1'), num('10')], [num('2'), num('20')]] },
        alias: id('t'),
        columnAliases: [id('k'), id('v')],
        lateral: false,
      },
    }));
  });

  it('WITH and its column lists', () => {
    expect(withoutSpans(query('WITH a AS (SELECT 1), b (x, y) AS (VALUES (1, 2)) SELECT x FROM b'))).toEqual({
      kind: 'with',
      ctes: [
        { name: id('a'), query: select({ items: [item(num('1'))] }) },
        { name: id('b'), columns: [id('x'), id('y')], query: { kind: 'values', rows: [[num('1'), num('2')]] } },
      ],
      body: select({ items: [item(col('x'))], from: table('b') }),
    });
  });

  it('set operations: left-associative, INTERSECT binding tighter, ORDER BY on the whole', () => {
    const union = withoutSpans(query('SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 3 INTERSECT SELECT 4 ORDER BY 1'));
    const one = (text: string) => select({ items: [item(num(text))] });
    expect(union).toEqual({
      kind: 'set-operation',
      op: 'EXCEPT',
      all: false,
      left: { kind: 'set-operation', op: 'UNION', all: true, left: one('1'), right: one('2'), orderBy: [] },
      right: { kind: 'set-operation', op: 'INTERSECT', all: false, left: one('3'), right: one('4'), orderBy: [] },
      orderBy: [{ kind: 'order-item', expr: num('1'), descending: false }],
    });
  });

  it('joins of every kind, comma joins, USING and implicit aliases', () => {
    const from = (query('SELECT 1 FROM a x JOIN b ON x.id = b.id LEFT OUTER JOIN c USING (id) CROSS JOIN d, e AS y') as SelectQuery).from;
    expect(withoutSpans(from)).toEqual({
      kind: 'join',
      type: 'CROSS',
      left: {
        kind: 'join',
        type: 'CROSS',
        left: {
          kind: 'join',
          type: 'LEFT',
          left: { kind: 'join', type: 'INNER', left: table('a', { alias: id('x') }), right: table('b'), on: binary('=', col('x', 'id'), col('b', 'id')) },
          right: table('c'),
          using: [id('id')],
        },
        right: table('d'),
      },
      right: table('e', { alias: id('y') }),
    });
  });

  it('does not take reserved words as implicit aliases', () => {
    const select = query('SELECT a FROM t WHERE a = 1') as SelectQuery;
    expect(withoutSpans(select.from)).toEqual(table('t'));
  });

  it('temporal joins, LATERAL, UNNEST', () => {
    const from = (query('SELECT 1 FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts AS r2 ON o.k = r2.k CROSS JOIN UNNEST(o.tags) WITH ORDINALITY AS t(tag, i), LATERAL (SELECT 1) l') as SelectQuery).from;
    expect(withoutSpans(from)).toMatchObject({
      kind: 'join',
      type: 'CROSS',
      left: {
        type: 'CROSS',
        left: { type: 'INNER', right: table('r', { alias: id('r2'), forSystemTimeAsOf: col('o', 'ts') }) },
        right: { kind: 'unnest', expr: col('o', 'tags'), others: [], withOrdinality: true, alias: id('t'), columnAliases: [id('tag'), id('i')] },
      },
      right: { kind: 'derived-table', alias: id('l'), lateral: true },
    });
  });

  it('window table functions, with SESSION partition keys', () => {
    const tumble = (query("SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))") as SelectQuery).from;
    expect(withoutSpans(tumble)).toEqual({
      kind: 'table-function',
      call: call('TUMBLE', [
        { kind: 'table-arg', name: name('bid') },
        call('DESCRIPTOR', [{ kind: 'column-ref', parts: [id('dateTime', true)] }]),
        { kind: 'interval', value: '10', sign: 1, from: 'SECOND' },
      ]),
    });
    const session = (query("SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY (bidder, auction), DESCRIPTOR(ts), INTERVAL '5' MINUTES)) AS s") as SelectQuery).from;
    expect(withoutSpans(session)).toMatchObject({
      alias: id('s'),
      call: { args: [{ kind: 'table-arg', name: name('bid'), partitionBy: [col('bidder'), col('auction')] }, {}, { from: 'MINUTE' }] },
    });
  });

  it("a table function's named arguments, in any order after positional ones", () => {
    const hop = (query("SELECT * FROM TABLE(HOP(TABLE bid, SIZE => INTERVAL '10' SECOND, TIMECOL => DESCRIPTOR(ts), `OFFSET` => INTERVAL '1' SECOND))") as SelectQuery).from;
    expect(withoutSpans(hop)).toMatchObject({
      kind: 'table-function',
      call: {
        args: [{ kind: 'table-arg', name: name('bid') }, { kind: 'interval', value: '10' }, { kind: 'call' }, { kind: 'interval', value: '1' }],
        argumentNames: [null, id('SIZE'), id('TIMECOL'), id('OFFSET', true)],
      },
    });
    const positional = (query("SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))") as SelectQuery).from;
    expect(positional).not.toHaveProperty('call.argumentNames');
  });

  it('GROUPING SETS, ROLLUP, CUBE and named windows', () => {
    const select = query('SELECT SUM(x) OVER w FROM t GROUP BY GROUPING SETS ((a, b), a, ()), ROLLUP (a, b), CUBE (a) WINDOW w AS (PARTITION BY a ORDER BY ts RANGE BETWEEN INTERVAL \'1\' HOUR PRECEDING AND CURRENT ROW)') as SelectQuery;
    expect(withoutSpans(select.groupBy)).toEqual([
      { kind: 'grouping-sets', type: 'GROUPING SETS', sets: [[col('a'), col('b')], [col('a')], []] },
      { kind: 'grouping-sets', type: 'ROLLUP', sets: [[col('a')], [col('b')]] },
      { kind: 'grouping-sets', type: 'CUBE', sets: [[col('a')]] },
    ]);
    expect(withoutSpans(select.windows)).toEqual([{
      name: id('w'),
      spec: {
        kind: 'window-spec',
        partitionBy: [col('a')],
        orderBy: [{ kind: 'order-item', expr: col('ts'), descending: false }],
        frame: { kind: 'window-frame', unit: 'RANGE', start: { kind: 'preceding', offset: { kind: 'interval', value: '1', sign: 1, from: 'HOUR' } }, end: { kind: 'current-row' } },
      },
    }]);
    expect(withoutSpans(select.items[0])).toEqual(item(call('SUM', [col('x')], { over: { kind: 'window-spec', ref: id('w'), partitionBy: [], orderBy: [] } })));
  });

  it('accepts non-reserved keywords as names', () => {
    const text = 'SELECT window_start, window_end, `value`, value, count, current, rank, final, num, starttime, `day`, day, channel, url, extra, key, date, A.dateTime FROM bid';
    const select = query(text) as SelectQuery;
    expect(select.items).toHaveLength(18);
  });
});

describe('expressions', () => {
  it('precedence: OR < AND < NOT < comparison', () => {
    expect(expression('a OR b AND NOT c = d')).toEqual(binary('OR', col('a'), binary('AND', col('b'), { kind: 'unary', op: 'NOT', operand: binary('=', col('c'), col('d')) })));
  });

  it('precedence: * over +, || with + below comparison', () => {
    expect(expression('1 + 2 * 3')).toEqual(binary('+', num('1'), binary('*', num('2'), num('3'))));
    expect(expression('a || b = c')).toEqual(binary('=', binary('||', col('a'), col('b')), col('c')));
    expect(expression('a - b + c')).toEqual(binary('+', binary('-', col('a'), col('b')), col('c')));
    expect(expression('-a * b')).toEqual(binary('*', { kind: 'unary', op: '-', operand: col('a') }, col('b')));
    expect(expression('a <> b AND a != c')).toEqual(binary('AND', binary('<>', col('a'), col('b')), binary('<>', col('a'), col('c'))));
  });

  it('BETWEEN, IN, LIKE, SIMILAR TO, IS', () => {
    expect(expression('x NOT BETWEEN SYMMETRIC 1 AND 2 AND y')).toEqual(binary('AND', { kind: 'between', expr: col('x'), low: num('1'), high: num('2'), negated: true, symmetric: true }, col('y')));
    expect(expression('x IN (1, 2)')).toEqual({ kind: 'in-list', expr: col('x'), list: [num('1'), num('2')], negated: false });
    expect(expression('x NOT IN (SELECT y FROM t)')).toMatchObject({ kind: 'in-subquery', expr: col('x'), negated: true, query: { kind: 'select' } });
    expect(expression("s NOT LIKE 'a!%' ESCAPE '!'")).toEqual({ kind: 'like', op: 'LIKE', expr: col('s'), pattern: str('a!%'), escape: str('!'), negated: true });
    expect(expression("s SIMILAR TO 'a+'")).toEqual({ kind: 'like', op: 'SIMILAR TO', expr: col('s'), pattern: str('a+'), negated: false });
    expect(expression('x IS NOT NULL')).toEqual({ kind: 'is', expr: col('x'), test: 'NULL', negated: true });
    expect(expression('x IS UNKNOWN')).toEqual({ kind: 'is', expr: col('x'), test: 'UNKNOWN', negated: false });
    expect(expression('x IS NOT DISTINCT FROM y')).toEqual(binary('IS NOT DISTINCT FROM', col('x'), col('y')));
  });

  it('EXISTS and scalar subqueries', () => {
    expect(expression('NOT EXISTS (SELECT 1)')).toMatchObject({ kind: 'exists', negated: true });
    expect(expression('(SELECT 1) + 1')).toMatchObject({ kind: 'binary', left: { kind: 'scalar-subquery' } });
  });

  it('quantified comparisons: ANY, SOME (as ANY) and ALL over a subquery; `any` stays a name', () => {
    expect(expression('x = ANY (SELECT y FROM t)')).toMatchObject({ kind: 'quantified', expr: col('x'), op: '=', quantifier: 'ANY', query: { kind: 'select' } });
    expect(expression('x <> some (SELECT y FROM t)')).toMatchObject({ kind: 'quantified', op: '<>', quantifier: 'ANY' });
    expect(expression('NOT x >= ALL (SELECT y FROM t) AND z')).toMatchObject({ kind: 'binary', op: 'AND', left: { kind: 'unary', op: 'NOT', operand: { kind: 'quantified', op: '>=', quantifier: 'ALL' } } });
    expect(expression('x = any')).toEqual(binary('=', col('x'), col('any')));
    expect(expression('x < some + 1')).toMatchObject({ kind: 'binary', op: '<', right: { kind: 'binary', op: '+' } });
  });

  it('CASE with and without operand', () => {
    expect(expression("CASE WHEN a = 1 THEN 'x' WHEN a = 2 THEN 'y' ELSE 'z' END")).toEqual({
      kind: 'case', whens: [{ when: binary('=', col('a'), num('1')), then: str('x') }, { when: binary('=', col('a'), num('2')), then: str('y') }], else: str('z'),
    });
    expect(expression('CASE a WHEN 1 THEN 2 END')).toEqual({ kind: 'case', operand: col('a'), whens: [{ when: num('1'), then: num('2') }] });
  });

  it('CAST and TRY_CAST', () => {
    expect(expression('CAST(x AS DECIMAL(10, 2) NOT NULL)')).toEqual({ kind: 'cast', expr: col('x'), type: type('DECIMAL', [10, 2], true), try: false });
    expect(expression('TRY_CAST(x AS ARRAY<INT>)')).toEqual({ kind: 'cast', expr: col('x'), type: { kind: 'array-type', element: type('INT'), notNull: false }, try: true });
  });

  it('literals keep the text of numbers', () => {
    expect(['10', '0.908', '.5', '1e6', '1.5E-3', '10000000000'].map(expression)).toEqual(['10', '0.908', '.5', '1e6', '1.5E-3', '10000000000'].map(num));
    expect(expression("'it''s'")).toEqual(str("it's"));
    expect(expression('TRUE')).toEqual({ kind: 'literal', type: 'boolean', value: true });
    expect(expression('NULL')).toEqual({ kind: 'literal', type: 'null' });
    expect(expression("DATE '2020-01-01'")).toEqual({ kind: 'typed-literal', type: 'DATE', value: '2020-01-01' });
    expect(expression("TIMESTAMP '2020-01-01 00:00:00'")).toEqual({ kind: 'typed-literal', type: 'TIMESTAMP', value: '2020-01-01 00:00:00' });
  });

  it("binary literals x'..' / X'..', the text left for the binder to check; x alone stays a column", () => {
    expect(expression("x'0aFF'")).toEqual({ kind: 'literal', type: 'binary', hex: '0aFF' });
    expect(expression("X''")).toEqual({ kind: 'literal', type: 'binary', hex: '' });
    expect(expression("x'abc'")).toEqual({ kind: 'literal', type: 'binary', hex: 'abc' });
    expect(expression('x')).toEqual(col('x'));
    expect(expression("x || x'01'")).toEqual({ kind: 'binary', op: '||', left: col('x'), right: { kind: 'literal', type: 'binary', hex: '01' } });
  });

  it('interval literals', () => {
    expect(expression("INTERVAL '4' SECOND")).toEqual({ kind: 'interval', value: '4', sign: 1, from: 'SECOND' });
    expect(expression("INTERVAL '10' MINUTE")).toEqual({ kind: 'interval', value: '10', sign: 1, from: 'MINUTE' });
    expect(expression("INTERVAL '1 2' DAY TO HOUR")).toEqual({ kind: 'interval', value: '1 2', sign: 1, from: 'DAY', to: 'HOUR' });
    expect(expression("INTERVAL - '1' HOUR")).toEqual({ kind: 'interval', value: '1', sign: -1, from: 'HOUR' });
    expect(expression("INTERVAL '2' YEARS")).toEqual({ kind: 'interval', value: '2', sign: 1, from: 'YEAR' });
    expect(expression("INTERVAL '10 00:00:00.004' DAY(2) TO SECOND(3)")).toEqual({
      kind: 'interval', value: '10 00:00:00.004', sign: 1, from: 'DAY', to: 'SECOND', leadingPrecision: 2, fractionalPrecision: 3,
    });
    expect(expression("INTERVAL '1-2' YEAR(2) TO MONTH")).toEqual({ kind: 'interval', value: '1-2', sign: 1, from: 'YEAR', to: 'MONTH', leadingPrecision: 2 });
    expect(expression("INTERVAL '1.5' SECOND(2, 6)")).toEqual({ kind: 'interval', value: '1.5', sign: 1, from: 'SECOND', leadingPrecision: 2, fractionalPrecision: 6 });
    expect(() => expression("INTERVAL '1' SECOND(2, 10)")).toThrow('the fractional precision of SECOND must be between 0 and 9, got 10');
    expect(() => expression("INTERVAL '1' MINUTE(2, 3)")).toThrow('only a SECOND field takes a fractional precision');
  });

  it('special forms become plain calls', () => {
    expect(expression('EXTRACT(HOUR FROM ts)')).toEqual(call('EXTRACT', [str('HOUR'), col('ts')]));
    expect(expression("TRIM(LEADING 'x' FROM s)")).toEqual(call('TRIM', [str('LEADING'), str('x'), col('s')]));
    expect(expression('TRIM(s)')).toEqual(call('TRIM', [str('BOTH'), str(' '), col('s')]));
    expect(expression('SUBSTRING(s FROM 2 FOR 3)')).toEqual(call('SUBSTRING', [col('s'), num('2'), num('3')]));
    expect(expression("POSITION('a' IN s)")).toEqual(call('POSITION', [str('a'), col('s')]));
    expect(expression('CURRENT_TIMESTAMP')).toEqual(call('CURRENT_TIMESTAMP', []));
    expect(expression('FLOOR(ts TO MINUTE)')).toEqual(call('FLOOR', [col('ts'), str('MINUTE')]));
    expect(expression("ARRAY[1, 2]")).toEqual(call('ARRAY', [num('1'), num('2')]));
    expect(expression("MAP['k', v]")).toEqual(call('MAP', [str('k'), col('v')]));
    expect(expression('ROW(a, b)')).toEqual(call('ROW', [col('a'), col('b')]));
    expect(expression('IF(c, a, b)')).toEqual(call('IF', [col('c'), col('a'), col('b')]));
    expect(expression("LEFT('abc', 2)")).toEqual(call('LEFT', [str('abc'), num('2')]));
    expect(expression('PROCTIME()')).toEqual(call('PROCTIME', []));
  });

  it('OVER windows with frames', () => {
    expect(expression('ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC, c ASC NULLS LAST ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)')).toEqual(call('ROW_NUMBER', [], {
      over: {
        kind: 'window-spec',
        partitionBy: [col('a')],
        orderBy: [
          { kind: 'order-item', expr: col('b'), descending: true },
          { kind: 'order-item', expr: col('c'), descending: false, nullsFirst: false },
        ],
        frame: { kind: 'window-frame', unit: 'ROWS', start: { kind: 'preceding', offset: num('10') }, end: { kind: 'current-row' } },
      },
    }));
    expect(expression('SUM(x) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING)')).toMatchObject({
      over: { frame: { start: { kind: 'unbounded-preceding' }, end: { kind: 'current-row' } } },
    });
  });

  it('field and item access', () => {
    expect(expression("m['k'].f[1]")).toEqual({
      kind: 'item-access',
      expr: { kind: 'field-access', expr: { kind: 'item-access', expr: col('m'), index: str('k') }, field: id('f') },
      index: num('1'),
    });
  });

  it('skips comments between tokens', () => {
    expect(expression('a /* x */ + -- y\n b')).toEqual(binary('+', col('a'), col('b')));
  });

  it('spans cover exactly the text of the node, parentheses included', () => {
    const text = 'f(a) + (b * 2)';
    const sum = parseExpression(text) as Extract<Expr, { kind: 'binary' }>;
    const slice = (node: { span: { start: { offset: number }; end: { offset: number } } }) => text.slice(node.span.start.offset, node.span.end.offset);
    expect([slice(sum), slice(sum.left), slice(sum.right)]).toEqual(['f(a) + (b * 2)', 'f(a)', '(b * 2)']);
  });
});

describe('parseStatement', () => {
  it('accepts one statement with an optional semicolon', () => {
    const statement: Statement = parseStatement('FLUSH ;  ');
    expect(statement.kind).toBe('flush');
  });
});
