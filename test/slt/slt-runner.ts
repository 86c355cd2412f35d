/**
 * Runs one sqllogictest file (see slt-parser.ts) through weir's public API: a fresh engine, a
 * fresh working directory (writable tables live under `.weir/tables/` in it) and checkpoint
 * directory, and a fresh PostgreSQL database in the suite's cluster, which every materialized
 * view of the file writes to (the runner adds `'url'` to each CREATE MATERIALIZED VIEW that does
 * not name one).
 *
 * - `statement ok` must succeed; `statement error [regex]` must fail, with a message matching the
 *   regex when there is one.
 * - Before each `query` the runner issues FLUSH (unless no statement ran since the last one), so
 *   that everything written before is visible, then runs the query to its end in batch runtime
 *   mode (a query reading only materialized views runs in their database) and compares its rows,
 *   rendered as text, with the expected ones. A `query` may also be a statement answering with a
 *   table, such as DESCRIBE.
 * - After every FLUSH — the runner's, the file's own and a last one at the end of the file —
 *   every live materialized view is compared with its query run by PostgreSQL over mirrors of the
 *   writable tables (postgres-oracle.ts).
 * - At the end, the engine stops gracefully and no prepared transaction may be left in the database.
 *
 * Any failure throws an {@link SltFailure} naming the file, the line and what differed.
 * `SLT_TIMING=1` prints how long each record, FLUSH and check took (on stderr).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { WRITABLE_TABLE_CONNECTOR } from '../../src/common/connector-descriptor.js';
import { createEngine, parseScriptText, type Engine, type ParsedStatement } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { PostgresOracle } from './postgres-oracle.js';
import { normalizeWhitespace, parseSlt, type ColumnType, type Expectation, type SltRecord } from './slt-parser.js';

/** How long one query may run before it counts as never ending (it reads an unbounded source). */
const QUERY_TIMEOUT_MS = 30_000;

/** A failed record (or file), with where it was. */
export class SltFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SltFailure';
  }
}

/** What a file run did, so that a test can tell it ran something. */
export interface SltReport {
  readonly statements: number;
  readonly queries: number;
  /** Comparisons of a materialized view with PostgreSQL's answer. */
  readonly viewChecks: number;
  /** The materialized views the file created. */
  readonly views: readonly string[];
}

/** Options of {@link runSlt}. */
export interface SltOptions {
  /** The server in which the file gets its database; default: the suite's cluster (WEIR_TEST_PG_URL). */
  readonly server?: string;
  /** Called before each check of the views (tests use it to disturb a view's table). */
  readonly beforeCheck?: (oracle: PostgresOracle) => Promise<void>;
}

/** Runs the .slt file at `path`. */
export function runSltFile(path: string, options: SltOptions = {}): Promise<SltReport> {
  return runSlt(readFileSync(path, 'utf8'), basename(path), options);
}

/** Runs the records of `text` (named `file` in messages) in a fresh engine and database. */
export async function runSlt(text: string, file: string, options: SltOptions = {}): Promise<SltReport> {
  const records = parseSlt(text, file);
  const server = options.server ?? process.env.WEIR_TEST_PG_URL;
  if (server === undefined) throw new Error('WEIR_TEST_PG_URL is not set: run the suite through vitest (test/global-setup.ts starts the cluster)');
  const url = await freshDatabase(`slt_${file.replace(/\.slt$/, '').replace(/[^a-z0-9]+/gi, '_').toLowerCase().slice(0, 40)}`, server);
  const dir = mkdtempSync(join(tmpdir(), 'weir-slt-'));
  const oracle = await PostgresOracle.open(url);
  const home = process.cwd();
  const warnings: string[] = [];
  const engine = createEngine({ onWarning: (message) => warnings.push(message) });
  const run = new FileRun(file, engine, oracle, url, options);
  let passed = false;
  try {
    process.chdir(dir);
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}'`);
    for (const record of records) {
      if (record.kind === 'halt') break;
      const started = performance.now();
      await run.record(record);
      if (process.env.SLT_TIMING !== undefined) process.stderr.write(`${file}:${record.line} ${record.kind} ${(performance.now() - started).toFixed(0)} ms\n`);
    }
    await run.flushAndCheck('the end of the file');
    await engine.close({ graceful: true });
    const left = await pgQuery<{ gid: string }>(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()');
    if (left.length > 0) throw new SltFailure(`${file}: prepared transactions were left behind after the engine stopped: ${left.map((r) => r.gid).join(', ')}`);
    passed = true;
    return run.report();
  } catch (error) {
    const stopping = await engine.close().then(
      () => undefined,
      (stopError: unknown) => stopError,
    );
    if (error instanceof Error) {
      if (stopping !== undefined) error.message += `\nstopping the engine after the failure failed too: ${stopping instanceof Error ? stopping.message : String(stopping)}`;
      if (warnings.length > 0) error.message += `\nweir's warnings during the file:\n${warnings.map((w) => `  ${w}`).join('\n')}`;
      error.message += `\n(database of the file: ${url}; working directory: ${dir})`;
    }
    throw error;
  } finally {
    process.chdir(home);
    await oracle.close();
    if (passed) {
      await pgQuery(server, `DROP DATABASE ${new URL(url).pathname.slice(1)}`).catch((error: unknown) => {
        throw new SltFailure(`${file}: could not drop the file's database once the engine had stopped (a connection left open?): ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }
}

/** The state of one file's run. */
class FileRun {
  private statements = 0;
  private queries = 0;
  private viewChecks = 0;
  private readonly views: string[] = [];
  /** A statement ran since the last FLUSH and check (else a FLUSH would change nothing, and is skipped). */
  private dirty = true;

  constructor(
    private readonly file: string,
    private readonly engine: Engine,
    private readonly oracle: PostgresOracle,
    private readonly url: string,
    private readonly options: SltOptions,
  ) {}

  report(): SltReport {
    return { statements: this.statements, queries: this.queries, viewChecks: this.viewChecks, views: [...this.views] };
  }

  async record(record: Exclude<SltRecord, { kind: 'halt' }>): Promise<void> {
    switch (record.kind) {
      case 'statement':
        this.statements++;
        return this.statement(record);
      case 'query':
        this.queries++;
        return this.query(record);
      default: {
        const unhandled: never = record;
        throw new Error(`unhandled record ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /**
   * FLUSH, then the check of every live view; `after` names the moment in messages. Skipped when
   * no statement ran since the last one: only statements change tables and views.
   */
  async flushAndCheck(after: string): Promise<void> {
    if (!this.dirty) return;
    const started = performance.now();
    try {
      await this.engine.execute('FLUSH');
    } catch (error) {
      throw new SltFailure(`${this.file}: the FLUSH before ${after.replace(/^the FLUSH before /, '')} failed: ${error instanceof Error ? error.message : String(error)}${failedJobs(this.engine)}`);
    }
    const flushed = performance.now();
    await this.check(after);
    if (process.env.SLT_TIMING !== undefined) process.stderr.write(`  flush ${(flushed - started).toFixed(0)} ms, check ${(performance.now() - flushed).toFixed(0)} ms\n`);
  }

  private async check(after: string): Promise<void> {
    this.dirty = false;
    await this.options.beforeCheck?.(this.oracle);
    const live = this.oracle.viewNames().length;
    try {
      await this.oracle.check(this.engine, (sql) => this.batchQuery(sql), after);
    } catch (error) {
      throw new SltFailure(`${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.viewChecks += live;
  }

  private async statement(record: Extract<SltRecord, { kind: 'statement' }>): Promise<void> {
    const at = `${this.file}:${record.line}`;
    this.dirty = true;
    let parsed: readonly ParsedStatement[] | undefined;
    try {
      parsed = parseScriptText(record.sql);
    } catch {
      parsed = undefined; // executing the text reports the syntax error
    }
    const creates = parsed?.filter((p) => p.statement.kind === 'create-materialized-view') ?? [];
    if (record.postgres !== undefined && creates.length !== 1) {
      throw new SltFailure(`${at}: a '# postgres:' line belongs to a statement that creates one materialized view`);
    }
    let error: unknown;
    const done: ParsedStatement[] = [];
    try {
      if (parsed === undefined) {
        await this.engine.execute(record.sql);
      } else {
        for (const statement of parsed) {
          await this.engine.execute(this.withDatabase(statement));
          done.push(statement);
        }
      }
    } catch (caught) {
      error = caught;
    }
    for (const statement of done) await this.track(statement, record);
    // Even a failed statement may have changed a table before it failed.
    for (const { statement } of parsed ?? []) {
      if (statement.kind === 'insert') this.oracle.changed(lastName(statement.target), statement.query.kind !== 'values' && done.some((p) => p.statement === statement));
      else if (statement.kind === 'update' || statement.kind === 'delete') this.oracle.changed(lastName(statement.target));
      else if (statement.kind === 'statement-set') statement.inserts.forEach((insert) => this.oracle.changed(lastName(insert.target), done.some((p) => p.statement === statement)));
    }
    expectOutcome(at, record.sql, record.expect, error);
    if (done.some((p) => p.statement.kind === 'flush')) await this.check(`FLUSH at line ${record.line}`);
  }

  /** The statement's text, with the file's database as the `'url'` of a materialized view that names none. */
  private withDatabase(parsed: ParsedStatement): string {
    const { statement, text } = parsed;
    if (statement.kind !== 'create-materialized-view' || statement.options.some((o) => o.key === 'url')) return text;
    const at = text.lastIndexOf(statement.queryText);
    const head = text.slice(0, at);
    const url = `'url' = '${this.url}'`;
    const rewritten = statement.options.length === 0 ? head.replace(/\bAS\s*$/i, `WITH (${url}) AS `) : head.replace(/\)\s*AS\s*$/i, `, ${url}) AS `);
    if (at < 0 || rewritten === head) throw new Error(`cannot add the database URL to: ${text}`);
    return rewritten + text.slice(at);
  }

  /** Keeps the oracle's mirrors and views in step with what a successful statement created or dropped. */
  private async track(parsed: ParsedStatement, record: Extract<SltRecord, { kind: 'statement' }>): Promise<void> {
    const { statement } = parsed;
    switch (statement.kind) {
      case 'create-table': {
        const name = lastName(statement.name);
        const writable = statement.options.length === 0 || statement.options.some((o) => o.key === 'connector' && o.value === WRITABLE_TABLE_CONNECTOR);
        if (writable && !(statement.ifNotExists && this.oracle.hasTable(name))) await this.oracle.addTable(this.engine, name, record.line);
        return;
      }
      case 'create-view':
        if (!statement.ifNotExists || !this.oracle.hasView(lastName(statement.name))) await this.oracle.addView(lastName(statement.name), statement.queryText);
        return;
      case 'create-materialized-view': {
        const name = lastName(statement.name);
        if (statement.ifNotExists && this.oracle.viewNames().includes(name)) return;
        const table = statement.options.find((o) => o.key === 'table-name')?.value ?? name;
        await this.oracle.addMaterializedView(name, {
          line: record.line,
          table,
          queryText: statement.queryText,
          ...(statement.columns === undefined ? {} : { columns: statement.columns.map((c) => c.name) }),
          ...(record.postgres === undefined ? {} : { postgres: record.postgres }),
        });
        this.views.push(name);
        return;
      }
      case 'drop': {
        const name = lastName(statement.name);
        if (statement.object === 'TABLE') await this.oracle.dropTable(name);
        else if (statement.object === 'VIEW') await this.oracle.dropView(name);
        else if (statement.object === 'MATERIALIZED VIEW') await this.oracle.dropMaterializedView(name);
        // DROP ... CASCADE drops the views reading the object too.
        const { catalog } = this.engine.session;
        await this.oracle.forgetViewsExcept(new Set(catalog.materializedViews().map((v) => v.name)), new Set(catalog.views().map((v) => v.name)));
        return;
      }
      default:
        return;
    }
  }

  private async query(record: Extract<SltRecord, { kind: 'query' }>): Promise<void> {
    const at = `${this.file}:${record.line}`;
    await this.flushAndCheck(`the FLUSH before the query at line ${record.line}`);
    let actual: unknown[][] | undefined;
    let error: unknown;
    try {
      actual = await this.queryRows(record.sql);
    } catch (caught) {
      error = caught;
    }
    expectOutcome(at, record.sql, record.expect, error);
    if (actual === undefined || record.types === undefined) return;
    const width = record.types.length;
    const wrong = actual.find((values) => values.length !== width);
    if (wrong !== undefined) {
      throw new SltFailure(`${at}: the query gives ${wrong.length} columns but 'query ${record.types.join('')}' declares ${width}${wrong.length < width ? ' (two columns of the same name? give them distinct aliases)' : ''}\n${record.sql}`);
    }
    for (const values of actual) values.forEach((value, i) => checkType(at, value, record.types![i]!, i));
    const lines = actual.map((values) => normalizeWhitespace(values.map(render).join(' ')));
    const [expected, got] = sorted(record.sort, record.rows, lines);
    if (expected.length !== got.length || expected.some((line, i) => line !== got[i])) {
      throw new SltFailure(`${at}: the query's rows differ (${record.sort})\n${record.sql}\n${rowDiff(expected, got)}`);
    }
  }

  /** The rows of a query record: a SELECT run by {@link batchQuery}, or the table a statement such as DESCRIBE or SHOW answers with. */
  private async queryRows(sql: string): Promise<unknown[][]> {
    const [only, ...more] = parseScriptText(sql);
    if (only !== undefined && more.length === 0 && only.statement.kind !== 'query') {
      const [result] = await this.engine.execute(sql);
      if (result?.kind !== 'rows') throw new Error(`the statement gives ${result?.kind ?? 'nothing'}, not rows`);
      return result.rows.map((row) => [...row]);
    }
    return (await this.batchQuery(sql)).map((row) => Object.values(row));
  }

  /** Runs a SELECT to its end in batch runtime mode (writable tables read up to their current end), then restores the mode. */
  private async batchQuery(sql: string): Promise<Record<string, unknown>[]> {
    const previous = this.engine.session.config.get('execution.runtime-mode') ?? 'streaming';
    await this.engine.execute("SET 'execution.runtime-mode' = 'batch'");
    const signal = AbortSignal.timeout(QUERY_TIMEOUT_MS);
    try {
      return await this.engine.query(sql, { signal });
    } catch (error) {
      if (signal.aborted) throw new Error(`the query did not end within ${QUERY_TIMEOUT_MS / 1000} s (does it read an unbounded source?)`);
      throw error;
    } finally {
      await this.engine.execute(`SET 'execution.runtime-mode' = '${previous}'`);
    }
  }
}

/** The jobs of the engine that failed, with their errors, for messages. */
function failedJobs(engine: Engine): string {
  const failed = engine.session.jobs().filter((job) => job.status === 'FAILED');
  return failed.map((job) => `\n  job '${job.name}' failed: ${job.error instanceof Error ? job.error.message : String(job.error)}`).join('');
}

function lastName(name: { readonly parts: readonly { readonly name: string }[] }): string {
  return name.parts[name.parts.length - 1]!.name;
}

/** Throws unless `error` is what `expect` asks for. */
function expectOutcome(at: string, sql: string, expect: Expectation, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  switch (expect.kind) {
    case 'ok':
      if (error !== undefined) throw new SltFailure(`${at}: expected success, got: ${message}${hintOf(error)}\n${sql}`);
      return;
    case 'error':
      if (error === undefined) throw new SltFailure(`${at}: expected an error${expect.pattern === undefined ? '' : ` matching ${String(expect.pattern)}`}, but it succeeded\n${sql}`);
      if (expect.pattern !== undefined && !expect.pattern.test(message)) throw new SltFailure(`${at}: the error does not match ${String(expect.pattern)}: ${message}\n${sql}`);
      return;
    default: {
      const unhandled: never = expect;
      throw new Error(`unhandled expectation ${JSON.stringify(unhandled)}`);
    }
  }
}

function hintOf(error: unknown): string {
  const hint = (error as { hint?: unknown } | undefined)?.hint;
  return typeof hint === 'string' ? ` (hint: ${hint})` : '';
}

/** A value as a result line shows it: NULL, (empty) for '', numbers in JavaScript's shortest form, TIMESTAMP as `YYYY-MM-DD HH:MM:SS.mmm`, bytes as `x'0aff'`. */
export function render(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value === '') return '(empty)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (value instanceof Uint8Array) return `x'${Buffer.from(value).toString('hex')}'`;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Map ? Object.fromEntries(v) : v));
}

/** Fails when a value does not fit its declared column type: I integer, R number (or exact decimal text), B boolean, T anything. */
function checkType(at: string, value: unknown, type: ColumnType, column: number): void {
  if (value === null || value === undefined) return;
  const fits = ((): boolean => {
    switch (type) {
      case 'I':
        return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
      case 'R':
        return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value));
      case 'B':
        return typeof value === 'boolean';
      case 'T':
        return true;
      default: {
        const unhandled: never = type;
        throw new Error(`unhandled column type ${String(unhandled)}`);
      }
    }
  })();
  if (!fits) throw new SltFailure(`${at}: column ${column + 1} is declared ${type} but holds ${render(value)} (${typeof value})`);
}

/** Expected and actual lines ordered for comparison as the sort mode says. */
function sorted(mode: 'nosort' | 'rowsort' | 'valuesort', expected: readonly string[], actual: readonly string[]): [string[], string[]] {
  switch (mode) {
    case 'nosort':
      return [[...expected], [...actual]];
    case 'rowsort':
      return [[...expected].sort(), [...actual].sort()];
    case 'valuesort': {
      const values = (lines: readonly string[]): string[] => lines.flatMap((line) => line.split(' ')).sort();
      return [values(expected), values(actual)];
    }
    default: {
      const unhandled: never = mode;
      throw new Error(`unhandled sort mode ${String(unhandled)}`);
    }
  }
}

function rowDiff(expected: readonly string[], actual: readonly string[]): string {
  return [`expected (${expected.length}):`, ...expected.map((l) => `  ${l}`), `actual (${actual.length}):`, ...actual.map((l) => `  ${l}`)].join('\n');
}
