import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import {
  END_OF_INPUT,
  FileSinkWriter,
  tableTag,
  WRITE_CHUNK_CHARS,
  type FileTransactionData,
} from '../../../src/connectors/filesystem/file-sink-writer.js';
import type { FileSinkOptions } from '../../../src/connectors/filesystem/file-sink-options.js';
import { isTransactional, type PreparedTransaction } from '../../../src/runtime/sink-writer.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'v', type: SqlTypes.string() },
];

let dir: string;
/** Every writer a test opened; closed after the test (closing commits nothing, so a "crashed" writer stays crashed). */
const writers: FileSinkWriter[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-file-sink-'));
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((writer) => writer.close()));
  await rm(dir, { recursive: true, force: true });
});

interface WriterSetup {
  readonly table?: string;
  readonly subtask?: number;
  readonly parallelism?: number;
  readonly options?: Partial<FileSinkOptions>;
  /** Opens the writer as the runtime does after a restore (initializeState first; recover follows). */
  readonly restored?: boolean;
}

async function openWriter(setup: WriterSetup = {}): Promise<FileSinkWriter> {
  const writer = new FileSinkWriter(setup.table ?? 'out', schema, { path: dir, format: 'json', fieldDelimiter: ',', ...setup.options });
  if (setup.restored === true) writer.initializeState([]);
  await writer.open({ subtask: setup.subtask ?? 0, parallelism: setup.parallelism ?? 1, warn: () => {} });
  writers.push(writer);
  return writer;
}

const inserts = (...ids: number[]): ChangeBatch => ChangeBatch.of(ids.map((id) => [RowKind.INSERT, [id, `v${id}`]] as const));
const line = (id: number): string => `{"id":${id},"v":"v${id}"}\n`;
const lines = (...ids: number[]): string => ids.map(line).join('');
const range = (from: number, count: number): number[] => Array.from({ length: count }, (_unused, i) => from + i);

/** Writes enough rows that the writer writes them out to its in-progress file before the next barrier. */
async function writeBeyondChunk(writer: FileSinkWriter, from: number): Promise<number[]> {
  const ids = range(from, Math.ceil(WRITE_CHUNK_CHARS / line(from).length) + 1);
  const result = writer.write(inserts(...ids));
  expect(result).toBeInstanceOf(Promise);
  await result;
  return ids;
}

async function visibleFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !name.startsWith('.')).sort(byPartNumber);
}

/** Hidden part files (the marks of committed checkpoints aside). */
async function hiddenFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('.') && !name.startsWith('.weir-committed-')).sort();
}

/** The marks of the highest committed checkpoint per subtask: file name → checkpoint id. */
async function commitMarks(): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((name) => name.startsWith('.weir-committed-')).sort();
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, (await readFile(join(dir, name), 'utf8')).trim()] as const)));
}

/** Orders committed part files of one writer run by their counter. */
function byPartNumber(a: string, b: string): number {
  const [prefixA, counterA] = partKey(a);
  const [prefixB, counterB] = partKey(b);
  if (prefixA !== prefixB) return prefixA < prefixB ? -1 : 1;
  return counterA - counterB;
}

function partKey(name: string): [string, number] {
  const match = /^(.*)-(\d+)\.\w+$/.exec(name)!;
  return [match[1]!, Number(match[2])];
}

async function visibleText(): Promise<string> {
  const texts = await Promise.all((await visibleFiles()).map((name) => readFile(join(dir, name), 'utf8')));
  return texts.join('');
}

/** The committed lines, sorted: for runs whose files do not sort in write order. */
async function visibleLines(): Promise<string[]> {
  return (await visibleText()).split(/(?<=\n)/).filter((text) => text !== '').sort();
}

const sortedLines = (...ids: number[]): string[] => ids.map(line).sort();

function filesOf(transaction: PreparedTransaction): FileTransactionData['files'] {
  return (transaction.data as FileTransactionData).files;
}

describe('filesystem sink writer: the two-phase protocol', () => {
  it('is a transactional writer', async () => {
    expect(isTransactional(await openWriter())).toBe(true);
  });

  it('shows nothing after writing or preparing, and everything after the commit', async () => {
    const writer = await openWriter();
    expect(writer.write(inserts(1, 2))).toBeUndefined();
    writer.write(inserts(3));
    expect(await visibleFiles()).toEqual([]);

    const transaction = await writer.prepareCommit(1);
    expect(await visibleFiles()).toEqual([]);
    const [file] = filesOf(transaction);
    const final = `part-${tableTag('out')}-${/^part-[0-9a-f]{8}-([0-9a-f-]{36})-/.exec(file!.final)![1]}-0-0.json`;
    expect(transaction).toEqual({ checkpointId: 1, data: { files: [{ pending: `.${final}.cp-1.pending`, final }] } });
    expect(await hiddenFiles()).toEqual([`.${final}.cp-1.pending`]);
    expect(JSON.parse(JSON.stringify(transaction))).toEqual(transaction);

    await writer.commit([transaction]);
    expect(await visibleFiles()).toEqual([final]);
    expect(await hiddenFiles()).toEqual([]);
    expect(await readFile(join(dir, final), 'utf8')).toBe(lines(1, 2, 3));
    await writer.close();
  });

  it('starts a new part file after each barrier and creates no file for an empty transaction', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const first = await writer.prepareCommit(1);
    const empty = await writer.prepareCommit(2);
    expect(empty).toEqual({ checkpointId: 2, data: { files: [] } });
    writer.write(inserts(2));
    const third = await writer.prepareCommit(3);
    expect(filesOf(third)[0]!.final).toMatch(/-0-1\.json$/);
    await writer.commit([first, empty, third]);
    expect(await visibleFiles()).toHaveLength(2);
    expect(await visibleText()).toBe(lines(1, 2));
    await writer.close();
  });

  it('puts records written while a prepare is under way into the next transaction', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const preparing = writer.prepareCommit(1);
    writer.write(inserts(2));
    const first = await preparing;
    const second = await writer.prepareCommit(2);
    await writer.commit([first]);
    expect(await visibleText()).toBe(lines(1));
    await writer.commit([second]);
    expect(await visibleText()).toBe(lines(1, 2));
    await writer.close();
  });

  it('commits idempotently', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const transaction = await writer.prepareCommit(1);
    await writer.commit([transaction]);
    await writer.commit([transaction]);
    await writer.commit([transaction, transaction]);
    expect(await visibleText()).toBe(lines(1));
    await writer.close();
  });

  it('fails loudly when a prepared file is lost', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const transaction = await writer.prepareCommit(7);
    const [file] = filesOf(transaction);
    await rm(join(dir, file!.pending));
    const failure = writer.commit([transaction]);
    await expect(failure).rejects.toThrow(WeirError);
    await expect(failure).rejects.toThrow(
      `filesystem sink 'out' lost the prepared file ${file!.pending} of checkpoint 7: neither it nor ${file!.final} is in ${dir}`,
    );
    await expect(failure).rejects.toMatchObject({ code: 'CONNECTOR_ERROR' });
    await writer.close();
  });

  it('refuses a transaction that is not a list of this table’s part files', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const transaction = await writer.prepareCommit(1);
    const other = await openWriter({ table: 'other' });
    await expect(other.commit([transaction])).rejects.toThrow(
      `filesystem sink 'other' cannot commit checkpoint 1: its transaction is not a list of this table's part files: ${JSON.stringify(transaction.data)}`,
    );
    const escaping = { checkpointId: 1, data: { files: [{ pending: '../escape', final: '../../etc/passwd' }] } };
    await expect(writer.commit([escaping])).rejects.toThrow("filesystem sink 'out' cannot commit checkpoint 1");
    await expect(writer.commit([{ checkpointId: 2, data: transaction.data }])).rejects.toThrow("filesystem sink 'out' cannot commit checkpoint 2");
    await expect(writer.commit([{ checkpointId: 1, data: null }])).rejects.toThrow("filesystem sink 'out' cannot commit checkpoint 1");
    await writer.close();
    await other.close();
  });

  it('closes without committing', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    await writer.prepareCommit(1);
    await writeBeyondChunk(writer, 2);
    writer.write(inserts(99));
    await writer.close();
    expect(await visibleFiles()).toEqual([]);
    expect((await hiddenFiles()).map((name) => name.replace(/^.*\.json/, ''))).toEqual(['.cp-1.pending', '.inprogress']);
  });

  it('creates the directory, and names it when it cannot', async () => {
    const nested = join(dir, 'a', 'b');
    const writer = new FileSinkWriter('out', schema, { path: nested, format: 'json', fieldDelimiter: ',' });
    await writer.open({ subtask: 0, parallelism: 1, warn: () => {} });
    expect((await stat(nested)).isDirectory()).toBe(true);
    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    const blocked = new FileSinkWriter('out', schema, { path: file, format: 'json', fieldDelimiter: ',' });
    await expect(blocked.open({ subtask: 0, parallelism: 1, warn: () => {} })).rejects.toThrow(`filesystem sink 'out' could not create the directory ${file}: `);
  });

  it('fails every step after a failed one', async () => {
    const writer = await openWriter();
    await writeBeyondChunk(writer, 1);
    await rm(dir, { recursive: true });
    await expect(writer.prepareCommit(1)).rejects.toThrow(/^filesystem sink 'out' could not rename \.part-.*\.inprogress in /);
    writer.write(inserts(5));
    await expect(writer.prepareCommit(2)).rejects.toThrow(/^filesystem sink 'out' could not rename /);
    await writer.close();
  });
});

describe('filesystem sink writer: writing', () => {
  it('writes in chunks: write returns a promise once 64 KB are buffered, and the text reaches the in-progress file', async () => {
    const writer = await openWriter();
    const ids = await writeBeyondChunk(writer, 0);
    const [inProgress] = await hiddenFiles();
    expect(inProgress).toMatch(/\.json\.inprogress$/);
    expect((await stat(join(dir, inProgress!))).size).toBe(lines(...ids).length);
    writer.write(inserts(-1));
    await writer.commit([await writer.prepareCommit(1)]);
    expect(await visibleText()).toBe(lines(...ids, -1));
    await writer.close();
  });

  it('refuses updates and deletes with an append-only format, naming the table and the fix', async () => {
    const writer = await openWriter();
    const update = ChangeBatch.of([
      [RowKind.INSERT, [1, 'a']],
      [RowKind.UPDATE_BEFORE, [1, 'a']],
    ]);
    expect(() => writer.write(update)).toThrow(
      "filesystem sink 'out' with format 'json' received an update (-U); use 'format' = 'debezium-json' for updating queries",
    );
    const csv = await openWriter({ table: 'csv_out', options: { format: 'csv' } });
    expect(() => csv.write(ChangeBatch.of([[RowKind.DELETE, [1, 'a']]]))).toThrow(
      "filesystem sink 'csv_out' with format 'csv' received a delete (-D); use 'format' = 'debezium-json' for updating queries",
    );
    await writer.close();
    await csv.close();
  });

  it('writes every kind of change with debezium-json', async () => {
    const writer = await openWriter({ options: { format: 'debezium-json' } });
    writer.write(
      ChangeBatch.of([
        [RowKind.INSERT, [1, 'a']],
        [RowKind.UPDATE_BEFORE, [1, 'a']],
        [RowKind.UPDATE_AFTER, [1, 'b']],
        [RowKind.DELETE, [1, 'b']],
      ]),
    );
    await writer.flush();
    expect(await visibleFiles()).toEqual([expect.stringMatching(/-0-0\.json$/)]);
    expect(await visibleText()).toBe(
      '{"before":null,"after":{"id":1,"v":"a"},"op":"c"}\n' +
        '{"before":{"id":1,"v":"a"},"after":null,"op":"d"}\n' +
        '{"before":null,"after":{"id":1,"v":"b"},"op":"c"}\n' +
        '{"before":{"id":1,"v":"b"},"after":null,"op":"d"}\n',
    );
    await writer.close();
  });

  it('writes csv part files', async () => {
    const writer = await openWriter({ options: { format: 'csv', fieldDelimiter: ';' } });
    writer.write(
      ChangeBatch.of([
        [RowKind.INSERT, [1, 'a;b']],
        [RowKind.INSERT, [null, '']],
        [RowKind.INSERT, [3, 'say "hi"']],
      ]),
    );
    await writer.flush();
    expect(await visibleFiles()).toEqual([expect.stringMatching(/-0-0\.csv$/)]);
    expect(await visibleText()).toBe('1;"a;b"\n;""\n3;"say ""hi"""\n');
    await writer.close();
  });

  it('rolls to a new part file before one would exceed the size', async () => {
    const size = 3 * line(10).length + 5;
    const writer = await openWriter({ options: { rollSize: size } });
    const ids = range(10, 10);
    writer.write(inserts(...ids.slice(0, 4)));
    writer.write(inserts(...ids.slice(4)));
    expect(await visibleFiles()).toEqual([]);
    const transaction = await writer.prepareCommit(1);
    expect(filesOf(transaction)).toHaveLength(4);
    await writer.commit([transaction]);
    const files = await visibleFiles();
    expect(files.map((name) => /-(\d+)\.json$/.exec(name)![1])).toEqual(['0', '1', '2', '3']);
    for (const name of files) expect((await stat(join(dir, name))).size).toBeLessThanOrEqual(size);
    expect(await visibleText()).toBe(lines(...ids));
    await writer.close();
  });

  it('gives a record larger than the roll size a part file of its own', async () => {
    const writer = await openWriter({ options: { rollSize: 5 } });
    writer.write(inserts(1, 2));
    await writer.commit([await writer.prepareCommit(1)]);
    expect(await visibleFiles()).toHaveLength(2);
    expect(await visibleText()).toBe(lines(1, 2));
    await writer.close();
  });
});

describe('filesystem sink writer: end of input', () => {
  it('makes everything visible on flush without checkpointing', async () => {
    const writer = await openWriter();
    writer.write(inserts(1, 2));
    await writer.flush();
    expect(await visibleText()).toBe(lines(1, 2));
    expect(await hiddenFiles()).toEqual([]);
    await writer.close();
  });

  it('does nothing on flush after the final checkpoint’s prepare and commit', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    await writer.commit([await writer.prepareCommit(1)]);
    const before = await visibleFiles();
    await writer.flush();
    await writer.flush();
    expect(await visibleFiles()).toEqual(before);
    expect(await hiddenFiles()).toEqual([]);
    await writer.close();
  });

  it('names the end-of-input transaction after Flink’s end-of-input checkpoint', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const transaction = await writer.prepareCommit(END_OF_INPUT);
    expect(filesOf(transaction)[0]!.pending).toMatch(new RegExp(`\\.cp-${END_OF_INPUT}\\.pending$`));
    await writer.close();
  });
});

describe('filesystem sink writer: recovery', () => {
  /** A run that committed checkpoint 1, prepared 2 without its commit, and crashed while writing more. */
  async function crashedRun(): Promise<PreparedTransaction> {
    const writer = await openWriter();
    writer.write(inserts(1, 2));
    await writer.commit([await writer.prepareCommit(1)]);
    writer.write(inserts(3));
    const second = await writer.prepareCommit(2);
    await writeBeyondChunk(writer, 100);
    const ours = (await hiddenFiles()).filter((name) => name.startsWith(`.part-${tableTag('out')}-`));
    expect(ours.map((name) => name.replace(/^.*\.json/, ''))).toEqual(['.cp-2.pending', '.inprogress']);
    return second;
  }

  it('marks the highest checkpoint each subtask committed, and refuses a restore older than one of them, naming both', async () => {
    const [first, second] = [await openWriter({ subtask: 0, parallelism: 2 }), await openWriter({ subtask: 1, parallelism: 2 })];
    for (const id of [1, 2, 3]) {
      await first.write(inserts(id));
      await first.commit([await first.prepareCommit(id)]);
    }
    await second.commit([await second.prepareCommit(4)]);
    const tag = tableTag('out');
    expect(await commitMarks()).toEqual({ [`.weir-committed-${tag}-0`]: '3', [`.weir-committed-${tag}-1`]: '4' });
    const restored = await openWriter({ restored: true });
    const error = await restored.recover([], 2).then(
      () => undefined,
      (e: unknown) => e as WeirError,
    );
    expect(error?.permanent).toBe(true);
    expect(error?.message).toBe(
      `filesystem sink 'out' has committed checkpoint 4 into ${dir} (its .weir-committed files), but the job is being restored from checkpoint 2: running from there would write the output of checkpoints 3 to 4 again`,
    );
    await restored.recover([], 4);
  });

  it('a fresh start deletes the marks: its commit history begins again', async () => {
    const earlier = await openWriter();
    await earlier.commit([await earlier.prepareCommit(9)]);
    await earlier.write(inserts(1));
    await earlier.commit([await earlier.prepareCommit(10)]);
    expect(Object.values(await commitMarks())).toEqual(['10']);
    await openWriter();
    expect(await commitMarks()).toEqual({});
    expect(await visibleFiles()).toHaveLength(1);
  });

  it('restoring the checkpoint that recorded a prepared transaction commits it and deletes the in-progress file', async () => {
    const second = await crashedRun();
    const writer = await openWriter();
    await writer.recover([second], 2);
    expect(await visibleLines()).toEqual(sortedLines(1, 2, 3));
    expect(await hiddenFiles()).toEqual([]);
    writer.write(inserts(4));
    await writer.commit([await writer.prepareCommit(3)]);
    expect(await visibleLines()).toEqual(sortedLines(1, 2, 3, 4));
    await writer.close();
  });

  it('restoring an earlier checkpoint deletes the later prepared transaction and the in-progress file', async () => {
    await crashedRun();
    const writer = await openWriter();
    await writer.recover([], 1);
    expect(await visibleLines()).toEqual(sortedLines(1, 2));
    expect(await hiddenFiles()).toEqual([]);
    writer.write(inserts(3));
    await writer.commit([await writer.prepareCommit(2)]);
    expect(await visibleLines()).toEqual(sortedLines(1, 2, 3));
    await writer.close();
  });

  it('tolerates restored transactions that were already committed', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const first = await writer.prepareCommit(1);
    await writer.commit([first]);
    const recovering = await openWriter();
    await recovering.recover([first], 1);
    expect(await visibleText()).toBe(lines(1));
  });

  it('fails recovery when a restored transaction’s file is lost', async () => {
    const writer = await openWriter();
    writer.write(inserts(1));
    const first = await writer.prepareCommit(1);
    await rm(join(dir, filesOf(first)[0]!.pending));
    const recovering = await openWriter();
    await expect(recovering.recover([first], 1)).rejects.toThrow(`filesystem sink 'out' lost the prepared file ${filesOf(first)[0]!.pending} of checkpoint 1`);
  });

  it('leaves another table’s files in the same directory alone', async () => {
    const other = await openWriter({ table: 'other' });
    other.write(inserts(1));
    await other.prepareCommit(5);
    await writeBeyondChunk(other, 10);
    const othersFiles = await hiddenFiles();
    expect(othersFiles).toHaveLength(2);

    await crashedRun();
    const writer = await openWriter();
    await writer.recover([], 1);
    expect(await hiddenFiles()).toEqual(othersFiles);
    await writer.close();
    await other.close();
  });

  it('deletes only the files of its own subtask, and those of subtasks beyond the new parallelism', async () => {
    const oldRun = await Promise.all([0, 1, 2].map((subtask) => openWriter({ subtask, parallelism: 3 })));
    for (const [subtask, writer] of oldRun.entries()) {
      writer.write(inserts(subtask));
      await writer.prepareCommit(5);
      await writeBeyondChunk(writer, 1000 * (subtask + 1));
    }
    const subtaskOf = (name: string): number => Number(/-(\d+)-\d+\.json/.exec(name)![1]);
    expect((await hiddenFiles()).map(subtaskOf).sort()).toEqual([0, 0, 1, 1, 2, 2]);

    const first = await openWriter({ subtask: 0, parallelism: 2 });
    await first.recover([], 4);
    expect((await hiddenFiles()).map(subtaskOf)).toEqual([1, 1]);
    const second = await openWriter({ subtask: 1, parallelism: 2 });
    await second.recover([], 4);
    expect(await hiddenFiles()).toEqual([]);
    expect(await visibleFiles()).toEqual([]);
  });

  it('keeps an unlisted pending file of an earlier checkpoint, for the subtask that was given its transaction', async () => {
    const oldWriter = await openWriter({ subtask: 0, parallelism: 1 });
    oldWriter.write(inserts(1));
    const third = await oldWriter.prepareCommit(3);

    const first = await openWriter({ subtask: 0, parallelism: 2 });
    await first.recover([], 4);
    expect(await hiddenFiles()).toEqual([filesOf(third)[0]!.pending]);
    const second = await openWriter({ subtask: 1, parallelism: 2 });
    await second.recover([third], 4);
    expect(await visibleText()).toBe(lines(1));
    expect(await hiddenFiles()).toEqual([]);
  });
});
