/**
 * Lookups in a PostgreSQL table (Flink's JDBC lookup function): the keys of a batch that the cache
 * does not hold are fetched in one prepared statement per batch, each key column travelling as one
 * typed array parameter,
 *
 *   SELECT "a", "b" FROM "t" WHERE "a" = ANY($1::int8[])
 *   SELECT ... FROM "t" WHERE ("a", "b") IN (SELECT * FROM unnest($1::int8[], $2::text[]))
 *
 * Values come back as Postgres text and are parsed by the declared column types. Found keys (and,
 * with `'lookup.cache.caching-missing-key'`, keys without rows) are cached for
 * `'lookup.cache.ttl'`, at most `'lookup.cache.max-rows'` of them; a query that failed for want of
 * the server is retried up to `'lookup.max-retries'` times (warning each time), then fails the
 * job; one the server refuses (an undefined table or column) fails it at once.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { WeirError } from '../../common/errors.js';
import type { Row } from '../../common/row.js';
import { formatType } from '../../common/sql-type.js';
import type { LookupTableSpec } from '../../dataflow/job-graph.js';
import type { LookupContext, LookupFunction, LookupResult } from '../../runtime/lookup-source.js';
import { LookupCache } from '../lookup/lookup-cache.js';
import { encodeLookupKey, tableRowKey } from '../lookup/lookup-key.js';
import type { LookupOptions } from '../lookup/lookup-options.js';
import { describeError, sqlState } from './driver-errors.js';
import { openSinkDatabase, type SinkDatabase } from './postgres-database.js';
import { parseTableName, scrubPassword, type PostgresSinkOptions } from './postgres-options.js';
import { cdcSupportsType, textParser, type TextParser } from './postgres-text-parser.js';
import { arrayElementType, valueEncoder, type ValueEncoder } from './postgres-types.js';
import { resolveServer, type ResolvedServer } from './server-resolution.js';

/** pg's option that keeps every value as the server's text. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** Milliseconds before the n-th retry of a failed lookup query (n from 1), as Flink's JDBC lookup waits. */
const RETRY_DELAY_MS = 1000;

const NO_ROWS: readonly Row[] = [];

/**
 * True for errors a retry cannot fix: the statement itself is wrong for this database (SQLSTATE
 * class 42, e.g. an undefined table or column; class 22, a value that does not fit).
 */
function isStatementError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('42') || state.startsWith('22'));
}

/** Looks rows of one Postgres table up by its columns `spec.keys`. */
export class PostgresLookupFunction implements LookupFunction {
  readonly #cache: LookupCache;
  readonly #parsers: readonly TextParser[];
  readonly #encoders: readonly ValueEncoder[];
  #statement = '';
  #server: ResolvedServer | undefined;
  #database: SinkDatabase | undefined;
  #context: LookupContext | undefined;

  constructor(
    private readonly spec: LookupTableSpec,
    private readonly options: PostgresSinkOptions,
    private readonly lookupOptions: LookupOptions,
  ) {
    const unreadable = spec.schema.find((f) => !cdcSupportsType(f.type));
    if (unreadable !== undefined) {
      throw new WeirError('UNSUPPORTED', `postgres lookup table '${spec.table}': column '${unreadable.name}' of type ${formatType(unreadable.type)} cannot be looked up yet`);
    }
    this.#cache = new LookupCache(lookupOptions.cacheMaxRows, lookupOptions.cacheTtlMs);
    this.#parsers = spec.schema.map((f) => textParser(f.type));
    this.#encoders = spec.keys.map((k) => valueEncoder(spec.schema[k]!.type));
  }

  async open(context: LookupContext): Promise<void> {
    this.#context = context;
    this.#server = await resolveServer(this.spec.table, this.options.url, process.env);
    this.#database = openSinkDatabase(this.#server.connection.config, 'weir lookup', 1, (error) => context.warn(`postgres lookup table '${this.spec.table}': idle connection failed: ${describeError(error)}`));
    const { schema, keys } = this.spec;
    const name = this.options.tableName ?? parseTableName(this.spec.table);
    const table = name.schema === undefined ? sql.id(name.table) : sql.id(name.schema, name.table);
    const keyArrays = keys.map((k) => sql`${[]}::${sql.raw(arrayElementType(schema[k]!.type))}[]`);
    const keyColumns = keys.map((k) => sql.id(schema[k]!.name));
    const where = keys.length === 1 ? sql`${keyColumns[0]!} = ANY(${keyArrays[0]!})` : sql`(${sql.join(keyColumns)}) IN (SELECT * FROM unnest(${sql.join(keyArrays)}))`;
    this.#statement = sql`SELECT ${sql.join(schema.map((f) => sql.id(f.name)))} FROM ${table} WHERE ${where}`.compile(this.#database.db).sql;
  }

  lookup(keys: readonly Row[]): LookupResult | Promise<LookupResult> {
    const now = this.#context!.processingTime.now();
    const encoded = keys.map(encodeLookupKey);
    const result: (readonly Row[])[] = new Array<readonly Row[]>(keys.length);
    const missing: number[] = [];
    encoded.forEach((key, i) => {
      const cached = this.#cache.get(key, now);
      if (cached === undefined) missing.push(i);
      else result[i] = cached;
    });
    if (missing.length === 0) return result;
    return this.#fetch(missing.map((i) => keys[i]!)).then((found) => {
      const loadedAt = this.#context!.processingTime.now();
      for (const i of missing) {
        const rows = found.get(encoded[i]!);
        if (rows !== undefined || this.lookupOptions.cacheMissingKey) this.#cache.put(encoded[i]!, rows ?? NO_ROWS, loadedAt);
        result[i] = rows ?? NO_ROWS;
      }
      return result;
    });
  }

  async close(): Promise<void> {
    // kysely only compiles the statement, so it never took over the pool: end the pool itself.
    await this.#database?.pool.end();
    this.#database = undefined;
    await this.#server?.release();
    this.#server = undefined;
  }

  /** The table's rows for `keys`, by encoded key, retrying a failed query. */
  async #fetch(keys: readonly Row[]): Promise<Map<string, Row[]>> {
    const values = this.spec.keys.map((_, column) => keys.map((key) => this.#encoders[column]!(key[column])));
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.#database!.pool.query<unknown[]>({ name: 'weir_lookup', text: this.#statement, values, rowMode: 'array', types: RAW_TEXT });
        const found = new Map<string, Row[]>();
        for (const raw of result.rows) {
          const row = raw.map((value, i) => (value === null ? null : this.#parsers[i]!(value as string)));
          const key = tableRowKey(row, this.spec.keys)!;
          const rows = found.get(key);
          if (rows === undefined) found.set(key, [row]);
          else rows.push(row);
        }
        return found;
      } catch (error) {
        const message = this.#describe(error);
        if (isStatementError(error)) {
          throw new WeirError('CONNECTOR_ERROR', `postgres lookup table '${this.spec.table}': the lookup query failed: ${message}`, {
            cause: error,
            hint: 'the table must exist with the columns the weir table declares (its name, or the one in table-name)',
          });
        }
        if (attempt >= this.lookupOptions.maxRetries) {
          throw new WeirError('CONNECTOR_ERROR', `postgres lookup table '${this.spec.table}': lookup failed after ${attempt + 1} attempts: ${message}`, { cause: error });
        }
        this.#context!.warn(`postgres lookup table '${this.spec.table}': lookup failed (${message}); retry ${attempt + 1} of ${this.lookupOptions.maxRetries}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * (attempt + 1)));
      }
    }
  }

  #describe(error: unknown): string {
    const state = sqlState(error);
    return `${scrubPassword(describeError(error), this.#server?.connection.password)} at ${this.#server?.connection.display}${state === undefined ? '' : ` (SQLSTATE ${state})`}`;
  }
}
