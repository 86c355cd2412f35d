/** `SHOW METRICS`: the operators of the running jobs as a compact table for people (`weir.operators` has the raw values). */
import { SqlTypes } from '../common/sql-type.js';
import type { JobHandle } from './job-handle.js';
import type { StatementResult } from './statement-result.js';

const COLUMNS = ['job id', 'operator', 'parallelism', 'records in', 'records out', 'in/s', 'out/s', 'busy', 'watermark lag', 'state entries', 'state size', 'pending txns'];

/** One row per operator of every running job. */
export function showMetrics(jobs: readonly JobHandle[]): StatementResult {
  const now = Date.now();
  const rows = jobs
    .filter((job) => job.status === 'RUNNING')
    .flatMap((job) =>
      job.operatorMetrics().map((m) => [
        job.id,
        m.node,
        String(m.parallelism),
        String(m.recordsIn),
        String(m.recordsOut),
        rate(m.recordsInPerSecond),
        rate(m.recordsOutPerSecond),
        `${(m.busyRatio * 100).toFixed(0)} %`,
        m.watermark === undefined ? '' : `${((now - m.watermark) / 1000).toFixed(1)} s`,
        String(m.stateEntries),
        m.stateBytes === undefined ? '' : bytes(m.stateBytes),
        m.kind === 'sink' ? String(m.pendingTransactions) : '',
      ]),
    );
  return { kind: 'rows', schema: COLUMNS.map((name) => ({ name, type: SqlTypes.string() })), rows };
}

function rate(perSecond: number): string {
  return perSecond >= 10_000 ? `${(perSecond / 1000).toFixed(0)}k` : perSecond.toFixed(perSecond < 10 ? 1 : 0);
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
