/** The Markdown of the PostgreSQL sink benchmark's results (the `postgresSink` section). */
import type { PgSinkCaseResult, PgSinkSection, Spread } from './pg-sink-bench.js';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (s: Spread | undefined, p90 = true): string => (s === undefined ? '–' : p90 ? `${s.median.toFixed(1)} / ${s.p90.toFixed(1)} / ${s.max.toFixed(1)}` : s.median.toFixed(1));

function statements(r: PgSinkCaseResult): string {
  const s = r.statements;
  const checkpoints = r.median?.checkpoints;
  if (s === undefined || checkpoints === undefined || checkpoints === 0) return '–';
  const per = (n: number): string => (n / checkpoints).toFixed(n % checkpoints === 0 ? 0 : 1);
  const parts = [
    ['BEGIN', s.begin],
    ['data', s.data],
    ['marker', s.marker],
    ['PREPARE', s.prepare],
    ['COMMIT PREPARED', s.commitPrepared],
    ['COMMIT', s.commit],
    ['ROLLBACK', s.rollback],
  ] as const;
  return `${s.perCheckpoint.toFixed(1)} (${parts.filter(([, n]) => n > 0).map(([name, n]) => `${name} ${per(n)}`).join(', ')})`;
}

function row(r: PgSinkCaseResult): string {
  const m = r.median;
  if (r.status !== 'ok' || m === undefined) return `| ${r.case.name} | ${r.status}: ${(r.error ?? '').replace(/\|/g, '\\|').slice(0, 160)} | | | | | | |`;
  const l = r.latency;
  return [
    r.case.name,
    `${fmt(m.rowsPerSecond)}${r.samples.length > 1 ? ` (${r.samples.map(fmt).join(', ')})` : ''}`,
    m.rowsWrittenPerSecond === undefined ? '–' : `${fmt(m.rowsWrittenPerSecond)} (${fmt(m.rowsWritten!)} rows)`,
    String(m.checkpoints),
    statements(r),
    ms(l?.completionToVisibleMs),
    ms(l?.barrierToVisibleMs),
    ms(l?.commitPreparedMs, false),
  ]
    .join(' | ')
    .replace(/^/, '| ')
    .concat(' |');
}

/** The section's lines: method, table, notes. */
export function pgSinkMarkdown(section: PgSinkSection): string[] {
  const embedded = section.cases.find((c) => c.case.server === 'embedded')?.median?.embeddedStartMs;
  const ackLag = section.cases.find((c) => c.latency?.ackAfterServerCommitMs !== undefined)?.latency?.ackAfterServerCommitMs;
  return [
    '',
    `### PostgreSQL sink: ${fmt(section.rows)} datagen rows per run, ${section.checkpointing} (${section.measuredAt.slice(0, 10)})`,
    '',
    `Server: ${section.cluster}. Upsert: \`INSERT INTO t SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k\` over ${fmt(section.keys)} keys into a table with PRIMARY KEY (k); ` +
      `append: \`INSERT INTO t SELECT k, v FROM src\` into a table without a key. Each run in its own process with a database of its own; median run of ${section.runs} by throughput (every run's rate in brackets). ` +
      'Latencies pool every checkpoint of every run: median / p90 / max (COMMIT PREPARED: median).',
    '',
    '| case | source rows/s into Postgres | rows written/s (server) | checkpoints | statements per checkpoint | completion → visible, ms | barrier → visible, ms | COMMIT PREPARED, ms |',
    '|---|---:|---:|---:|---|---:|---:|---:|',
    ...section.cases.map(row),
    '',
    '*Completion* is the coordinator\'s `completedAt` in the checkpoint\'s `_metadata` (every subtask acknowledged; `_metadata` is made durable after it). ' +
      "*Visible*: exactly-once on the cluster, the server's commit timestamp (`track_commit_timestamp`) of the transaction holding the checkpoint's marker row in `weir.sink_commits` — " +
      'the instant other readers' + "' snapshots start to include the rows; embedded, when COMMIT PREPARED returned to the job; at-least-once, when the plain COMMIT returned, which happens at the barrier, so before completion (negative). " +
      '*Barrier* is when the barrier reached the sink. Statements are counted from the server log (`log_statement = all`) of the sink\'s sessions; each is one round trip; set-up statements are left out.' +
      (ackLag === undefined ? '' : ` The job learned of COMMIT PREPARED ${ackLag.median.toFixed(1)} ms (median) after the server's commit timestamp.`) +
      (embedded === undefined ? '' : ` PGlite took ${fmt(embedded)} ms to create and start before the job (not in the rates).`),
  ];
}
