/**
 * What weir leaves in a PostgreSQL cluster that can outlive its jobs: prepared transactions of
 * exactly-once sinks (gids `weir1.…`, see transaction-ids.ts), which hold their row locks and keep
 * VACUUM from removing rows older than them, and logical replication slots of CDC sources, which
 * keep the server's WAL until they are dropped. Listing them cluster-wide, and finishing them on
 * request, for `weir doctor` and the warning a postgres sink gives at the start of a job.
 */
import pg from 'pg';
import { WeirError } from '../../common/errors.js';
import { scrubPassword, type ConnectionConfig, type ConnectionTarget } from './postgres-options.js';
import { GID_VERSION, parseGid, type GidParts } from './transaction-ids.js';

/** A prepared transaction weir wrote, anywhere in the cluster. */
export interface WeirPreparedTransaction {
  readonly gid: string;
  readonly database: string;
  readonly owner: string;
  readonly preparedAt: Date;
  readonly ageMs: number;
  readonly parts: GidParts;
}

/** A logical replication slot of the pgoutput plugin (how weir's CDC sources read). */
export interface LogicalSlot {
  readonly name: string;
  readonly database: string;
  readonly active: boolean;
  /** WAL the server keeps for the slot, in bytes (null when the server cannot say). */
  readonly retainedWalBytes: number | null;
  /** True when the name is one weir gives by default (`weir_cdc_…`); others may be weir's too, named by 'slot.name'. */
  readonly weirNamed: boolean;
}

/** Every weir prepared transaction of the cluster, oldest first. */
export async function listWeirPrepared(client: pg.Client | pg.Pool): Promise<WeirPreparedTransaction[]> {
  const { rows } = await client.query<{ gid: string; database: string; owner: string; prepared: Date; age_ms: string }>(
    `SELECT gid, database, owner, prepared, (extract(epoch FROM now() - prepared) * 1000)::bigint AS age_ms
       FROM pg_catalog.pg_prepared_xacts WHERE starts_with(gid, $1) ORDER BY prepared`,
    [`${GID_VERSION}.`],
  );
  return rows.flatMap((row) => {
    const parts = parseGid(row.gid);
    return parts === undefined ? [] : [{ gid: row.gid, database: row.database, owner: row.owner, preparedAt: row.prepared, ageMs: Number(row.age_ms), parts }];
  });
}

/** Every pgoutput slot of the cluster. */
export async function listLogicalSlots(client: pg.Client): Promise<LogicalSlot[]> {
  const { rows } = await client.query<{ slot_name: string; database: string; active: boolean; retained: string | null }>(
    `SELECT slot_name, database, active, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS retained
       FROM pg_catalog.pg_replication_slots WHERE slot_type = 'logical' AND plugin = 'pgoutput' ORDER BY slot_name`,
  );
  return rows.map((row) => ({
    name: row.slot_name,
    database: row.database,
    active: row.active,
    retainedWalBytes: row.retained === null ? null : Number(row.retained),
    weirNamed: row.slot_name.startsWith('weir_cdc_'),
  }));
}

/**
 * ROLLBACK PREPARED of a weir transaction. It must be run in the transaction's own database (the
 * server refuses otherwise), so `connectTo(database)` gives a client for it. Refuses a gid that is
 * not weir's; false when the transaction no longer exists.
 */
export async function rollBackWeirPrepared(transaction: WeirPreparedTransaction, connectTo: (database: string) => Promise<pg.Client>): Promise<boolean> {
  if (parseGid(transaction.gid) === undefined) throw new WeirError('INVALID_ARGUMENT', `'${transaction.gid}' is not the id of a weir prepared transaction`);
  const client = await connectTo(transaction.database);
  try {
    // The gid passed parseGid's whitelist ([A-Za-z0-9-] fields separated by dots), so it can be a literal.
    await client.query(`ROLLBACK PREPARED '${transaction.gid}'`);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '42704') return false;
    throw error;
  } finally {
    await client.end();
  }
}

/** Drops a logical replication slot; refuses an active one (a job still reads it). */
export async function dropLogicalSlot(client: pg.Client, name: string): Promise<void> {
  const slots = await listLogicalSlots(client);
  const slot = slots.find((s) => s.name === name);
  if (slot === undefined) throw new WeirError('INVALID_ARGUMENT', `no logical replication slot '${name}' (there are: ${slots.map((s) => s.name).join(', ') || 'none'})`);
  if (slot.active) throw new WeirError('INVALID_ARGUMENT', `replication slot '${name}' is in use by a running reader; stop its job first`);
  await client.query('SELECT pg_drop_replication_slot($1)', [name]);
}

/** `3 h 12 min`, `45 s`, `200 ms`: an age for messages. */
export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} days`;
}

/** What `weir doctor` is asked to do besides listing. */
export interface LeftoverActions {
  /** Roll back these weir prepared transactions (by gid). */
  readonly rollback?: readonly string[];
  /** Roll back every weir prepared transaction at least this old (ms). */
  readonly rollbackOlderThanMs?: number;
  /** Drop these (inactive) logical replication slots. */
  readonly dropSlots?: readonly string[];
}

/** What the cluster held, and what was done. */
export interface LeftoverReport {
  /** The server, password masked. */
  readonly server: string;
  readonly prepared: readonly WeirPreparedTransaction[];
  readonly slots: readonly LogicalSlot[];
  /** One line per action taken. */
  readonly done: readonly string[];
}

/**
 * Lists weir's prepared transactions and the logical slots of the cluster at `target`, carries out
 * `actions` (each gid and slot named must exist), and lists them again. Errors name the server
 * masked, never with its password.
 */
export async function inspectLeftovers(target: ConnectionTarget, actions: LeftoverActions = {}): Promise<LeftoverReport> {
  const connect = async (database?: string): Promise<pg.Client> => {
    const config = database === undefined ? target.config : withDatabase(target.config, database);
    const client = new pg.Client({ ...config, application_name: 'weir doctor' });
    try {
      await client.connect();
    } catch (error) {
      throw new WeirError('CONNECTOR_ERROR', `cannot connect to ${target.display}${database === undefined ? '' : ` (database ${database})`}: ${scrubPassword((error as Error).message, target.password)}`);
    }
    return client;
  };
  const client = await connect();
  const done: string[] = [];
  try {
    const before = await listWeirPrepared(client);
    const chosen = new Map<string, WeirPreparedTransaction>();
    for (const gid of actions.rollback ?? []) {
      const found = before.find((t) => t.gid === gid);
      if (found === undefined) throw new WeirError('INVALID_ARGUMENT', `no prepared transaction of weir has gid '${gid}' in the cluster at ${target.display}`);
      chosen.set(gid, found);
    }
    if (actions.rollbackOlderThanMs !== undefined) for (const t of before) if (t.ageMs >= actions.rollbackOlderThanMs) chosen.set(t.gid, t);
    for (const transaction of chosen.values()) {
      const rolledBack = await rollBackWeirPrepared(transaction, connect);
      done.push(rolledBack ? `rolled back ${transaction.gid} (database ${transaction.database})` : `${transaction.gid} had already ended`);
    }
    for (const name of actions.dropSlots ?? []) {
      await dropLogicalSlot(client, name);
      done.push(`dropped replication slot ${name}`);
    }
    return { server: target.display, prepared: await listWeirPrepared(client), slots: await listLogicalSlots(client), done };
  } finally {
    await client.end();
  }
}

function withDatabase(config: ConnectionConfig, database: string): ConnectionConfig {
  if (!('connectionString' in config)) return { ...config, database };
  const url = new URL(config.connectionString);
  url.pathname = `/${encodeURIComponent(database)}`;
  return { connectionString: url.toString() };
}
