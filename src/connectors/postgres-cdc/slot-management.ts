/**
 * The server-side objects of a capture: the publication that names the table for `pgoutput`, and
 * the logical replication slot that keeps the table's changes until the source confirms them.
 * A slot is created on a replication session with an exported snapshot, the consistent starting
 * point of the initial copy of the table.
 */
import type pg from 'pg';
import { WeirError } from '../../common/errors.js';
import { sqlState } from '../postgres/driver-errors.js';
import { displayTable } from '../postgres/postgres-ddl.js';
import { quoteIdentifier } from './cdc-connections.js';
import { parseLsn, type Lsn } from './lsn-format.js';
import type { CapturedTable } from './source-table-checks.js';

/** A slot as `pg_replication_slots` shows it. */
export interface SlotInfo {
  readonly plugin: string | null;
  readonly database: string | null;
  /** The pid of the session streaming from it, when one is. */
  readonly activePid: number | null;
  /** Where the consumer has confirmed it has everything; 0n when unknown. */
  readonly confirmedFlush: Lsn;
}

/** A slot just created, with the snapshot that is consistent with its first change. */
export interface CreatedSlot {
  readonly consistentPoint: Lsn;
  /** Valid until the creating session runs another command or ends. */
  readonly snapshotName: string;
}

/**
 * Creates the publication `FOR TABLE` the captured table when it does not exist; checks that an
 * existing one includes the table and publishes inserts, updates and deletes. Throws
 * CONNECTOR_ERROR saying what to change.
 */
export async function ensurePublication(client: pg.Client, label: string, publication: string, table: CapturedTable): Promise<void> {
  const shown = displayTable(table.name);
  const found = (
    await client.query<{ complete: boolean; included: boolean }>(
      `SELECT p.pubinsert AND p.pubupdate AND p.pubdelete AS complete,
              EXISTS (SELECT 1 FROM pg_publication_tables t WHERE t.pubname = p.pubname AND t.schemaname = $2 AND t.tablename = $3) AS included
         FROM pg_publication p WHERE p.pubname = $1`,
      [publication, table.name.schema, table.name.table],
    )
  ).rows[0];
  if (found === undefined) {
    try {
      await client.query(`CREATE PUBLICATION ${quoteIdentifier(publication)} FOR TABLE ${quoteIdentifier(table.name.schema)}.${quoteIdentifier(table.name.table)}`);
      return;
    } catch (error) {
      if (sqlState(error) === '42710') return ensurePublication(client, label, publication, table);
      if (sqlState(error) !== '42501') throw error;
      throw new WeirError('CONNECTOR_ERROR', `${label} may not create publication '${publication}' for ${shown}: ${(error as Error).message}`, {
        hint: `let the table's owner run CREATE PUBLICATION ${quoteIdentifier(publication)} FOR TABLE ${shown}, or set 'publication.name' to an existing publication of it`,
      });
    }
  }
  if (!found.included) {
    throw new WeirError('CONNECTOR_ERROR', `${label}: publication '${publication}' does not include ${shown}`, {
      hint: `ALTER PUBLICATION ${quoteIdentifier(publication)} ADD TABLE ${shown}, or set 'publication.name' to another publication`,
    });
  }
  if (!found.complete) {
    throw new WeirError('CONNECTOR_ERROR', `${label}: publication '${publication}' does not publish every insert, update and delete`, {
      hint: `ALTER PUBLICATION ${quoteIdentifier(publication)} SET (publish = 'insert, update, delete, truncate')`,
    });
  }
}

/** The slot named `name`, or undefined. */
export async function findSlot(client: pg.Client, name: string): Promise<SlotInfo | undefined> {
  const row = (
    await client.query<{ plugin: string | null; database: string | null; active_pid: number | null; confirmed_flush_lsn: string | null }>(
      'SELECT plugin, database, active_pid, confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1',
      [name],
    )
  ).rows[0];
  if (row === undefined) return undefined;
  return {
    plugin: row.plugin,
    database: row.database,
    activePid: row.active_pid,
    confirmedFlush: row.confirmed_flush_lsn === null ? 0n : parseLsn(row.confirmed_flush_lsn, `the confirmed position of slot '${name}'`),
  };
}

/** Drops an inactive slot (and the WAL it held). */
export async function dropSlot(client: pg.Client, name: string): Promise<void> {
  await client.query('SELECT pg_drop_replication_slot($1)', [name]);
}

/**
 * The prepared transactions of the whole cluster: creating a logical slot waits until every
 * transaction in progress ends, prepared ones included, so one left behind (by anyone) holds the
 * slot's creation until it is committed or rolled back.
 */
export async function preparedTransactions(client: pg.Client): Promise<{ gid: string; database: string }[]> {
  return (await client.query<{ gid: string; database: string }>('SELECT gid, database FROM pg_prepared_xacts ORDER BY prepared')).rows;
}

/** `CREATE_REPLICATION_SLOT ... LOGICAL pgoutput (SNAPSHOT 'export')` on a replication session. */
export async function createSlotWithSnapshot(replication: pg.Client, name: string): Promise<CreatedSlot> {
  const result = await replication.query<{ consistent_point: string; snapshot_name: string }>(`CREATE_REPLICATION_SLOT ${quoteIdentifier(name)} LOGICAL pgoutput (SNAPSHOT 'export')`);
  const row = result.rows[0];
  if (row === undefined || typeof row.snapshot_name !== 'string') {
    throw new WeirError('CONNECTOR_ERROR', `CREATE_REPLICATION_SLOT for slot '${name}' returned no snapshot`);
  }
  return { consistentPoint: parseLsn(row.consistent_point, `the consistent point of slot '${name}'`), snapshotName: row.snapshot_name };
}
