/**
 * The marker rows of `weir.sink_commits`. Each exactly-once transaction writes one row
 * `(job, sink, subtask, checkpoint_id, gid)` before it is prepared, so the row becomes visible
 * exactly when the transaction's data does. COMMIT PREPARED of a gid that no longer exists
 * (42704) cannot tell "committed before" from "rolled back"; the marker can: present with this
 * gid means committed, absent means the rows were lost.
 *
 * The markers also say which checkpoints a sink has committed: a job restored from checkpoint n
 * while its sink has markers above n would write their output again, so recovery refuses it
 * ({@link lastCommittedCheckpoint}). A fresh start (no checkpoint restored) begins the sink's
 * history anew and deletes its markers ({@link forgetMarkers}); should a marker key still be
 * written a second time, the row takes the new gid (upsert), which keeps the loss check exact
 * for the transaction that is being committed.
 */
import { sql, type Compilable, type Kysely, type Transaction } from 'kysely';
import type { WeirDatabase } from './postgres-database.js';

/** The identity of one subtask's transaction for one checkpoint, as its marker row records it. */
export interface Marker {
  readonly job: string;
  readonly sink: string;
  readonly subtask: number;
  readonly checkpointId: number;
  readonly gid: string;
}

/**
 * Creates schema `weir` and `weir.sink_commits` when missing, and adds the `gid` column to a
 * table of an older version. Runs no DDL at all when the table is already complete: an
 * `ALTER TABLE` would wait for the locks of pending prepared transactions that only recovery,
 * which runs after this, can release.
 */
export async function ensureCommitLog(trx: Transaction<WeirDatabase>): Promise<void> {
  const { rows } = await sql<{ exists: boolean; has_gid: boolean }>`
    SELECT to_regclass('weir.sink_commits') IS NOT NULL AS exists,
           EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'weir' AND table_name = 'sink_commits' AND column_name = 'gid') AS has_gid`.execute(trx);
  const state = rows[0]!;
  if (!state.exists) {
    await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id('weir')}`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id('weir', 'sink_commits')} (
      job text NOT NULL,
      sink text NOT NULL,
      subtask integer NOT NULL,
      checkpoint_id bigint NOT NULL,
      committed_at timestamptz NOT NULL DEFAULT now(),
      gid text,
      PRIMARY KEY (job, sink, subtask, checkpoint_id))`.execute(trx);
  } else if (!state.has_gid) {
    await sql`ALTER TABLE ${sql.id('weir', 'sink_commits')} ADD COLUMN IF NOT EXISTS gid text`.execute(trx);
  }
}

/** The statement that writes (or takes over) the marker row, to run inside the transaction it marks. */
export function markerUpsert(db: Kysely<WeirDatabase>, marker: Marker): Compilable {
  return db
    .insertInto('weir.sink_commits')
    .values({ job: marker.job, sink: marker.sink, subtask: marker.subtask, checkpoint_id: marker.checkpointId, gid: marker.gid })
    .onConflict((conflict) => conflict.columns(['job', 'sink', 'subtask', 'checkpoint_id']).doUpdateSet({ gid: marker.gid, committed_at: sql`now()` }));
}

/** True when the committed marker row of this transaction (same key and gid) exists. */
export async function markerExists(db: Kysely<WeirDatabase>, marker: Marker): Promise<boolean> {
  const row = await db
    .selectFrom('weir.sink_commits')
    .select('gid')
    .where('job', '=', marker.job)
    .where('sink', '=', marker.sink)
    .where('subtask', '=', marker.subtask)
    .where('checkpoint_id', '=', String(marker.checkpointId))
    .where('gid', '=', marker.gid)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when some marker row carries `gid`: the transaction of a transaction group (one gid, a marker per member) was committed. */
export async function markerWithGidExists(db: Kysely<WeirDatabase>, gid: string): Promise<boolean> {
  const row = await db.selectFrom('weir.sink_commits').select('gid').where('gid', '=', gid).executeTakeFirst();
  return row !== undefined;
}

/** The highest checkpoint any subtask of this sink has committed (its marker rows), if any. */
export async function lastCommittedCheckpoint(db: Kysely<WeirDatabase>, job: string, sink: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('weir.sink_commits')
    .select((eb) => eb.fn.max('checkpoint_id').as('last'))
    .where('job', '=', job)
    .where('sink', '=', sink)
    .executeTakeFirst();
  const last = row?.last;
  return last === null || last === undefined ? undefined : Number(last);
}

/** Deletes the marker rows of this sink (every subtask): its commit history begins again with a fresh start. Returns how many there were. */
export async function forgetMarkers(db: Kysely<WeirDatabase>, job: string, sink: string): Promise<number> {
  const result = await db.deleteFrom('weir.sink_commits').where('job', '=', job).where('sink', '=', sink).executeTakeFirst();
  return Number(result.numDeletedRows);
}
