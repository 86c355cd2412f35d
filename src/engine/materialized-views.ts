/**
 * The materialized views of a session and the one job that maintains them. Each view is a
 * Postgres table kept equal to its query, exactly once, keyed by the query's unique key; all views
 * run as ONE job (each view a part of its graph), so that their exactly-once sinks into one
 * database commit each checkpoint in one transaction: a reader never sees one view a checkpoint
 * ahead of another. A new view is added to the running job at a checkpoint boundary, and a dropped
 * one removed at one (the other views never stop, and only a new view is planned); when the job
 * cannot change so (it is not running, or runs under other job settings), it is stopped with a
 * savepoint and started again over the views defined then, every unchanged view resuming from the
 * savepoint. Each view's part of the job graph is planned once, under the planner options of the
 * session when it first runs, and kept: a view computes as it was planned, whatever the session
 * sets later.
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
  /** Adds part `part` of `graph` (the running graph of `job` plus that part, planned from `sinks`) to `job` while it runs; false when the job cannot take it now. */
  addPart(job: JobHandle, graph: JobGraph, part: string, sinks: readonly LogicalNode[], key: string): Promise<boolean>;
  /** Removes the parts `parts` from `job` while it runs, leaving `graph`; false when the job cannot change now. */
  removeParts(job: JobHandle, graph: JobGraph, parts: ReadonlySet<string>, key: string): Promise<boolean>;
  /** The session's settings a job runs under beyond its plan; a part is added only to a job started under the same. */
  jobSettings(): string;
  /**
   * Returns once the views' job has read what the tables it reads held and committed a checkpoint
   * of it — the new view's table then holds its query's answer over them (unless the session asks
   * for background creation); throws when that fails.
   */
  initialContents(job: JobHandle): Promise<void>;
  /** The readable and droppable tables of a connector, if it has them. */
  tablesOf(connector: string): ExternalTables | undefined;
  warn(message: string): void;
}

/** The views of one session: their sinks, the part of the views' job each is, and that job. */
export class MaterializedViews {
  /**
   * Each view's plan, job-graph part (its name, and its graph once planned) and the session zone
   * it was created in (it keeps computing in that zone).
   */
  private readonly views = new Map<string, { readonly sink: LogicalSink; readonly instance: string; readonly timeZone: string | undefined; graph?: JobGraph }>();
  private running: JobHandle | undefined;
  /** The job settings ({@link MaterializedViewHost.jobSettings}) the running job was started under. */
  private runningSettings = '';

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
   * CREATE MATERIALIZED VIEW: defines the view and, with `run`, adds it to the running views' job
   * (or, when that job cannot take it, restarts the job with it), and returns once the view's table
   * holds its query's answer over what its tables held (see
   * {@link MaterializedViewHost.initialContents}), as RisingWave's CREATE returns after its
   * backfill. A view that cannot start, or fails before that, is removed again; the other views
   * run on without it (started again, if they were stopped). The job always takes checkpoints
   * (every second unless `execution.checkpointing.interval` says otherwise), since its sinks
   * commit with them.
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
    let started = false;
    try {
      const result = (await this.addToRunning(name)) ?? (await this.restart());
      if (result.kind !== 'job') return result;
      if (result.job.status === 'FAILED') {
        failure = result.job.error;
      } else {
        started = true;
        await this.host.initialContents(result.job);
        return result;
      }
    } catch (error) {
      failure = error;
    }
    // The new view could not start (say, its database is unreachable) or failed before it held its
    // query's answer: the views that ran before must not stay down with it, nor run with its part,
    // so they start again without it.
    this.views.delete(name);
    catalog.dropMaterializedView(name, { ifExists: true });
    if ((this.views.size > 0 && this.running?.status !== 'RUNNING') || (started && this.running !== undefined)) {
      await this.restart().catch((error: unknown) => this.host.warn(`the other materialized views did not start again: ${error instanceof Error ? error.message : String(error)}`));
    }
    throw failure;
  }

  /**
   * Adds view `name` (defined, not running yet) to the running views' job as a new part, at a
   * checkpoint boundary: only it is planned and opened, the others go on. Undefined when the job
   * cannot take it (none runs, it is ending or restarting, or the session's job settings changed
   * since it started): then the caller restarts the job. Throws when the view cannot start; the
   * running job is left as it was.
   */
  private async addToRunning(name: string): Promise<StatementResult | undefined> {
    const job = this.running;
    if (job?.status !== 'RUNNING' || this.runningSettings !== this.host.jobSettings()) return undefined;
    const view = this.views.get(name)!;
    const graph = unionJobGraphs(this.jobName(), this.parts());
    if (!(await this.host.addPart(job, graph, view.instance, [view.sink], MATERIALIZED_VIEWS_JOB))) return undefined;
    return { kind: 'job', job };
  }

  /**
   * Removes the parts of views `names` from the running views' job at a checkpoint boundary; false
   * when it cannot (see {@link addToRunning}), or no view would be left (the caller stops the job).
   */
  private async removeFromRunning(names: readonly string[]): Promise<boolean> {
    const job = this.running;
    if (job?.status !== 'RUNNING' || this.runningSettings !== this.host.jobSettings()) return false;
    const dropped = new Set(names);
    const remaining = [...this.views.keys()].filter((name) => !dropped.has(name));
    if (remaining.length === 0) return false;
    const instances = new Set(names.flatMap((name) => this.views.get(name)?.instance ?? []));
    const graph = unionJobGraphs(`materialized views (${remaining.join(', ')})`, this.parts().filter((p) => !instances.has(p.part)));
    return this.host.removeParts(job, graph, instances, MATERIALIZED_VIEWS_JOB);
  }

  /** Each view's part of the job graph, planned when first asked for (see the module comment). */
  private parts(): { part: string; graph: JobGraph }[] {
    return [...this.views.values()].map((view) => {
      if (view.graph === undefined) {
        const options = this.host.plannerOptions();
        const own = view.timeZone === undefined ? options : { ...options, timeZone: view.timeZone };
        view.graph = buildJobGraph(planPhysical([view.sink], own), view.instance, own);
      }
      return { part: view.instance, graph: view.graph };
    });
  }

  /** The name of the views' job: every view it maintains. */
  private jobName(): string {
    return `materialized views (${this.names().join(', ')})`;
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
    const graph = unionJobGraphs(this.jobName(), this.parts());
    const settings = this.host.jobSettings();
    const result = await this.host.runGraph(graph, [...this.views.values()].map((v) => v.sink), MATERIALIZED_VIEWS_JOB, '1 s');
    if (result.kind === 'job') {
      this.running = result.job;
      this.runningSettings = settings;
    }
    return result;
  }

  /**
   * DROP MATERIALIZED VIEW of the views `names` (existing ones; a dependent before what it reads):
   * removes their parts from the running views' job at a checkpoint boundary (everything up to it
   * committed, nothing left prepared) — or, when the job cannot change so, stops it with a final
   * checkpoint and starts it again over the remaining views afterwards — and drops each view's
   * table in Postgres (unless the view was created with `'keep-table-on-drop' = 'true'`). Returns
   * what happened to each table.
   */
  async drop(names: readonly string[]): Promise<string[]> {
    const { catalog } = this.host;
    const views = names.map((name) => catalog.materializedView(name)).filter((v) => v !== undefined);
    if (views.length === 0) return [];
    let running = this.running?.status === 'RUNNING' || this.running?.status === 'RESTARTING';
    if (running && (await this.removeFromRunning(views.map((v) => v.name)))) running = false;
    else if (this.running?.status === 'RUNNING') await this.running.commitNow(true);
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

