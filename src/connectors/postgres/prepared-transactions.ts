/**
 * Finishing prepared transactions from a control connection (never inside a transaction block):
 * COMMIT PREPARED with the marker check that tells "committed before" from "lost", ROLLBACK
 * PREPARED, and listing this sink's prepared transactions for recovery. Gids reach SQL only as
 * literals (the statements take no parameters), so each one is checked against the gid format's
 * whitelist right before it is embedded.
 */
import { sql, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import { WeirError } from '../../common/errors.js';
import { markerExists, type Marker } from './commit-log.js';
import { sqlState } from './driver-errors.js';
import type { WeirDatabase } from './postgres-database.js';
import { parseGid, type GidParts } from './transaction-ids.js';

/** SQLSTATE of "prepared transaction with identifier ... does not exist". */
export const UNDEFINED_OBJECT = '42704';

/** `PREPARE TRANSACTION '<gid>'`, for the session that holds the transaction. */
export function prepareStatement(db: Kysely<WeirDatabase>, gid: string): Compilable {
  return { compile: () => sql`PREPARE TRANSACTION ${gidLiteral(gid)}`.compile(db) };
}

/**
 * `COMMIT PREPARED` for the marker's gid. When the gid no longer exists, its marker row decides:
 * present means an earlier commit (fine), absent means the transaction was rolled back or never
 * prepared, and the sink throws CONNECTOR_ERROR saying the rows were lost. `label` starts
 * messages. Returns false when the transaction had been committed before.
 */
export async function commitPrepared(db: Kysely<WeirDatabase>, label: string, marker: Marker): Promise<boolean> {
  if (await rollForward(db, marker.gid)) return true;
  if (await markerExists(db, marker)) return false;
  throw new WeirError(
    'CONNECTOR_ERROR',
    `${label}: prepared transaction ${marker.gid} of checkpoint ${marker.checkpointId} is gone and its marker row is missing: its rows were lost`,
  );
}

/** `COMMIT PREPARED`; false when the gid no longer exists (finished by someone else: the caller decides whether that was a commit). */
export async function rollForward(db: Kysely<WeirDatabase>, gid: string): Promise<boolean> {
  try {
    await sql`COMMIT PREPARED ${gidLiteral(gid)}`.execute(db);
    return true;
  } catch (error) {
    if (sqlState(error) === UNDEFINED_OBJECT) return false;
    throw error;
  }
}

/** `ROLLBACK PREPARED`; false when the gid no longer exists (finished by someone else). */
export async function rollbackPrepared(db: Kysely<WeirDatabase>, gid: string): Promise<boolean> {
  try {
    await sql`ROLLBACK PREPARED ${gidLiteral(gid)}`.execute(db);
    return true;
  } catch (error) {
    if (sqlState(error) === UNDEFINED_OBJECT) return false;
    throw error;
  }
}

/** A prepared transaction found in `pg_prepared_xacts`. */
export interface FoundTransaction {
  readonly gid: string;
  readonly parts: GidParts;
}

/**
 * The weir transactions of the current database whose gid starts with `prefix`, in checkpoint
 * order. Uses `starts_with`, not LIKE, in which the `_` of a name would be a wildcard.
 */
export async function listPrepared(db: Kysely<WeirDatabase>, prefix: string): Promise<FoundTransaction[]> {
  const rows = await db
    .selectFrom('pg_catalog.pg_prepared_xacts')
    .select('gid')
    .where('database', '=', sql<string>`current_database()`)
    .where(sql<boolean>`starts_with(gid, ${prefix})`)
    .execute();
  const found = rows.flatMap((row) => {
    const parts = parseGid(row.gid);
    return parts === undefined ? [] : [{ gid: row.gid, parts }];
  });
  return found.sort((a, b) => a.parts.checkpointId - b.parts.checkpointId || a.parts.subtask - b.parts.subtask);
}


function gidLiteral(gid: string): RawBuilder<string> {
  if (parseGid(gid) === undefined) throw new WeirError('INTERNAL_ERROR', `refusing to send '${gid}' as a gid: it does not match the gid format`);
  return sql.lit(gid);
}
