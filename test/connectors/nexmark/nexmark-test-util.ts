/** Helpers for nexmark tests: readers and generators over option records. */
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import { NexmarkGenerator, splitOf } from '../../../src/connectors/nexmark/nexmark-generator.js';
import { parseNexmarkOptions } from '../../../src/connectors/nexmark/nexmark-options.js';
import { NexmarkReader, type NexmarkClock } from '../../../src/connectors/nexmark/nexmark-reader.js';
import type { PollStatus } from '../../../src/runtime/source-reader.js';

/** An opened reader for one subtask of a nexmark table with these options. */
export async function openReader(
  options: Record<string, string> = {},
  { subtask = 0, parallelism = 1, offset, clock }: { subtask?: number; parallelism?: number; offset?: unknown; clock?: NexmarkClock } = {},
): Promise<NexmarkReader> {
  const reader = new NexmarkReader(parseNexmarkOptions(new Map(Object.entries(options))), clock);
  if (offset !== undefined) reader.seek(offset);
  await reader.open({ subtask, parallelism, warn: () => {} });
  return reader;
}

/** Polls until `limit` rows were read or the reader ended (or went idle, when `stopWhenIdle`). */
export function readRows(reader: NexmarkReader, limit = Infinity, batchSize = 97, stopWhenIdle = false): { rows: Row[]; status: PollStatus } {
  const rows: Row[] = [];
  const batch = new ChangeBatch();
  let status: PollStatus = 'more';
  while (rows.length < limit && status !== 'end' && !(stopWhenIdle && status === 'idle')) {
    batch.clear();
    status = reader.poll(batch, Math.min(batchSize, limit - rows.length));
    rows.push(...batch.rows);
  }
  return { rows, status };
}

/** The first `count` events of a table with these options. */
export async function events(count: number, options: Record<string, string> = {}): Promise<Row[]> {
  return readRows(await openReader(options), count).rows;
}

/** The generator of split `subtask` of `parallelism` for a table with these options (base time fixed). */
export function generatorFor(options: Record<string, string> = {}, subtask = 0, parallelism = 1): NexmarkGenerator {
  const config = parseNexmarkOptions(new Map(Object.entries(options)));
  if (config.baseTime === 'now') throw new Error('generatorFor needs a fixed base-time');
  return new NexmarkGenerator(config, splitOf(config, subtask, parallelism), config.baseTime);
}

/** The events k = 0 … count − 1 of a generator, with their ids. */
export function eventsWithIds(generator: NexmarkGenerator, count: number): { id: number; row: Row }[] {
  return Array.from({ length: count }, (_, k) => ({ id: generator.eventIdOf(k), row: generator.eventAt(k) }));
}
