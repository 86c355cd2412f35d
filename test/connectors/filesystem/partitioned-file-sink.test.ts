import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../src/common/datetime.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { FileSinkOptions } from '../../../src/connectors/filesystem/file-sink-options.js';
import { FileSinkWriter } from '../../../src/connectors/filesystem/file-sink-writer.js';
import type { PartitionCommitOptions } from '../../../src/connectors/filesystem/partition-committer.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'dt', type: SqlTypes.string() },
  { name: 'v', type: SqlTypes.string() },
  { name: 'hm', type: SqlTypes.string() },
];

let dir: string;
const writers: FileSinkWriter[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-partitioned-sink-'));
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((writer) => writer.close()));
  await rm(dir, { recursive: true, force: true });
});

const partitionTime: PartitionCommitOptions = { trigger: 'partition-time', delayMs: 60_000, successFileName: '_SUCCESS', timestampPattern: '$dt $hm:00' };
const processTime: PartitionCommitOptions = { trigger: 'process-time', delayMs: 0, successFileName: '_SUCCESS' };

interface WriterSetup {
  readonly commit?: PartitionCommitOptions;
  readonly options?: Partial<FileSinkOptions>;
  readonly subtask?: number;
  readonly parallelism?: number;
  readonly run?: object;
  readonly state?: readonly unknown[];
}

async function openWriter(setup: WriterSetup = {}): Promise<FileSinkWriter> {
  const writer = new FileSinkWriter('out', schema, {
    path: dir,
    format: 'csv',
    fieldDelimiter: ',',
    partitionKeys: ['dt', 'hm'],
    ...(setup.commit === undefined ? {} : { partitionCommit: setup.commit }),
    ...setup.options,
  });
  if (setup.state !== undefined) writer.initializeState(setup.state);
  await writer.open({ subtask: setup.subtask ?? 0, parallelism: setup.parallelism ?? 1, ...(setup.run === undefined ? {} : { run: setup.run }), warn: () => {} });
  writers.push(writer);
  return writer;
}

type Record = readonly [id: number, dt: string | null, hm: string | null];

const rows = (...records: Record[]): ChangeBatch => ChangeBatch.of(records.map(([id, dt, hm]) => [RowKind.INSERT, [id, dt, `v${id}`, hm]] as const));

/** Epoch milliseconds of a UTC timestamp text. */
const at = (text: string): number => parseTimestamp(text)!;

/** Prepares and commits one checkpoint, with the writer's state taken at its barrier as the runtime does. */
async function checkpoint(writer: FileSinkWriter, id: number): Promise<unknown> {
  const state = writer.snapshotState(id);
  await writer.commit([await writer.prepareCommit(id)]);
  return state;
}

/** Every file under the sink's directory, as relative paths. */
async function allFiles(): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

/** The committed lines of each partition directory. */
async function committedLines(): Promise<Map<string, string[]>> {
  const lines = new Map<string, string[]>();
  for (const file of await allFiles()) {
    const name = file.slice(file.lastIndexOf('/') + 1);
    if (!name.startsWith('part-')) continue;
    const partition = file.slice(0, file.lastIndexOf('/'));
    const text = await readFile(join(dir, file), 'utf8');
    lines.set(partition, [...(lines.get(partition) ?? []), ...text.split('\n').filter((l) => l !== '')].sort());
  }
  return lines;
}

async function successFiles(): Promise<string[]> {
  return (await allFiles()).filter((file) => file.endsWith('/_SUCCESS'));
}

const success = (...partitions: string[]): string[] => partitions.map((p) => `${p}/_SUCCESS`).sort();

describe('partitioned filesystem sink: partition directories', () => {
  it('writes each record, without its partition columns, into its Hive-style partition directory, visible only after the commit', async () => {
    const writer = await openWriter();
    writer.write(rows([1, '2024-01-01', '10:00'], [2, '2024-01-01', '10:01'], [3, '2024-01-01', '10:00'], [4, null, ' ']));
    const transaction = await writer.prepareCommit(1);
    expect((await allFiles()).every((file) => file.slice(file.lastIndexOf('/') + 1).startsWith('.'))).toBe(true);
    await writer.commit([transaction]);
    expect(await committedLines()).toEqual(
      new Map([
        ['dt=2024-01-01/hm=10%3A00', ['1,v1', '3,v3']],
        ['dt=2024-01-01/hm=10%3A01', ['2,v2']],
        ['dt=__DEFAULT_PARTITION__/hm=__DEFAULT_PARTITION__', ['4,v4']],
      ]),
    );
    expect(await successFiles()).toEqual([]);
  });

  it('rolls a part file open longer than the rollover interval, within one transaction', async () => {
    const writer = await openWriter({ options: { rolling: { rolloverMs: 20, inactivityMs: 60_000, checkMs: 5 } } });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await new Promise((resolve) => setTimeout(resolve, 80));
    writer.write(rows([2, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    const parts = (await allFiles()).filter((file) => file.includes('/part-'));
    expect(parts).toHaveLength(2);
    expect(await committedLines()).toEqual(new Map([['dt=2024-01-01/hm=10%3A00', ['1,v1', '2,v2']]]));
  });

  it('rolls a part file that received nothing for the inactivity interval', async () => {
    const writer = await openWriter({ options: { rolling: { rolloverMs: 60_000, inactivityMs: 20, checkMs: 5 } } });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await new Promise((resolve) => setTimeout(resolve, 80));
    writer.write(rows([2, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    expect((await allFiles()).filter((file) => file.includes('/part-'))).toHaveLength(2);
  });
});

describe('partitioned filesystem sink: partition commit', () => {
  it('partition-time: commits a partition once the watermark at a completed checkpoint passes its time plus the delay', async () => {
    const writer = await openWriter({ commit: partitionTime });
    writer.write(rows([1, '2024-01-01', '10:00'], [2, '2024-01-01', '10:01'], [3, '2024-01-01', '10:02']));
    writer.processWatermark(at('2024-01-01 10:01:30'));
    const prepared = await writer.prepareCommit(1);
    writer.processWatermark(at('2024-01-01 10:10:00'));
    expect(await successFiles()).toEqual([]);
    await writer.commit([prepared]);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    await checkpoint(writer, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00', 'dt=2024-01-01/hm=10%3A01', 'dt=2024-01-01/hm=10%3A02'));
    expect((await stat(join(dir, 'dt=2024-01-01/hm=10%3A00/_SUCCESS'))).size).toBe(0);
  });

  it('never commits a partition whose files are not visible yet', async () => {
    const writer = await openWriter({ commit: processTime });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    writer.write(rows([2, '2024-01-01', '10:01']));
    const prepared = await writer.prepareCommit(2);
    writer.write(rows([3, '2024-01-01', '10:02']));
    await writer.processWatermark(Number.POSITIVE_INFINITY);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    await writer.commit([prepared]);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00', 'dt=2024-01-01/hm=10%3A01'));
    await checkpoint(writer, 3);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00', 'dt=2024-01-01/hm=10%3A01', 'dt=2024-01-01/hm=10%3A02'));
  });

  it('process-time: commits a partition once the delay has passed since its creation', async () => {
    const writer = await openWriter({ commit: { ...processTime, delayMs: 150 } });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    expect(await successFiles()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    writer.write(rows([2, '2024-01-01', '10:01']));
    await checkpoint(writer, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
  });

  it('commits every partition at the end of input (the final watermark), whatever the trigger', async () => {
    const writer = await openWriter({ commit: { ...partitionTime, delayMs: 3_600_000 } });
    writer.write(rows([1, '2024-01-01', '10:00'], [2, '2024-01-02', '23:59']));
    await writer.processWatermark(Number.POSITIVE_INFINITY);
    await writer.flush();
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00', 'dt=2024-01-02/hm=23%3A59'));
  });

  it('commits a partition that received late records again', async () => {
    const writer = await openWriter({ commit: processTime });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    await rm(join(dir, 'dt=2024-01-01/hm=10%3A00/_SUCCESS'));
    writer.write(rows([2, '2024-01-01', '10:00']));
    await checkpoint(writer, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    expect(writer.snapshotState(3)).toEqual({ partitions: [] });
  });

  it('with several subtasks, waits for every subtask’s files and for the smallest watermark', async () => {
    const run = {};
    const first = await openWriter({ commit: partitionTime, run, subtask: 0, parallelism: 2 });
    const second = await openWriter({ commit: partitionTime, run, subtask: 1, parallelism: 2 });
    first.write(rows([1, '2024-01-01', '10:00']));
    second.write(rows([2, '2024-01-01', '10:00']));
    first.processWatermark(at('2024-01-01 10:05:00'));
    second.processWatermark(at('2024-01-01 10:01:00'));
    await checkpoint(first, 1);
    expect(await successFiles()).toEqual([]);
    await checkpoint(second, 1);
    expect(await successFiles()).toEqual([]);
    second.processWatermark(at('2024-01-01 10:01:01'));
    await checkpoint(first, 2);
    await checkpoint(second, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    expect(await committedLines()).toEqual(new Map([['dt=2024-01-01/hm=10%3A00', ['1,v1', '2,v2']]]));
  });

  it('fails the commit, naming the partition and the pattern, when a partition time cannot be read', async () => {
    const writer = await openWriter({ commit: partitionTime });
    writer.write(rows([1, null, '10:00']));
    writer.processWatermark(at('2024-01-01 10:00:00'));
    await expect(checkpoint(writer, 1)).rejects.toThrow(
      "filesystem sink 'out' cannot commit partition dt=__DEFAULT_PARTITION__/hm=10%3A00 by partition time: '__DEFAULT_PARTITION__ 10:00:00' (from 'partition.time-extractor.timestamp-pattern') is not a timestamp such as '2024-01-01 10:05:00'",
    );
  });
});

describe('partitioned filesystem sink: exactly once across a restore', () => {
  it('restoring a checkpoint commits its files, deletes later ones in every partition, and still commits every partition', async () => {
    const before = await openWriter({ commit: partitionTime });
    before.write(rows([1, '2024-01-01', '10:00'], [2, '2024-01-01', '10:01']));
    const state1 = before.snapshotState(1);
    const prepared1 = await before.prepareCommit(1);
    before.write(rows([3, '2024-01-01', '10:01'], [4, '2024-01-01', '10:02']));
    await before.prepareCommit(2);
    before.write(rows([5, '2024-01-01', '10:03']));
    await before.write(rows(...Array.from({ length: 8000 }, (_unused, i): Record => [100 + i, '2024-01-01', '10:03'])));
    await before.close();
    const hidden = (await allFiles()).filter((file) => file.slice(file.lastIndexOf('/') + 1).startsWith('.'));
    expect(hidden.some((file) => file.endsWith('.inprogress'))).toBe(true);
    expect(hidden.some((file) => file.endsWith('.cp-2.pending'))).toBe(true);

    const after = await openWriter({ commit: partitionTime, state: [state1] });
    await after.recover([prepared1], 1);
    expect(await committedLines()).toEqual(
      new Map([
        ['dt=2024-01-01/hm=10%3A00', ['1,v1']],
        ['dt=2024-01-01/hm=10%3A01', ['2,v2']],
      ]),
    );
    expect((await allFiles()).filter((file) => file.slice(file.lastIndexOf('/') + 1).startsWith('.') && !file.includes('.weir-committed-'))).toEqual([]);
    expect(await successFiles()).toEqual([]);

    after.write(rows([3, '2024-01-01', '10:01'], [4, '2024-01-01', '10:02'], [5, '2024-01-01', '10:03']));
    after.processWatermark(at('2024-01-01 10:01:30'));
    await checkpoint(after, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
    await after.processWatermark(Number.POSITIVE_INFINITY);
    await checkpoint(after, 3);
    expect(await committedLines()).toEqual(
      new Map([
        ['dt=2024-01-01/hm=10%3A00', ['1,v1']],
        ['dt=2024-01-01/hm=10%3A01', ['2,v2', '3,v3']],
        ['dt=2024-01-01/hm=10%3A02', ['4,v4']],
        ['dt=2024-01-01/hm=10%3A03', ['5,v5']],
      ]),
    );
    expect(await successFiles()).toEqual(
      success('dt=2024-01-01/hm=10%3A00', 'dt=2024-01-01/hm=10%3A01', 'dt=2024-01-01/hm=10%3A02', 'dt=2024-01-01/hm=10%3A03'),
    );
  });

  it('commits the partitions a restored checkpoint recorded as pending, once the watermark passes them', async () => {
    const before = await openWriter({ commit: partitionTime });
    before.write(rows([1, '2024-01-01', '10:00']));
    const state = await checkpoint(before, 1);
    await before.close();
    expect(await successFiles()).toEqual([]);

    const after = await openWriter({ commit: partitionTime, state: [state] });
    await after.recover([], 1);
    after.processWatermark(at('2024-01-01 10:02:00'));
    await checkpoint(after, 2);
    expect(await successFiles()).toEqual(success('dt=2024-01-01/hm=10%3A00'));
  });

  it('refuses a restored state that is not its own', async () => {
    const writer = new FileSinkWriter('out', schema, { path: dir, format: 'csv', fieldDelimiter: ',', partitionKeys: ['dt', 'hm'], partitionCommit: processTime });
    expect(() => writer.initializeState([{ partitions: [['x', 'y']] }])).toThrow(
      'filesystem sink \'out\' cannot restore its partition commit state: {"partitions":[["x","y"]]}',
    );
  });

  it('leaves a file in a partition directory alone when it is not one of its hidden files', async () => {
    const writer = await openWriter({ commit: processTime });
    writer.write(rows([1, '2024-01-01', '10:00']));
    await checkpoint(writer, 1);
    await writeFile(join(dir, 'dt=2024-01-01/hm=10%3A00/.keep'), '');
    const again = await openWriter({ commit: processTime });
    await again.recover([], 1);
    expect(await allFiles()).toContain('dt=2024-01-01/hm=10%3A00/.keep');
  });
});
