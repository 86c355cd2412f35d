/**
 * The `nexmark` connector replaying events generated ahead, as the references read them: its
 * reader generates a chunk of source batches (about a million events) before the first poll,
 * settled out of the young generation as the references' chunks are (see settleChunk), and
 * each poll hands out the next batch, so that weir's rate on it compares with the references'
 * without subtracting anything; only a later chunk (in runs of more events) is generated inside
 * a poll, and that time is added to the clock for the measurement to take out. Bench use only:
 * it replays the events weir's own reader generates for the same options, and cannot resume.
 */
import { RowKind } from '../src/common/row-kind.js';
import type { ChangeBatch } from '../src/common/row.js';
import type { Connector } from '../src/connectors/api/connector.js';
import { nexmarkConnector } from '../src/connectors/nexmark/nexmark-connector.js';
import { parseNexmarkOptions } from '../src/connectors/nexmark/nexmark-options.js';
import { NexmarkReader } from '../src/connectors/nexmark/nexmark-reader.js';
import type { PollStatus, SourceContext, SourceReader } from '../src/runtime/source-reader.js';
import { CHUNK_EVENTS, nextChunk, settleChunk, type EventBatch } from './nexmark-events.js';
import type { GeneratorClock } from './timed-nexmark-connector.js';

class ReplayedReader implements SourceReader {
  private chunk: readonly EventBatch[] = [];
  private next = 0;
  private ended = false;
  private events = 0;

  constructor(
    private readonly generator: NexmarkReader,
    private readonly clock: GeneratorClock,
    private readonly chunkEvents: number,
  ) {}

  async open(context: SourceContext): Promise<void> {
    await this.generator.open(context);
    this.generate();
  }

  poll(output: ChangeBatch): PollStatus {
    this.clock.firstPollAt ??= performance.now();
    if (this.next === this.chunk.length) {
      if (this.ended) return 'end';
      const start = performance.now();
      this.generate();
      this.clock.ms += performance.now() - start;
    }
    const rows = this.chunk[this.next++]!;
    for (let i = 0; i < rows.length; i++) output.push(RowKind.INSERT, rows[i]!);
    this.events += rows.length;
    return this.next === this.chunk.length && this.ended ? 'end' : 'more';
  }

  currentOffset(): unknown {
    return { events: this.events };
  }

  seek(): void {
    throw new Error('the replayed nexmark source of the benchmark cannot resume from a checkpoint');
  }

  async close(): Promise<void> {
    await this.generator.close();
  }

  private generate(): void {
    const { batches, ended } = nextChunk(this.generator, this.chunkEvents);
    settleChunk();
    this.chunk = batches;
    this.next = 0;
    this.ended = ended;
  }
}

/** A `nexmark` connector (replacing the built-in one) whose readers replay events generated ahead, `chunkEvents` at a time; `clock` gets the time of chunks generated inside polls. */
export function replayedNexmarkConnector(clock: GeneratorClock, chunkEvents = CHUNK_EVENTS): Connector {
  return {
    descriptor: nexmarkConnector.descriptor,
    source: { createReader: (spec) => new ReplayedReader(new NexmarkReader(parseNexmarkOptions(new Map(Object.entries(spec.options)))), clock, chunkEvents) },
  };
}
