/**
 * An independent oracle for the published Nexmark queries: the events of a bounded nexmark source
 * are loaded into PostgreSQL, where a test states each query's meaning as batch SQL, and the final
 * table of the query run in weir (its changelog applied) is compared with it as a multiset.
 *
 * In PostgreSQL every event time is a BIGINT of epoch milliseconds (`date_time`, `expires`), so
 * that window bounds are plain arithmetic and rows compare as numbers on both sides.
 */
import pg from 'pg';
import { expect } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { collectConnector, collected, resetCollected } from './collect-connector.js';
import { publishedSql } from './nexmark-published.js';

/**
 * A row normalised for comparison: BIGINT/INT and TIMESTAMP (epoch ms) as numbers, DECIMAL as its
 * unscaled integer (a number: every value here is a safe integer), strings, NULL.
 */
export type PlainRow = readonly (number | string | null)[];

/** The generator settings of a bounded stream: how many events, how many per second of event time, and where event time starts. */
export interface NexmarkStream {
  readonly events: number;
  readonly eventsPerSecond: number;
  /** An ISO instant, the nexmark connector's `base-time` option. */
  readonly baseTime: string;
}

/**
 * The published `ddl.sql` for `stream`: placeholders filled in, and the connector's `base-time`
 * option added (the only change to the published text), so that a test can place the stream
 * across midnight.
 */
export function nexmarkDdl(stream: NexmarkStream): string {
  const ddl = publishedSql('ddl.sql', { EVENTS_NUM: String(stream.events), TPS: String(stream.eventsPerSecond) });
  const connector = `'connector' = 'nexmark',`;
  if (!ddl.includes(connector)) throw new Error(`ddl.sql no longer contains ${connector}`);
  return ddl.replace(connector, `${connector}\n    'base-time' = '${stream.baseTime}',`);
}

/**
 * An engine with the `collect` sink and the nexmark tables of `stream`, whose keyed operators run
 * with `parallelism` subtasks (sources read with one, so the events do not depend on it).
 */
export async function nexmarkEngine(stream: NexmarkStream, parallelism = 1): Promise<Engine> {
  const engine = createEngine({ connectors: [collectConnector] });
  await engine.execute(`SET 'parallelism.default' = '${parallelism}';`);
  await engine.execute(nexmarkDdl(stream));
  return engine;
}

const INT8_OID = 20;

/** Connects to `url`, with BIGINT parsed as a JavaScript number (every value here is a safe integer). */
export async function connectOracle(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types: { getTypeParser: (oid, format) => (oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) } });
  await client.connect();
  return client;
}

/** The columns of one event table in PostgreSQL, with the weir column each is read from. */
const EVENT_TABLES: Readonly<Record<'person' | 'auction' | 'bid', readonly (readonly [pgName: string, pgType: 'bigint' | 'text', weirName: string])[]>> = {
  person: [
    ['id', 'bigint', 'id'],
    ['name', 'text', 'name'],
    ['email_address', 'text', 'emailAddress'],
    ['credit_card', 'text', 'creditCard'],
    ['city', 'text', 'city'],
    ['state', 'text', 'state'],
    ['date_time', 'bigint', 'dateTime'],
    ['extra', 'text', 'extra'],
  ],
  auction: [
    ['id', 'bigint', 'id'],
    ['item_name', 'text', 'itemName'],
    ['description', 'text', 'description'],
    ['initial_bid', 'bigint', 'initialBid'],
    ['reserve', 'bigint', 'reserve'],
    ['date_time', 'bigint', 'dateTime'],
    ['expires', 'bigint', 'expires'],
    ['seller', 'bigint', 'seller'],
    ['category', 'bigint', 'category'],
    ['extra', 'text', 'extra'],
  ],
  bid: [
    ['auction', 'bigint', 'auction'],
    ['bidder', 'bigint', 'bidder'],
    ['price', 'bigint', 'price'],
    ['channel', 'text', 'channel'],
    ['url', 'text', 'url'],
    ['date_time', 'bigint', 'dateTime'],
    ['extra', 'text', 'extra'],
  ],
};

/** How many events of each kind were loaded. */
export type EventCounts = Readonly<Record<keyof typeof EVENT_TABLES, number>>;

/**
 * Reads the person, auction and bid views of `engine` (weir's own source) and loads them into
 * tables of the same names in the database of `client`, one `INSERT … SELECT FROM unnest(arrays)`
 * per table. Timestamps become epoch milliseconds.
 */
export async function loadNexmarkEvents(engine: Engine, client: pg.Client): Promise<EventCounts> {
  const counts: Record<string, number> = {};
  for (const [table, columns] of Object.entries(EVENT_TABLES)) {
    const rows = await engine.query(`SELECT ${columns.map(([, , weir]) => `\`${weir}\``).join(', ')} FROM ${table}`);
    await client.query(`CREATE TABLE ${table} (${columns.map(([name, type]) => `${name} ${type}`).join(', ')})`);
    const arrays = columns.map(([, , weir]) => rows.map((row) => plainValue(row[weir])));
    const unnest = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
    await client.query(`INSERT INTO ${table} SELECT * FROM unnest(${unnest})`, arrays);
    await client.query(`ANALYZE ${table}`);
    counts[table] = rows.length;
  }
  return counts as EventCounts;
}

function plainValue(value: unknown): number | string | null {
  if (value === null || typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint' && Number.isSafeInteger(Number(value))) return Number(value);
  throw new Error(`unexpected value in a nexmark event: ${String(value)}`);
}

/**
 * Runs a published query file in `engine`, unmodified except for its placeholders and for its
 * blackhole sink, which becomes the in-memory `collect` sink; returns the sink's final table: the
 * changelog applied, +I/+U adding a copy of a row, -U/-D removing one (a retraction of an absent
 * row fails the test).
 */
export async function runPublishedToTable(engine: Engine, file: string, sinkTable: string, placeholders: Readonly<Record<string, string>> = {}): Promise<PlainRow[]> {
  const sql = publishedSql(file, placeholders);
  const blackhole = /'connector'\s*=\s*'blackhole'/;
  if (!blackhole.test(sql)) throw new Error(`${file} has no blackhole sink`);
  resetCollected();
  const results = await engine.execute(sql.replace(blackhole, `'connector' = 'collect'`));
  const job = results.find((r) => r.kind === 'job');
  if (job?.kind !== 'job') throw new Error(`${file} started no job`);
  expect(await job.job.result(), String(job.job.error)).toBe('FINISHED');
  const table = new Map<string, { row: PlainRow; count: number }>();
  for (const [kind, row] of collected(sinkTable)) {
    const plain = row.map(plainValue);
    const key = JSON.stringify(plain);
    const entry = table.get(key);
    if (kind === '+I' || kind === '+U') table.set(key, { row: plain, count: (entry?.count ?? 0) + 1 });
    else if (entry === undefined) throw new Error(`${file}: ${kind} of a row that is not in the table: ${key}`);
    else if (--entry.count === 0) table.delete(key);
  }
  return [...table.values()].flatMap(({ row, count }) => Array<PlainRow>(count).fill(row));
}

/** Runs batch SQL in the oracle database; each row as its values in column order. */
export async function oracleRows(client: pg.Client, sql: string): Promise<PlainRow[]> {
  const result = await client.query<unknown[]>({ text: sql, rowMode: 'array' });
  return result.rows.map((row) => row.map(plainValue));
}

/** Rows of `a` not matched by a row of `b`, as a multiset difference (each copy counts). */
function multisetMinus(a: readonly PlainRow[], b: readonly PlainRow[]): string[] {
  const remaining = new Map<string, number>();
  for (const row of b) {
    const key = JSON.stringify(row);
    remaining.set(key, (remaining.get(key) ?? 0) + 1);
  }
  const extra: string[] = [];
  for (const row of a) {
    const key = JSON.stringify(row);
    const left = remaining.get(key) ?? 0;
    if (left === 0) extra.push(key);
    else remaining.set(key, left - 1);
  }
  return extra.sort();
}

/** Asserts that every row of `part` is matched by its own row of `whole` (multiset inclusion). */
export function expectSubMultiset(part: readonly PlainRow[], whole: readonly PlainRow[]): void {
  const unmatched = multisetMinus(part, whole);
  expect(unmatched.slice(0, SHOWN_DIFFERENCES), `${unmatched.length} of ${part.length} rows have no counterpart among ${whole.length}`).toEqual([]);
}

/** Shown per side when the multisets differ. */
const SHOWN_DIFFERENCES = 20;

/** Asserts that weir's rows and the oracle's are equal as multisets, showing the rows that differ (`label` says which run). */
export function expectSameMultiset(weir: readonly PlainRow[], oracle: readonly PlainRow[], label = ''): void {
  const onlyInWeir = multisetMinus(weir, oracle);
  const onlyInOracle = multisetMinus(oracle, weir);
  expect(
    { rows: weir.length, onlyInWeir: onlyInWeir.slice(0, SHOWN_DIFFERENCES), onlyInOracle: onlyInOracle.slice(0, SHOWN_DIFFERENCES) },
    `${label}${onlyInWeir.length} rows only in weir, ${onlyInOracle.length} only in PostgreSQL`,
  ).toEqual({ rows: oracle.length, onlyInWeir: [], onlyInOracle: [] });
}
