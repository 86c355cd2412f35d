/**
 * Session windows in both syntaxes — the SESSION window TVF (with PARTITION BY) and the legacy
 * group windows `GROUP BY k, SESSION(ts, gap)` read with SESSION_START / _END / _ROWTIME (and
 * their TUMBLE and HOP forms) — with the types they produce, and errors that point at the text.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { formatType } from '../../../src/common/sql-type.js';
import { createEngine, type Engine } from '../../../src/engine/engine.js';
import { bindQuery } from '../../../src/sql/bind/bind-query.js';
import { BinderContext } from '../../../src/sql/bind/binder-context.js';
import type { QueryStatement } from '../../../src/sql/parse/ast.js';
import { parseStatement } from '../../../src/sql/parse/parser.js';

async function engine(): Promise<Engine> {
  const e = createEngine();
  await e.execute(`
    CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), plain TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'datagen', 'number-of-rows' = '5');`);
  return e;
}

function schemaOf(e: Engine, sql: string): string[] {
  const statement = parseStatement(sql) as QueryStatement;
  return bindQuery(statement.query, new BinderContext(e.session.catalog, e.session.functions)).schema.map((f) => `${f.name} ${formatType(f.type)}`);
}

async function failure(e: Engine, sql: string): Promise<WeirError> {
  try {
    await e.execute(`EXPLAIN ${sql}`);
  } catch (error) {
    if (error instanceof WeirError) return error;
    throw error;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('session windows in the binder', () => {
  it('binds the SESSION window TVF with and without PARTITION BY', async () => {
    const e = await engine();
    expect(schemaOf(e, "SELECT * FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '5' MINUTE))").slice(-3)).toEqual([
      'window_start TIMESTAMP(3) NOT NULL',
      'window_end TIMESTAMP(3) NOT NULL',
      'window_time TIMESTAMP(3) NOT NULL *ROWTIME*',
    ]);
    expect(schemaOf(e, "SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end")).toEqual([
      'window_start TIMESTAMP(3) NOT NULL',
      'EXPR$1 BIGINT NOT NULL',
    ]);
  });

  it('binds legacy group windows and their start, end and rowtime', async () => {
    const e = await engine();
    const legacy = (w: string, args: string): string[] =>
      schemaOf(e, `SELECT b.bidder, COUNT(*) AS n, ${w}_START(b.ts, ${args}) AS s, ${w}_END(ts, ${args}) AS e, ${w}_ROWTIME(ts, ${args}) AS r FROM bids b GROUP BY b.bidder, ${w}(b.ts, ${args})`);
    const expected = ['bidder BIGINT', 'n BIGINT NOT NULL', 's TIMESTAMP(3) NOT NULL', 'e TIMESTAMP(3) NOT NULL', 'r TIMESTAMP(3) NOT NULL *ROWTIME*'];
    expect(legacy('SESSION', "INTERVAL '10' SECOND")).toEqual(expected);
    expect(legacy('TUMBLE', "INTERVAL '10' SECOND")).toEqual(expected);
    expect(legacy('HOP', "INTERVAL '5' SECOND, INTERVAL '10' SECOND")).toEqual(expected);
  });

  it.each([
    ["SELECT COUNT(*) FROM bids GROUP BY SESSION(plain, INTERVAL '1' SECOND)", "the time column 'plain' of SESSION must be an event-time attribute", [1, 44]],
    ["SELECT COUNT(*) FROM bids GROUP BY SESSION(ts, INTERVAL '1' SECOND), SESSION(ts, INTERVAL '2' SECOND)", 'a GROUP BY may have only one group window', [1, 70]],
    ["SELECT COUNT(*) FROM bids GROUP BY price + 1, SESSION(ts, INTERVAL '1' SECOND)", 'besides SESSION(...), a GROUP BY may only list columns', [1, 36]],
    ["SELECT SESSION_END(ts, INTERVAL '2' SECOND) FROM bids GROUP BY SESSION(ts, INTERVAL '1' SECOND)", "SESSION_END must have the same arguments as SESSION(...) in the GROUP BY", [1, 8]],
    ["SELECT TUMBLE_END(ts, INTERVAL '1' SECOND) FROM bids GROUP BY SESSION(ts, INTERVAL '1' SECOND)", 'TUMBLE_END does not match the group window SESSION(...) of the GROUP BY', [1, 8]],
    ["SELECT SESSION_START(ts, INTERVAL '1' SECOND) FROM bids", 'SESSION_START is only allowed in the SELECT or HAVING of a query that groups by SESSION(...)', [1, 8]],
    ["SELECT COUNT(*) FROM bids GROUP BY SESSION(ts, INTERVAL '0' SECOND)", 'the sizes of SESSION must be positive intervals', [1, 48]],
    ["SELECT COUNT(*) FROM bids GROUP BY SESSION(ts)", 'SESSION takes (time_column, gap)', [1, 36]],
    ["SELECT * FROM TABLE(SESSION(TABLE bids PARTITION BY nobody, DESCRIPTOR(ts), INTERVAL '1' SECOND))", "column 'nobody' does not exist in the table of SESSION", [1, 53]],
    ["SELECT * FROM TABLE(SESSION(TABLE bids, DESCRIPTOR(ts)))", 'SESSION takes SESSION(TABLE t [PARTITION BY columns], DESCRIPTOR(time_column), gap)', [1, 21]],
    ["SELECT * FROM TABLE(TUMBLE(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '1' SECOND))", 'PARTITION BY is only allowed for SESSION windows', [1, 28]],
  ] as const)('%s → %s', async (sql, message, [line, column]) => {
    const error = await failure(await engine(), sql);
    expect(error.message).toContain(message);
    expect([error.span?.start.line, error.span?.start.column]).toEqual([line, column + 'EXPLAIN '.length]);
  });

  it('rejects a SESSION window aggregation whose grouping keys differ from its PARTITION BY columns', async () => {
    const e = await engine();
    const error = await failure(e, "SELECT auction, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end");
    expect(error.message).toBe('a GROUP BY over a SESSION window must group by exactly its PARTITION BY columns (bidder) besides window_start and window_end');
  });
});
