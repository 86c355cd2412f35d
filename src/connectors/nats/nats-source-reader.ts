/**
 * The NATS JetStream source reader. Its offset is the stream sequence of the last message it
 * turned into a row or set aside (plus the last sequence to read, for a bounded table, fixed when
 * the job first started), so a restored job resumes right after it: no message is read twice or
 * skipped. Polls never wait: they decode the messages the {@link JetStreamFetcher} has already
 * queued and report 'idle' when there are none.
 */
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch, Row } from '../../common/row.js';
import type { PollStatus, SourceContext, SourceReader } from '../../runtime/source-reader.js';
import { RecordDecodeError, type BadRecordPolicy, type RecordDecoder } from '../formats/record-decoder.js';
import { JetStreamFetcher } from './jetstream-fetcher.js';
import { inspectStream } from './jetstream-stream.js';
import { MessageQueue } from './message-queue.js';
import { connectNats, type NatsLink } from './nats-connection.js';
import type { NatsSourceConfig } from './nats-options.js';
import { readRangeOf, type ReadRange } from './read-range.js';

/** The offset of a NATS reader: the last stream sequence consumed, and the last one to read when bounded. */
export interface NatsOffset {
  readonly sequence: number;
  readonly end?: number;
}

/** What turns a message into a row: the table's format, and what happens to a message it cannot decode. */
export interface NatsRecordFormat {
  readonly decoder: RecordDecoder;
  /** The bad-record policy, reporting through the source's `warn` (known at `open`). */
  policy(warn: (message: string) => void): BadRecordPolicy;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT_UTF8 = new TextDecoder('utf-8');

/** Reads a NATS table (always with one subtask: a stream is read in order by one consumer). */
export class NatsSourceReader implements SourceReader {
  readonly #table: string;
  readonly #config: NatsSourceConfig;
  readonly #format: NatsRecordFormat;
  readonly #queue = new MessageQueue();
  #resumed: NatsOffset | undefined;
  #range: ReadRange | undefined;
  /** The stream sequence of the last message consumed (emitted or set aside). */
  #position = 0;
  #policy: BadRecordPolicy | undefined;
  #link: NatsLink | undefined;
  #fetcher: JetStreamFetcher | undefined;

  constructor(table: string, config: NatsSourceConfig, format: NatsRecordFormat) {
    this.#table = table;
    this.#config = config;
    this.#format = format;
  }

  /** Continues after an offset from {@link currentOffset}. */
  seek(offset: unknown): void {
    const { sequence, end } = (typeof offset === 'object' && offset !== null ? offset : {}) as { sequence?: unknown; end?: unknown };
    if (!Number.isSafeInteger(sequence) || (sequence as number) < 0 || (end !== undefined && (!Number.isSafeInteger(end) || (end as number) < 0))) {
      throw new WeirError('CONNECTOR_ERROR', `nats table '${this.#table}' cannot resume from offset ${JSON.stringify(offset)}: expected { sequence, end? } with stream sequences`);
    }
    this.#resumed = { sequence: sequence as number, ...(end === undefined ? {} : { end: end as number }) };
  }

  async open(context: SourceContext): Promise<void> {
    if (context.parallelism !== 1) throw new WeirError('INTERNAL_ERROR', `nats table '${this.#table}' is read by one subtask, not ${context.parallelism}`);
    const { stream, subject } = this.#config;
    this.#policy = this.#format.policy(context.warn);
    const link = await connectNats(this.#config.servers, this.#table, context.warn);
    this.#link = link;
    try {
      const { manager, bounds } = await inspectStream(link, this.#table, stream, subject);
      const range = readRangeOf(this.#config, bounds, this.#resumed);
      if (this.#resumed !== undefined && range.start < bounds.first && range.start <= bounds.last) {
        context.warn(
          `nats table '${this.#table}' resumes stream '${stream}' at sequence ${range.start}, but the stream now starts at ${bounds.first}: messages ${range.start}..${bounds.first - 1} were removed before they were read`,
        );
      }
      this.#range = range;
      this.#position = range.start - 1;
      const fetcher = new JetStreamFetcher(link, manager, { table: this.#table, stream, subject, start: range.start, end: range.end, streamLast: bounds.last, warn: context.warn }, this.#queue);
      this.#fetcher = fetcher;
      await fetcher.start();
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Appends the rows of up to `maxRecords` queued messages. 'more' while messages remain queued;
   * when none do: 'end' once a bounded read is complete, 'idle' otherwise. Throws the fetcher's
   * failure once the messages received before it are consumed.
   */
  poll(output: ChangeBatch, maxRecords: number): PollStatus | Promise<PollStatus> {
    const fetcher = this.#fetcher;
    const policy = this.#policy;
    if (fetcher === undefined || policy === undefined) throw new WeirError('INTERNAL_ERROR', `nats table '${this.#table}' polled before open`);
    const queue = this.#queue;
    const decoder = this.#format.decoder;
    let emitted = 0;
    while (emitted < maxRecords && queue.size > 0) {
      const sequence = queue.sequence;
      const subject = queue.subject;
      const payload = queue.payload;
      queue.shift();
      this.#position = sequence;
      let row: Row;
      try {
        row = decoder.decode(textOf(payload));
      } catch (error) {
        if (!(error instanceof RecordDecodeError)) throw error;
        const origin = { source: `subject '${subject}' of stream '${this.#config.stream}'`, position: `stream sequence ${sequence}` };
        const setAside = policy.reject(trimLineEnd(LENIENT_UTF8.decode(payload)), origin, error);
        if (setAside instanceof Promise) return setAside.then(() => this.#status(fetcher));
        continue;
      }
      output.push(RowKind.INSERT, row);
      emitted++;
    }
    return this.#status(fetcher);
  }

  /** The last stream sequence consumed, with the end of a bounded read. */
  currentOffset(): NatsOffset {
    const end = this.#range?.end;
    return end === undefined ? { sequence: this.#position } : { sequence: this.#position, end };
  }

  rejectedRecords(): number {
    return this.#policy?.rejected ?? 0;
  }

  async close(): Promise<void> {
    const fetcher = this.#fetcher;
    const link = this.#link;
    this.#fetcher = undefined;
    this.#link = undefined;
    await fetcher?.close();
    await link?.close();
    this.#queue.clear();
  }

  #status(fetcher: JetStreamFetcher): PollStatus {
    fetcher.notifySpace();
    if (this.#queue.size > 0) return 'more';
    const failure = fetcher.failure;
    if (failure !== undefined) throw failure;
    return fetcher.exhausted ? 'end' : 'idle';
  }
}

/** The record's text: UTF-8 without one trailing line break (messages published a line at a time keep theirs). */
function textOf(payload: Uint8Array): string {
  let text: string;
  try {
    text = UTF8.decode(payload);
  } catch {
    throw new RecordDecodeError('the message is not valid UTF-8');
  }
  return trimLineEnd(text);
}

function trimLineEnd(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
