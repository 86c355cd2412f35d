/**
 * `weir doctor`'s work, for the command line: what weir left in a PostgreSQL cluster that can
 * outlive its jobs (prepared transactions of exactly-once sinks, CDC replication slots), and
 * finishing them on request. The server is the `url` given, else `DATABASE_URL`, else the `PG*`
 * variables, as for the postgres connector.
 */
import { inspectLeftovers, type LeftoverActions, type LeftoverReport } from '../connectors/postgres/leftover-objects.js';
import { resolveConnection } from '../connectors/postgres/postgres-options.js';
import { parseDuration } from '../common/duration.js';

export type { LeftoverReport };
export { formatAge } from '../connectors/postgres/leftover-objects.js';

/** What to finish, as the command line gives it. */
export interface DoctorRequest {
  readonly rollback?: readonly string[];
  /** A duration (`'1 d'`, `'30 min'`): roll back every weir prepared transaction at least this old. */
  readonly rollbackOlderThan?: string;
  readonly dropSlots?: readonly string[];
}

/** Lists the leftovers of the cluster and carries out `request`; throws a WeirError (password masked) when it cannot. */
export function examineCluster(url: string | undefined, request: DoctorRequest = {}, env: NodeJS.ProcessEnv = process.env): Promise<LeftoverReport> {
  const target = resolveConnection('doctor', url, env, { label: 'weir doctor', verb: 'inspect' });
  const actions: LeftoverActions = {
    ...(request.rollback === undefined ? {} : { rollback: request.rollback }),
    ...(request.rollbackOlderThan === undefined ? {} : { rollbackOlderThanMs: parseDuration(request.rollbackOlderThan, '--rollback-older-than') }),
    ...(request.dropSlots === undefined ? {} : { dropSlots: request.dropSlots }),
  };
  return inspectLeftovers(target, actions);
}
