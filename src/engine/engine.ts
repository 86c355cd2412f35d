/**
 * The public entry point: `createEngine()` gives a session with the built-in connectors and
 * functions, able to run statements and scripts.
 */
import { createBuiltinConnectors } from '../connectors/builtin-connectors.js';
import type { Connector } from '../connectors/api/connector.js';
import type { FunctionRegistry } from '../expr/function-registry.js';
import type { ParsedStatement } from '../sql/parse/ast.js';
import { parseScript } from '../sql/parse/parser.js';
import { ROW_KIND_SHORT, type RowKindShort } from '../common/row-kind.js';
import { WeirError } from '../common/errors.js';
import type { Row } from '../common/row.js';
import type { Schema } from '../common/schema.js';
import { formatValue } from '../common/value-format.js';
import { rowComparator } from '../runtime/operators/row-order.js';
import { toApiRow, type ApiRow } from './api-values.js';
import { ChangeQueue } from './change-queue.js';
import { CatalogStore } from './catalog-store.js';
import { splitOuterLimit } from './outer-limit.js';
import { resultOrder } from './result-order.js';
import { MetricsRegistry } from './metrics-registry.js';
import { serveMetrics, type MetricsEndpoint, type MetricsEndpointOptions } from './metrics-server.js';
import { Session, type RestoreReport } from './session.js';
import type { StatementResult } from './statement-result.js';

/** The function registry an engine may be created with (`createEngine({ functions })`), to register JS scalar and table functions. */
export { FunctionRegistry, type UserScalarFunction, type UserTableFunction } from '../expr/function-registry.js';

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** Connectors besides the built-in ones. */
  readonly connectors?: readonly Connector[];
  readonly functions?: FunctionRegistry;
  readonly onWarning?: (message: string) => void;
  /** Discard existing checkpoints of the jobs started, instead of resuming from them. */
  readonly fresh?: boolean;
  /**
   * The catalog file (`.weir/catalog.json` for the shell and `weir serve`): objects created are
   * kept there, and {@link Engine.restore} creates them again in the next engine. None by default.
   */
  readonly catalogFile?: string;
  /** The clock state TTL (`table.exec.state.ttl`) reads, in epoch ms; the wall clock by default. For tests that drive time. */
  readonly stateClock?: () => number;
}

/** A statement of a script with what it gave. */
export interface ScriptStep {
  readonly statement: ParsedStatement;
  readonly result: StatementResult;
}

/** One change of a subscription: the row kind and the row as an object keyed by column name. */
export interface Change<R = ApiRow> {
  readonly op: RowKindShort;
  readonly row: R;
}

/**
 * One change of a subscription as text, for clients that show results (the shell): each value as
 * Flink's SQL client prints it — its CAST to STRING (`TRUE`, `1.0E7`, a FLOAT as a float, `(1, a)`,
 * `[1, 2]`, `{a=1}`, binary strings as `x'0aff'`), a TIMESTAMP_LTZ in the session zone — and NULL
 * as null.
 */
export interface TextChange {
  readonly op: RowKindShort;
  readonly columns: readonly string[];
  readonly cells: readonly (string | null)[];
}

/** The final rows of a query as text (see {@link TextChange}), in the order {@link Engine.query} gives. */
export interface TextTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/** A change as a job emits it: the row in internal form, with the schema of the rows. */
interface RawChange {
  readonly op: RowKindShort;
  readonly row: Row;
  readonly schema: Schema;
  /** Rows read in their final order: from Postgres (materialized views, its collation) or a system-table snapshot, sorted there. */
  readonly ordered?: boolean;
}

/** Options of {@link Engine.subscribe} and {@link Engine.query}. */
export interface QueryOptions {
  /** Aborting stops the query's job and ends the iteration. */
  readonly signal?: AbortSignal;
}

/** Changes buffered per subscription before the job waits for the consumer. */
const SUBSCRIPTION_BUFFER = 16_384;

/** An engine: one session, its catalog and its jobs. */
export class Engine {
  readonly session: Session;
  private registry: MetricsRegistry | undefined;
  private readonly endpoints: MetricsEndpoint[] = [];

  constructor(options: EngineOptions = {}) {
    const store = options.catalogFile === undefined ? undefined : new CatalogStore(options.catalogFile);
    this.session = new Session({ ...options, connectors: [...createBuiltinConnectors(), ...(options.connectors ?? [])], ...(store === undefined ? {} : { store }) });
  }

  /**
   * Creates again what the catalog file holds; with `runMaterializedViews` (the default) the
   * materialized views' jobs start again, each from its latest checkpoint.
   */
  restore(options: { runMaterializedViews?: boolean } = {}): Promise<RestoreReport> {
    return this.session.restore({ runMaterializedViews: options.runMaterializedViews ?? true });
  }

  /** Executes every statement of `sql` in order; returns what each gave. Stops at the first error. */
  async execute(sql: string): Promise<StatementResult[]> {
    const results: StatementResult[] = [];
    for await (const step of this.executeScript(sql)) results.push(step.result);
    return results;
  }

  /** Executes a script statement by statement, yielding each result as it is available. */
  async *executeScript(sql: string): AsyncGenerator<ScriptStep> {
    for (const statement of this.session.parse(sql)) {
      yield { statement, result: await this.session.execute(statement) };
    }
  }

  /**
   * Runs a SELECT and yields its changelog as it is produced: `{ op: '+I' | '-U' | '+U' | '-D', row }`.
   * A SELECT reading only materialized views yields their committed rows from Postgres as inserts;
   * one reading only system tables (`weir.jobs`, ...) yields a snapshot of them, ordered by its ORDER BY.
   * An outer `LIMIT n` (no ORDER BY) ends the subscription, and its job, after the n-th `+I`.
   * Breaking out of the loop, or aborting `signal`, cancels the query's job; a failure of the job
   * is thrown from the loop.
   */
  async *subscribe(sql: string | ParsedStatement, options: QueryOptions = {}): AsyncGenerator<Change> {
    const zone = this.session.config.timeZone();
    for await (const { op, row, schema } of this.changes(sql, options)) yield { op, row: toApiRow(row, schema, zone) };
  }

  /**
   * Runs a SELECT over bounded inputs to its end and returns the final table: the changelog
   * applied, as rows keyed by column name, sorted by the query's outer ORDER BY when it names
   * output columns (a Top-N's rows arrive in no particular order). Rows of materialized views and
   * system tables come sorted where they are read, and stay in that order.
   */
  async query(sql: string | ParsedStatement, options: QueryOptions = {}): Promise<ApiRow[]> {
    const { schema, rows } = await this.finalRows(sql, options);
    const zone = this.session.config.timeZone();
    return rows.map((row) => toApiRow(row, schema, zone));
  }

  /** {@link subscribe} with each change as text (see {@link TextChange}). */
  async *subscribeText(sql: string | ParsedStatement, options: QueryOptions = {}): AsyncGenerator<TextChange> {
    const zone = this.session.config.timeZone();
    for await (const { op, row, schema } of this.changes(sql, options)) yield { op, columns: schema.map((f) => f.name), cells: rowText(row, schema, zone) };
  }

  /** {@link query} with each value as text (see {@link TextChange}). */
  async queryText(sql: string | ParsedStatement, options: QueryOptions = {}): Promise<TextTable> {
    const { schema, rows } = await this.finalRows(sql, options);
    const zone = this.session.config.timeZone();
    return { columns: schema.map((f) => f.name), rows: rows.map((row) => rowText(row, schema, zone)) };
  }

  /** The final table of {@link query}: the changelog applied, sorted as it describes, rows in internal form. */
  private async finalRows(sql: string | ParsedStatement, options: QueryOptions): Promise<{ schema: Schema; rows: Row[] }> {
    const table = new Map<string, { row: Row; count: number }>();
    let schema: Schema = [];
    let ordered = false;
    for await (const change of this.changes(sql, options)) {
      schema = change.schema;
      ordered = change.ordered === true;
      const key = JSON.stringify(change.row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Map ? [...v] : v));
      const entry = table.get(key);
      if (change.op === '+I' || change.op === '+U') table.set(key, { row: change.row, count: (entry?.count ?? 0) + 1 });
      else if (entry === undefined) throw new WeirError('INTERNAL_ERROR', `the query's changelog retracts a row it never produced: ${key}`);
      else if (--entry.count === 0) table.delete(key);
    }
    const rows = [...table.values()].flatMap(({ row, count }) => Array<Row>(count).fill(row));
    const only = typeof sql === 'string' ? parseScript(sql) : [sql];
    const statement = only.length === 1 ? only[0]!.statement : undefined;
    const order = statement?.kind === 'query' && !ordered ? resultOrder(statement.query, schema) : undefined;
    if (order !== undefined) rows.sort(rowComparator(order));
    return { schema, rows };
  }

  /** The changes of a SELECT as {@link subscribe} describes them, with rows in internal form and their schema. */
  private async *changes(sql: string | ParsedStatement, options: QueryOptions): AsyncGenerator<RawChange> {
    options.signal?.throwIfAborted();
    const only = typeof sql === 'string' ? parseScript(sql) : [sql];
    if (only.length === 1 && only[0]!.statement.kind === 'query') {
      const stored = (await this.session.readMaterializedViews(only[0]!.text, only[0]!.span)) ?? (await this.session.readSystemTables(only[0]!));
      if (stored !== undefined) {
        for (const row of stored.rows) yield { op: '+I', row, schema: stored.schema, ordered: true };
        return;
      }
    }
    const outer = only.length === 1 ? splitOuterLimit(only[0]!) : undefined;
    const queue = new ChangeQueue<RawChange>(SUBSCRIPTION_BUFFER);
    const job = await this.session.subscribe(outer?.statement ?? sql, (spec) => ({
      open: async () => {},
      write: (batch) => {
        const changes: RawChange[] = [];
        for (let i = 0; i < batch.size; i++) changes.push({ op: ROW_KIND_SHORT[batch.kinds[i]!], row: batch.rows[i]!, schema: spec.schema });
        return queue.push(changes);
      },
      flush: async () => {},
      close: async () => {},
    }));
    const abort = (): void => {
      queue.close();
      void job.cancel();
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    void job.result().then((status) => (status === 'FAILED' ? queue.fail(job.error) : queue.end()));
    try {
      if (outer === undefined) yield* queue.drain();
      else yield* firstInserts(queue.drain(), outer.limit);
    } finally {
      options.signal?.removeEventListener('abort', abort);
      queue.close();
      await job.cancel();
    }
  }

  /** The metrics of every job of the engine in Prometheus text format (as `GET /metrics` serves them). */
  metricsText(): Promise<string> {
    return this.metricsRegistry().metrics();
  }

  /**
   * Serves {@link metricsText} at `http://host:port/metrics` (host 127.0.0.1 by default, port 0 for
   * a free one) until {@link close}; resolves once it listens.
   */
  async serveMetrics(options: MetricsEndpointOptions): Promise<MetricsEndpoint> {
    const endpoint = await serveMetrics(this.metricsRegistry(), options);
    this.endpoints.push(endpoint);
    return endpoint;
  }

  private metricsRegistry(): MetricsRegistry {
    return (this.registry ??= new MetricsRegistry(() => this.session.jobs()));
  }

  /**
   * Ends every running job: cancels it, or with `graceful`, stops a job that takes checkpoints
   * with a final savepoint, so that its sinks commit everything it has read (materialized views
   * then resume from there). Rejects with the first error once every job has ended.
   */
  async close(options: { graceful?: boolean } = {}): Promise<void> {
    let failure: unknown;
    for (const job of this.session.jobs()) {
      if (options.graceful === true && job.status === 'RUNNING' && job.takesCheckpoints) {
        await job.stopWithSavepoint().catch((error: unknown) => {
          failure ??= error;
          return job.cancel();
        });
      } else {
        await job.cancel();
      }
    }
    for (const endpoint of this.endpoints.splice(0)) await endpoint.close();
    if (failure !== undefined) throw failure;
  }
}

/** The changes up to and including the `limit`-th insert. */
async function* firstInserts<C extends { readonly op: RowKindShort }>(changes: AsyncGenerator<C>, limit: number): AsyncGenerator<C> {
  if (limit === 0) return;
  let inserted = 0;
  for await (const change of changes) {
    yield change;
    if (change.op === '+I' && ++inserted === limit) return;
  }
}

/** Parses a script without running it (statements with their exact text). */
export function parseScriptText(sql: string): readonly ParsedStatement[] {
  return parseScript(sql);
}

/** True for a syntax error at the very end of the text: the statement is not finished yet. */
export function isIncompleteInput(error: unknown, text: string): boolean {
  return error instanceof WeirError && error.code === 'SYNTAX_ERROR' && error.span !== undefined && error.span.start.offset >= text.trimEnd().length;
}

export type { ParsedStatement };

/** Creates an engine with the built-in connectors and functions. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options);
}

/** The cells of a row as text (see {@link TextChange}). */
function rowText(row: Row, schema: Schema, zone: string): (string | null)[] {
  return schema.map((field, i) => {
    const value = row[i];
    return value === null || value === undefined ? null : formatValue(value, field.type, zone);
  });
}
