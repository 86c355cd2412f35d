/**
 * weir's system tables — `weir.jobs`, `weir.operators`, `weir.checkpoints` — as bounded tables of
 * a small internal connector whose reader emits a snapshot of the session's jobs taken when the
 * query starts. They are ordinary tables to the binder and planner, so WHERE, projection,
 * aggregation and joins work on them; the catalog keeps them apart (read-only, not listed by
 * SHOW TABLES, never stored).
 */
import type { ConnectorDescriptor } from '../common/connector-descriptor.js';
import { WeirError } from '../common/errors.js';
import { RowKind } from '../common/row-kind.js';
import type { ChangeBatch, Row } from '../common/row.js';
import type { Field, Schema } from '../common/schema.js';
import { formatType, SqlTypes } from '../common/sql-type.js';
import type { Connector } from '../connectors/api/connector.js';
import type { LogicalNode } from '../plan/logical/logical-node.js';
import { inputsOf } from '../plan/logical/logical-node.js';
import type { PollStatus, SourceContext, SourceReader } from '../runtime/source-reader.js';
import { SYSTEM_DATABASE, type Catalog } from '../sql/catalog/catalog.js';
import type { CatalogTable } from '../sql/catalog/catalog-objects.js';
import type { JobHandle, OperatorMetrics } from './job-handle.js';

/** The internal connector of the system tables. */
export const SYSTEM_CONNECTOR = 'weir-system';

const string = (name: string, nullable = true): Field => ({ name, type: SqlTypes.string(nullable) });
const bigint = (name: string, nullable = true): Field => ({ name, type: SqlTypes.bigint(nullable) });
const double = (name: string): Field => ({ name, type: SqlTypes.double(false) });
const JOB_COLUMNS: Schema = [string('job_id', false), string('job_name', false)];
const WATERMARK_COLUMNS: Schema = [
  { name: 'watermark', type: SqlTypes.timestamp(3) },
  bigint('watermark_lag_ms'),
];

/** The system tables: their columns and what each row is. */
const TABLES = {
  jobs: {
    comment: 'One row per job of the session: status, records, rates, checkpoints, state, restarts.',
    schema: [
      ...JOB_COLUMNS,
      string('status', false),
      { name: 'start_time', type: SqlTypes.timestampLtz(3, false) },
      bigint('uptime_ms', false),
      bigint('records_in', false),
      bigint('records_out', false),
      bigint('records_rejected', false),
      double('records_in_per_second'),
      double('records_out_per_second'),
      double('avg_records_in_per_second'),
      double('avg_records_out_per_second'),
      ...WATERMARK_COLUMNS,
      bigint('state_entries', false),
      bigint('state_bytes'),
      bigint('checkpoints_completed', false),
      bigint('checkpoints_failed', false),
      bigint('last_checkpoint_id'),
      bigint('last_checkpoint_duration_ms'),
      bigint('last_checkpoint_size_bytes'),
      bigint('pending_transactions', false),
      string('error'),
      bigint('restarts', false),
      string('last_failure'),
      { name: 'last_restart_time', type: SqlTypes.timestampLtz(3) },
    ],
  },
  operators: {
    comment: 'One row per operator of every job: records, rates (last 10 s and average), busy time, watermark, state, pending transactions.',
    schema: [
      ...JOB_COLUMNS,
      string('operator_id', false),
      string('kind', false),
      { name: 'parallelism', type: SqlTypes.int(false) },
      bigint('records_in', false),
      bigint('records_out', false),
      bigint('records_rejected', false),
      double('records_in_per_second'),
      double('records_out_per_second'),
      double('avg_records_in_per_second'),
      double('avg_records_out_per_second'),
      bigint('busy_ms', false),
      double('busy_ratio'),
      ...WATERMARK_COLUMNS,
      bigint('state_entries', false),
      bigint('state_bytes'),
      bigint('pending_transactions', false),
    ],
  },
  checkpoints: {
    comment: 'The recent checkpoints and savepoints of every job (the last 100 per job); checkpoint_id is NULL when the trigger failed before an id was reserved.',
    schema: [
      ...JOB_COLUMNS,
      bigint('checkpoint_id'),
      string('kind', false),
      string('status', false),
      { name: 'trigger_time', type: SqlTypes.timestampLtz(3, false) },
      bigint('duration_ms'),
      { name: 'sync_duration_ms', type: SqlTypes.double() },
      bigint('size_bytes'),
      string('failure'),
      { name: 'sync_p50_ms', type: SqlTypes.double() },
      { name: 'sync_p99_ms', type: SqlTypes.double() },
      { name: 'sync_max_ms', type: SqlTypes.double() },
      bigint('state_bytes'),
      { name: 'incremental', type: SqlTypes.boolean() },
    ],
  },
} as const satisfies Record<string, { comment: string; schema: Schema }>;

/** The name of a system table within `weir`. */
export type SystemTableName = keyof typeof TABLES;

/** The rows of a system table for `jobs`, as of now. */
export function systemTableRows(table: SystemTableName, jobs: readonly JobHandle[]): Row[] {
  const now = Date.now();
  switch (table) {
    case 'jobs':
      return jobs.map((job) => jobRow(job, now));
    case 'operators':
      return jobs.flatMap((job) => job.operatorMetrics().map((m) => [job.id, job.name, m.node, m.kind, m.parallelism, ...operatorValues(m, now, uptimeMs(job, now))]));
    case 'checkpoints':
      return jobs.flatMap((job) =>
        job.checkpointHistory().map((c) => [job.id, job.name, c.id ?? null, c.kind, c.status, c.triggeredAt, whole(c.durationMs), c.syncMs ?? null, c.sizeBytes ?? null, c.failure ?? null, c.syncP50Ms ?? null, c.syncP99Ms ?? null, c.syncMaxMs ?? null, c.stateBytes ?? null, c.incremental ?? null]),
      );
  }
}

function jobRow(job: JobHandle, now: number): Row {
  const metrics = job.operatorMetrics();
  const sources = metrics.filter((m) => m.kind === 'source' || m.kind === 'values');
  const sinks = metrics.filter((m) => m.kind === 'sink');
  const sum = (list: readonly OperatorMetrics[], of: (m: OperatorMetrics) => number): number => list.reduce((n, m) => n + of(m), 0);
  const marks = sinks.map((m) => m.watermark).filter((w): w is number => w !== undefined);
  const watermark = marks.length === 0 ? undefined : Math.min(...marks);
  const stateBytes = metrics.some((m) => m.stateBytes !== undefined) ? sum(metrics, (m) => m.stateBytes ?? 0) : null;
  const last = job.lastCheckpoint;
  const stats = job.checkpointStats();
  const error = job.status === 'FAILED' ? (job.error instanceof Error ? job.error.message : String(job.error)) : null;
  const lastFailure = job.failures().at(-1);
  const uptime = uptimeMs(job, now);
  const recordsIn = sum(sources, (m) => m.recordsOut);
  const recordsOut = sum(sinks, (m) => m.recordsIn);
  return [
    job.id,
    job.name,
    job.status,
    job.startedAt.getTime(),
    uptime,
    recordsIn,
    recordsOut,
    sum(metrics, (m) => m.recordsRejected),
    sum(sources, (m) => m.recordsOutPerSecond),
    sum(sinks, (m) => m.recordsInPerSecond),
    perSecond(recordsIn, uptime),
    perSecond(recordsOut, uptime),
    watermark ?? null,
    watermark === undefined ? null : now - watermark,
    sum(metrics, (m) => m.stateEntries),
    stateBytes,
    stats.completed,
    stats.failed,
    last?.id ?? null,
    whole(last?.durationMs),
    last?.sizeBytes ?? null,
    sum(metrics, (m) => m.pendingTransactions),
    error,
    job.restarts,
    lastFailure === undefined ? null : lastFailure.error instanceof Error ? lastFailure.error.message : String(lastFailure.error),
    job.lastRestartAt?.getTime() ?? null,
  ];
}

/** The columns of `weir.operators` after its identifying ones. */
function operatorValues(m: OperatorMetrics, now: number, uptime: number): unknown[] {
  return [
    m.recordsIn,
    m.recordsOut,
    m.recordsRejected,
    m.recordsInPerSecond,
    m.recordsOutPerSecond,
    perSecond(m.recordsIn, uptime),
    perSecond(m.recordsOut, uptime),
    Math.round(m.busyMs),
    m.busyRatio,
    m.watermark ?? null,
    m.watermark === undefined ? null : now - m.watermark,
    m.stateEntries,
    m.stateBytes ?? null,
    m.pendingTransactions,
  ];
}

/** Milliseconds from the job's start to now, or to its end once it has ended. */
function uptimeMs(job: JobHandle, now: number): number {
  return (job.endedAt?.getTime() ?? now) - job.startedAt.getTime();
}

/** A count over the job's whole run per second (Flink's "average" view beside the windowed rate). */
function perSecond(count: number, uptimeMs: number): number {
  return uptimeMs > 0 ? (count * 1000) / uptimeMs : 0;
}

function whole(ms: number | undefined): number | null {
  return ms === undefined ? null : Math.round(ms);
}

/** Reads one system table: subtask 0 emits the snapshot taken when it opens, the others nothing. */
class SystemTableReader implements SourceReader {
  private rows: Row[] = [];
  private next = 0;

  constructor(
    private readonly table: SystemTableName,
    private readonly jobs: () => readonly JobHandle[],
  ) {}

  async open(context: SourceContext): Promise<void> {
    this.rows = context.subtask === 0 ? systemTableRows(this.table, this.jobs()) : [];
  }

  poll(output: ChangeBatch, maxRecords: number): PollStatus {
    const end = Math.min(this.rows.length, this.next + maxRecords);
    for (; this.next < end; this.next++) output.push(RowKind.INSERT, this.rows[this.next]!);
    return this.next === this.rows.length ? 'end' : 'more';
  }

  currentOffset(): number {
    return this.next;
  }

  progress(): { done: number; total: number } {
    return { done: this.next, total: this.rows.length };
  }

  async close(): Promise<void> {}
}

const descriptor: ConnectorDescriptor = {
  name: SYSTEM_CONNECTOR,
  description: "weir's system tables (a snapshot of the session's jobs).",
  options: [{ key: 'table', required: true, description: 'The system table.', values: Object.keys(TABLES) }],
  source: { changelog: 'insert-only', traits: () => ({ bounded: true, replayable: false }) },
};

/** The connector reading the system tables of the session whose jobs `jobs` lists. */
export function systemConnector(jobs: () => readonly JobHandle[]): Connector {
  return {
    descriptor,
    source: {
      createReader: (spec) => {
        const table = spec.options['table'];
        if (table === undefined || !(table in TABLES)) throw new WeirError('INTERNAL_ERROR', `no system table '${String(table)}'`);
        return new SystemTableReader(table as SystemTableName, jobs);
      },
    },
  };
}

/** Adds `weir.jobs`, `weir.operators` and `weir.checkpoints` to the catalog. */
export function registerSystemTables(catalog: Catalog): void {
  for (const [table, { comment, schema }] of Object.entries(TABLES)) {
    const name = `${SYSTEM_DATABASE}.${table}`;
    const columns = schema.map((f) => `  ${f.name} ${formatType(f.type)}`).join(',\n');
    catalog.addSystemTable({
      kind: 'table',
      name,
      temporary: false,
      columns: schema.map((f) => ({ kind: 'physical', name: f.name, type: f.type })),
      primaryKey: [],
      partitionedBy: [],
      options: new Map([
        ['connector', SYSTEM_CONNECTOR],
        ['table', table],
      ]),
      connector: descriptor,
      traits: { bounded: true, replayable: false },
      comment,
      ddl: `CREATE TABLE ${name} (\n${columns}\n) COMMENT '${comment}' WITH ('connector' = '${SYSTEM_CONNECTOR}', 'table' = '${table}')`,
    } satisfies CatalogTable);
  }
}

/** True when every table the plans read is a system table (such a job takes no checkpoints: its input is a snapshot). */
export function readsOnlySystemTables(roots: readonly LogicalNode[]): boolean {
  let scans = 0;
  const visit = (node: LogicalNode): boolean => {
    if (node.kind === 'scan') {
      scans++;
      return node.source.connector === SYSTEM_CONNECTOR;
    }
    return inputsOf(node).every(visit);
  };
  return roots.every(visit) && scans > 0;
}
