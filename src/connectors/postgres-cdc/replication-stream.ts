/**
 * One streaming-replication session: `START_REPLICATION SLOT ... LOGICAL <lsn>` with pgoutput
 * (protocol 1, the source's publication) on a replication connection. node-postgres delivers the
 * CopyBoth data as `copyData` events of its connection; status updates go back as CopyData
 * (`sendCopyFromChunk`): on the server's request, every few seconds, and when the source
 * confirms a position. The slot's confirmed position moves only through {@link confirm}.
 */
import type pg from 'pg';
import { endClient, quoteIdentifier, quoteLiteral } from './cdc-connections.js';
import { formatLsn, type Lsn } from './lsn-format.js';
import { decodeWalSenderMessage, standbyStatusUpdate, type WalSenderMessage } from './replication-messages.js';

/** Status updates are sent at least this often, well within the server's wal_sender_timeout (60 s by default). */
const STATUS_INTERVAL_MS = 5_000;

/**
 * A server shutting down waits for its logical walsenders until the client has confirmed every
 * position sent, and asks for replies again and again; the source confirms only checkpointed
 * positions, so it leaves instead (and reconnects, with backoff, after the restart). Outside a
 * shutdown the server asks at most every wal_sender_timeout / 2, and status updates go out more
 * often than that anyway.
 */
const SHUTDOWN_REQUESTS_WITHIN_MS = 1_000;
const SHUTDOWN_MESSAGE = 'the server is shutting down: it waits for positions to be confirmed that no checkpoint covers yet';

/** What the stream reports to. */
export interface StreamListener {
  /** The server accepted START_REPLICATION. */
  started(): void;
  /** One message of the server; an exception thrown here ends the session with that error. */
  message(message: WalSenderMessage): void;
  /** The session ended: an error, or undefined when it was closed. Called once. */
  ended(error: Error | undefined): void;
  /** The connection could not be closed cleanly after the session ended (reported, nothing is lost). */
  closeFailed(error: Error): void;
}

/** Internals of node-postgres this relies on: the connection under a client. */
interface CopyConnection {
  on(event: 'copyData', listener: (message: { chunk: Buffer }) => void): void;
  once(event: 'replicationStart', listener: () => void): void;
  sendCopyFromChunk(chunk: Buffer): void;
  readonly stream: { pause(): void; resume(): void };
}

/** A running replication session. */
export class ReplicationStream {
  readonly #client: pg.Client;
  readonly #connection: CopyConnection;
  readonly #timer: NodeJS.Timeout;
  #received: Lsn;
  #confirmed: Lsn;
  #ended = false;
  #lastReplyRequest = -Infinity;

  private constructor(client: pg.Client, start: Lsn, confirmed: Lsn, private readonly listener: StreamListener) {
    this.#client = client;
    this.#connection = (client as unknown as { connection: CopyConnection }).connection;
    this.#received = start;
    this.#confirmed = confirmed;
    this.#timer = setInterval(() => this.#sendStatus(), STATUS_INTERVAL_MS);
    this.#timer.unref();
  }

  /**
   * Starts streaming `slot` from `start` on a connected replication client, which the stream owns
   * from now on. `confirmed` is the position confirmed so far (0n: none in this process).
   */
  static start(client: pg.Client, slot: string, publication: string, start: Lsn, confirmed: Lsn, listener: StreamListener): ReplicationStream {
    const stream = new ReplicationStream(client, start, confirmed, listener);
    const end = (error: Error | undefined): void => {
      if (stream.#ended) return;
      stream.#ended = true;
      clearInterval(stream.#timer);
      listener.ended(error);
    };
    stream.#connection.once('replicationStart', () => {
      stream.#sendStatus();
      listener.started();
    });
    stream.#connection.on('copyData', ({ chunk }) => {
      if (stream.#ended) return;
      try {
        const message = decodeWalSenderMessage(chunk);
        if (message.kind === 'xlog' && message.start > stream.#received) stream.#received = message.start;
        if (message.kind === 'keepalive' && message.replyRequested) {
          stream.#sendStatus();
          if (stream.#shutdownSuspected()) throw new Error(SHUTDOWN_MESSAGE);
        }
        listener.message(message);
      } catch (error) {
        end(error as Error);
        void endClient(client, (closeError) => listener.closeFailed(closeError));
      }
    });
    client.on('error', (error) => end(error));
    client.on('end', () => end(new Error('the server closed the replication connection')));
    const options = `proto_version '1', publication_names ${quoteLiteral(quoteIdentifier(publication))}`;
    client.query(`START_REPLICATION SLOT ${quoteIdentifier(slot)} LOGICAL ${formatLsn(start)} (${options})`).then(
      () => end(new Error('the server ended the replication stream')),
      (error: Error) => end(error),
    );
    return stream;
  }

  /** Confirms everything before `lsn` to the server (the slot may then discard it); never moves back. */
  confirm(lsn: Lsn): void {
    if (lsn <= this.#confirmed) return;
    this.#confirmed = lsn;
    this.#sendStatus();
  }

  /** Stops reading from the socket (backpressure); status updates continue. */
  pause(): void {
    this.#connection.stream.pause();
  }

  resume(): void {
    this.#connection.stream.resume();
  }

  /** Ends the session from this side (the listener hears nothing more). */
  async close(): Promise<void> {
    this.#ended = true;
    clearInterval(this.#timer);
    this.resume();
    await endClient(this.#client, (error) => this.listener.closeFailed(error));
  }

  /** True when the server asks for a reply again within {@link SHUTDOWN_REQUESTS_WITHIN_MS}. */
  #shutdownSuspected(): boolean {
    const now = performance.now();
    const previous = this.#lastReplyRequest;
    this.#lastReplyRequest = now;
    return now - previous < SHUTDOWN_REQUESTS_WITHIN_MS;
  }

  #sendStatus(): void {
    if (this.#ended) return;
    const written = this.#received > this.#confirmed ? this.#received : this.#confirmed;
    this.#connection.sendCopyFromChunk(standbyStatusUpdate(written, this.#confirmed));
  }
}
