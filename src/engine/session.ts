/**
 * A session: a catalog, settings and functions, and the statements run against them. DDL changes
 * the catalog, INSERT (and a bare SELECT, printed) plans a job and starts it, SHOW / DESCRIBE /
 * EXPLAIN answer from the catalog and the planner.
 */
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseDuration } from '../common/duration.js';
import { formatType, quoteIdentifierIfNeeded, withoutTimeAttribute } from '../common/sql-type.js';
import type { Connector, ExternalResult } from '../connectors/api/connector.js';
import { WRITABLE_TABLE_CONNECTOR } from '../common/connector-descriptor.js';
import { WeirError, type SourceSpan } from '../common/errors.js';
import { keySelector, type Key } from '../common/key-codec.js';
import type { Row } from '../common/row.js';
import { RowKind } from '../common/row-kind.js';
import { ExprCompiler } from '../expr/expr-compiler.js';
import { FunctionRegistry } from '../expr/function-registry.js';
import { graphFingerprint, type JobGraph, type SinkSpec } from '../dataflow/job-graph.js';
import { inputsOf, type LogicalNode, LogicalSink, } from '../plan/logical/logical-node.js';
import type { SinkFactory, SinkWriter } from '../runtime/sink-writer.js';
import { buildJobGraph, explainPlanned, materializedViewKeying, planPhysical, type PlannerOptions } from '../plan/planner.js';
import type { CheckpointConfig } from '../runtime/checkpoint/checkpoint-coordinator.js';
import type { CompletedCheckpoint } from '../runtime/checkpoint/checkpoint-storage.js';
import { FileCheckpointStorage, loadCompletedCheckpoint } from '../runtime/checkpoint/file-checkpoint-storage.js';
import type { JobCheckpointing, JobServices } from '../runtime/job-execution.js';
import { JobSupervisor } from '../runtime/job-supervisor.js';
import { STATE_BACKEND_TYPES } from '../runtime/state/state-backend-factory.js';
import type { StateBackendSettings } from '../runtime/task/subtask-wiring.js';
import { translateLegacyOptions } from '../connectors/legacy-connector-options.js';
import type { ConnectorResolver } from '../runtime/operator-factory.js';
import { bindCreateTable, bindCreateView } from '../sql/bind/bind-ddl.js';
import { bindInsert } from '../sql/bind/bind-insert.js';
import { bindMaterializedView } from '../sql/bind/bind-materialized-view.js';
import { bindQuery, objectName, relationName, withoutOrder } from '../sql/bind/bind-query.js';
import { BinderContext } from '../sql/bind/binder-context.js';
import { Catalog, DEFAULT_CATALOG, DEFAULT_DATABASE } from '../sql/catalog/catalog.js';
import type { DeleteStatement, InsertStatement, ParsedStatement, Query, Statement, UpdateStatement } from '../sql/parse/ast.js';
import { parseScript } from '../sql/parse/parser.js';
import { postgresTablesRead } from '../sql/parse/postgres-table-references.js';
import { describe, show, stringField } from './catalog-statements.js';
import type { CatalogStore, StoredKind } from './catalog-store.js';
import { loadFunction } from './function-library.js';
import { MaterializedViews } from './materialized-views.js';
import { dependentsOf, describeDependents } from './object-dependencies.js';
import { JobHandle } from './job-handle.js';
import { withFlinkNullOrder } from './postgres-null-order.js';
import { viewReadStatement } from './view-read-statement.js';
import { restartStrategyOf } from './restart-settings.js';
import { SessionConfig } from './session-config.js';
import { querySystemTables } from './system-query.js';
import { readsOnlySystemTables, registerSystemTables, SYSTEM_CONNECTOR, systemConnector } from './system-tables.js';
import { deleteFromWritableTable, dropWritableTable, matchingRowsQuery, updateWritableTable } from './writable-table-statements.js';
import { ok, type StatementResult } from './statement-result.js';

/** How a session is set up. */
export interface SessionOptions {
  readonly connectors: readonly Connector[];
  readonly functions?: FunctionRegistry;
  /** Receives warnings from running jobs; defaults to stderr. */
  readonly onWarning?: (message: string) => void;
  /** Discard the checkpoints of the jobs this session starts, instead of resuming from them. */
  readonly fresh?: boolean;
  /** Where created objects are kept for the next session in the same directory; none by default. */
  readonly store?: CatalogStore;
  /** The clock state TTL reads (epoch ms); the wall clock by default. For tests that drive time. */
  readonly stateClock?: () => number;
}

/** What {@link Session.restore} brought back. */
export interface RestoreReport {
  /** Objects restored, of all kinds. */
  readonly restored: number;
  /** The materialized views defined again. */
  readonly views: readonly string[];
  /** The job of the materialized views, when it was started (it resumes from its latest checkpoint). */
  readonly jobs: readonly JobHandle[];
}

/** Statements, the catalog they change and the jobs they start. */
export class Session {
  readonly config = new SessionConfig();
  readonly catalog: Catalog;
  readonly functions: FunctionRegistry;
  private readonly connectors: ConnectorResolver;
  private readonly jobList: JobHandle[] = [];
  private readonly onWarning: (message: string) => void;
  private readonly fresh: boolean;
  private readonly stateClock: (() => number) | undefined;
  private readonly subscriptionWriters = new Map<string, (spec: SinkSpec) => SinkWriter>();
  private readonly connectorsByName: ReadonlyMap<string, Connector>;
  private readonly store: CatalogStore | undefined;
  private readonly materialized: MaterializedViews;

  constructor(options: SessionOptions) {
    this.fresh = options.fresh ?? false;
    this.stateClock = options.stateClock;
    this.store = options.store;
    this.catalog = new Catalog(
      options.connectors.map((c) => c.descriptor),
      translateLegacyOptions,
    );
    this.functions = options.functions ?? FunctionRegistry.withBuiltins();
    this.onWarning = options.onWarning ?? ((message) => process.stderr.write(`WARNING: ${message}\n`));
    const byName = new Map(options.connectors.map((c) => [c.descriptor.name, c]));
    byName.set(SYSTEM_CONNECTOR, systemConnector(() => this.jobList));
    registerSystemTables(this.catalog);
    this.connectorsByName = byName;
    const subscriptions: SinkFactory = {
      createWriter: (spec) => (this.subscriptionWriters.get(spec.options[SUBSCRIPTION_ID]!) ?? unsupported(`subscription ${spec.options[SUBSCRIPTION_ID]} is gone`))(spec),
    };
    this.connectors = {
      source: (name) => byName.get(name)?.source ?? unsupported(`connector '${name}' cannot be read from`),
      sink: (name) => (name === SUBSCRIPTION_CONNECTOR ? subscriptions : byName.get(name)?.sink ?? unsupported(`connector '${name}' cannot be written to`)),
      lookup: (name) => byName.get(name)?.lookup ?? unsupported(`connector '${name}' cannot be looked up`),
    };
    this.materialized = new MaterializedViews({
      catalog: this.catalog,
      plannerOptions: () => this.plannerOptions(),
      runGraph: (graph, sinks, key, defaultInterval) => this.runGraph(graph, sinks, key, defaultInterval),
      addPart: (job, graph, part, sinks, key) => this.addPart(job, graph, part, sinks, key),
      removeParts: (job, graph, parts, key) => job.removeParts(withJobIdentity(graph, key, this.config.get('execution.runtime-mode') === 'batch'), parts),
      jobSettings: () => this.jobSettings(),
      initialContents: (job) => (this.config.getBoolean('background_ddl') ? Promise.resolve() : this.initialContents(job)),
      tablesOf: (connector) => byName.get(connector)?.tables,
      warn: this.onWarning,
    });
  }

  /** Jobs started in this session, oldest first. */
  jobs(): readonly JobHandle[] {
    return this.jobList;
  }

  /** Parses a script; a syntax error is thrown before anything runs. */
  parse(script: string): readonly ParsedStatement[] {
    return parseScript(script);
  }

  /** Executes one parsed statement; a created or dropped object is recorded in the store. */
  async execute(parsed: ParsedStatement): Promise<StatementResult> {
    const existed = this.alreadyExists(parsed.statement);
    const result = await this.executeStatement(parsed.statement, parsed.text);
    if (!existed) this.remember(parsed.statement, parsed.text);
    return result;
  }

  /** True for a CREATE ... IF NOT EXISTS of an object that exists: it changes nothing, so the store keeps the original DDL. */
  private alreadyExists(statement: Statement): boolean {
    switch (statement.kind) {
      case 'create-table':
      case 'create-table-as':
      case 'create-view':
        return statement.ifNotExists && this.catalog.find(objectName(statement.name.parts, statement.name.span)) !== undefined;
      case 'create-materialized-view':
        return statement.ifNotExists && this.catalog.materializedView(objectName(statement.name.parts, statement.name.span)) !== undefined;
      case 'create-function': {
        const name = objectName(statement.name.parts, statement.name.span);
        return statement.ifNotExists && (this.functions.lookup(name) ?? this.functions.lookupTable(name)) !== undefined;
      }
      default:
        return false;
    }
  }

  /**
   * Creates again the objects of the store, in the order they were created: a materialized view
   * under the settings it was created with, its job resuming from its latest checkpoint when
   * `runMaterializedViews` (else only its definition, for reading it). An object that cannot be
   * created again is reported through the warning channel and skipped; it stays in the store.
   */
  async restore(options: { runMaterializedViews: boolean }): Promise<RestoreReport> {
    let restored = 0;
    let viewSettings: Readonly<Record<string, string>> | undefined;
    for (const object of this.store?.list() ?? []) {
      try {
        const [parsed] = parseScript(object.ddl);
        if (parsed === undefined) continue;
        if (parsed.statement.kind === 'create-materialized-view') {
          const statement = parsed.statement;
          await this.withSettings(object.settings ?? {}, () => this.materialized.create(statement, parsed.text, new BinderContext(this.catalog, this.functions, undefined, undefined, undefined, this.config.timeZone()), false, object.instance));
          viewSettings = object.settings ?? {};
        } else {
          await this.executeStatement(parsed.statement, parsed.text);
        }
        restored++;
      } catch (error) {
        this.onWarning(`could not restore ${object.kind.replace('-', ' ')} '${object.name}' from ${this.store!.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const views = this.materialized.names();
    if (options.runMaterializedViews && viewSettings !== undefined) await this.withSettings(viewSettings, () => this.materialized.restart());
    const job = this.materialized.job;
    return { restored, views, jobs: job === undefined ? [] : [job] };
  }

  private async withSettings<T>(settings: Readonly<Record<string, string>>, task: () => Promise<T>): Promise<T> {
    const saved = this.config.entries();
    this.config.reset();
    try {
      for (const [key, value] of Object.entries(settings)) this.config.set(key, value);
      return await task();
    } finally {
      this.config.reset();
      for (const [key, value] of saved) this.config.set(key, value);
    }
  }

  /** Records what a successful statement created or dropped. */
  private remember(statement: Statement, text: string): void {
    if (this.store === undefined) return;
    const nameOf = (parts: Extract<Statement, { kind: 'drop' }>['name']): string => objectName(parts.parts, parts.span);
    switch (statement.kind) {
      case 'create-table':
        return this.store.record({ kind: 'table', name: nameOf(statement.name), ddl: text });
      case 'create-view':
        return this.store.record({ kind: 'view', name: nameOf(statement.name), ddl: text });
      case 'create-function':
        return this.store.record({ kind: 'function', name: nameOf(statement.name), ddl: text });
      case 'create-materialized-view': {
        const name = nameOf(statement.name);
        const instance = this.materialized.instanceOf(name);
        // The zone resolved ('default' is the process's zone now): the view computes in it in a later process too.
        const settings = { ...Object.fromEntries(this.config.entries()), 'table.local-time-zone': this.config.timeZone() };
        return this.store.record({ kind: 'materialized-view', name, ddl: text, settings, ...(instance === undefined ? {} : { instance }) });
      }
      case 'drop': {
        const kind = STORED_KINDS[statement.object];
        if (kind !== undefined) this.store.remove(kind, nameOf(statement.name));
        return;
      }
      default:
        return;
    }
  }

  private async executeStatement(statement: Statement, text: string): Promise<StatementResult> {
    const binder = new BinderContext(this.catalog, this.functions, undefined, undefined, undefined, this.config.timeZone());
    switch (statement.kind) {
      case 'create-table': {
        const table = bindCreateTable(statement, text, binder);
        this.catalog.add(table, { ifNotExists: statement.ifNotExists, span: statement.name.span });
        return ok('Execute statement succeeded.');
      }
      case 'create-view': {
        const name = objectName(statement.name.parts, statement.name.span);
        if (statement.ifNotExists && this.catalog.find(name) !== undefined) return ok('Execute statement succeeded.');
        this.catalog.add(bindCreateView(statement, text, binder), { ifNotExists: statement.ifNotExists, span: statement.name.span });
        return ok('Execute statement succeeded.');
      }
      case 'create-table-as':
        return this.createTableAs(statement, binder);
      case 'drop':
        return this.drop(statement);
      case 'insert': {
        const sink = bindInsert(statement, binder);
        const result = await this.startJob([sink], this.jobName([statement]), text);
        if (result.kind !== 'job' || sink.target.connector !== WRITABLE_TABLE_CONNECTOR || !readsOnlyBoundedInput(sink)) return result;
        const status = await result.job.result();
        if (status === 'FAILED') throw result.job.error;
        return ok(`Inserted into '${sink.target.name}'.`);
      }
      case 'update': {
        const matching = await this.rowsMatching(statement);
        const changed = updateWritableTable(statement, binder, new ExprCompiler(this.functions, { timeZone: this.config.timeZone() }), matching);
        return ok(`Updated ${changed} row${changed === 1 ? '' : 's'} in '${objectName(statement.target.parts, statement.target.span)}'.`);
      }
      case 'delete': {
        const matching = await this.rowsMatching(statement);
        const removed = deleteFromWritableTable(statement, binder, new ExprCompiler(this.functions, { timeZone: this.config.timeZone() }), matching);
        return ok(`Deleted ${removed} row${removed === 1 ? '' : 's'} from '${objectName(statement.target.parts, statement.target.span)}'.`);
      }
      case 'statement-set':
        return this.startJob(statement.inserts.map((i) => bindInsert(i, binder)), this.jobName(statement.inserts), text);
      case 'query': {
        const stored = (await this.readMaterializedViews(text, statement.span)) ?? (await this.readSystemTables({ statement, text, span: statement.span }));
        if (stored !== undefined) return { kind: 'rows', schema: stored.schema, rows: stored.rows };
        return this.startJob([this.printSink(statement.query, binder)], this.config.get('pipeline.name') || 'collect', text);
      }
      case 'stop-job':
        return this.stopJob(statement);
      case 'create-materialized-view':
        return this.materialized.create(statement, text, binder);
      case 'flush':
        return this.flush();
      case 'create-function': {
        const name = objectName(statement.name.parts, statement.name.span);
        if (statement.ifNotExists && (this.functions.lookup(name) ?? this.functions.lookupTable(name)) !== undefined) return ok('Execute statement succeeded.');
        try {
          const loaded = await loadFunction(name, statement.identifier, statement.span);
          if (loaded.kind === 'table') this.functions.registerTable(name, loaded.spec);
          else this.functions.registerScalar(name, loaded.spec);
        } catch (error) {
          throw error instanceof WeirError ? error.withSpan(statement.span) : error;
        }
        return ok('Execute statement succeeded.');
      }
      case 'set':
        if (statement.key === undefined) {
          return { kind: 'rows', schema: [stringField('key'), stringField('value')], rows: this.config.entries() };
        }
        this.config.set(statement.key, statement.value ?? '');
        return ok('Session property has been set.');
      case 'reset':
        this.config.reset(statement.key);
        return ok(statement.key === undefined ? 'All session properties have been set to their default values.' : 'Session property has been reset.');
      case 'show':
        return show(statement, { catalog: this.catalog, functions: this.functions, jobs: this.jobList, ...(this.materialized.job === undefined ? {} : { materializedJob: this.materialized.job }) });
      case 'describe':
        return describe(this.catalog, relationName(statement.name.parts, statement.name.span), statement.name.span);
      case 'explain':
        return { kind: 'text', text: this.explain(statement.statement, binder) };
      default: {
        const unknown: never = statement;
        throw new WeirError('INTERNAL_ERROR', `statement kind ${(unknown as Statement).kind} has no execution`);
      }
    }
  }

  /**
   * DROP TABLE / VIEW / MATERIALIZED VIEW / FUNCTION. A relation that views or materialized views
   * read is dropped only with CASCADE, which drops them first (and forgets them in the store);
   * otherwise the DROP is refused naming them.
   */
  /**
   * Flink's CTAS: the table is created with the query's columns (its DDL, not the CTAS, is what
   * the store keeps, so a restored session does not run the query again), then the query runs as
   * an INSERT into it. A query that cannot be inserted leaves no table behind.
   */
  private async createTableAs(statement: Extract<Statement, { kind: 'create-table-as' }>, binder: BinderContext): Promise<StatementResult> {
    const name = objectName(statement.name.parts, statement.name.span);
    if (statement.ifNotExists && this.catalog.find(name) !== undefined) return ok('Execute statement succeeded.');
    const { schema } = bindQuery(statement.query, binder);
    const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;
    const columns = schema.map((f) => `  ${quoteIdentifierIfNeeded(f.name)} ${formatType(withoutTimeAttribute(f.type))}`);
    const options = statement.options.map((o) => `  ${quote(o.key)} = ${quote(o.value)}`);
    const table = quoteIdentifierIfNeeded(name);
    const ddl = `CREATE ${statement.temporary ? 'TEMPORARY ' : ''}TABLE ${table} (\n${columns.join(',\n')}\n)${options.length === 0 ? '' : ` WITH (\n${options.join(',\n')}\n)`}`;
    for (const created of parseScript(ddl)) await this.execute(created);
    try {
      const [insert] = parseScript(`INSERT INTO ${table} ${statement.queryText}`);
      return await this.execute(insert!);
    } catch (error) {
      try {
        for (const dropped of parseScript(`DROP TABLE ${table}`)) await this.execute(dropped);
      } catch (dropError) {
        // The INSERT's error is the one to report; the table left behind is said as a warning.
        this.onWarning(`table '${name}' was created by CREATE TABLE ... AS but could not be dropped after its INSERT failed: ${dropError instanceof Error ? dropError.message : String(dropError)}`);
      }
      throw error;
    }
  }

  private async drop(statement: Extract<Statement, { kind: 'drop' }>): Promise<StatementResult> {
    const name = objectName(statement.name.parts, statement.name.span);
    if (statement.object === 'FUNCTION') {
      if (!this.functions.unregister(name) && !statement.ifExists) {
        throw new WeirError('UNKNOWN_FUNCTION', `user-defined function '${name}' does not exist`, { span: statement.name.span });
      }
      return ok('Execute statement succeeded.');
    }
    const target = statement.object === 'MATERIALIZED VIEW' ? this.catalog.materializedView(name) : this.catalog.find(name);
    const kind = statement.object === 'TABLE' ? 'table' : statement.object === 'VIEW' ? 'view' : 'materialized-view';
    if (target === undefined || target.kind !== kind) {
      if (statement.object === 'MATERIALIZED VIEW') this.catalog.dropMaterializedView(name, { ifExists: statement.ifExists, span: statement.name.span });
      else this.catalog.drop(kind === 'table' ? 'table' : 'view', name, { ifExists: statement.ifExists, span: statement.name.span });
      return ok('Execute statement succeeded.');
    }
    const dependents = dependentsOf(this.catalog, target.name);
    if (dependents.length > 0 && !statement.cascade) {
      throw new WeirError('INVALID_ARGUMENT', `cannot drop ${statement.object.toLowerCase()} '${target.name}': ${describeDependents(dependents)} ${dependents.length === 1 ? 'depends' : 'depend'} on it`, {
        span: statement.name.span,
        hint: `DROP ${statement.object} ${target.name} CASCADE drops ${dependents.length === 1 ? 'it' : 'them'} too`,
      });
    }
    for (const dependent of dependents.filter((d) => d.kind === 'view')) {
      this.catalog.drop('view', dependent.name, { ifExists: true });
      this.store?.remove('view', dependent.name);
    }
    const views = [...dependents.filter((d) => d.kind === 'materialized-view').map((d) => d.name), ...(target.kind === 'materialized-view' ? [target.name] : [])];
    const messages = await this.materialized.drop(views);
    for (const view of views) this.store?.remove('materialized-view', view);
    if (target.kind !== 'materialized-view') {
      this.catalog.drop(target.kind, target.name, { ifExists: statement.ifExists, span: statement.name.span });
      if (target.kind === 'table') dropWritableTable(target);
    }
    const cascaded = dependents.length === 0 ? '' : ` Dropped with it: ${describeDependents(dependents)}.`;
    return ok(`${target.kind === 'materialized-view' ? messages[messages.length - 1]! : 'Execute statement succeeded.'}${cascaded}`);
  }

  /**
   * The rows of an UPDATE's or DELETE's table that its WHERE selects, when the WHERE has subqueries:
   * `SELECT * FROM target WHERE ...` run to its end in batch mode over the tables' current rows
   * (the changes of its result applied as a multiset). Undefined for a WHERE without subqueries.
   */
  private async rowsMatching(statement: UpdateStatement | DeleteStatement): Promise<Row[] | undefined> {
    const query = matchingRowsQuery(statement);
    if (query === undefined) return undefined;
    const rows = new Map<Key, Row[]>();
    const all = (row: Row): Key => keySelector(row.map((_: unknown, i: number) => i))(row);
    const writer: SinkWriter = {
      open: async () => {},
      write: (batch) => {
        for (let i = 0; i < batch.size; i++) {
          const row = batch.rows[i]!;
          const kind = batch.kinds[i]!;
          const list = rows.get(all(row)) ?? [];
          if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) list.push(row);
          else list.pop();
          if (list.length === 0) rows.delete(all(row));
          else rows.set(all(row), list);
        }
      },
      flush: async () => {},
      close: async () => {},
    };
    const previous = this.config.get('execution.runtime-mode') ?? 'streaming';
    this.config.set('execution.runtime-mode', 'batch');
    try {
      const job = await this.subscribe({ statement: { kind: 'query', query, span: statement.span }, text: '', span: statement.span }, () => writer, { listed: false });
      if ((await job.result()) === 'FAILED') throw job.error;
    } finally {
      this.config.set('execution.runtime-mode', previous);
    }
    return [...rows.values()].flat();
  }

  /**
   * A SELECT that reads only materialized views runs in the Postgres database holding them, as
   * written (each view named after its table, see view-read-statement.ts): their committed rows.
   * Undefined when the SELECT reads anything else (weir runs it as a job, over the views'
   * definitions).
   */
  async readMaterializedViews(text: string, span?: SourceSpan): Promise<ExternalResult | undefined> {
    const references = postgresTablesRead(text);
    if (references === undefined || references.length === 0) return undefined;
    const views = references.map((r) => (r.schema === undefined || r.schema === 'public' ? this.catalog.materializedView(r.table) : undefined));
    const first = views.find((v) => v !== undefined);
    // A query that reads other relations too runs in weir, over the views' definitions.
    if (first === undefined || views.some((v) => v === undefined)) return undefined;
    const databases = new Set(views.map((v) => v!.options.get('url') ?? ''));
    if (databases.size > 1) throw new WeirError('UNSUPPORTED', 'this query reads materialized views of different databases', { span });
    const tables = this.connectorsByName.get(first.options.get('connector') ?? '')?.tables;
    if (tables === undefined) throw new WeirError('INTERNAL_ERROR', `materialized view '${first.name}' has no readable connector`);
    const statement = viewReadStatement(withFlinkNullOrder(text), references.map((r, i) => ({ reference: r.table, view: views[i]! })));
    return tables.query(Object.fromEntries(first.options), statement);
  }

  /**
   * A SELECT that reads only system tables (`weir.jobs`, ...) runs to its end over a snapshot of
   * the jobs, with its outer ORDER BY / LIMIT applied to the result; undefined for other statements.
   */
  readSystemTables(parsed: ParsedStatement): Promise<ExternalResult | undefined> {
    return querySystemTables(parsed, {
      bind: (query) => bindQuery(query, new BinderContext(this.catalog, this.functions, undefined, undefined, undefined, this.config.timeZone())),
      run: (statement, createWriter) => this.subscribe(statement, createWriter, { listed: false }),
    });
  }

  private explain(statement: Statement, binder: BinderContext): string {
    const roots = this.logicalRoots(statement, binder);
    const options = this.plannerOptions();
    const plan = explainPlanned(planPhysical(roots, options), options);
    if (statement.kind !== 'create-materialized-view' || withoutOrder(statement.query) === statement.query) return plan;
    return `${plan}\n\nThe query's ORDER BY without LIMIT is ignored: a materialized view is a table, which has no order.`;
  }

  private logicalRoots(statement: Statement, binder: BinderContext): LogicalNode[] {
    switch (statement.kind) {
      case 'insert':
        return [bindInsert(statement, binder)];
      case 'statement-set':
        return statement.inserts.map((i) => bindInsert(i, binder));
      case 'query':
        return [bindQuery(statement.query, binder).plan];
      case 'create-materialized-view': {
        const name = objectName(statement.name.parts, statement.name.span);
        return [bindMaterializedView(statement, name, binder, (query) => materializedViewKeying(query, this.plannerOptions()))];
      }
      default:
        throw new WeirError('UNSUPPORTED', `EXPLAIN supports INSERT, statement sets and queries, not ${statement.kind.replace(/-/g, ' ').toUpperCase()}`, { span: statement.span });
    }
  }

  /** A bare SELECT runs as a job printing its changelog, as the print connector does. */
  private printSink(query: Query, binder: BinderContext): LogicalNode {
    return querySink(query, binder, 'print', {});
  }

  /**
   * Runs one query as a job whose changes go to writers made by `createWriter` (one per sink
   * subtask, given the sink's spec with the query's schema; the programmatic API's
   * subscriptions); resolves with the job once it runs.
   */
  async subscribe(sql: string | ParsedStatement, createWriter: (spec: SinkSpec) => SinkWriter, options: { listed?: boolean } = {}): Promise<JobHandle> {
    const parsed = typeof sql === 'string' ? parseScript(sql) : [sql];
    const only = parsed[0];
    if (parsed.length !== 1 || only === undefined || only.statement.kind !== 'query') {
      throw new WeirError('INVALID_ARGUMENT', 'subscribe takes exactly one SELECT statement', { span: only?.span });
    }
    const id = randomBytes(6).toString('hex');
    this.subscriptionWriters.set(id, createWriter);
    try {
      const sink = querySink(only.statement.query, new BinderContext(this.catalog, this.functions, undefined, undefined, undefined, this.config.timeZone()), SUBSCRIPTION_CONNECTOR, { [SUBSCRIPTION_ID]: id });
      // Its changes reach the consumer as they come, so it is never restarted: a replay would repeat them.
      const result = await this.startJob([sink], this.config.get('pipeline.name') || 'subscription', only.text, { restartable: false, ...(options.listed === false ? { listed: false } : {}) });
      if (result.kind !== 'job') throw new WeirError('INTERNAL_ERROR', 'a subscription did not start a job');
      return result.job;
    } finally {
      this.subscriptionWriters.delete(id);
    }
  }

  private plannerOptions(): PlannerOptions {
    return {
      parallelism: this.config.getInt('parallelism.default'),
      functions: this.functions,
      disabledRules: this.config.disabledRules(),
      maxPasses: this.config.getInt('table.optimizer.max-passes'),
      // The test suite sets it, so that a rule that never converges fails the tests that meet it.
      requireFixpoint: process.env['WEIR_REQUIRE_OPTIMIZER_FIXPOINT'] === '1',
      stateTtlMillis: parseDuration(this.config.get('table.exec.state.ttl')!, 'table.exec.state.ttl'),
      sourceIdleTimeoutMillis: parseDuration(this.config.get('table.exec.source.idle-timeout')!, 'table.exec.source.idle-timeout'),
      reuseSources: this.config.getBoolean('table.optimizer.reuse-source-enabled'),
      reuseSubplans: this.config.getBoolean('table.optimizer.reuse-sub-plan-enabled'),
      requireOnConflict: this.config.getBoolean('table.exec.sink.require-on-conflict'),
      timeZone: this.config.timeZone(),
    };
  }

  private jobName(inserts: readonly InsertStatement[]): string {
    const configured = this.config.get('pipeline.name');
    if (configured) return configured;
    return inserts.map((i) => `insert-into_${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${i.target.parts[i.target.parts.length - 1]!.name}`).join(',');
  }

  private async startJob(
    sinks: readonly LogicalNode[],
    name: string,
    text: string,
    identity: { key?: string; defaultInterval?: string; listed?: boolean; restartable?: boolean } = {},
  ): Promise<StatementResult> {
    const options = this.plannerOptions();
    const graph = buildJobGraph(planPhysical(sinks, options), name, options);
    return this.runGraph(graph, sinks, identity.key ?? this.jobKey(name, text), identity.defaultInterval, identity.listed, identity.restartable);
  }

  /**
   * Runs a job graph planned from `sinks` under `key` (its checkpoints, its sinks' transactions),
   * resuming from its latest checkpoint. A job whose latest checkpoint is a final one is reported
   * finished: restored from it, every subtask starts finished (it reads and emits nothing) and the
   * sinks only complete the commits it left; a changed query is reported finished without running
   * (that checkpoint holds no keyed state to start another query from). A graph of parts (the
   * materialized views) runs even when its latest checkpoint is a final one: its new parts have not
   * run yet, its finished parts start finished. A job reading only
   * system tables, or writing only to subscriptions (`engine.query`/`subscribe`: each call is a new
   * query, which must never resume an earlier call's checkpoint), takes no checkpoints; one not
   * `listed` stays out of SHOW JOBS and `weir.jobs`. A failed job restarts under
   * `restart-strategy.type`, unless it is not `restartable`.
   */
  private async runGraph(planned: JobGraph, sinks: readonly LogicalNode[], key: string, defaultInterval?: string, listed = true, restartable = true): Promise<StatementResult> {
    const name = planned.name;
    const graph = withJobIdentity(planned, key, this.config.get('execution.runtime-mode') === 'batch');
    const subscriptionsOnly = sinks.every((sink) => sink.kind === 'sink' && sink.target.connector === SUBSCRIPTION_CONNECTOR);
    const checkpointing = readsOnlySystemTables(sinks) || subscriptionsOnly ? undefined : await this.checkpointing(key, defaultInterval);
    if (checkpointing?.config.mode === 'EXACTLY_ONCE') requireReplayableSources(sinks);
    const finished = checkpointing?.restoreFrom?.metadata.finished === true && !graph.nodes.some((n) => n.part !== undefined);
    if (finished && checkpointing!.restoreFrom!.metadata.graphFingerprint !== graphFingerprint(graph)) return alreadyFinished(name, checkpointing!.restoreFrom!);
    const services: JobServices = {
      compiler: new ExprCompiler(this.functions),
      connectors: this.connectors,
      maxParallelism: this.config.getInt('pipeline.max-parallelism'),
      ...(checkpointing === undefined ? {} : { checkpointing }),
      ...(this.stateClock === undefined ? {} : { stateClock: this.stateClock }),
      stateBackend: this.stateBackendSettings(),
      warn: this.onWarning,
    };
    const restart = restartable ? restartStrategyOf(this.config, checkpointing !== undefined) : ({ type: 'none' } as const);
    const execution = new JobSupervisor(graph, services, restart);
    const job = new JobHandle(randomBytes(4).toString('hex'), name, execution, checkpointing?.restoreFrom);
    await execution.start();
    if (finished) {
      // Restored from its final checkpoint, the job reads nothing more; it only finishes the
      // commits that checkpoint left (a crash may have come between its metadata and its commits).
      if ((await job.result()) === 'FAILED') throw job.error;
      return alreadyFinished(name, checkpointing!.restoreFrom!);
    }
    if (listed) this.jobList.push(job);
    return { kind: 'job', job };
  }

  /**
   * Adds part `part` of `graph` (planned from `sinks`; the running graph of `job`, key `key`, plus
   * that part) to `job` while it runs (see JobExecution.addPart). Resolves false, changing
   * nothing, when the job cannot take a part now.
   */
  private async addPart(job: JobHandle, planned: JobGraph, part: string, sinks: readonly LogicalNode[], key: string): Promise<boolean> {
    if (this.config.get('execution.checkpointing.mode')!.trim().toUpperCase() === 'EXACTLY_ONCE') requireReplayableSources(sinks);
    return job.addPart(withJobIdentity(planned, key, this.config.get('execution.runtime-mode') === 'batch'), part);
  }

  /**
   * The settings a job is started under, beyond its plan (checkpointing, state, restarts, runtime
   * mode, pipeline.*): a job started under others runs under those, so a part is added to it only
   * while these are the same.
   */
  private jobSettings(): string {
    return JSON.stringify(this.config.entries().filter(([key]) => /^(execution|state|restart-strategy|pipeline)\./.test(key)));
  }

  /** The keyed state backend of the next job (`state.backend.type` and the disk backend's keys). */
  private stateBackendSettings(): StateBackendSettings {
    const kind = STATE_BACKEND_TYPES[this.config.get('state.backend.type')!.trim().toLowerCase()]!;
    if (kind === 'hashmap') return { kind };
    const localDir = this.config.get('state.backend.rocksdb.localdir')!.trim();
    return { kind, cacheEntries: this.config.getInt('state.backend.lmdb.cache-entries'), ...(localDir === '' ? {} : { localDir: resolve(localDir) }) };
  }

  /**
   * What identifies a job across restarts (its checkpoint folder, the transactions its sinks
   * leave in external systems): `pipeline.name`, or the job's name and a hash of its statement.
   */
  private jobKey(name: string, text: string): string {
    return this.config.get('pipeline.name') || `${name}-${createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 8)}`;
  }

  /**
   * Checkpointing for a job, when `execution.checkpointing.interval` (or a savepoint path) is
   * set: storage in the job's folder, and the checkpoint to resume from
   * (`execution.savepoint.path`, else the job's latest).
   */
  private async checkpointing(key: string, defaultInterval = ''): Promise<JobCheckpointing | undefined> {
    const interval = this.config.get('execution.checkpointing.interval') || defaultInterval;
    const savepointPath = this.config.get('execution.savepoint.path') ?? '';
    if (interval.trim() === '' && savepointPath.trim() === '') return undefined;
    const storage = new FileCheckpointStorage(resolve(this.config.get('state.checkpoints.dir')!), key);
    if (this.fresh) await storage.clear();
    let restoreFrom: CompletedCheckpoint | undefined;
    if (savepointPath.trim() !== '') restoreFrom = await loadCompletedCheckpoint(resolve(savepointPath));
    else if (!this.fresh) restoreFrom = await storage.latest();
    const config: CheckpointConfig = {
      interval: interval.trim() === '' ? undefined : parseDuration(interval, 'execution.checkpointing.interval'),
      mode: this.config.get('execution.checkpointing.mode')!.trim().toUpperCase() as CheckpointConfig['mode'],
      timeout: parseDuration(this.config.get('execution.checkpointing.timeout')!, 'execution.checkpointing.timeout'),
      tolerableFailures: this.config.getInt('execution.checkpointing.tolerable-failed-checkpoints'),
      retained: this.config.getInt('state.checkpoints.num-retained'),
      incremental: this.config.getBoolean('execution.checkpointing.incremental'),
    };
    return { jobKey: key, config, storage, ...(restoreFrom === undefined ? {} : { restoreFrom }) };
  }

  /**
   * FLUSH: a checkpoint of every running job that takes checkpoints, returning once each is complete
   * and its sinks have committed it — so that whatever was written before is visible downstream.
   * First the readers of writable tables, in every running job, read what was written to them
   * before: a job without checkpoints has then written it into a writable table (its writes are
   * visible at once), and the checkpoints' barriers follow those changes however many polls they take.
   * A job can write into a writable table another job reads (INSERT INTO t2 SELECT ... FROM t1, and
   * a view over t2) while FLUSH runs, after the reader's checkpoint barrier, so FLUSH goes round
   * again while a round wrote into a table a job reads — at most once per running job (a chain
   * through tables is no longer than that; a job that writes for ever would keep FLUSH going).
   */
  private async flush(): Promise<StatementResult> {
    let running: JobHandle[] = [];
    let paths: string[] = [];
    const rounds = this.jobList.filter((j) => j.status === 'RUNNING').length;
    for (let round = 0, written = -1; round === 0 || (round <= rounds && this.writtenMark() !== written); round++) {
      written = this.writtenMark();
      if (this.jobList.some((j) => j.status === 'RUNNING')) await this.readersCaughtUp();
      running = this.jobList.filter((j) => j.status === 'RUNNING' && j.takesCheckpoints);
      paths = await Promise.all(running.map((j) => j.commitNow(false)));
    }
    return ok(running.length === 0 ? 'No running job takes checkpoints; nothing to flush.' : `Flushed ${running.length} job(s): ${paths.map((p) => p.replace(/^.*\//, '')).join(', ')} committed.`);
  }

  /**
   * Waits until the views' `job` has read what the tables held and committed a checkpoint of it.
   * Fails with the job's failure when the job fails meanwhile (say, the new view divides by zero
   * over a row it read), whether or not the restart strategy restarts it.
   */
  private async initialContents(job: JobHandle): Promise<void> {
    const failuresBefore = job.failures().length;
    const failed = (): unknown => (job.failures().length > failuresBefore ? job.failures().at(-1)!.error : undefined);
    let settled: { readonly error?: unknown } | undefined;
    // The job's failure takes precedence over what it does to the commit (an aborted checkpoint, or one that waits for a restart).
    void (async (): Promise<void> => {
      await this.readersCaughtUp();
      await job.commitNow(false);
    })().then(
      () => (settled = {}),
      (error: unknown) => (settled = { error }),
    );
    while (settled === undefined && failed() === undefined) await new Promise((resolve) => setTimeout(resolve, FAILURE_POLL_MS));
    const failure = failed();
    if (failure !== undefined) throw failure;
    if (settled !== undefined && 'error' in settled) throw settled.error;
  }

  /** What the tables that running jobs read hold (see SourceFactory.writtenMark): a change means a write. */
  private writtenMark(): number {
    return [...this.connectorsByName.values()].reduce((sum, c) => sum + (c.source?.writtenMark?.() ?? 0), 0);
  }

  /** Waits (at most the checkpoint timeout) until every connector's open readers have read what was written before. */
  private async readersCaughtUp(): Promise<void> {
    const timeout = this.config.get('execution.checkpointing.timeout')!;
    const signal = AbortSignal.timeout(parseDuration(timeout, 'execution.checkpointing.timeout'));
    const waits = [...this.connectorsByName.values()].flatMap((c) => (c.source?.caughtUp === undefined ? [] : [c.source.caughtUp(signal)]));
    if ((await Promise.all(waits)).includes(false)) throw new WeirError('CHECKPOINT_ERROR', `FLUSH waited ${timeout} for running jobs to read what was written to their tables, and they did not`);
  }

  private async stopJob(statement: Extract<Statement, { kind: 'stop-job' }>): Promise<StatementResult> {
    const job = this.jobList.find((j) => j.id === statement.jobId);
    if (job === undefined) {
      throw new WeirError('INVALID_ARGUMENT', `no job with id '${statement.jobId}'`, { span: statement.span, hint: 'SHOW JOBS lists the jobs of this session' });
    }
    if (!statement.withSavepoint) {
      await job.cancel();
      return ok(`Job '${job.id}' stopped.`);
    }
    const path = await job.stopWithSavepoint();
    return ok(`Job '${job.id}' stopped with savepoint ${path}`);
  }
}

/** How often CREATE MATERIALIZED VIEW, waiting for the view's first commit, looks for a failure of the views' job. */
const FAILURE_POLL_MS = 5;

/** What DROP <object> removes from the store. */
const STORED_KINDS: Partial<Record<Extract<Statement, { kind: 'drop' }>['object'], StoredKind>> = {
  TABLE: 'table',
  VIEW: 'view',
  'MATERIALIZED VIEW': 'materialized-view',
  FUNCTION: 'function',
};

/** The internal connector of subscriptions, and the option naming the writer. */
const SUBSCRIPTION_CONNECTOR = 'weir-subscription';
const SUBSCRIPTION_ID = 'subscription.id';

/** A query under a sink that takes any changelog. */
function querySink(query: Query, binder: BinderContext, connector: string, options: Record<string, string>): LogicalSink {
  const bound = bindQuery(query, binder);
  return LogicalSink.create({
    input: bound.plan,
    target: { qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.collect`, name: 'collect', connector, options, accepts: 'all', primaryKey: [] },
    columns: bound.schema,
  });
}

/** EXACTLY_ONCE needs every source to replay from its checkpointed offset; one that cannot is refused, never run at-least-once silently. */
function requireReplayableSources(roots: readonly LogicalNode[]): void {
  const visit = (node: LogicalNode): void => {
    if (node.kind === 'scan' && !node.source.replayable) {
      throw new WeirError('PLANNING_ERROR', `source table '${node.source.name}' (connector '${node.source.connector}') cannot replay from a checkpoint, so the job cannot run EXACTLY_ONCE`, {
        hint: "SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE' to accept duplicates after a failure",
      });
    }
    inputsOf(node).forEach(visit);
  };
  roots.forEach(visit);
}

/**
 * Gives every sink the job's identity, which transactional sinks put into their transaction ids;
 * in batch runtime mode, writable tables are read up to their length when the job starts.
 */
function withJobIdentity(graph: JobGraph, key: string, batch: boolean): JobGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const { spec } = node;
      if (spec.kind === 'sink') return { ...node, spec: { ...spec, jobKey: key } };
      if (batch && spec.kind === 'source' && spec.connector === WRITABLE_TABLE_CONNECTOR) return { ...node, spec: { ...spec, options: { ...spec.options, 'scan.bounded': 'true' } } };
      return node;
    }),
  };
}

/** True when every source under `root` ends by itself (an INSERT of VALUES, or from bounded tables). */
function readsOnlyBoundedInput(root: LogicalNode): boolean {
  if (root.kind === 'scan') return root.source.bounded;
  return inputsOf(root).every(readsOnlyBoundedInput);
}

/** The answer to running a job again whose final checkpoint exists. */
function alreadyFinished(name: string, checkpoint: CompletedCheckpoint): StatementResult {
  return ok(`Job '${name}' already finished (its final checkpoint ${checkpoint.metadata.checkpointId} is at ${checkpoint.path}); not run again. Use --fresh to run it from the start.`);
}

function unsupported(message: string): never {
  throw new WeirError('INVALID_ARGUMENT', message);
}
