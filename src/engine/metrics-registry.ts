/**
 * The session's metrics in Prometheus text format (prom-client, on its own Registry, never the
 * global one). Values are read from the jobs when scraped — counters are set to the jobs' own
 * totals — so nothing is counted twice and nothing runs between scrapes. Labels: `job` (the job
 * id), `job_name`, and `operator` (the operator id in the job graph).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobHandle } from './job-handle.js';

const JOB_LABELS = ['job', 'job_name'] as const;
const OPERATOR_LABELS = ['job', 'job_name', 'operator'] as const;

/** Options of {@link MetricsRegistry}. */
export interface MetricsRegistryOptions {
  /** Also export prom-client's default process metrics (CPU, memory, event-loop lag, GC). Default true. */
  readonly processMetrics?: boolean;
}

/** The Prometheus metrics of the jobs `jobs` lists. */
export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly observedCheckpoints = new Map<string, number>();
  private readonly counters;
  private readonly gauges;
  private readonly checkpointDuration;

  constructor(
    private readonly jobs: () => readonly JobHandle[],
    options: MetricsRegistryOptions = {},
  ) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> => new Counter({ name, help, labelNames, registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> => new Gauge({ name, help, labelNames, registers });
    this.counters = {
      recordsIn: counter('weir_operator_records_in_total', 'Records received by the operator.', OPERATOR_LABELS),
      recordsOut: counter('weir_operator_records_out_total', 'Records emitted by the operator.', OPERATOR_LABELS),
      recordsRejected: counter('weir_operator_records_rejected_total', 'Records a source set aside as bad input (dead-lettered).', OPERATOR_LABELS),
      busy: counter('weir_operator_busy_seconds_total', 'Time the operator spent processing, excluding the operators downstream.', OPERATOR_LABELS),
      checkpointsCompleted: counter('weir_checkpoints_completed_total', 'Checkpoints and savepoints completed since the job started.', JOB_LABELS),
      checkpointsFailed: counter('weir_checkpoints_failed_total', 'Checkpoints aborted since the job started.', JOB_LABELS),
      restarts: counter('weir_job_restarts_total', 'Times the job was restarted after a failure (restart-strategy.type).', JOB_LABELS),
    };
    this.gauges = {
      up: gauge('weir_job_running', '1 while the job runs, 0 while it restarts and once it has finished, failed or been cancelled.', [...JOB_LABELS, 'status']),
      uptime: gauge('weir_job_uptime_seconds', 'Time since the job started (until it ended).', JOB_LABELS),
      inRate: gauge('weir_operator_records_in_per_second', 'Records received per second over the last 10 s.', OPERATOR_LABELS),
      outRate: gauge('weir_operator_records_out_per_second', 'Records emitted per second over the last 10 s.', OPERATOR_LABELS),
      busyRatio: gauge('weir_operator_busy_ratio', 'Share of the last 10 s the operator spent processing, per subtask (0 to 1).', OPERATOR_LABELS),
      watermark: gauge('weir_operator_watermark_seconds', "The operator's event-time watermark, in seconds since the epoch.", OPERATOR_LABELS),
      watermarkLag: gauge('weir_operator_watermark_lag_seconds', 'Wall-clock time minus the watermark.', OPERATOR_LABELS),
      stateEntries: gauge('weir_operator_state_entries', 'Entries of keyed state (per key and declared state).', OPERATOR_LABELS),
      stateBytes: gauge('weir_operator_state_bytes', 'Bytes of keyed state in the latest snapshot.', OPERATOR_LABELS),
      pending: gauge('weir_sink_pending_transactions', 'Transactions the sink prepared (two-phase commit) and has not committed yet.', OPERATOR_LABELS),
      lastSize: gauge('weir_checkpoint_last_size_bytes', 'Bytes written by the latest completed checkpoint.', JOB_LABELS),
      lastDuration: gauge('weir_checkpoint_last_duration_seconds', 'Duration of the latest completed checkpoint.', JOB_LABELS),
      lastSyncPause: gauge(
        'weir_checkpoint_last_sync_pause_seconds',
        'Synchronous pause of one subtask at the barrier of the latest completed checkpoint: quantile 0.5, 0.99 and 1 (the maximum) over its subtasks.',
        [...JOB_LABELS, 'quantile'],
      ),
      lastStateBytes: gauge('weir_checkpoint_last_state_bytes', 'Bytes of keyed state the latest completed checkpoint wrote (only the deltas when incremental).', JOB_LABELS),
      lastIncremental: gauge('weir_checkpoint_last_incremental', '1 when the latest completed checkpoint wrote deltas on earlier files, 0 when it wrote its keyed state in full.', JOB_LABELS),
    };
    this.checkpointDuration = new Histogram({
      name: 'weir_checkpoint_duration_seconds',
      help: 'Duration of completed checkpoints, from trigger to completion.',
      labelNames: JOB_LABELS,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** The content type of {@link metrics}' text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in Prometheus text format, read from the jobs now. */
  async metrics(): Promise<string> {
    this.refresh();
    return this.registry.metrics();
  }

  private refresh(): void {
    for (const metric of [...Object.values(this.counters), ...Object.values(this.gauges)]) metric.reset();
    const now = Date.now();
    for (const job of this.jobs()) {
      const labels = { job: job.id, job_name: job.name };
      this.gauges.up.set({ ...labels, status: job.status }, job.status === 'RUNNING' ? 1 : 0);
      this.gauges.uptime.set(labels, ((job.endedAt?.getTime() ?? now) - job.startedAt.getTime()) / 1000);
      const stats = job.checkpointStats();
      this.counters.checkpointsCompleted.inc(labels, stats.completed);
      this.counters.checkpointsFailed.inc(labels, stats.failed);
      this.counters.restarts.inc(labels, job.restarts);
      const last = job.lastCheckpoint;
      if (last !== undefined) {
        this.gauges.lastSize.set(labels, last.sizeBytes);
        this.gauges.lastDuration.set(labels, last.durationMs / 1000);
      }
      const lastRecord = job.checkpointHistory().findLast((c) => c.status === 'COMPLETED');
      if (lastRecord !== undefined) {
        for (const [quantile, ms] of [['0.5', lastRecord.syncP50Ms], ['0.99', lastRecord.syncP99Ms], ['1', lastRecord.syncMaxMs]] as const) {
          if (ms !== undefined) this.gauges.lastSyncPause.set({ ...labels, quantile }, ms / 1000);
        }
        if (lastRecord.stateBytes !== undefined) this.gauges.lastStateBytes.set(labels, lastRecord.stateBytes);
        if (lastRecord.incremental !== undefined) this.gauges.lastIncremental.set(labels, lastRecord.incremental ? 1 : 0);
      }
      this.observeCheckpoints(job, labels);
      for (const m of job.operatorMetrics()) {
        const op = { ...labels, operator: m.node };
        this.counters.recordsIn.inc(op, m.recordsIn);
        this.counters.recordsOut.inc(op, m.recordsOut);
        this.counters.recordsRejected.inc(op, m.recordsRejected);
        this.counters.busy.inc(op, m.busyMs / 1000);
        this.gauges.inRate.set(op, m.recordsInPerSecond);
        this.gauges.outRate.set(op, m.recordsOutPerSecond);
        this.gauges.busyRatio.set(op, m.busyRatio);
        this.gauges.stateEntries.set(op, m.stateEntries);
        if (m.stateBytes !== undefined) this.gauges.stateBytes.set(op, m.stateBytes);
        if (m.watermark !== undefined) {
          this.gauges.watermark.set(op, m.watermark / 1000);
          this.gauges.watermarkLag.set(op, (now - m.watermark) / 1000);
        }
        if (m.kind === 'sink') this.gauges.pending.set(op, m.pendingTransactions);
      }
    }
  }

  /** Adds the checkpoints completed since the last scrape to the duration histogram. */
  private observeCheckpoints(job: JobHandle, labels: { job: string; job_name: string }): void {
    const seen = this.observedCheckpoints.get(job.id) ?? 0;
    let latest = seen;
    for (const record of job.checkpointHistory()) {
      if (record.id === undefined || record.id <= seen || record.status !== 'COMPLETED' || record.durationMs === undefined) continue;
      this.checkpointDuration.observe(labels, record.durationMs / 1000);
      latest = Math.max(latest, record.id);
    }
    this.observedCheckpoints.set(job.id, latest);
  }
}
