/**
 * The materialized views of a session and the one job that maintains them. Each view is a
 * Postgres table kept equal to its query, exactly once, keyed by the query's unique key; all views
 * run as ONE job (each view a part of its graph), so that their exactly-once sinks into one
 * database commit each checkpoint in one transaction: a reader never sees one view a checkpoint
 * ahead of another. Adding or dropping a view stops that job with a savepoint and starts it again
 * over the views defined then; every unchanged view resumes from the savepoint.
 */
import { randomBytes } from 'node:crypto';
import type { ExternalTables } from '../connectors/api/connector.js';
import { unionJobGraphs, type JobGraph } from '../dataflow/job-graph.js';
import type { LogicalNode, LogicalSink } from '../plan/logical/logical-node.js';
import { buildJobGraph, materializedViewKeying, planPhysical, type PlannerOptions } from '../plan/planner.js';
import { bindMaterializedView, KEEP_TABLE_OPTION } from '../sql/bind/bind-materialized-view.js';
import { objectName } from '../sql/bind/bind-query.js';
import type { BinderContext } from '../sql/bind/binder-context.js';
import type { Catalog } from '../sql/catalog/catalog.js';
import type { Statement } from '../sql/parse/ast.js';
import type { JobHandle } from './job-handle.js';
import { ok, type StatementResult } from './statement-result.js';

/** The key of the job of the materialized views: its checkpoints, and the job of its sinks' transactions. */
export const MATERIALIZED_VIEWS_JOB = 'materialized-views';

/** The statement creating a materialized view. */
export type CreateMaterializedViewStatement = Extract<Statement, { kind: 'create-materialized-view' }>;

/** What the views need from their session. */
export interface MaterializedViewHost {
  readonly catalog: Catalog;
  plannerOptions(): PlannerOptions;
  /** Runs a graph planned from `sinks` as job `key`, checkpointing every `defaultInterval` unless the session says otherwise. */
  runGraph(graph: JobGraph, sinks: readonly LogicalNode[], key: string, defaultInterval: string): Promise<StatementResult>;
  /** The readable and droppable tables of a connector, if it has them. */
  tablesOf(connector: string): ExternalTables | undefined;
  warn(message: string): void;
}

/** The views of one session: their sinks, the part of the views' job each is, and that job. */
export class MaterializedViews {
  /** Each view's plan, job-graph part and the session zone it was created in (it keeps computing in that zone). */
  private readonly views = new Map<string, { readonly sink: LogicalSink; readonly instance: string; readonly timeZone: string | undefined }>();
  private running: JobHandle | undefined;

  constructor(private readonly host: MaterializedViewHost) {}

  /** The job maintaining every view, while it runs. */
  get job(): JobHandle | undefined {
    return this.running;
  }

  /** The names of the views, in creation order. */
  names(): string[] {
    return [...this.views.keys()];
  }

  /** The part of the views' job that view `name` is (kept in the catalog store, so that a view created again never resumes a dropped one's state). */
  instanceOf(name: string): string | undefined {
    return this.views.get(name)?.instance;
  }

  /**
   * CREATE MATERIALIZED VIEW: defines the view and, with `run`, restarts the views' job with it.
   * A view that cannot start is removed again and the other views start without it. The job
   * always takes checkpoints (every second unless `execution.checkpointing.interval` says
   * otherwise), since its sinks commit with them.
   */
  async create(statement: CreateMaterializedViewStatement, text: string, binder: BinderContext, run = true, instance?: string): Promise<StatementResult> {
    const { catalog } = this.host;
    const name = objectName(statement.name.parts, statement.name.span);
    if (statement.ifNotExists && catalog.materializedView(name) !== undefined) return ok('Execute statement succeeded.');
    catalog.checkFree(name, statement.name.span);
    const sink = bindMaterializedView(statement, name, binder, (query) => materializedViewKeying(query, this.host.plannerOptions()));
    const view = {
      kind: 'materialized-view' as const,
      name,
      queryText: statement.queryText,
      schema: sink.schema,
      primaryKey: sink.target.primaryKey,
      multiset: sink.target.multiset === true,
      options: new Map(Object.entries(sink.target.options)),
      ddl: text,
      jobKey: MATERIALIZED_VIEWS_JOB,
      keepTableOnDrop: statement.options.some((o) => o.key === KEEP_TABLE_OPTION && o.value === 'true'),
      instance: instance ?? `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-${randomBytes(4).toString('hex')}`,
    };
    this.views.set(name, { sink, instance: view.instance, timeZone: this.host.plannerOptions().timeZone });
    catalog.addMaterializedView(view, statement.name.span);
    if (!run) return ok(`Materialized view '${name}' defined; it is not maintained by this process.`);
    let failure: unknown;
    try {
      const result = await this.restart();
      if (result.kind !== 'job' || result.job.status !== 'FAILED') return result;
      failure = result.job.error;
    } catch (error) {
      failure = error;
    }
    // The new view could not start (say, its database is unreachable): the views that ran before
    // must not stay down with it, so they start again without it.
    this.views.delete(name);
    catalog.dropMaterializedView(name, { ifExists: true });
    if (this.views.size > 0) {
      await this.restart().catch((error: unknown) => this.host.warn(`the other materialized views did not start again: ${error instanceof Error ? error.message : String(error)}`));
    }
    throw failure;
  }

  /**
   * Stops the views' job with a savepoint (when it runs) and starts it again over the views
   * defined now; each unchanged view resumes from the savepoint.
   */
  async restart(): Promise<StatementResult> {
    const previous = this.running;
    this.running = undefined;
    if (previous?.status === 'RUNNING') await previous.commitNow(true);
    else if (previous?.status === 'RESTARTING') await previous.cancel(); // the new job starts from its latest checkpoint
    if (this.views.size === 0) return ok('No materialized view is left to maintain.');
    const options = this.host.plannerOptions();
    const views = [...this.views.values()];
    const parts = views.map(({ sink, instance, timeZone }) => {
      const own = timeZone === undefined ? options : { ...options, timeZone };
      return { part: instance, graph: buildJobGraph(planPhysical([sink], own), instance, own) };
    });
    const graph = unionJobGraphs(`materialized views (${this.names().join(', ')})`, parts);
    const result = await this.host.runGraph(graph, views.map((v) => v.sink), MATERIALIZED_VIEWS_JOB, '1 s');
    if (result.kind === 'job') this.running = result.job;
    return result;
  }

  /**
   * DROP MATERIALIZED VIEW of the views `names` (existing ones; a dependent before what it reads):
   * stops the views' job with a final checkpoint (so nothing is left prepared), drops each view's
   * table in Postgres (unless the view was created with `'keep-table-on-drop' = 'true'`), and
   * starts the job again over the remaining views. Returns what happened to each table.
   */
  async drop(names: readonly string[]): Promise<string[]> {
    const { catalog } = this.host;
    const views = names.map((name) => catalog.materializedView(name)).filter((v) => v !== undefined);
    if (views.length === 0) return [];
    const running = this.running?.status === 'RUNNING' || this.running?.status === 'RESTARTING';
    if (this.running?.status === 'RUNNING') await this.running.commitNow(true);
    else if (running) await this.running!.cancel(); // the job starts again from its latest checkpoint
    const messages: string[] = [];
    try {
      for (const view of views) {
        this.views.delete(view.name);
        catalog.dropMaterializedView(view.name, { ifExists: true });
        const table = view.options.get('table-name') ?? view.name;
        if (view.keepTableOnDrop) {
          messages.push(`Materialized view '${view.name}' dropped; its table '${table}' stays in Postgres.`);
          continue;
        }
        try {
          await this.host.tablesOf(view.options.get('connector') ?? '')?.drop(Object.fromEntries(view.options), view.name, view.jobKey);
          messages.push(`Materialized view '${view.name}' dropped, and its table '${table}' with it.`);
        } catch (error) {
          // The view is gone either way; its table stays, and the user is told why.
          const reason = error instanceof Error ? error.message : String(error);
          this.host.warn(`materialized view '${view.name}' was dropped, but its table '${table}' could not be: ${reason}`);
          messages.push(`Materialized view '${view.name}' dropped; its table '${table}' could not be dropped and stays in Postgres: ${reason}`);
        }
      }
    } finally {
      // The other views run again whatever happened to the dropped ones' tables.
      if (running) await this.restart();
    }
    return messages;
  }
}

