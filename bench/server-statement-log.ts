/**
 * Counts the statements weir's sink sessions sent, from the benchmark cluster's server log
 * (`log_statement = all`, `log_line_prefix = '%m|%d|%a|'`, parameters not logged): each statement
 * is one round trip of the pg driver, which does not pipeline. Sink sessions are recognised by
 * their application_name (`weir <job> <sink> <subtask>`), runs apart by their database, and the
 * set-up of the sink (before it had opened) by the time of the line.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Settings that make the server log one line per statement, with its database and application. */
export const STATEMENT_LOG_SETTINGS: Readonly<Record<string, string>> = {
  log_statement: 'all',
  log_parameter_max_length: '0',
  log_line_prefix: "'%m|%d|%a|'",
  log_timezone: 'UTC',
};

/** Statements by role. */
export interface StatementCounts {
  readonly begin: number;
  /** INSERT / upsert / DELETE into the target table. */
  readonly data: number;
  /** The marker row in weir.sink_commits. */
  readonly marker: number;
  readonly prepare: number;
  readonly commitPrepared: number;
  readonly commit: number;
  readonly rollback: number;
  /** Anything else after set-up. */
  readonly other: number;
}

type Role = keyof StatementCounts;

function roleOf(statement: string): Role {
  const text = statement.trimStart().toUpperCase();
  if (text.startsWith('BEGIN')) return 'begin';
  if (text.startsWith('PREPARE TRANSACTION')) return 'prepare';
  if (text.startsWith('COMMIT PREPARED')) return 'commitPrepared';
  if (text.startsWith('COMMIT')) return 'commit';
  if (text.startsWith('ROLLBACK')) return 'rollback';
  if (text.startsWith('INSERT INTO "WEIR"."SINK_COMMITS"')) return 'marker';
  if (text.startsWith('INSERT') || text.startsWith('DELETE')) return 'data';
  return 'other';
}

/** The log's current end, to read only what a run adds. */
export function logOffset(file: string): number {
  return statSync(file).size;
}

function readFrom(file: string, offset: number): string {
  const length = statSync(file).size - offset;
  if (length <= 0) return '';
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

/** The statements of weir sessions in `database` logged after `offset` and at or after `since` (epoch ms). */
export function countStatements(file: string, offset: number, database: string, since: number): StatementCounts {
  const counts: Record<Role, number> = { begin: 0, data: 0, marker: 0, prepare: 0, commitPrepared: 0, commit: 0, rollback: 0, other: 0 };
  const line = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) UTC\|([^|\n]*)\|weir [^|\n]*\|LOG: {2}(?:statement|execute [^:]*): (.*)$/gm;
  for (const [, date, time, db, statement] of readFrom(file, offset).matchAll(line)) {
    if (db === database && Date.parse(`${date}T${time}Z`) >= since) counts[roleOf(statement!)]++;
  }
  return counts;
}
