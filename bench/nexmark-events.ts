/**
 * The events weir's `nexmark` source emits for a workload, produced by the same reader with the
 * same options, in chunks of whole source batches, so that the reference implementations process
 * exactly weir's input without the generator's cost in their timed part.
 */
import { ChangeBatch, type Row } from '../src/common/row.js';
import { parseNexmarkOptions } from '../src/connectors/nexmark/nexmark-options.js';
import { NexmarkReader } from '../src/connectors/nexmark/nexmark-reader.js';
import { BATCH_SIZE } from '../src/runtime/task/source-task.js';
import type { NexmarkWorkload } from './nexmark-query-catalog.js';

/** One source batch: rows `[event_type, person, auction, bid]`, as weir's source emits them. */
export type EventBatch = readonly Row[];

/** Events per chunk: bounds the memory the materialised events take. */
export const CHUNK_EVENTS = 1_000_000;

/** A reader over the workload's events, configured as `ddl.sql` configures the source. */
async function openReader(workload: NexmarkWorkload): Promise<NexmarkReader> {
  const options = new Map([
    ['first-event.rate', String(workload.tps)],
    ['next-event.rate', String(workload.tps)],
    ['events.num', String(workload.events)],
    ['person.proportion', '1'],
    ['auction.proportion', '3'],
    ['bid.proportion', '46'],
  ]);
  const reader = new NexmarkReader(parseNexmarkOptions(options));
  await reader.open({ subtask: 0, parallelism: 1, warn: () => {} });
  return reader;
}

/**
 * Reads the next chunk of about `chunkEvents` events from `reader` as source batches; `ended`
 * once the reader has ended.
 */
export function nextChunk(reader: NexmarkReader, chunkEvents = CHUNK_EVENTS): { batches: EventBatch[]; ended: boolean } {
  const batches: EventBatch[] = [];
  let events = 0;
  let ended = false;
  while (!ended && events < chunkEvents) {
    const batch = new ChangeBatch();
    ended = reader.poll(batch, BATCH_SIZE) === 'end';
    batches.push(batch.rows);
    events += batch.size;
  }
  return { batches, ended };
}

/**
 * Yields the workload's events as source batches, a chunk (about {@link CHUNK_EVENTS} events) at
 * a time; generating a chunk is not part of what the consumer times.
 */
export async function* eventChunks(workload: NexmarkWorkload, chunkEvents = CHUNK_EVENTS): AsyncGenerator<EventBatch[]> {
  const reader = await openReader(workload);
  let ended = false;
  while (!ended) {
    const chunk = nextChunk(reader, chunkEvents);
    ended = chunk.ended;
    yield chunk.batches;
  }
  await reader.close();
}

/**
 * Makes a freshly generated chunk resident before a timed part reads it: a full collection (when
 * the process runs with `--expose-gc`, as the benchmark's children do) moves the chunk's events
 * out of the young generation, so that promoting them is charged to no one's timed part.
 */
export function settleChunk(): void {
  const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
  gc?.({ type: 'minor' });
  gc?.({ type: 'minor' });
}

/** All of a (small) workload's events at once, for tests. */
export async function allEvents(workload: NexmarkWorkload): Promise<EventBatch[]> {
  const batches: EventBatch[] = [];
  for await (const chunk of eventChunks(workload, Infinity)) batches.push(...chunk);
  return batches;
}
