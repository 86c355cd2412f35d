/**
 * The postgres-cdc source reader: the captured table's initial snapshot, then its changes from a
 * logical replication slot, as one changelog (+I, -U/+U, -D keyed by the primary key).
 *
 * Fresh start: checks the server and table, creates the publication when missing, (re)creates the
 * slot with an exported snapshot, and reads the table in that snapshot as +I rows; then streams
 * from the slot's consistent point, so that every transaction is either in the snapshot or in the
 * stream, never both. The snapshot dies with its session, so the reader is not checkpointable
 * while it runs (barriers wait), and a lost connection during it fails the job.
 *
 * Streaming: each committed transaction is buffered whole and emitted over one or more polls; the
 * reader is checkpointable only between transactions, so a checkpoint never splits one. The
 * offset is the end of the last emitted transaction; the slot is confirmed up to a checkpoint's
 * offset only in `notifyCheckpointComplete`, so the server keeps everything a restore may need.
 * A restore streams from the checkpointed position (the server sends no transaction that
 * committed before it, and the reader drops any it has already seen). A lost replication
 * connection (a restarting server) is retried with backoff, each attempt reported through
 * `context.warn`, resuming after the last transaction received, so nothing is lost or repeated.
 */
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { SourceSpec } from '../../dataflow/job-graph.js';
import type { PollStatus, SourceContext, SourceReader } from '../../runtime/source-reader.js';
import { describeError, sqlState } from '../postgres/driver-errors.js';
import { displayTable } from '../postgres/postgres-ddl.js';
import { resolveConnection, scrubPassword, type ConnectionTarget } from '../postgres/postgres-options.js';
import { connectClient, endClient } from './cdc-connections.js';
import { resumePosition, streamOffset, type CdcOffset } from './cdc-offset.js';
import { CdcRowDecoder } from './cdc-row-decoder.js';
import { formatLsn, type Lsn } from './lsn-format.js';
import { parsePostgresCdcOptions, type PostgresCdcOptions } from './postgres-cdc-options.js';
import { decodePgoutput } from './pgoutput-decoder.js';
import type { WalSenderMessage } from './replication-messages.js';
import { ReplicationStream } from './replication-stream.js';
import { backoffDelay, isTransientFault } from './server-faults.js';
import { createSlotWithSnapshot, dropSlot, ensurePublication, findSlot, preparedTransactions } from './slot-management.js';
import { SnapshotCursor } from './snapshot-cursor.js';
import { checkSourceTable, type CapturedTable } from './source-table-checks.js';
import { TransactionAssembler, type CdcTransaction } from './transaction-assembler.js';
import type pg from 'pg';

/** Buffered records beyond which the reader stops reading the replication socket, and below which it reads again. */
const HIGH_WATER = 100_000;
const LOW_WATER = 20_000;

/** Emitted transactions kept at the front of the queue before it is compacted. */
const COMPACT_AFTER = 1024;

/** What the reader is doing. */
type Phase = 'closed' | 'snapshot' | 'stream';

/** Reads one captured table; see the module comment for the protocol. */
export class PostgresCdcReader implements SourceReader {
  readonly #spec: SourceSpec;
  readonly #options: PostgresCdcOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly #label: string;
  #target: ConnectionTarget | undefined;
  #context: SourceContext | undefined;
  #table: CapturedTable | undefined;
  #assembler: TransactionAssembler | undefined;
  #decoder: CdcRowDecoder | undefined;
  #phase: Phase = 'closed';
  #resumeFrom: Lsn | undefined;
  #snapshot: { readonly client: pg.Client; readonly cursor: SnapshotCursor } | undefined;
  /** The end of the last transaction emitted: the offset. */
  #emitted: Lsn = 0n;
  /** The end of the last transaction received whole (or a position the server reported as fully sent). */
  #received: Lsn = 0n;
  #confirmed: Lsn = 0n;
  readonly #queue: CdcTransaction[] = [];
  #queueStart = 0;
  /** Records of the first queued transaction already emitted. */
  #head = 0;
  #buffered = 0;
  #paused = false;
  readonly #checkpoints = new Map<number, Lsn>();
  #stream: ReplicationStream | undefined;
  #attempts = 0;
  #failure: unknown;
  #closing = false;

  /** `env` supplies DATABASE_URL and the PG* variables when the spec has no `url` (default: the process's). */
  constructor(spec: SourceSpec, env: NodeJS.ProcessEnv = process.env) {
    this.#spec = spec;
    this.#options = parsePostgresCdcOptions(new Map(Object.entries(spec.options)));
    this.#env = env;
    this.#label = `postgres-cdc source '${spec.table}'`;
  }

  /** Continues after a checkpointed offset (see cdc-offset.ts) instead of taking a snapshot. */
  seek(offset: unknown): void {
    this.#resumeFrom = resumePosition(offset, this.#options.slotName, this.#label);
  }

  /** Checks and sets up the capture (retrying while the server is unreachable), then starts the snapshot or the stream. */
  async open(context: SourceContext): Promise<void> {
    this.#context = context;
    if (context.subtask > 0) throw new WeirError('INTERNAL_ERROR', `${this.#label} reads with one subtask, but was opened as subtask ${context.subtask}`);
    const target = resolveConnection(this.#spec.table, this.#options.url, this.#env, { label: this.#label, verb: 'read from' });
    this.#target = target;
    await this.#retrying(`set up change data capture at ${target.display}`, () => this.#setUp(target));
    if (this.#phase === 'stream') this.#connectStream();
  }

  /** Emits snapshot rows, or whole buffered transactions (one may span polls); once the stream failed, throws after the transactions received before the failure. */
  poll(output: ChangeBatch, maxRecords: number): PollStatus | Promise<PollStatus> {
    if (this.#phase === 'snapshot') return this.#pollSnapshot(output, maxRecords);
    if (this.#phase !== 'stream') throw new WeirError('INTERNAL_ERROR', `${this.#label} was polled while ${this.#phase}`);
    if (this.#failure !== undefined && this.#queueStart >= this.#queue.length) throw this.#failure;
    return this.#pollStream(output, maxRecords);
  }

  /** False during the snapshot and while a transaction is partly emitted. */
  checkpointable(): boolean {
    return this.#phase === 'stream' && this.#head === 0;
  }

  /** The offset after the last emitted transaction; remembered for `checkpointId`, whose completion confirms it. */
  currentOffset(checkpointId?: number): CdcOffset {
    if (this.#phase !== 'stream') return { phase: 'snapshot', slot: this.#options.slotName };
    if (checkpointId !== undefined) this.#checkpoints.set(checkpointId, this.#emitted);
    return streamOffset(this.#options.slotName, this.#emitted);
  }

  /** Confirms the slot up to the offset of `checkpointId` (and of any earlier checkpoint it subsumes). */
  notifyCheckpointComplete(checkpointId: number): void {
    let lsn: Lsn | undefined;
    for (const [id, position] of this.#checkpoints) {
      if (id > checkpointId) continue;
      if (lsn === undefined || position > lsn) lsn = position;
      this.#checkpoints.delete(id);
    }
    if (lsn === undefined || lsn <= this.#confirmed) return;
    this.#confirmed = lsn;
    this.#stream?.confirm(lsn);
  }

  /** Ends the sessions; the slot and publication stay, for a restore. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#phase = 'closed';
    const stream = this.#stream;
    this.#stream = undefined;
    await stream?.close();
    const snapshot = this.#snapshot;
    this.#snapshot = undefined;
    if (snapshot !== undefined) await endClient(snapshot.client, (error) => this.#closeFailed('snapshot', error));
  }

  /**
   * A session's connection failed while no query of it was running (one running fails too, and
   * that failure is what stops or retries the source): reported, since it carries the server's reason.
   */
  #sessionFailed(what: string, error: Error): void {
    if (this.#closing) return;
    this.#context?.warn(`${this.#label}: its ${what} session failed: ${this.#scrub(describeError(error))}`);
  }

  /** A session that could not be closed cleanly: reported (the connection is gone either way). */
  #closeFailed(what: string, error: Error): void {
    this.#context?.warn(`${this.#label}: could not close its ${what} session cleanly: ${this.#scrub(describeError(error))}`);
  }

  // ---- setup ---------------------------------------------------------------------------------

  async #setUp(target: ConnectionTarget): Promise<void> {
    const client = await connectClient(target, this.#applicationName(), false, (error) => this.#sessionFailed('setup', error));
    try {
      const table = await checkSourceTable(client, {
        label: this.#label,
        display: target.display,
        table: this.#options.table,
        schema: this.#spec.schema,
        primaryKey: this.#spec.primaryKey ?? [],
        changelogMode: this.#options.changelogMode,
      });
      this.#table = table;
      this.#decoder = new CdcRowDecoder(this.#spec.schema, `${this.#label}, table ${displayTable(table.name)}`);
      this.#assembler = new TransactionAssembler(table, this.#decoder, this.#label, this.#options.changelogMode);
      await ensurePublication(client, this.#label, this.#options.publicationName, table);
      const database = (await client.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!.name;
      const slotName = this.#options.slotName;
      const slot = await findSlot(client, slotName);
      if (slot !== undefined && (slot.plugin !== 'pgoutput' || slot.database !== database)) {
        throw new WeirError(
          'CONNECTOR_ERROR',
          `${this.#label}: replication slot '${slotName}' at ${target.display} belongs to ${slot.database === null ? 'no database' : `database '${slot.database}'`} with plugin '${slot.plugin ?? 'none'}', not to '${database}' with pgoutput`,
          { hint: "set 'slot.name' to a slot of its own" },
        );
      }
      if (this.#resumeFrom !== undefined) {
        const from = this.#resumeFrom;
        if (slot === undefined) {
          throw new WeirError('CONNECTOR_ERROR', `${this.#label}: replication slot '${slotName}' no longer exists at ${target.display}, so the changes after the checkpointed position ${formatLsn(from)} are gone`, {
            hint: 'start the job without its checkpoint, so that it takes a new snapshot',
            permanent: true,
          });
        }
        if (slot.confirmedFlush > from) {
          throw new WeirError(
            'CONNECTOR_ERROR',
            `${this.#label}: replication slot '${slotName}' has confirmed ${formatLsn(slot.confirmedFlush)}, past the checkpointed position ${formatLsn(from)}, so the changes between are gone (was an older checkpoint restored?)`,
            { hint: 'restore the latest checkpoint, or start the job without its checkpoint to take a new snapshot', permanent: true },
          );
        }
        this.#emitted = from;
        this.#received = from;
        this.#phase = 'stream';
        await client.end();
        return;
      }
      if (slot !== undefined) {
        if (slot.activePid !== null) {
          throw new WeirError('CONNECTOR_ERROR', `${this.#label}: replication slot '${slotName}' at ${target.display} is in use by another session (pid ${slot.activePid})`, {
            hint: "set 'slot.name' to a slot of its own for each job that captures the table",
          });
        }
        await dropSlot(client, slotName);
        this.#context!.warn(`${this.#label}: dropped replication slot '${slotName}', left by an earlier run without a checkpoint; taking a new snapshot`);
      }
      const prepared = await preparedTransactions(client);
      if (prepared.length > 0) {
        const shown = prepared.slice(0, 3).map((p) => `'${p.gid}' (database ${p.database})`).join(', ');
        this.#context!.warn(
          `${this.#label}: creating replication slot '${slotName}' waits until the ${prepared.length} prepared transaction(s) of the cluster end: ${shown}${prepared.length > 3 ? ', ...' : ''}; COMMIT PREPARED or ROLLBACK PREPARED them if nothing will`,
        );
      }
      const replication = await connectClient(target, this.#applicationName(), true, (error) => this.#sessionFailed('replication', error));
      try {
        const created = await createSlotWithSnapshot(replication, slotName);
        const cursor = await SnapshotCursor.open(client, created.snapshotName, table);
        this.#snapshot = { client, cursor };
        this.#emitted = created.consistentPoint;
        this.#received = created.consistentPoint;
        this.#phase = 'snapshot';
      } finally {
        await endClient(replication, (error) => this.#closeFailed('replication', error));
      }
    } catch (error) {
      await endClient(client, (closeError) => this.#closeFailed('setup', closeError));
      throw error;
    }
  }

  // ---- snapshot ------------------------------------------------------------------------------

  async #pollSnapshot(output: ChangeBatch, maxRecords: number): Promise<PollStatus> {
    const snapshot = this.#snapshot!;
    const decoder = this.#decoder!;
    const shown = displayTable(this.#table!.name);
    try {
      const rows = await snapshot.cursor.fetch(maxRecords);
      for (const row of rows) output.push(RowKind.INSERT, decoder.decode(row, 'the snapshot'));
      if (rows.length > 0) return 'more';
      await snapshot.cursor.finish();
    } catch (error) {
      if (error instanceof WeirError) throw error;
      const lost = isTransientFault(error) ? '; a snapshot cannot be resumed in another session, so the job must start again' : '';
      throw this.#connectorError(`read the snapshot of ${shown}`, error, lost);
    }
    this.#snapshot = undefined;
    await endClient(snapshot.client, (error) => this.#closeFailed('snapshot', error));
    this.#phase = 'stream';
    this.#connectStream();
    return 'more';
  }

  // ---- stream --------------------------------------------------------------------------------

  #pollStream(output: ChangeBatch, maxRecords: number): PollStatus {
    const queue = this.#queue;
    let count = 0;
    while (this.#queueStart < queue.length && count < maxRecords) {
      const transaction = queue[this.#queueStart]!;
      const end = Math.min(transaction.rows.length, this.#head + maxRecords - count);
      for (let i = this.#head; i < end; i++) output.push(transaction.kinds[i]!, transaction.rows[i]!);
      count += end - this.#head;
      this.#head = end;
      if (end < transaction.rows.length) break;
      this.#emitted = transaction.endLsn;
      this.#head = 0;
      this.#queueStart++;
    }
    this.#buffered -= count;
    if (this.#queueStart >= COMPACT_AFTER || this.#queueStart === queue.length) {
      queue.splice(0, this.#queueStart);
      this.#queueStart = 0;
    }
    if (this.#paused && this.#buffered < LOW_WATER) {
      this.#paused = false;
      this.#stream?.resume();
    }
    return this.#queueStart < queue.length ? 'more' : 'idle';
  }

  /** Starts a replication session from the last position received, retrying while the server is away. */
  #connectStream(): void {
    if (this.#closing || this.#failure !== undefined) return;
    const target = this.#target!;
    connectClient(target, this.#applicationName(), true, recordedByTheStream).then(
      (client) => {
        if (this.#closing) {
          void endClient(client, (error) => this.#closeFailed('replication', error));
          return;
        }
        this.#assembler!.reset();
        this.#stream = ReplicationStream.start(client, this.#options.slotName, this.#options.publicationName, this.#received, this.#confirmed, {
          started: () => (this.#attempts = 0),
          message: (message) => this.#accept(message),
          ended: (error) => this.#streamEnded(error),
          closeFailed: (error) => this.#closeFailed('replication', error),
        });
        if (this.#paused) this.#stream.pause();
      },
      (error: unknown) => this.#streamEnded(error as Error),
    );
  }

  #streamEnded(error: Error | undefined): void {
    this.#stream = undefined;
    if (this.#closing || this.#failure !== undefined) return;
    const action = `stream changes of slot '${this.#options.slotName}' from ${this.#target!.display}`;
    if (error !== undefined && !isTransientFault(error)) {
      this.#failure = error instanceof WeirError ? error : this.#connectorError(action, error, '');
      return;
    }
    const delay = this.#nextRetry(action, error);
    if (delay !== undefined) setTimeout(() => this.#connectStream(), delay);
  }

  #accept(message: WalSenderMessage): void {
    const assembler = this.#assembler!;
    if (message.kind === 'keepalive') {
      if (!assembler.inTransaction && message.end > this.#received) this.#enqueue({ endLsn: message.end, kinds: [], rows: [] });
      return;
    }
    const transaction = assembler.accept(decodePgoutput(message.data));
    if (transaction !== undefined && transaction.endLsn > this.#received) this.#enqueue(transaction);
  }

  /** Queues a received transaction; an empty one only moves the position, replacing an empty one queued before it. */
  #enqueue(transaction: CdcTransaction): void {
    this.#received = transaction.endLsn;
    const queue = this.#queue;
    const last = queue.length > this.#queueStart ? queue[queue.length - 1]! : undefined;
    if (transaction.rows.length === 0 && last !== undefined && last.rows.length === 0) queue[queue.length - 1] = transaction;
    else queue.push(transaction);
    this.#buffered += transaction.rows.length;
    if (!this.#paused && this.#buffered > HIGH_WATER) {
      this.#paused = true;
      this.#stream?.pause();
    }
  }

  // ---- failures ------------------------------------------------------------------------------

  /** Runs `task`, retrying transient failures with backoff; throws CONNECTOR_ERROR naming `action` otherwise. */
  async #retrying(action: string, task: () => Promise<void>): Promise<void> {
    for (;;) {
      try {
        await task();
        this.#attempts = 0;
        return;
      } catch (error) {
        if (!isTransientFault(error)) throw error instanceof WeirError ? error : this.#connectorError(action, error, '');
        const delay = this.#nextRetry(action, error as Error);
        if (delay === undefined) throw this.#failure;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Counts a failed attempt: the delay before the next one (after a warning), or undefined once retries are exhausted (the failure is recorded). */
  #nextRetry(action: string, error: Error | undefined): number | undefined {
    const reason = error === undefined ? 'the connection closed' : this.#scrub(describeError(error));
    this.#attempts++;
    const max = this.#options.maxRetries;
    if (this.#attempts > max) {
      this.#failure = new WeirError('CONNECTOR_ERROR', `${this.#label} could not ${action} after ${max} retries: ${reason}`, { cause: error });
      return undefined;
    }
    const delay = backoffDelay(this.#attempts);
    this.#context!.warn(`${this.#label}: could not ${action} (${reason}); retrying in ${delay} ms (attempt ${this.#attempts} of ${max})`);
    return delay;
  }

  #connectorError(action: string, error: unknown, suffix: string): WeirError {
    const state = sqlState(error);
    return new WeirError('CONNECTOR_ERROR', `${this.#label} could not ${action}: ${this.#scrub(describeError(error))}${state === undefined ? '' : ` (SQLSTATE ${state})`}${suffix}`, {
      cause: error,
    });
  }

  #scrub(message: string): string {
    return scrubPassword(message, this.#target?.password);
  }

  #applicationName(): string {
    return `weir cdc ${this.#options.slotName}`.slice(0, 63);
  }
}

/**
 * The error listener of a replication client before its stream starts: nothing can fail between
 * the connection and the start (the same turn of the event loop), and from then on the stream's
 * own listener ends the session with the error, which the reader records and retries.
 */
function recordedByTheStream(): void {}
