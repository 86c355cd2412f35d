/** What a PostgreSQL-sink benchmark child is asked to measure, and what it reports. */

/** Which server a case writes into: the throwaway PostgreSQL 15 cluster, or the embedded PGlite. */
export type PgSinkServer = 'cluster' | 'embedded';

/** One configuration of the postgres sink. */
export interface PgSinkCase {
  /** Short name, e.g. `exactly-once upsert`. */
  readonly name: string;
  readonly server: PgSinkServer;
  readonly semantic: 'exactly-once' | 'at-least-once';
  /** `upsert`: GROUP BY over many keys into a table with a primary key; `append`: the source's rows into a table without one. */
  readonly shape: 'upsert' | 'append';
}

/** One run of a {@link PgSinkCase}, in its own process. */
export interface PgSinkSpec {
  readonly kind: 'pg-sink';
  readonly case: PgSinkCase;
  readonly rows: number;
  /** Distinct keys of the upsert case's GROUP BY. */
  readonly keys: number;
  /** The database of a cluster case (absent for the embedded server, which the child starts in a temporary working directory). */
  readonly url?: string;
}

/** When one checkpoint's transaction reached each step, in epoch milliseconds (all on this machine's clock). */
export interface CheckpointTiming {
  readonly checkpointId: number;
  /** The coordinator's `completedAt`: every subtask had acknowledged (before `_metadata` is made durable). */
  readonly completedAt: number;
  /** The barrier reached the sink (`prepareCommit` was called). */
  readonly barrierAt: number;
  /** The sink acknowledged: PREPARE TRANSACTION returned (exactly-once), or COMMIT returned (at-least-once). */
  readonly preparedAt: number;
  /** Exactly-once: the sink was notified of the completed checkpoint (`commit` was called). */
  readonly commitCalledAt?: number;
  /** Exactly-once: COMMIT PREPARED returned. */
  readonly commitAckAt?: number;
  /** Exactly-once on the cluster: the server's commit timestamp of the transaction (`pg_xact_commit_timestamp` of its marker row). */
  readonly serverCommitAt?: number;
  /** When the rows became visible to other readers: serverCommitAt when known, else commitAckAt, else (at-least-once) preparedAt. */
  readonly visibleAt: number;
}

/** What one run measured. */
export interface PgSinkRun {
  readonly case: string;
  readonly status: 'ok' | 'failed' | 'timeout';
  readonly error?: string;
  readonly rows: number;
  /** From the INSERT statement to the job's end (its final checkpoint committed). */
  readonly seconds: number;
  /** Source rows per second, end to end. */
  readonly rowsPerSecond: number;
  /** Changes the sink received from the query. */
  readonly sinkChangesIn: number;
  /** Rows the server inserted, updated or deleted in the target table (`pg_stat_user_tables`); absent when the statistics did not arrive. */
  readonly rowsWritten?: number;
  /** Rows in the target table at the end. */
  readonly rowsInTable: number;
  /** When the sink had connected and set up its tables (epoch ms): statements after it belong to the checkpoint protocol. */
  readonly sinkOpenedAt: number;
  readonly checkpoints: readonly CheckpointTiming[];
  /** Embedded only: milliseconds to start (or create) PGlite before the job. */
  readonly embeddedStartMs?: number;
  readonly peakRssMb: number;
}
