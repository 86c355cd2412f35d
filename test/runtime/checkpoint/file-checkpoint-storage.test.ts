import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { CHECKPOINT_METADATA_VERSION, type CheckpointMetadata } from '../../../src/runtime/checkpoint/checkpoint-metadata.js';
import { FileCheckpointStorage, loadCompletedCheckpoint, safeJobFolderName } from '../../../src/runtime/checkpoint/file-checkpoint-storage.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-checkpoints-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const metadata = (checkpointId: number, kind: CheckpointMetadata['kind'] = 'checkpoint', jobName = 'job'): CheckpointMetadata => ({
  version: CHECKPOINT_METADATA_VERSION,
  jobName,
  checkpointId,
  kind,
  completedAt: 1_700_000_000_000,
  graphFingerprint: 'graph-1',
  maxParallelism: 128,
  finished: false,
  operators: { agg: { parallelism: 1, subtasks: [{ subtask: 0, keyGroups: [0, 127], keyedStateFile: 'agg-0.bin', operatorState: { offset: '42' } }] } },
});

async function complete(storage: FileCheckpointStorage, kind: CheckpointMetadata['kind'] = 'checkpoint'): Promise<number> {
  const id = await storage.nextCheckpointId();
  await storage.writeStateFile(id, kind, 'agg-0.bin', new Uint8Array([id]));
  await storage.commitMetadata(metadata(id, kind, storage.jobName));
  return id;
}

async function checkpointError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  expect((error as WeirError).code).toBe('CHECKPOINT_ERROR');
  return (error as WeirError).message;
}

describe('FileCheckpointStorage', () => {
  it('round-trips operator state holding bigint values (rows with BIGINTs beyond 2^53 and DECIMALs), checksum included', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    await storage.writeStateFile(id, 'checkpoint', 'agg-0.bin', new Uint8Array([id]));
    const rows = { kinds: [0, 3], rows: [[9223372036854775807n, 12345n, 'a'], [-9007199254740993n, 7, null]] };
    const withRows: CheckpointMetadata = { ...metadata(id), operators: { lookup: { parallelism: 1, subtasks: [{ subtask: 0, keyGroups: [0, 127], operatorState: rows }] } } };
    await storage.commitMetadata(withRows);
    const latest = await new FileCheckpointStorage(dir, 'job').latest();
    expect(latest?.metadata).toEqual(withRows);
  });

  it('writes a streamed state file batch by batch as the batches come, hashing the parts in order', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    const batches = [[new Uint8Array([1, 2]), new Uint8Array(3 << 20).fill(7)], Array.from({ length: 700 }, (_, i) => new Uint8Array([i % 256])), [new Uint8Array([9])]];
    const handedOut: number[] = [];
    async function* stream(): AsyncGenerator<Uint8Array[]> {
      for (const [i, batch] of batches.entries()) {
        handedOut.push(i);
        yield batch;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const whole = Buffer.concat(batches.flat());
    expect(await storage.writeStateFile(id, 'checkpoint', 'agg-0.state', stream())).toEqual({ name: 'agg-0.state', checksum: `sha256:${createHash('sha256').update(whole).digest('hex')}` });
    expect(handedOut).toEqual([0, 1, 2]);
    expect(Buffer.compare(await readFile(join(dir, 'job', `chk-${id}`, 'agg-0.state')), whole)).toBe(0);
  });

  it('round-trips state files and metadata', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    const data = new Uint8Array([1, 2, 3, 4, 5, 250]);
    expect(await storage.writeStateFile(id, 'checkpoint', 'agg-0.bin', data)).toEqual({ name: 'agg-0.bin', checksum: `sha256:${createHash('sha256').update(data).digest('hex')}` });
    const folder = await storage.commitMetadata(metadata(id));

    expect(folder).toBe(join(dir, 'job', `chk-${id}`));
    const latest = await new FileCheckpointStorage(dir, 'job').latest();
    expect(latest).toEqual({ metadata: metadata(id), path: folder });
    expect(await storage.readStateFile(latest!, 'agg-0.bin')).toEqual(data);
    expect((await readdir(folder)).sort()).toEqual(['_metadata', 'agg-0.bin']);
  });

  it('keeps checkpoint ids increasing across new instances, even past folders the counter missed', async () => {
    const first = new FileCheckpointStorage(dir, 'job');
    expect([await first.nextCheckpointId(), await first.nextCheckpointId()]).toEqual([1, 2]);
    expect(await new FileCheckpointStorage(dir, 'job').nextCheckpointId()).toBe(3);

    await mkdir(join(dir, 'job', 'savepoint-10'));
    expect(await new FileCheckpointStorage(dir, 'job').nextCheckpointId()).toBe(11);
    expect((await readFile(join(dir, 'job', 'checkpoint-counter'), 'utf8')).trim()).toBe('11');
  });

  it('hands out distinct ids to concurrent callers', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const ids = await Promise.all([1, 2, 3, 4, 5].map(() => storage.nextCheckpointId()));
    expect(ids.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });

  it('ignores folders without a complete _metadata', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const done = await complete(storage);
    const onlyState = await storage.nextCheckpointId();
    await storage.writeStateFile(onlyState, 'checkpoint', 'agg-0.bin', new Uint8Array([9]));
    const onlyTmp = await storage.nextCheckpointId();
    await mkdir(join(dir, 'job', `chk-${onlyTmp}`));
    await writeFile(join(dir, 'job', `chk-${onlyTmp}`, '_metadata.tmp'), JSON.stringify(metadata(onlyTmp)));

    expect((await storage.latest())?.metadata.checkpointId).toBe(done);
  });

  it('refuses a truncated _metadata of the latest checkpoint, naming the file, instead of falling back to the one before', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    const latest = await complete(storage);
    const file = join(dir, 'job', `chk-${latest}`, '_metadata');
    await truncate(file, 40);
    const error = await storage.latest().then(
      () => undefined,
      (e: unknown) => e as WeirError,
    );
    expect(error?.code).toBe('CHECKPOINT_ERROR');
    expect(error?.permanent).toBe(true);
    expect(error?.message).toMatch(new RegExp(`^the latest checkpoint of job 'job' cannot be restored: ${escape(file)} is corrupt: not valid JSON`));
    expect(error?.hint).toContain(`move ${join(dir, 'job', `chk-${latest}`)} aside to restore the one before it`);
  });

  it('refuses metadata whose content does not match its checksum, even as valid JSON', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await complete(storage);
    const file = join(dir, 'job', `chk-${id}`, '_metadata');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"offset":"42"', '"offset":"41"'));
    expect(await checkpointError(storage.latest())).toBe(`the latest checkpoint of job 'job' cannot be restored: ${file} is corrupt: its content does not match its checksum`);
  });

  it("refuses a metadata version it does not know, and metadata that is not its folder's", async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    const write = async (folder: string, text: string): Promise<string> => {
      await rm(join(dir, 'job', folder), { recursive: true, force: true });
      await mkdir(join(dir, 'job', folder));
      await writeFile(join(dir, 'job', folder, '_metadata'), text);
      return join(dir, 'job', folder, '_metadata');
    };
    let file = await write('chk-6', JSON.stringify({ ...metadata(6), version: 99 }));
    expect(await checkpointError(storage.latest())).toBe(
      `the latest checkpoint of job 'job' cannot be restored: ${file} has metadata version 99, which this weir cannot read (it reads versions 1, 2, 3, 4)`,
    );
    await rm(join(dir, 'job', 'chk-6'), { recursive: true });
    file = await write('chk-7', JSON.stringify({ ...metadata(7, 'checkpoint', 'other-job'), version: 1 }));
    expect(await checkpointError(storage.latest())).toBe(`the latest checkpoint of job 'job' cannot be restored: ${file} is corrupt: it says it is checkpoint 7 of job 'other-job'`);
    await rm(join(dir, 'job', 'chk-7'), { recursive: true });
    file = await write('chk-8', JSON.stringify({ ...metadata(3), version: 1 }));
    expect(await checkpointError(storage.latest())).toBe(`the latest checkpoint of job 'job' cannot be restored: ${file} is corrupt: it says it is checkpoint 3 of job 'job'`);
    await rm(join(dir, 'job', 'chk-8'), { recursive: true });
    file = await write('savepoint-9', JSON.stringify({ ...metadata(9, 'savepoint'), version: 1, operators: undefined }));
    expect(await checkpointError(storage.latest())).toBe(`the latest savepoint of job 'job' cannot be restored: ${file} is corrupt: missing or invalid 'operators'`);
  });

  it('still reads metadata of version 1 (before checksums)', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await mkdir(join(dir, 'job', 'chk-4'), { recursive: true });
    await writeFile(join(dir, 'job', 'chk-4', '_metadata'), JSON.stringify({ ...metadata(4), version: 1 }));
    expect((await storage.latest())?.metadata).toEqual({ ...metadata(4), version: 1 });
  });

  it('refuses a state file whose bytes do not match the checksum in the metadata', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    const { checksum } = await storage.writeStateFile(id, 'checkpoint', 'agg-0.bin', new Uint8Array([1, 2, 3, 4]));
    await storage.commitMetadata(metadata(id));
    const latest = (await storage.latest())!;
    expect(await storage.readStateFile(latest, 'agg-0.bin', checksum)).toEqual(new Uint8Array([1, 2, 3, 4]));
    await truncate(join(latest.path, 'agg-0.bin'), 2);
    expect(await checkpointError(storage.readStateFile(latest, 'agg-0.bin', checksum))).toBe(
      `state file ${join(latest.path, 'agg-0.bin')} of checkpoint ${id} is corrupt: its 2 bytes do not match the checksum in _metadata`,
    );
  });

  it('reports the newest of checkpoints and savepoints', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    const savepoint = await complete(storage, 'savepoint');
    expect(await storage.latest()).toMatchObject({ metadata: { checkpointId: savepoint, kind: 'savepoint' }, path: join(dir, 'job', `savepoint-${savepoint}`) });
  });

  it('returns nothing for a job without checkpoints', async () => {
    expect(await new FileCheckpointStorage(join(dir, 'missing'), 'job').latest()).toBeUndefined();
  });

  it('retains the newest n checkpoints and every savepoint', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage); // 1
    await complete(storage, 'savepoint'); // 2
    const abandoned = await storage.nextCheckpointId(); // 3
    await storage.writeStateFile(abandoned, 'checkpoint', 'agg-0.bin', new Uint8Array([3]));
    await complete(storage); // 4
    await complete(storage); // 5
    await complete(storage); // 6
    const inProgress = await storage.nextCheckpointId(); // 7
    await storage.writeStateFile(inProgress, 'checkpoint', 'agg-0.bin', new Uint8Array([7]));

    await storage.retain(2);

    expect((await readdir(join(dir, 'job'))).sort()).toEqual(['checkpoint-counter', 'chk-5', 'chk-6', 'chk-7', 'savepoint-2']);
    expect((await storage.latest())?.metadata.checkpointId).toBe(6);
  });

  it('retains the folders whose files the retained checkpoints chains refer to, and reads files through those references', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const chained = async (files: readonly string[]): Promise<number> => {
      const id = await storage.nextCheckpointId();
      const written = await storage.writeStateFile(id, 'checkpoint', 'agg-0.state', [new Uint8Array([id]), new Uint8Array([id, id])]);
      const chain = [...files, written.name].map((file) => ({ file, checksum: file === written.name ? written.checksum : 'sha256:x', bytes: 3, kind: 'delta' as const }));
      await storage.commitMetadata({ ...metadata(id), operators: { agg: { parallelism: 1, subtasks: [{ subtask: 0, keyGroups: [0, 127], keyedStateChain: chain }] } } });
      return id;
    };
    await chained([]); // 1: full
    await chained([]); // 2: full
    await chained(['../chk-2/agg-0.state']); // 3: builds on 2
    await chained(['../chk-2/agg-0.state', '../chk-3/agg-0.state']); // 4: builds on 2 and 3

    await storage.retain(1);

    expect((await readdir(join(dir, 'job'))).sort()).toEqual(['checkpoint-counter', 'chk-2', 'chk-3', 'chk-4']);
    const latest = (await storage.latest())!;
    expect(latest.metadata.checkpointId).toBe(4);
    const chain = latest.metadata.operators['agg']!.subtasks[0]!.keyedStateChain!;
    expect([...(await storage.readStateFile(latest, chain[1]!.file))]).toEqual([3, 3, 3]);
    expect([...(await storage.readStateFile(latest, chain[2]!.file, chain[2]!.checksum))]).toEqual([4, 4, 4]);

    await chained([]); // 5: full again, nothing before it is needed
    await storage.retain(1);
    expect((await readdir(join(dir, 'job'))).sort()).toEqual(['checkpoint-counter', 'chk-5']);
  });

  it('reads only plain names and files of earlier checkpoint folders', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    const latest = (await storage.latest())!;
    for (const name of ['../../etc/passwd', '../savepoint-1/agg-0.bin', '../chk-1/../x', '../chk-x/agg-0.bin', '../chk-1/_metadata']) {
      expect(await checkpointError(storage.readStateFile(latest, name))).toMatch(/^invalid state file name /);
    }
  });

  it('refuses to retain fewer than one checkpoint', async () => {
    expect(await checkpointError(new FileCheckpointStorage(dir, 'job').retain(0))).toBe('the number of retained checkpoints must be a whole number of at least 1, got 0');
  });

  it('discards an incomplete checkpoint but refuses a completed one', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const done = await complete(storage);
    const aborted = await storage.nextCheckpointId();
    await storage.writeStateFile(aborted, 'checkpoint', 'agg-0.bin', new Uint8Array([1]));

    await storage.discard(aborted, 'checkpoint');
    expect(await readdir(join(dir, 'job'))).not.toContain(`chk-${aborted}`);
    const folder = join(dir, 'job', `chk-${done}`);
    expect(await checkpointError(storage.discard(done, 'checkpoint'))).toBe(`${folder} is a completed checkpoint and cannot be discarded`);
  });

  it('refuses to commit the same checkpoint twice or metadata of another job', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const done = await complete(storage);
    const folder = join(dir, 'job', `chk-${done}`);
    expect(await checkpointError(storage.commitMetadata(metadata(done)))).toBe(`${folder} is already a completed checkpoint`);
    expect(await checkpointError(storage.commitMetadata(metadata(9, 'checkpoint', 'other')))).toBe(`metadata of job 'other' cannot be committed to ${join(dir, 'job', 'chk-9')} of job 'job'`);
  });

  it('refuses state file names that leave the folder or are reserved', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    const folder = join(dir, 'job', 'chk-1');
    for (const name of ['../x', '_metadata', '', '..']) {
      expect(await checkpointError(storage.writeStateFile(1, 'checkpoint', name, new Uint8Array()))).toBe(`invalid state file name '${name}' in ${folder}: expected a plain file name not starting with '_'`);
    }
  });

  it('never overwrites a state file', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await storage.writeStateFile(1, 'checkpoint', 'a.bin', new Uint8Array([1]));
    expect(await checkpointError(storage.writeStateFile(1, 'checkpoint', 'a.bin', new Uint8Array([2])))).toBe(`cannot create state file ${join(dir, 'job', 'chk-1', 'a.bin')}: EEXIST`);
  });

  it('names a missing state file', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    const latest = (await storage.latest())!;
    expect(await checkpointError(storage.readStateFile(latest, 'nope.bin'))).toBe(`cannot read state file ${join(latest.path, 'nope.bin')}: ENOENT`);
  });

  it('clears all checkpoints and savepoints but keeps ids increasing', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage);
    await complete(storage, 'savepoint');
    await storage.nextCheckpointId();

    await storage.clear();

    expect(await storage.latest()).toBeUndefined();
    expect(await readdir(join(dir, 'job'))).toEqual(['checkpoint-counter']);
    expect(await storage.nextCheckpointId()).toBe(4);
  });
});

describe('safeJobFolderName', () => {
  it('keeps simple names and hashes everything else into distinct names', () => {
    expect(safeJobFolderName('orders_by-region.v2')).toBe('orders_by-region.v2');
    const names = ['a/b', 'a_b', 'a\\b', 'a b', '', '.', '..', '.hidden', '-rf', 'x'.repeat(65), 'x'.repeat(66)];
    const folders = names.map(safeJobFolderName);
    expect(new Set(folders).size).toBe(names.length);
    for (const folder of folders) {
      expect(folder).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/);
    }
    expect(safeJobFolderName('a/b')).toBe(safeJobFolderName('a/b'));
    expect(safeJobFolderName('a/b')).toMatch(/^a_b-[0-9a-f]{12}$/);
  });

  it('hashes a plain name that looks like a hashed one, so the two cannot collide', () => {
    const hashed = safeJobFolderName('a/b');
    expect(safeJobFolderName(hashed)).not.toBe(hashed);
  });

  it('gives jobs with distinct names distinct folders', async () => {
    const slash = new FileCheckpointStorage(dir, 'a/b');
    await complete(slash);
    const underscore = new FileCheckpointStorage(dir, 'a_b');
    expect(underscore.jobPath).not.toBe(slash.jobPath);
    expect(await underscore.latest()).toBeUndefined();
    expect((await slash.latest())?.metadata.jobName).toBe('a/b');
  });
});

describe('loadCompletedCheckpoint', () => {
  it('loads a checkpoint from its folder or its _metadata file, even after a rename', async () => {
    const storage = new FileCheckpointStorage(dir, 'job');
    await complete(storage, 'savepoint');
    const moved = join(dir, 'my-savepoint');
    await mkdir(moved);
    await writeFile(join(moved, '_metadata'), await readFile(join(dir, 'job', 'savepoint-1', '_metadata')));

    expect(await loadCompletedCheckpoint(join(dir, 'job', 'savepoint-1'))).toEqual({ metadata: metadata(1, 'savepoint'), path: join(dir, 'job', 'savepoint-1') });
    expect(await loadCompletedCheckpoint(join(moved, '_metadata'))).toEqual({ metadata: metadata(1, 'savepoint'), path: moved });
  });

  it('explains why a path is not a completed checkpoint', async () => {
    const missing = join(dir, 'nope');
    expect(await checkpointError(loadCompletedCheckpoint(missing))).toBe(`checkpoint path ${missing} does not exist`);

    const incomplete = join(dir, 'chk-3');
    await mkdir(incomplete);
    await writeFile(join(incomplete, 'agg-0.bin'), 'x');
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toBe(`${incomplete} is not a completed checkpoint or savepoint: no _metadata`);
    expect(await checkpointError(loadCompletedCheckpoint(join(incomplete, 'agg-0.bin')))).toBe(`${join(incomplete, 'agg-0.bin')} is neither a checkpoint folder nor a _metadata file`);

    const file = join(incomplete, '_metadata');
    await writeFile(file, '{"version": 1,');
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toMatch(new RegExp(`^${escape(file)} is corrupt: not valid JSON \\(`));

    await writeFile(file, JSON.stringify({ ...metadata(3), version: 5 }));
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toBe(`${file} has metadata version 5, which this weir cannot read (it reads versions 1, 2, 3, 4)`);

    await writeFile(file, JSON.stringify(metadata(3)));
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toBe(`${file} is corrupt: its 'checksum' is missing`);

    await writeFile(file, JSON.stringify({ ...metadata(3), version: 1, maxParallelism: 'many' }));
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toBe(`${file} is corrupt: missing or invalid 'maxParallelism'`);

    await writeFile(file, '[1]');
    expect(await checkpointError(loadCompletedCheckpoint(incomplete))).toBe(`${file} is corrupt: not a JSON object`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
