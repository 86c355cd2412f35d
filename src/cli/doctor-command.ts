/**
 * `weir doctor`: lists what weir left in a PostgreSQL cluster — prepared transactions of
 * exactly-once sinks (they hold row locks and block VACUUM until their job recovers and finishes
 * them) and logical replication slots (they keep WAL until dropped) — and, on request, rolls
 * transactions back and drops inactive slots. Rolling back a transaction of a job that will still
 * recover loses that checkpoint's output, so nothing is finished unless asked.
 */
import { examineCluster, formatAge, type LeftoverReport } from '../engine/doctor.js';
import { renderError } from '../engine/result-format.js';
import { EXIT } from './run-command.js';

/** The command's options. */
export interface DoctorOptions {
  readonly verbose: boolean;
  readonly url?: string;
  readonly rollback?: readonly string[];
  readonly rollbackOlderThan?: string;
  readonly dropSlot?: readonly string[];
}

/** Runs the command; resolves with the exit code. */
export async function runDoctor(options: DoctorOptions, write: (text: string) => void = (t) => void process.stdout.write(t)): Promise<number> {
  let report: LeftoverReport;
  try {
    report = await examineCluster(options.url, {
      ...(options.rollback === undefined ? {} : { rollback: options.rollback }),
      ...(options.rollbackOlderThan === undefined ? {} : { rollbackOlderThan: options.rollbackOlderThan }),
      ...(options.dropSlot === undefined ? {} : { dropSlots: options.dropSlot }),
    });
  } catch (error) {
    process.stderr.write(renderError(error) + '\n');
    if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    return EXIT.ERROR;
  }
  write(renderReport(report));
  return EXIT.OK;
}

/** The report as text: what was done, then each kind of leftover as a table with how to finish it. */
export function renderReport(report: LeftoverReport): string {
  const lines = [`Server: ${report.server}`, ...report.done.map((line) => `Done: ${line}`), ''];
  if (report.prepared.length === 0) lines.push('No prepared transaction of weir.');
  else {
    lines.push(`Prepared transactions of weir (${report.prepared.length}); they hold row locks and block VACUUM until their job recovers:`);
    lines.push(
      ...table(
        ['gid', 'database', 'age', 'checkpoint'],
        report.prepared.map((t) => [t.gid, t.database, formatAge(t.ageMs), String(t.parts.checkpointId)]),
      ),
      "Roll back one whose job will not run again: weir doctor --rollback GID (or --rollback-older-than '1 d').",
    );
  }
  lines.push('');
  if (report.slots.length === 0) lines.push('No logical replication slot.');
  else {
    lines.push(`Logical replication slots (pgoutput, ${report.slots.length}); an inactive one keeps WAL until it is dropped:`);
    lines.push(
      ...table(
        ['slot', 'database', 'active', 'WAL kept'],
        report.slots.map((s) => [s.name, s.database, s.active ? 'yes' : 'no', s.retainedWalBytes === null ? '?' : formatBytes(s.retainedWalBytes)]),
      ),
      'Drop one whose job is retired: weir doctor --drop-slot NAME.',
    );
  }
  return lines.join('\n') + '\n';
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => '  ' + cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
