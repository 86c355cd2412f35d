/**
 * The Nexmark queries the benchmark runs, as data: the published files (`shared/nexmark/queries`)
 * with the runner's `${...}` placeholders filled in, plus one query of weir's own, a GROUP BY
 * count/sum over bids, that every engine compared can express.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workload of one measurement: how many events, at which event-time rate. */
export interface NexmarkWorkload {
  readonly events: number;
  /** `first-event.rate`: events per second of event time (Flink V1 uses 10,000,000). */
  readonly tps: number;
}

/** One query the benchmark knows. */
export interface NexmarkQuery {
  /** `q0` … `q23`, or `groupby`. */
  readonly name: string;
  /** What it exercises, for the report. */
  readonly title: string;
  /** The query's statements (sink DDL and INSERT), placeholders filled in. */
  sql(workload: NexmarkWorkload, scratchDir: string): string;
}

/** The published queries' folder: `WEIR_NEXMARK_QUERIES`, or `shared/nexmark/queries` beside the repository. */
export function queriesDir(): string {
  const configured = process.env.WEIR_NEXMARK_QUERIES;
  if (configured !== undefined) return configured;
  // bench/*.ts and the bundle dist/bench.js are both one level below the repository root.
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'nexmark', 'queries');
}

/** A published file with the placeholders the Java runner substitutes (queries/README.md). */
export function publishedSql(file: string, workload: NexmarkWorkload, scratchDir: string): string {
  const values: Readonly<Record<string, string>> = {
    TPS: String(workload.tps),
    EVENTS_NUM: String(workload.events),
    PERSON_PROPORTION: '1',
    AUCTION_PROPORTION: '3',
    BID_PROPORTION: '46',
    NEXMARK_TABLE: 'datagen',
    FLINK_HOME: scratchDir,
    NEXMARK_DIR: scratchDir,
    SUBMIT_TIME: '1',
  };
  return readFileSync(join(queriesDir(), file), 'utf8').replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for ${whole} in ${file}`);
    return value;
  });
}

/** The source table and the person/auction/bid views (`ddl.sql`). */
export function nexmarkDdl(workload: NexmarkWorkload, scratchDir: string): string {
  return publishedSql('ddl.sql', workload, scratchDir);
}

const TITLES: Readonly<Record<string, string>> = {
  q0: 'pass-through',
  q1: 'currency conversion',
  q2: 'selection',
  q3: 'local item suggestion (join)',
  q4: 'average price per category',
  q5: 'hot items (HOP window)',
  q6: 'average selling price by seller (OVER)',
  q7: 'highest bid (TUMBLE + join)',
  q8: 'monitor new users (window join)',
  q9: 'winning bids (Top-1 over join)',
  q10: 'log to file system',
  q11: 'user sessions (SESSION window)',
  q12: 'processing-time windows',
  q13: 'bounded side-input join',
  q14: 'calculation (UDF)',
  q15: 'bidding statistics (DISTINCT)',
  q16: 'channel statistics',
  q17: 'auction statistics',
  q18: 'find last bid (dedup)',
  q19: 'auction top-10 price',
  q20: 'expand bid with auction',
  q21: 'add channel id (regex)',
  q22: 'URL directories',
  q23: 'bid ⋈ person ⋈ auction',
};

/** weir's own query: the GROUP BY count/sum that the hand-written loop and d2mini also run. */
export const GROUP_BY_QUERY: NexmarkQuery = {
  name: 'groupby',
  title: 'GROUP BY auction COUNT(*), SUM(price)',
  sql: () => `CREATE TABLE nexmark_groupby (auction BIGINT, num BIGINT, total BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO nexmark_groupby SELECT auction, COUNT(*) AS num, SUM(price) AS total FROM bid GROUP BY auction;`,
};

/** Every published query file (`q<n>.sql`), in numeric order, then {@link GROUP_BY_QUERY}. */
export function nexmarkQueries(): NexmarkQuery[] {
  const dir = queriesDir();
  if (!existsSync(dir)) throw new Error(`the published Nexmark queries are not at ${dir}; set WEIR_NEXMARK_QUERIES`);
  const names = readdirSync(dir)
    .map((f) => /^(q\d+)\.sql$/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  const published = names.map((name): NexmarkQuery => ({
    name,
    title: TITLES[name] ?? name,
    sql: (workload, scratch) => publishedSql(`${name}.sql`, workload, scratch),
  }));
  return [...published, GROUP_BY_QUERY];
}
