/** Name and type resolution: what binds, what it binds to, and the errors for what does not. */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { formatType } from '../../../src/common/sql-type.js';
import { createEngine, type Engine } from '../../../src/engine/engine.js';
import { bindQuery } from '../../../src/sql/bind/bind-query.js';
import { BinderContext } from '../../../src/sql/bind/binder-context.js';
import type { QueryStatement } from '../../../src/sql/parse/ast.js';
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
      'EXPR$7 DECIMAL(23, 3)',
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
    ['SELECT SUM(bidder) FROM bids', 'SUM', undefined],
    ['INSERT INTO out_t SELECT auction FROM bids', "INSERT INTO 'out_t' has 2 target columns but the query produces 1", 'target columns: a, b'],
    ['INSERT INTO out_t SELECT bidder, bidder FROM bids', "column 'a' of 'out_t' has type BIGINT but the query produces STRING for it", 'use CAST(... AS BIGINT)'],
    ['INSERT INTO bids SELECT * FROM bids', "table 'bids' cannot be written to: connector 'datagen' is a source only", undefined],
    ['SELECT auction FROM bids ORDER BY price', 'ORDER BY in a streaming query needs a LIMIT', undefined],
  ])('%s → %s', async (sql, message, hint) => {
    const engine = await engineWithTables();
    const error = await failure(engine, sql);
    expect(error.message).toContain(message);
    if (hint !== undefined) expect(error.hint).toBe(hint);
    expect(error.span, 'errors point at the statement text').toBeDefined();
  });

});
