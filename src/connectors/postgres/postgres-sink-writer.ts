/**
 * The postgres sink's writer: one subtask's share of a table, exactly once through two-phase
 * commit, or at least once with plain commits.
 *
 * Exactly-once, per checkpoint c: changes are buffered (net change per key for an upsert sink)
 * and written into a transaction opened at the first write (early when the buffer outgrows
 * `sink.buffer-flush.max-rows`, else at the barrier); at the barrier the marker row
 * `(job, sink, subtask, c, gid)` is written and the transaction is prepared as
 * `weir1.<job>.<sink>.<subtask>.<c>.<epoch>` — even when empty, which keeps the bookkeeping
 * uniform. Once c is complete, COMMIT PREPARED runs on a control connection. After a restore
 * from n, the pending transactions of n are committed, and subtask 0 commits every other
 * prepared transaction of this sink with a checkpoint ≤ n (a lost notification) and rolls back
 * those > n; the runtime runs recovery before any subtask writes. Before any of that, recovery
 * refuses a checkpoint n older than one the sink's marker rows say it committed (it would write
 * their output again). On a fresh start (no restore), subtask 0 rolls back whatever an earlier run
 * of the job left prepared — nothing can commit it any more, and its locks would block this run —
 * and deletes the sink's marker rows: its commit history begins again.
 *
 * A prepared transaction keeps its row locks until COMMIT PREPARED, so writing a row of
 * checkpoint c−1 again waits for that commit. The runtime commits c−1 before it injects barrier
 * c, so only an early write (a full buffer) can wait, and only until that commit.
 *
 * At-least-once: the barrier commits the transaction (no marker, no 2PC); a replay after a
 * restore writes the same changes again, which upserts absorb and appends duplicate.
 */
import { sql } from 'kysely';
import { WeirError } from '../../common/errors.js';
import { ROW_KIND_SHORT, RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { SinkSpec } from '../../dataflow/job-graph.js';
import type { PreparedTransaction, SinkContext, TransactionalSinkWriter } from '../../runtime/sink-writer.js';
import { AppendBuffer, MultisetBuffer, UpsertBuffer, type BufferedWrites, type ChangeBuffer } from './change-buffer.js';
import { forgetMarkers, lastCommittedCheckpoint, markerUpsert, markerWithGidExists, type Marker } from './commit-log.js';
import { formatAge, listWeirPrepared } from './leftover-objects.js';
import { currentSchema, displayTable, MULTISET_HASH_COLUMN, prepareTarget, type QualifiedTable } from './postgres-ddl.js';
import { writeStatements, type WriteTarget } from './postgres-dml.js';
import { describeError, sqlState } from './driver-errors.js';
import { parsePostgresSinkOptions, scrubPassword, type ConnectionTarget, type PostgresSinkOptions } from './postgres-options.js';
import { resolveServer, type ResolvedServer } from './server-resolution.js';
import { arrayElementType, valueEncoder } from './postgres-types.js';
import { commitPrepared, listPrepared, prepareStatement, rollbackPrepared, rollForward } from './prepared-transactions.js';
import { TransactionGroup } from './transaction-group.js';
import { acquireSinkConnections, type SinkConnections } from './sink-connections.js';
import { TransactionSession } from './transaction-session.js';
import { buildGid, gidPrefix, newEpoch, parseGid } from './transaction-ids.js';

/** The `data` of the sink's {@link PreparedTransaction}s; `gid` is null for an at-least-once transaction (committed at once). */
export interface PostgresTransactionData {
  readonly gid: string | null;
  readonly job: string;
  readonly sink: string;
  readonly subtask: number;
}

/** Everything `open` establishes. */
interface OpenState {
  readonly context: SinkContext;
  readonly database: SinkConnections;
  readonly session: TransactionSession;
  readonly target: WriteTarget;
  readonly buffer: ChangeBuffer;
}

/** Writes one subtask's share of a postgres sink; see the module comment for the protocol. */
export class PostgresSinkWriter implements TransactionalSinkWriter {
  readonly #spec: SinkSpec;
  readonly #options: PostgresSinkOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly #label: string;
  readonly #job: string;
  readonly #sink: string;
  readonly #epoch = newEpoch();
  /** Gids prepared and not committed yet, for metrics. */
  readonly #prepared = new Set<string>();
  #connection: ConnectionTarget | undefined;
  #server: ResolvedServer | undefined;
  #group: TransactionGroup | undefined;
  /** The gid prefix of the group's transactions. */
  #groupPrefix = '';
  /** Buffered rows that make the writer write early; never with the embedded server (see embedded-postgres.ts). */
  #maxBufferedRows: number;
  #database: SinkConnections | undefined;
  #state: OpenState | undefined;
  #restored = false;
  #queue: Promise<unknown> = Promise.resolve();
  /** Queued steps running now (0 or 1). */
  #busy = 0;
  #failure: unknown;

  /** `env` supplies DATABASE_URL and the PG* variables when the spec has no `url` (default: the process's). */
  constructor(spec: SinkSpec, env: NodeJS.ProcessEnv = process.env) {
    this.#spec = spec;
    this.#options = parsePostgresSinkOptions(new Map(Object.entries(spec.options)));
    this.#env = env;
    this.#label = `postgres sink '${spec.table}'`;
    this.#job = this.#options.job ?? spec.table;
    this.#sink = this.#options.sink ?? spec.table;
    this.#maxBufferedRows = this.#options.maxBufferedRows;
  }

  /** Called only after a restore (before `open`): `recover` will follow, so `open` leaves earlier transactions to it. */
  initializeState(): void {
    this.#restored = true;
  }

  /**
   * Connects, checks `max_prepared_transactions` (exactly-once), creates or checks the target and
   * bookkeeping tables, and takes the session for transactions. On a fresh start, subtask 0 rolls
   * back transactions an earlier run of this job left prepared.
   */
  async open(context: SinkContext): Promise<void> {
    try {
      await this.#open(context);
    } catch (error) {
      await this.close().catch((closeError: unknown) => context.warn(`${this.#label}: could not close its connections after failing to open: ${this.#scrub(describeError(closeError))}`));
      throw error;
    }
  }

  async #open(context: SinkContext): Promise<void> {
    this.#server = await resolveServer(this.#spec.table, this.#options.url, this.#env);
    if (this.#server.embedded) this.#maxBufferedRows = Infinity;
    const connection = this.#server.connection;
    this.#connection = connection;
    const database = acquireSinkConnections(context.run, this.#job, connection.config, (error) =>
      context.warn(`postgres sinks of job '${this.#job}': an idle connection to ${connection.display} failed: ${this.#scrub(error.message)}`),
    );
    this.#database = database;
    const maxPrepared = await this.#control(`connect to ${connection.display}`, async () => {
      const { rows } = await sql<{ max_prepared_transactions: string }>`SHOW max_prepared_transactions`.execute(database.db);
      return Number(rows[0]!.max_prepared_transactions);
    });
    if (this.#options.semantic === 'exactly-once') this.#checkPreparedSlots(maxPrepared, context);
    const table = await this.#resolveTable();
    await this.#control(`set up table ${displayTable(table)} at ${connection.display}`, () =>
      prepareTarget(database.db, { sink: this.#spec.table, target: table, schema: this.#spec.schema, primaryKey: this.#spec.primaryKey, multiset: this.#spec.multiset === true }),
    );
    const target: WriteTarget = {
      table,
      columns: this.#spec.schema.map((field) => field.name),
      elementTypes: this.#spec.schema.map((field) => arrayElementType(field.type)),
      encoders: this.#spec.schema.map((field) => valueEncoder(field.type)),
      keyIndexes: this.#spec.primaryKey.map((name) => this.#spec.schema.findIndex((field) => field.name === name)),
      nullable: this.#spec.schema.map((field) => field.type.nullable),
      ...(this.#spec.multiset === true ? { multiset: { hashColumn: MULTISET_HASH_COLUMN } } : {}),
    };
    const buffer =
      this.#spec.multiset === true ? new MultisetBuffer(target.encoders) : target.keyIndexes.length === 0 ? new AppendBuffer() : new UpsertBuffer(target.keyIndexes, target.encoders);
    const session = new TransactionSession(database.sessions, this.#label);
    this.#state = { context, database, session, target, buffer };
    if (this.#options.semantic === 'exactly-once' && this.#options.transactionGroup !== undefined && context.run !== undefined) {
      this.#joinGroup(context.run, this.#options.transactionGroup, database);
    }
    if (!this.#restored && context.subtask === 0) await this.#resolveLeftovers(undefined);
    if (!this.#restored) await this.#group?.resolveOnce(() => this.#resolveGroupLeftovers(undefined));
    // A fresh start begins the sink's commit history anew (after the leftovers, whose locks a delete would wait for).
    if (!this.#restored && context.subtask === 0 && this.#options.semantic === 'exactly-once') {
      await this.#control('reset its commit history in weir.sink_commits', () => forgetMarkers(database.db, this.#job, this.#sink));
    }
    if (context.subtask === 0 && this.#options.semantic === 'exactly-once' && this.#options.preparedWarnAgeMs > 0) await this.#warnOldPrepared(database, context);
  }

  /**
   * Warns about weir prepared transactions of the cluster older than the option's age: left by
   * jobs that are gone (this sink's own were resolved above), they hold row locks and keep VACUUM
   * from cleaning up, and only a recovery of their job or a person finishes them.
   */
  async #warnOldPrepared(database: SinkConnections, context: SinkContext): Promise<void> {
    const old = (await this.#control('list prepared transactions', () => listWeirPrepared(database.control))).filter((t) => t.ageMs >= this.#options.preparedWarnAgeMs);
    if (old.length === 0) return;
    const shown = old.slice(0, 3).map((t) => `${t.gid} (database ${t.database}, prepared ${formatAge(t.ageMs)} ago)`);
    context.warn(
      `${this.#label}: ${old.length} prepared transaction(s) of weir in the cluster at ${this.#connection!.display} are older than ${formatAge(this.#options.preparedWarnAgeMs)}: ${shown.join(', ')}${old.length > 3 ? ', ...' : ''}; they hold locks and block VACUUM until their job recovers: 'weir doctor' lists them and rolls them back`,
    );
  }

  /**
   * Joins the transaction group of this job and database (see transaction-group.ts). In a group of
   * several, a member writes only at the barrier: the group's transaction holds every member's
   * writes at once. Alone, it writes early as a sink without a group does, and the group's
   * transaction continues the one its early writes opened.
   */
  #joinGroup(run: object, name: string, database: SinkConnections): void {
    const groupSink = `group-${name}`;
    this.#group = TransactionGroup.join(run, `${name}\u0000${this.#connection!.display}`, this, (checkpointId, epoch) => buildGid(this.#job, groupSink, 0, checkpointId, epoch), async (session, gid, statements) => {
      if (!session.inTransaction) await session.begin();
      for (const statement of statements) await session.run(statement);
      await session.prepare(gid, prepareStatement(database.db, gid));
    });
    this.#groupPrefix = gidPrefix(this.#job, groupSink);
  }

  /**
   * The group's prepared transactions left in the database: commits those with a checkpoint ≤
   * `restoredCheckpointId` (one already committed by a member is fine: a marker row carries its
   * gid; none is a loss), rolls back the rest (all of them without a restore).
   */
  async #resolveGroupLeftovers(restoredCheckpointId: number | undefined): Promise<void> {
    const { database, context } = this.#opened();
    const found = await this.#control('list prepared transactions', () => listPrepared(database.db, this.#groupPrefix));
    for (const { gid, parts } of found) {
      if (restoredCheckpointId !== undefined && parts.checkpointId <= restoredCheckpointId) {
        await this.#control(`commit prepared transaction ${gid} of checkpoint ${parts.checkpointId}`, async () => {
          if (await rollForward(database.db, gid)) return;
          if (!(await markerWithGidExists(database.db, gid))) {
            throw new WeirError('CONNECTOR_ERROR', `${this.#label}: prepared transaction ${gid} of checkpoint ${parts.checkpointId} is gone and no marker row carries it: its rows were lost`);
          }
        });
        context.warn(`${this.#label}: committed ${gid} of its transaction group, prepared for completed checkpoint ${parts.checkpointId} whose commit had not happened`);
      } else {
        await this.#control(`roll back prepared transaction ${gid}`, () => rollbackPrepared(database.db, gid));
        context.warn(`${this.#label}: rolled back ${gid} of its transaction group, ${restoredCheckpointId === undefined ? 'left by an earlier run' : `after the restored checkpoint ${restoredCheckpointId}`}`);
      }
    }
  }

  /**
   * Buffers the batch; returns a promise when the buffer was full and is being written into the
   * open transaction. An append sink (no primary key) throws CONNECTOR_ERROR on anything but +I.
   */
  write(batch: ChangeBatch): void | Promise<void> {
    const { buffer } = this.#opened();
    const { kinds, rows } = batch;
    const append = this.#spec.primaryKey.length === 0 && this.#spec.multiset !== true;
    for (let i = 0; i < rows.length; i++) {
      const kind = kinds[i]!;
      if (append && kind !== RowKind.INSERT) throw this.#updateRefused(kind);
      buffer.add(kind, rows[i]!);
    }
    if (buffer.size < this.#maxBufferedRows || (this.#group?.size ?? 1) > 1) return;
    const writes = buffer.drain();
    return this.#enqueue(`write into ${this.#tableText()}`, () => this.#write(writes));
  }

  /**
   * Exactly-once: writes what is buffered and the marker row, then prepares the transaction
   * (throws when PREPARE fails or does not answer PREPARE). At-least-once: writes and commits.
   */
  prepareCommit(checkpointId: number): Promise<PreparedTransaction> {
    const { buffer, context } = this.#opened();
    const writes = buffer.drain();
    const base = { job: this.#job, sink: this.#sink, subtask: context.subtask };
    if (this.#options.semantic === 'at-least-once') {
      return this.#enqueue(`commit checkpoint ${checkpointId} into ${this.#tableText()}`, async () => {
        await this.#commitPlain(writes);
        const data: PostgresTransactionData = { ...base, gid: null };
        return { checkpointId, data };
      });
    }
    const group = this.#group;
    if (group !== undefined) {
      return this.#enqueue(`prepare checkpoint ${checkpointId} of ${this.#tableText()} with its transaction group`, async () => {
        const { session, database, target } = this.#opened();
        const gid = await group.contribute(checkpointId, this, {
          ownGid: buildGid(this.#job, this.#sink, base.subtask, checkpointId, this.#epoch),
          session,
          statements: (groupGid) => [...writeStatements(database.db, target, writes), markerUpsert(database.db, { ...base, checkpointId, gid: groupGid })],
        });
        this.#prepared.add(gid);
        const data: PostgresTransactionData = { ...base, gid };
        return { checkpointId, data };
      });
    }
    const gid = buildGid(this.#job, this.#sink, context.subtask, checkpointId, this.#epoch);
    return this.#enqueue(`prepare checkpoint ${checkpointId} as ${gid} in ${this.#tableText()}`, async () => {
      const { session, database } = this.#opened();
      await this.#write(writes);
      if (!session.inTransaction) await session.begin();
      await session.run(markerUpsert(database.db, { ...base, checkpointId, gid }));
      await session.prepare(gid, prepareStatement(database.db, gid));
      this.#prepared.add(gid);
      const data: PostgresTransactionData = { ...base, gid };
      return { checkpointId, data };
    });
  }

  /**
   * COMMIT PREPARED for each transaction, in checkpoint order, on a control connection. A gid that
   * no longer exists is fine when its marker row exists (committed before) and a CONNECTOR_ERROR
   * saying the rows were lost when it does not. Other errors propagate.
   */
  async commit(transactions: readonly PreparedTransaction[]): Promise<void> {
    const { database } = this.#opened();
    const ordered = [...transactions].sort((a, b) => a.checkpointId - b.checkpointId);
    for (const transaction of ordered) {
      const data = this.#dataOf(transaction);
      if (data.gid === null) continue;
      const marker: Marker = { job: data.job, sink: data.sink, subtask: data.subtask, checkpointId: transaction.checkpointId, gid: data.gid };
      const commit = async (): Promise<void> => {
        await commitPrepared(database.db, this.#label, marker);
      };
      const group = this.#group;
      await this.#control(`commit prepared transaction ${data.gid} of checkpoint ${transaction.checkpointId}`, () =>
        group !== undefined && data.gid!.startsWith(this.#groupPrefix) ? group.commitOnce(data.gid!, transaction.checkpointId, commit) : commit(),
      );
      this.#prepared.delete(data.gid);
    }
  }

  /** Transactions this writer prepared (alone or in its transaction group) and has not committed yet. */
  pendingTransactions(): number {
    return this.#prepared.size;
  }

  /**
   * Refuses to run behind its own output (its marker rows name a checkpoint after the restored
   * one), then commits the restored `pending` transactions, then (on subtask 0 only) commits every
   * other prepared transaction of this sink with a checkpoint ≤ `restoredCheckpointId` and rolls
   * back the later ones, so that none is left.
   */
  async recover(pending: readonly PreparedTransaction[], restoredCheckpointId: number): Promise<void> {
    if (this.#options.semantic === 'exactly-once') await this.#checkNotAhead(restoredCheckpointId);
    await this.commit(pending);
    if (this.#opened().context.subtask === 0) await this.#resolveLeftovers(restoredCheckpointId);
    await this.#group?.resolveOnce(() => this.#resolveGroupLeftovers(restoredCheckpointId));
  }

  /**
   * Throws CHECKPOINT_ERROR when this sink has committed a checkpoint after the one being restored
   * (a newer checkpoint was lost, or an older savepoint was chosen): replaying from it would write
   * the output of the checkpoints between again.
   */
  async #checkNotAhead(restoredCheckpointId: number): Promise<void> {
    const { database } = this.#opened();
    const last = await this.#control('read its commit history', () => lastCommittedCheckpoint(database.db, this.#job, this.#sink));
    if (last === undefined || last <= restoredCheckpointId) return;
    throw new WeirError(
      'CHECKPOINT_ERROR',
      `${this.#label} has committed checkpoint ${last} into ${this.#tableText()} at ${this.#connection!.display} (its rows in weir.sink_commits), but the job is being restored from checkpoint ${restoredCheckpointId}: running from there would write the output of ${last === restoredCheckpointId + 1 ? `checkpoint ${last}` : `checkpoints ${restoredCheckpointId + 1} to ${last}`} again`,
      {
        hint: `restore checkpoint ${last} or a later one; if it is lost, start afresh (weir run --fresh) into an empty table, since the table holds output the restored state does not know about`,
        permanent: true,
      },
    );
  }

  /** End of input without checkpointing: writes and commits everything buffered in a plain transaction. */
  flush(): Promise<void> {
    const writes = this.#opened().buffer.drain();
    return this.#enqueue(`commit into ${this.#tableText()}`, () => this.#commitPlain(writes));
  }

  /**
   * Rolls back a transaction that was not prepared and closes the connections; prepared
   * transactions stay for `commit` or `recover`. A statement still in flight is cut off by closing
   * its connection (it may be waiting for a lock that only a commit this job will no longer make
   * would release).
   */
  async close(): Promise<void> {
    this.#group?.leave(this);
    this.#group = undefined;
    const state = this.#state;
    this.#state = undefined;
    if (state !== undefined && this.#busy > 0) {
      state.session.destroy();
      await this.#queue;
    } else if (state !== undefined) {
      await this.#queue;
      if (state.session.inTransaction) {
        // The transaction was not prepared: its rows belong to a checkpoint that did not complete.
        await state.session.rollback().catch((error: unknown) => {
          state.context.warn(`${this.#label}: could not roll back its unprepared transaction on close (the server rolls it back as the connection closes): ${this.#scrub(describeError(error))}`);
        });
      }
      state.session.destroy();
    }
    const database = this.#database;
    this.#database = undefined;
    await database?.release();
    const server = this.#server;
    this.#server = undefined;
    await server?.release();
  }

  #checkPreparedSlots(maxPrepared: number, context: SinkContext): void {
    const display = this.#connection!.display;
    if (maxPrepared === 0) {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `${this.#label}: the server at ${display} has max_prepared_transactions = 0, so exactly-once (two-phase commit) is impossible`,
        { hint: "set max_prepared_transactions (e.g. 64) in postgresql.conf and restart the server, or use 'sink.semantic' = 'at-least-once'" },
      );
    }
    if (context.subtask === 0 && maxPrepared < 2 * context.parallelism) {
      context.warn(
        `${this.#label}: the server at ${display} has max_prepared_transactions = ${maxPrepared}; ${context.parallelism} subtasks may hold ${2 * context.parallelism} prepared transactions at once`,
      );
    }
  }

  async #resolveTable(): Promise<QualifiedTable> {
    const name = this.#options.tableName ?? { schema: undefined, table: this.#spec.table };
    if (name.schema !== undefined) return { schema: name.schema, table: name.table };
    const schema = await this.#control(`connect to ${this.#connection!.display}`, () => currentSchema(this.#database!.db, this.#spec.table));
    return { schema, table: name.table };
  }

  /** Writes into the open transaction, opening one first. */
  async #write(writes: BufferedWrites): Promise<void> {
    const { session, database, target } = this.#opened();
    const statements = writeStatements(database.db, target, writes);
    if (statements.length === 0) return;
    if (!session.inTransaction) await session.begin();
    for (const statement of statements) await session.run(statement);
  }

  async #commitPlain(writes: BufferedWrites): Promise<void> {
    const { session } = this.#opened();
    await this.#write(writes);
    if (session.inTransaction) await session.commit();
  }

  /**
   * Finishes this sink's prepared transactions left in the database (any subtask, any run):
   * commits those with a checkpoint ≤ `restoredCheckpointId`, rolls back the rest (all of them when
   * there was no restore).
   */
  async #resolveLeftovers(restoredCheckpointId: number | undefined): Promise<void> {
    const { database, context } = this.#opened();
    const found = await this.#control('list prepared transactions', () => listPrepared(database.db, gidPrefix(this.#job, this.#sink)));
    const rolledBack: string[] = [];
    for (const { gid, parts } of found) {
      if (restoredCheckpointId !== undefined && parts.checkpointId <= restoredCheckpointId) {
        const marker: Marker = { job: this.#job, sink: this.#sink, subtask: parts.subtask, checkpointId: parts.checkpointId, gid };
        await this.#control(`commit prepared transaction ${gid} of checkpoint ${parts.checkpointId}`, () => commitPrepared(database.db, this.#label, marker));
        context.warn(`${this.#label}: committed ${gid}, prepared for completed checkpoint ${parts.checkpointId} whose commit had not happened`);
      } else {
        await this.#control(`roll back prepared transaction ${gid}`, () => rollbackPrepared(database.db, gid));
        rolledBack.push(gid);
      }
    }
    if (rolledBack.length > 0) {
      const why = restoredCheckpointId === undefined ? 'left by an earlier run' : `of checkpoints after the restored checkpoint ${restoredCheckpointId}`;
      context.warn(`${this.#label}: rolled back ${rolledBack.length} prepared transaction(s) ${why}: ${rolledBack.join(', ')}`);
    }
  }

  #dataOf(transaction: PreparedTransaction): PostgresTransactionData {
    const data = transaction.data as Partial<PostgresTransactionData> | null | undefined;
    const gid = data?.gid;
    const valid =
      typeof data?.job === 'string' &&
      typeof data.sink === 'string' &&
      Number.isSafeInteger(data.subtask) &&
      (gid === null || (typeof gid === 'string' && parseGid(gid)?.checkpointId === transaction.checkpointId));
    if (!valid) {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `${this.#label} cannot commit checkpoint ${transaction.checkpointId}: its transaction is not one of a postgres sink: ${JSON.stringify(transaction.data)}`,
      );
    }
    return data as PostgresTransactionData;
  }

  #updateRefused(kind: RowKind): WeirError {
    const what = kind === RowKind.DELETE ? 'a delete' : 'an update';
    return new WeirError(
      'CONNECTOR_ERROR',
      `${this.#label} has no primary key, so it can only insert rows, but received ${what} (${ROW_KIND_SHORT[kind]}); declare PRIMARY KEY (...) NOT ENFORCED on '${this.#spec.table}' to write an updating query`,
      { permanent: true },
    );
  }

  /** Runs `task` after every earlier queued step; once one failed, every later one fails with its error. */
  #enqueue<T>(action: string, task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      if (this.#failure !== undefined) throw this.#failure;
      this.#busy++;
      try {
        return await this.#control(action, task);
      } finally {
        this.#busy--;
      }
    });
    this.#queue = run.then(
      () => undefined,
      (error: unknown) => {
        this.#failure ??= error;
      },
    );
    return run;
  }

  /** Runs one database step, turning a driver error into a CONNECTOR_ERROR that names the sink and the step (never the password). */
  async #control<T>(action: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (error instanceof WeirError) throw error;
      const message = describeError(error);
      const state = sqlState(error);
      const code = state === undefined ? '' : ` (SQLSTATE ${state})`;
      throw new WeirError('CONNECTOR_ERROR', `${this.#label} could not ${action}: ${this.#scrub(message)}${code}`, { cause: error });
    }
  }

  #scrub(message: string): string {
    return scrubPassword(message, this.#connection?.password);
  }

  #tableText(): string {
    const table = this.#state?.target.table;
    return table === undefined ? this.#spec.table : displayTable(table);
  }

  #opened(): OpenState {
    if (this.#state === undefined) throw new WeirError('INTERNAL_ERROR', `${this.#label} was used before it was opened or after it was closed`);
    return this.#state;
  }
}
