/** Name and type resolution: what binds, what it binds to, and the errors for what does not. */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { formatType } from '../../../src/common/sql-type.js';
import { createEngine, type Engine } from '../../../src/engine/engine.js';
import { bindInsert } from '../../../src/sql/bind/bind-insert.js';
import { bindQuery } from '../../../src/sql/bind/bind-query.js';
import { BinderContext } from '../../../src/sql/bind/binder-context.js';
import type { InsertStatement, QueryStatement } from '../../../src/sql/parse/ast.js';
import { parseStatement } from '../../../src/sql/parse/parser.js';

async function engineWithTables(): Promise<Engine> {
  const engine = createEngine();
  await engine.execute(`
    CREATE TABLE bids (auction BIGINT, price BIGINT, bidder STRING, person ROW<id BIGINT, name STRING>, ts TIMESTAMP(3))
      WITH ('connector' = 'datagen');
    CREATE TABLE auctions (id BIGINT, seller BIGINT, category INT) WITH ('connector' = 'datagen');
    CREATE TABLE out_t (a BIGINT, b STRING) WITH ('connector' = 'blackhole');`);
  return engine;
}

function schemaOf(engine: Engine, sql: string): string[] {
  const statement = parseStatement(sql) as QueryStatement;
  const bound = bindQuery(statement.query, new BinderContext(engine.session.catalog, engine.session.functions));
  return bound.schema.map((f) => `${f.name} ${formatType(f.type)}`);
}

async function failure(engine: Engine, sql: string): Promise<WeirError> {
  try {
    await engine.execute(sql);
  } catch (error) {
    if (error instanceof WeirError) return error;
    throw error;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('binder', () => {
  it('types literals and expressions as Flink does', async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, "SELECT 1, 10000000000, 0.908, 1e6, 'abc', TRUE, NULL, 0.908 * price, price / 2, person.id, UPPER(bidder) FROM bids")).toEqual([
      'EXPR$0 INT NOT NULL',
      'EXPR$1 BIGINT NOT NULL',
      'EXPR$2 DECIMAL(4, 3) NOT NULL',
      'EXPR$3 DOUBLE NOT NULL',
      'EXPR$4 CHAR(3) NOT NULL',
      'EXPR$5 BOOLEAN NOT NULL',
      'EXPR$6 NULL',
      'EXPR$7 DECIMAL(24, 3)',
      'EXPR$8 BIGINT',
      'id BIGINT',
      'EXPR$10 STRING',
    ]);
  });

  it('types aggregates and keeps grouped columns', async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, 'SELECT auction, COUNT(*) AS n, SUM(price), AVG(price), MIN(bidder), COUNT(DISTINCT bidder) FROM bids GROUP BY auction')).toEqual([
      'auction BIGINT',
      'n BIGINT NOT NULL',
      'EXPR$2 BIGINT',
      'EXPR$3 BIGINT',
      'EXPR$4 STRING',
      'EXPR$5 BIGINT NOT NULL',
    ]);
  });

  it('types UNION, INTERSECT and EXCEPT as UNION ALL (the left input names the columns, the least restrictive type wins) without time attributes', async () => {
    const engine = await engineWithTables();
    await engine.execute("CREATE TABLE clicks (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')");
    for (const op of ['UNION', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL']) {
      expect(schemaOf(engine, `SELECT category, seller FROM auctions ${op} SELECT auction, price FROM bids`), op).toEqual(['category BIGINT', 'seller BIGINT']);
      expect(schemaOf(engine, `SELECT 1 AS one ${op} SELECT 2`), op).toEqual(['one INT NOT NULL']);
      expect(schemaOf(engine, `SELECT ts FROM clicks ${op} SELECT ts FROM clicks`), op).toEqual(['ts TIMESTAMP(3)']);
    }
    expect(schemaOf(engine, 'SELECT ts FROM clicks UNION ALL SELECT ts FROM clicks')).toEqual(['ts TIMESTAMP(3) *ROWTIME*']);
  });

  it('refuses SOURCE_WATERMARK(), which needs a connector emitting its own watermarks (none of weir does), as Flink refuses it for such connectors', async () => {
    const engine = createEngine();
    const error = await failure(engine, "CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK()) WITH ('connector' = 'datagen')");
    expect(error.message).toContain('SOURCE_WATERMARK() needs a connector that emits its own watermarks');
    expect(error.hint).toContain("WATERMARK FOR ts AS ts - INTERVAL '5' SECOND");
  });

  it("accepts the published Nexmark q6's liberties: WHERE on a window alias, a table inside an unaliased subquery, a number into a string column", async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, 'SELECT *, ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY A.seller DESC) AS rownum FROM (SELECT A.id, A.seller FROM auctions AS A) WHERE rownum <= 1')).toEqual([
      'id BIGINT',
      'seller BIGINT',
      'rownum BIGINT NOT NULL',
    ]);
    const [plan] = await engine.execute('EXPLAIN INSERT INTO out_t SELECT auction, price FROM bids');
    expect((plan as { text: string }).text).toContain('CAST(price AS STRING) AS b');
    const error = await failure(engine, 'SELECT A.id FROM (SELECT A.id FROM auctions AS A) AS Q');
    expect(error.message).toContain("table 'A' is not in the FROM clause");
  });

  it('takes a column-level primary key as the table key, and names both keys when there are two', async () => {
    const engine = createEngine();
    await engine.execute("CREATE TABLE kv (k INT PRIMARY KEY NOT ENFORCED, v STRING) WITH ('connector' = 'blackhole')");
    const table = engine.session.catalog.getTable('kv');
    expect(table.primaryKey).toEqual(['k']);
    expect(table.columns.map((c) => `${c.name} ${formatType(c.type)}`)).toEqual(['k INT NOT NULL', 'v STRING']);
    await engine.execute('CREATE TABLE stored (v STRING, k BIGINT PRIMARY KEY NOT ENFORCED)');
    expect(engine.session.catalog.getTable('stored').primaryKey).toEqual(['k']);
    const enforced = await failure(engine, 'CREATE TABLE e (k INT PRIMARY KEY, v STRING)');
    expect(enforced.message).toBe("Flink doesn't support ENFORCED mode for PRIMARY KEY constraints; write k ... PRIMARY KEY NOT ENFORCED");
    const two = await failure(engine, 'CREATE TABLE two (a INT PRIMARY KEY NOT ENFORCED, b INT PRIMARY KEY NOT ENFORCED)');
    expect(two.message).toContain('PRIMARY KEY on column "a" and PRIMARY KEY on column "b"');
    const both = await failure(engine, 'CREATE TABLE both_keys (a INT PRIMARY KEY NOT ENFORCED, b INT, PRIMARY KEY (b) NOT ENFORCED)');
    expect(both.message).toContain('PRIMARY KEY on column "a" and PRIMARY KEY (b)');
  });

  it('reads a string literal in INSERT ... VALUES as a value of its column type, as PostgreSQL does', async () => {
    const engine = createEngine();
    await engine.execute("CREATE TABLE typed (id BIGINT, ts TIMESTAMP(3), d DATE, price DECIMAL(10, 2), ok BOOLEAN, x DOUBLE, s STRING) WITH ('connector' = 'blackhole')");
    const statement = parseStatement("INSERT INTO typed VALUES ('8821808526777993', '2022-06-10 12:20:04.858', '2022-06-10', '12.345', 'yes', '1.5e3', '42'), (7, NULL, NULL, 1.5, FALSE, 2, 'b')") as InsertStatement;
    const sink = bindInsert(statement, new BinderContext(engine.session.catalog, engine.session.functions));
    const values = sink.input.kind === 'values' ? sink.input : sink.input.kind === 'project' && sink.input.input.kind === 'values' ? sink.input.input : undefined;
    expect(values?.rows).toEqual([
      [8821808526777993, Date.UTC(2022, 5, 10, 12, 20, 4, 858), Date.UTC(2022, 5, 10) / 86_400_000, 1235n, true, 1500, '42'],
      [7, null, null, 150n, false, 2, 'b'],
    ]);
    expect(values?.schema.map((f) => formatType(f.type))).toEqual(['BIGINT NOT NULL', 'TIMESTAMP(3)', 'DATE', 'DECIMAL(10, 2) NOT NULL', 'BOOLEAN NOT NULL', 'DOUBLE NOT NULL', 'VARCHAR(2) NOT NULL']);
    const byName = parseStatement("INSERT INTO typed (ts, id) VALUES ('2022-06-10', '-12')") as InsertStatement;
    const named = bindInsert(byName, new BinderContext(engine.session.catalog, engine.session.functions));
    expect(named.input.kind === 'project' && named.input.input.kind === 'values' ? named.input.input.rows : undefined).toEqual([[Date.UTC(2022, 5, 10), -12]]);
  });

  it.each([
    ["INSERT INTO typed (id) VALUES ('9223372036854775808')", "column 'id' of 'typed' has type BIGINT, and '9223372036854775808' is outside its range", 'ARITHMETIC_OVERFLOW', "'92"],
    ["INSERT INTO typed (id) VALUES ('12.5')", "column 'id' of 'typed' has type BIGINT, and '12.5' is not a valid BIGINT", 'INVALID_ARGUMENT', "'12.5'"],
    ["INSERT INTO typed (id, ts) VALUES (1, '2022-13-10 12:00:00')", "column 'ts' of 'typed' has type TIMESTAMP(3), and '2022-13-10 12:00:00' is not a valid TIMESTAMP(3)", 'INVALID_ARGUMENT', "'2022"],
    ["INSERT INTO typed (ok) VALUES ('maybe')", "column 'ok' of 'typed' has type BOOLEAN, and 'maybe' is not a valid BOOLEAN", 'INVALID_ARGUMENT', "'maybe'"],
    ["INSERT INTO typed (price) VALUES ('123456789012')", "column 'price' of 'typed' has type DECIMAL(10, 2), and '123456789012' is outside its range", 'ARITHMETIC_OVERFLOW', "'123"],
    ["INSERT INTO typed (id) VALUES (UPPER('1'))", "column 'id' of 'typed' has type BIGINT but the query produces CHAR(1) NOT NULL for it", 'TYPE_MISMATCH', 'VALUES'],
    ["INSERT INTO typed (id) SELECT '1'", "column 'id' of 'typed' has type BIGINT but the query produces CHAR(1) NOT NULL for it", 'TYPE_MISMATCH', 'SELECT'],
  ])('%s → %s', async (sql, message, code, pointsAt) => {
    const engine = createEngine();
    await engine.execute("CREATE TABLE typed (id BIGINT, ts TIMESTAMP(3), d DATE, price DECIMAL(10, 2), ok BOOLEAN, x DOUBLE, s STRING) WITH ('connector' = 'blackhole')");
    const error = await failure(engine, sql);
    expect({ message: error.message, code: error.code, column: error.span?.start.column }).toEqual({ message, code, column: sql.indexOf(pointsAt) + 1 });
  });

  it('merges the USING and NATURAL columns into one, listed first, converted to the type both compare as, COALESCEd for FULL', async () => {
    const engine = await engineWithTables();
    await engine.execute('CREATE TABLE persons (id INT, name STRING, seller BIGINT) WITH (\'connector\' = \'datagen\')');
    expect(schemaOf(engine, 'SELECT * FROM auctions JOIN persons USING (id)')).toEqual(['id BIGINT', 'seller BIGINT', 'category INT', 'name STRING', 'seller BIGINT']);
    expect(schemaOf(engine, 'SELECT * FROM auctions NATURAL JOIN persons')).toEqual(['id BIGINT', 'seller BIGINT', 'category INT', 'name STRING']);
    expect(schemaOf(engine, 'SELECT * FROM auctions NATURAL FULL JOIN persons')).toEqual(['id BIGINT', 'seller BIGINT', 'category INT', 'name STRING']);
    expect(schemaOf(engine, 'SELECT id, auctions.id, p.id, p.* FROM auctions RIGHT JOIN persons AS p USING (id)')).toEqual(['id BIGINT', 'id BIGINT', 'id INT', 'id INT', 'name STRING', 'seller BIGINT']);
    expect(schemaOf(engine, 'SELECT * FROM auctions AS a JOIN persons AS p USING (id) JOIN bids AS b ON b.auction = id')).toHaveLength(10);
    expect(schemaOf(engine, 'SELECT * FROM (auctions AS a JOIN persons AS p USING (id, seller)) NATURAL JOIN (SELECT id, category FROM auctions) AS c')).toEqual(['id BIGINT', 'category INT', 'seller BIGINT', 'name STRING']);
    expect((await failure(engine, 'SELECT seller FROM auctions JOIN persons USING (id)')).message).toBe("column reference 'seller' is ambiguous");
    expect((await failure(engine, 'SELECT * FROM auctions JOIN persons USING (name)')).message).toBe("column 'name' does not exist");
  });

  it('expands c.* of a ROW column into its fields, as Flink does (CompositeAccessTest)', async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, 'SELECT person.*, price FROM bids')).toEqual(['id BIGINT', 'name STRING', 'price BIGINT']);
    expect(schemaOf(engine, 'SELECT b.person.* FROM bids AS b')).toEqual(['id BIGINT', 'name STRING']);
    expect(schemaOf(engine, 'SELECT b.* FROM bids AS b')).toHaveLength(5);
    expect((await failure(engine, 'SELECT price.* FROM bids')).message).toBe('price.* needs a table or a ROW value, not BIGINT');
  });

  it('binds CROSS JOIN, comma joins of several tables and ON conditions without an equality', async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, 'SELECT a.id, b.price FROM auctions AS a CROSS JOIN bids AS b')).toEqual(['id BIGINT', 'price BIGINT']);
    expect(schemaOf(engine, 'SELECT a.id, b.price, c.id FROM auctions AS a, bids AS b, auctions AS c WHERE a.id = b.auction AND c.seller = a.seller')).toEqual(['id BIGINT', 'price BIGINT', 'id BIGINT']);
    expect(schemaOf(engine, 'SELECT a.id, b.price FROM auctions AS a FULL JOIN bids AS b ON b.price BETWEEN a.seller AND a.id')).toEqual(['id BIGINT', 'price BIGINT']);
  });

  it.each([
    ['SELECT pricee FROM bids', "column 'pricee' does not exist", "did you mean 'price'?"],
    ['SELECT price FROM bidz', "table or view 'bidz' does not exist", "did you mean 'bids'?"],
    ['SELECT person.idd FROM bids', "field 'idd' does not exist in ROW<id, name>", "did you mean 'id'?"],
    ['SELECT x.price FROM bids b', "table 'x' is not in the FROM clause", undefined],
    ['SELECT bx.price FROM bids bb', "table 'bx' is not in the FROM clause", "did you mean 'bb'?"],
    ['SELECT auction FROM bids WHERE COUNT(*) > 1', 'aggregate function COUNT is not allowed in WHERE', undefined],
    ['SELECT SUM(COUNT(*)) FROM bids', 'aggregate function calls cannot be nested', undefined],
    ['SELECT price FROM bids WHERE price', 'WHERE condition must be BOOLEAN, got BIGINT', undefined],
    ["SELECT * FROM (VALUES (1, 'a'), (2)) AS t(a, b)", 'all VALUES rows must have the same number of columns', undefined],
    ['SELECT UPPPER(bidder) FROM bids', "function 'UPPPER' does not exist", "did you mean 'UPPER'?"],
    ["SELECT string_agg(bidder, ',') FROM bids", "function 'string_agg' does not exist", "Flink's is LISTAGG(s, separator) (the values in arrival order)"],
    ['SELECT bool_and(price > 1) FROM bids', "function 'bool_and' does not exist", 'Flink has no BOOL_AND: MIN(CASE WHEN b THEN 1 ELSE 0 END) = 1 is TRUE when every value is'],
    ['SELECT APPROX_COUNT_DISTINCT(bidder) FROM bids', 'function APPROX_COUNT_DISTINCT is not supported: weir has no approximate (HyperLogLog) distinct count', undefined],
    ["SELECT parse_json('{}') FROM bids", 'function PARSE_JSON is not supported: it works on the VARIANT type, which weir does not have', undefined],
    ['SELECT BITMAP_BUILD(ARRAY[1]) FROM bids', 'function BITMAP_BUILD is not supported: it works on the BITMAP type', undefined],
    ['SELECT SOURCE_WATERMARK() FROM bids', 'function SOURCE_WATERMARK is not supported: it is only allowed as the whole expression of a WATERMARK FOR clause', undefined],
    ['SELECT SUM(bidder) FROM bids', 'SUM', undefined],
    ['INSERT INTO out_t SELECT auction FROM bids', "INSERT INTO 'out_t' has 2 target columns but the query produces 1", 'target columns: a, b'],
    ['INSERT INTO out_t SELECT bidder, bidder FROM bids', "column 'a' of 'out_t' has type BIGINT but the query produces STRING for it", 'use CAST(... AS BIGINT)'],
    ['INSERT INTO bids SELECT * FROM bids', "table 'bids' cannot be written to: connector 'datagen' is a source only", undefined],
    ['SELECT auction FROM bids ORDER BY price', 'ORDER BY in a streaming query needs a LIMIT', undefined],
    ['SELECT auction FROM bids EXCEPT SELECT auction, price FROM bids', 'EXCEPT inputs have different numbers of columns: 1 and 2', undefined],
    ['SELECT auction FROM bids UNION SELECT 1 UNION SELECT bidder FROM bids', "UNION column 'auction' has incompatible types: BIGINT and INT and VARCHAR", undefined],
    ['SELECT person FROM bids INTERSECT ALL SELECT auction FROM bids', "INTERSECT ALL column 'person' has incompatible types: ROW and BIGINT", undefined],
  ])('%s → %s', async (sql, message, hint) => {
    const engine = await engineWithTables();
    const error = await failure(engine, sql);
    expect(error.message).toContain(message);
    if (hint !== undefined) expect(error.hint).toBe(hint);
    expect(error.span, 'errors point at the statement text').toBeDefined();
  });

  it('binds LIMIT / OFFSET in correlated subqueries and LATERAL as a Top-N per correlation value, and refuses it over a global aggregate where it drops the row', async () => {
    const engine = await engineWithTables();
    expect(schemaOf(engine, 'SELECT b.auction, (SELECT a.seller FROM auctions a WHERE a.id = b.auction ORDER BY a.seller DESC LIMIT 1) AS top FROM bids b')).toEqual(['auction BIGINT', 'top BIGINT']);
    expect(schemaOf(engine, 'SELECT a.id, x.price FROM auctions a LEFT JOIN LATERAL (SELECT b.price FROM bids b WHERE b.auction = a.id ORDER BY b.price LIMIT 2 OFFSET 1) x ON TRUE')).toEqual(['id BIGINT', 'price BIGINT']);
    expect(schemaOf(engine, 'SELECT a.id, EXISTS (SELECT 1 FROM bids b WHERE b.auction = a.id LIMIT 1 OFFSET 2) AS three FROM auctions a')).toEqual(['id BIGINT', 'three BOOLEAN NOT NULL']);
    const zero = await failure(engine, 'SELECT a.id, (SELECT COUNT(*) FROM bids b WHERE b.auction = a.id LIMIT 0) FROM auctions a');
    expect(zero.message).toMatch(/^LIMIT 0 is not supported in a correlated subquery that aggregates without GROUP BY \(subquery at line 1, column \d+\)/);
    expect(zero.span?.start.column).toBe(72); // the 0
    const offset = await failure(engine, 'SELECT a.id FROM auctions a WHERE a.seller > (SELECT MAX(b.price) FROM bids b WHERE b.auction = a.id LIMIT 1 OFFSET 1)');
    expect(offset.message).toContain('OFFSET is not supported in a correlated subquery that aggregates without GROUP BY');
    expect(schemaOf(engine, 'SELECT a.id, (SELECT b.price FROM bids b WHERE b.auction = a.id ORDER BY 1 DESC LIMIT 1) AS top FROM auctions a')).toEqual(['id BIGINT', 'top BIGINT']);
    const position = await failure(engine, 'SELECT a.id, (SELECT b.price FROM bids b WHERE b.auction = a.id ORDER BY 2 LIMIT 1) FROM auctions a');
    expect(position.message).toBe('ORDER BY position 2 is not in the select list (1 to 1)');
    const negative = await failure(engine, 'SELECT a.id FROM auctions a WHERE EXISTS (SELECT 1 FROM bids b WHERE b.auction = a.id LIMIT -1)');
    expect(negative.message).toContain('LIMIT takes a non-negative integer');
  });
});
