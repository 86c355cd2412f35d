/** The nexmark connector through the engine: the published DDL and views, with q0, q1 and q2 into a collecting sink. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import { collectConnector, collected, resetCollected } from '../../support/collect-connector.js';
import { runJob } from '../../support/jobs.js';
import { publishedSql } from '../../support/nexmark-published.js';
import { events } from './nexmark-test-util.js';

const EVENTS = 5000;
const DDL = publishedSql('ddl.sql', { EVENTS_NUM: String(EVENTS) });

/** A published query with its blackhole sink turned into a collect sink. */
function query(file: string): string {
  return publishedSql(file).replace(/'connector'\s*=\s*'blackhole'/, "'connector' = 'collect'");
}


beforeEach(() => resetCollected());

function rowsOf(table: string): unknown[][] {
  return collected(table).map(([kind, row]) => {
    if (kind !== '+I') throw new Error(`${table} received ${kind}`);
    return row;
  });
}

describe('nexmark through the engine', () => {
  const source = events(EVENTS);
  const bids = async () => (await source).filter((r) => r[0] === 2).map((r) => r[3] as unknown[]);

  it('q0 passes every bid through, with the computed dateTime', async () => {
    const e = createEngine({ connectors: [collectConnector] });
    await e.execute(DDL);
    await runJob(e, query('q0.sql'));
    const expected = (await bids()).map((b) => [b[0], b[1], b[2], b[5], b[6]]);
    expect(expected).toHaveLength(4600);
    expect(rowsOf('nexmark_q0')).toEqual(expected);
  });

  it('q1 converts prices to DECIMAL(24, 3) euros', async () => {
    const e = createEngine({ connectors: [collectConnector] });
    await e.execute(DDL);
    await runJob(e, query('q1.sql'));
    const expected = (await bids()).map((b) => [b[0], b[1], 908n * BigInt(b[2] as number), b[5], b[6]]);
    expect(rowsOf('nexmark_q1')).toEqual(expected);
  });

  it('q2 selects the bids of every 123rd auction', async () => {
    const e = createEngine({ connectors: [collectConnector] });
    await e.execute(DDL);
    await runJob(e, query('q2.sql'));
    const expected = (await bids()).filter((b) => (b[0] as number) % 123 === 0).map((b) => [b[0], b[2]]);
    expect(expected.length).toBeGreaterThan(0);
    expect(rowsOf('nexmark_q2')).toEqual(expected);
  });

  it('splits the events into the person and auction views', async () => {
    const e = createEngine({ connectors: [collectConnector] });
    await e.execute(DDL);
    await runJob(
      e,
      `CREATE TABLE persons (id BIGINT, state VARCHAR, dt TIMESTAMP(3)) WITH ('connector' = 'collect');
       CREATE TABLE auctions (id BIGINT, category BIGINT, expires TIMESTAMP(3)) WITH ('connector' = 'collect');
       EXECUTE STATEMENT SET BEGIN
         INSERT INTO persons SELECT id, state, \`dateTime\` FROM person;
         INSERT INTO auctions SELECT id, category, expires FROM auction;
       END;`,
    );
    const persons = rowsOf('persons');
    expect(persons.map((r) => r[0])).toEqual(Array.from({ length: 100 }, (_, i) => 1001 + i));
    expect(persons[0]![2]).toBe(Date.UTC(2015, 6, 15) + 4);
    const auctions = rowsOf('auctions');
    expect(auctions).toHaveLength(300);
    expect(new Set(auctions.map((r) => r[1]))).toEqual(new Set([10, 11, 12, 13, 14]));
  });

  it('rejects a table whose columns differ from the published layout', async () => {
    const e = createEngine();
    await expect(e.execute("CREATE TABLE t (event_type INT, person VARCHAR) WITH ('connector' = 'nexmark')")).rejects.toThrow(
      'a nexmark table has 4 physical columns (event_type, person, auction, bid), but this one declares 2 (event_type, person)',
    );
    await expect(e.execute("CREATE TABLE t (a INT) WITH ('connector' = 'nexmark', 'events.nm' = '5')")).rejects.toThrow(
      "unknown option 'events.nm' for connector 'nexmark'",
    );
  });

  it("resumes from a savepoint on the same time line, with 'base-time' = 'now'", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-nexmark-'));
    const options = { 'first-event.rate': '40000', 'events.num': '20000', 'max-emit-speed': 'false' };
    const script = (extra = '') => `SET 'state.checkpoints.dir' = '${dir}';
      SET 'execution.checkpointing.interval' = '20 ms';
      SET 'pipeline.name' = 'nexmark-resume';
      ${extra}
      CREATE TABLE src (event_type INT,
        person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, \`dateTime\` TIMESTAMP(3), extra VARCHAR>,
        auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, \`dateTime\` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
        bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, \`dateTime\` TIMESTAMP(3), extra VARCHAR>
      ) WITH ('connector' = 'nexmark', 'base-time' = 'now', ${Object.entries(options).map(([k, v]) => `'${k}' = '${v}'`).join(', ')});
      CREATE TABLE out (auction BIGINT, price BIGINT, dt TIMESTAMP(3)) WITH ('connector' = 'collect', 'transactional' = 'true');
      INSERT INTO out SELECT bid.auction, bid.price, bid.\`dateTime\` FROM src WHERE event_type = 2;`;
    const start = async (sql: string): Promise<JobHandle> => {
      const results = await createEngine({ connectors: [collectConnector], onWarning: () => {} }).execute(sql);
      const last = results[results.length - 1]!;
      if (last.kind !== 'job') throw new Error('no job started');
      return last.job;
    };
    const first = await start(script());
    while (first.lastCheckpoint === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    const savepoint = await first.stopWithSavepoint();
    const partial = rowsOf('out').length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(18_400);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = await start(script(`SET 'execution.savepoint.path' = '${savepoint}';`));
    expect(await second.result()).toBe('FINISHED');

    const rows = rowsOf('out');
    const baseTime = new Date(rows[0]![2] as number).toISOString();
    const expected = (await events(20_000, { ...options, 'base-time': baseTime })).filter((r) => r[0] === 2).map((r) => {
      const bid = r[3] as unknown[];
      return [bid[0], bid[2], bid[5]];
    });
    expect(rows).toEqual(expected);
  });
});
