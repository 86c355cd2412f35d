/**
 * The catalog of the working directory, which the shell, piped scripts and `weir serve` share:
 * `.weir/catalog.json` beside the checkpoints and the embedded PostgreSQL. `weir run` does not
 * use it: a job script declares everything it needs.
 */
import { resolve } from 'node:path';
import type { RestoreReport } from '../engine/session.js';

/** The catalog file of the current working directory. */
export function workingCatalogFile(): string {
  return resolve('.weir', 'catalog.json');
}

/** One line saying what was restored: `Restored 4 objects from .weir/catalog.json; materialized views running: a, b.` */
export function describeRestore(report: RestoreReport): string {
  const views = report.jobs.length === 0 ? [] : report.views;
  const running = views.length === 0 ? '' : `; materialized view${views.length === 1 ? '' : 's'} running: ${views.join(', ')}`;
  return `Restored ${report.restored} object${report.restored === 1 ? '' : 's'} from .weir/catalog.json${running}.`;
}
