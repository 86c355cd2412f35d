/**
 * Pulls a stream's messages into a {@link MessageQueue} in the background, in stream order, from
 * a start sequence to an optional last one. It uses the client's ordered consumer (an ephemeral
 * consumer without acks that the client recreates at the right sequence when a delivery is missed
 * or the server lost it) and consumes with a callback, so no promise is made per message. When
 * the queue is full it stops consuming and later starts a new ordered consumer right after the
 * last message queued, so a slow job slows the reading down instead of filling memory. When
 * consuming fails it warns, waits with exponential backoff and continues the same way, so nothing
 * is lost or repeated. A stream that no longer exists fails the source.
 */
import { ConsumerEvents, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import { WeirError } from '../../common/errors.js';
import { firstMessageFrom, isStreamNotFound } from './jetstream-stream.js';
import type { MessageQueue } from './message-queue.js';
import type { NatsLink } from './nats-connection.js';

/** Messages the client asks the server for at a time. */
const PULL_BATCH = 1024;
/** Consuming pauses when the queue holds this many messages ... */
const QUEUE_CAPACITY = 16 * PULL_BATCH;
/** ... and resumes once it is down to this many. */
const RESUME_BELOW = QUEUE_CAPACITY / 2;
/** How long a pull request waits on the server; missing two heartbeats (half of it each) makes the client check its consumer. */
const PULL_EXPIRES_MS = 3_000;
const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 5_000;
/** How often a bounded read that has caught up asks whether its end has been reached. */
const END_CHECK_MS = 500;

/** What the fetcher reads and where it reports. */
export interface FetchPlan {
  readonly table: string;
  readonly stream: string;
  readonly subject: string | undefined;
  /** The first stream sequence to receive. */
  readonly start: number;
  /** The last stream sequence to receive (inclusive); undefined reads on forever. */
  readonly end: number | undefined;
  /** The stream's last sequence when reading started. */
  readonly streamLast: number;
  readonly warn: (message: string) => void;
}

/** The background reader of one source. */
export class JetStreamFetcher {
  readonly #client: JetStreamClient;
  readonly #manager: JetStreamManager;
  readonly #link: NatsLink;
  readonly #plan: FetchPlan;
  readonly #queue: MessageQueue;
  /** The next stream sequence to receive: one after the last message queued. */
  #next: number;
  #exhausted = false;
  #failure: WeirError | undefined;
  #streamGone = false;
  #closed = false;
  #messages: ConsumerMessages | undefined;
  #generation = 0;
  /** Resumes consuming once the queue has room. */
  #roomWaiter: (() => void) | undefined;
  /** Cuts a retry's wait short when the fetcher closes. */
  #retryWaiter: (() => void) | undefined;
  #run: Promise<void> | undefined;
  /** True when the last message received said no later one matches (or none was received yet). */
  #caughtUp = true;
  #endTimer: NodeJS.Timeout | undefined;
  #checkingEnd = false;
  /** True while periodic end checks fail in a row (only the first is reported). */
  #endCheckFailing = false;

  constructor(link: NatsLink, manager: JetStreamManager, plan: FetchPlan, queue: MessageQueue) {
    this.#link = link;
    this.#client = link.connection.jetstream();
    this.#manager = manager;
    this.#plan = plan;
    this.#queue = queue;
    this.#next = plan.start;
    this.#exhausted = plan.end !== undefined && plan.start > plan.end;
  }

  /** True once every message up to the last sequence is in the queue (never for an unbounded read). */
  get exhausted(): boolean {
    return this.#exhausted;
  }

  /** Why reading stopped for good, once it has. */
  get failure(): WeirError | undefined {
    return this.#failure;
  }

  /** Starts fetching (a bounded read first checks whether anything is left up to its end). */
  async start(): Promise<void> {
    void this.#link.connection.closed().then((error) => this.#connectionClosed(error));
    if (this.#plan.end !== undefined && !this.#exhausted) {
      await this.#checkEnd();
      this.#endTimer = setInterval(() => {
        if (this.#caughtUp && !this.#checkingEnd) void this.#checkEnd().then(() => (this.#endCheckFailing = false), (error: unknown) => this.#endCheckFailed(error));
      }, END_CHECK_MS);
      this.#endTimer.unref();
    }
    this.#run ??= this.#loop();
  }

  /** Tells the fetcher that messages were taken from the queue, so that a paused consumer may resume. */
  notifySpace(): void {
    const waiter = this.#roomWaiter;
    if (waiter !== undefined && this.#queue.size <= RESUME_BELOW) {
      this.#roomWaiter = undefined;
      waiter();
    }
  }

  /** Stops fetching; resolves once no callback can add to the queue any more. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#endTimer);
    this.#messages?.stop();
    this.#roomWaiter?.();
    this.#retryWaiter?.();
    await this.#run;
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (!this.#closed && !this.#exhausted && this.#failure === undefined) {
      if (this.#queue.size > RESUME_BELOW) {
        await new Promise<void>((resolve) => (this.#roomWaiter = resolve));
        continue;
      }
      const next = this.#next;
      let error: unknown;
      try {
        error = await this.#consume();
      } catch (thrown) {
        error = thrown ?? new Error('consuming failed');
      }
      const paused = this.#queue.size > RESUME_BELOW || this.#exhausted || this.#closed;
      if (error === undefined && !paused && this.#next === next) error = new Error('the consumer stopped without a message');
      if (this.#closed || this.#failure !== undefined) return;
      if (error === undefined) {
        if (failures > 0) this.#plan.warn(`nats table '${this.#plan.table}' reads stream '${this.#plan.stream}' again, from sequence ${this.#next}`);
        failures = 0;
        continue;
      }
      const fatal = this.#fatal(error);
      if (fatal !== undefined) {
        this.#failure = fatal;
        return;
      }
      const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** failures++);
      this.#plan.warn(
        `nats table '${this.#plan.table}' could not read stream '${this.#plan.stream}' at ${this.#link.display} (${this.#link.describe(error)}); retrying from sequence ${this.#next} in ${delay} ms`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#retryWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#retryWaiter = undefined;
    }
  }

  /**
   * Consumes with a new ordered consumer from `#next` until the queue is full, the read is
   * complete, the fetcher closes or consuming fails; resolves with the failure, if any.
   */
  async #consume(): Promise<unknown> {
    const { stream, subject } = this.#plan;
    const consumer = await this.#client.consumers.get(stream, { opt_start_seq: this.#next, ...(subject === undefined ? {} : { filterSubjects: subject }) });
    const generation = ++this.#generation;
    try {
      const messages = await consumer.consume({ max_messages: PULL_BATCH, expires: PULL_EXPIRES_MS, callback: (m) => this.#receive(m, generation) });
      this.#messages = messages;
      void this.#watch(messages);
      if (this.#closed || this.#exhausted || this.#queue.size >= QUEUE_CAPACITY) messages.stop();
      const error = await messages.closed();
      return error ?? (this.#streamGone ? new Error('stream not found') : undefined);
    } finally {
      this.#generation++;
      this.#messages = undefined;
      // The server deletes an ephemeral consumer itself after its inactive threshold; a failed delete is only reported.
      void consumer.delete().catch((error: unknown) => this.#plan.warn(`nats table '${this.#plan.table}' could not delete its consumer of stream '${this.#plan.stream}' (the server removes it when idle): ${this.#link.describe(error)}`));
    }
  }

  /** Queues a message in order; pauses consuming when the queue is full or the read complete. */
  #receive(message: JsMsg, generation: number): void {
    if (generation !== this.#generation || this.#closed || this.#exhausted) return;
    const sequence = message.seq;
    if (sequence < this.#next) return;
    const end = this.#plan.end;
    if (end !== undefined && sequence > end) {
      this.#complete();
      return;
    }
    this.#queue.push(sequence, message.subject, message.data);
    this.#next = sequence + 1;
    this.#caughtUp = message.info.pending === 0;
    // Caught up with a stream that already held the end: no match up to the end is missing.
    if (end !== undefined && (sequence === end || (this.#caughtUp && end <= this.#plan.streamLast))) this.#complete();
    else if (this.#queue.size >= QUEUE_CAPACITY) this.#messages?.stop();
  }

  #complete(): void {
    this.#exhausted = true;
    clearInterval(this.#endTimer);
    this.#messages?.stop();
  }

  /** Reports the first failure of a periodic end check in a row (the next check runs anyway). */
  #endCheckFailed(error: unknown): void {
    if (this.#endCheckFailing) return;
    this.#endCheckFailing = true;
    this.#plan.warn(`nats table '${this.#plan.table}' could not check whether stream '${this.#plan.stream}' has reached the end of the bounded read (checked again every ${END_CHECK_MS} ms): ${this.#link.describe(error)}`);
  }

  /**
   * Completes a bounded read when nothing is left to receive: the stream has reached the end and
   * holds no matching message from `#next` to it (a message arriving meanwhile is either found
   * here or lies after the end).
   */
  async #checkEnd(): Promise<void> {
    const end = this.#plan.end!;
    this.#checkingEnd = true;
    try {
      const from = this.#next;
      const info = await this.#manager.streams.info(this.#plan.stream);
      if (info.state.last_seq < end) return;
      const first = await firstMessageFrom(this.#manager, this.#plan.stream, this.#plan.subject, from);
      if ((first === undefined || first > end) && from === this.#next && !this.#closed) this.#complete();
    } finally {
      this.#checkingEnd = false;
    }
  }

  /** A connection that closes while the fetcher runs (the client gave up, e.g. on an authorization error) fails the source. */
  #connectionClosed(error: void | Error): void {
    if (this.#closed) return;
    this.#failure ??= new WeirError('CONNECTOR_ERROR', `nats table '${this.#plan.table}': the connection to ${this.#link.display} was closed${error instanceof Error ? `: ${this.#link.describe(error)}` : ''}`, {
      cause: error,
    });
    this.#messages?.stop();
    this.#roomWaiter?.();
    this.#retryWaiter?.();
  }

  /** Ends consuming when the client reports that the stream is gone (it would otherwise retry for ever). */
  async #watch(messages: ConsumerMessages): Promise<void> {
    for await (const status of await messages.status()) {
      if (status.type === ConsumerEvents.StreamNotFound) {
        this.#streamGone = true;
        messages.stop();
      }
    }
  }

  /** The error that ends the source, for a failure that retrying cannot fix. */
  #fatal(error: unknown): WeirError | undefined {
    if (!isStreamNotFound(error)) return undefined;
    const { table, stream } = this.#plan;
    return new WeirError('CONNECTOR_ERROR', `nats table '${table}': stream '${stream}' no longer exists at ${this.#link.display} (reading at sequence ${this.#next})`, { cause: error });
  }
}
