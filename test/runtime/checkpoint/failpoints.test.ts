import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { FileCheckpointStorage } from '../../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { FAILPOINTS, FailpointRegistry, failpoint, parseFailpoints, setFailpoints } from '../../../src/runtime/checkpoint/failpoints.js';

function thrown(action: () => void): WeirError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(WeirError);
    return error as WeirError;
  }
  throw new Error('expected an error');
}

describe('parseFailpoints', () => {
  it('parses actions and hit numbers, ignoring blanks', () => {
    expect([...parseFailpoints(' sink.before-prepare=crash , ,recovery.during-restore=error@3,').values()]).toEqual([
      { name: 'sink.before-prepare', action: 'crash' },
      { name: 'recovery.during-restore', action: 'error', onHit: 3 },
    ]);
    expect(parseFailpoints('').size).toBe(0);
  });

  it.each([
    ['sink.before-prepare=explode', "WEIR_FAILPOINTS entry 'sink.before-prepare=explode': unknown action 'explode'; expected crash or error"],
    ['sink.before-prepare', "WEIR_FAILPOINTS entry 'sink.before-prepare': expected 'name=crash', 'name=error' or 'name=crash@n'"],
    ['sink.before-prepare=crash@0', "WEIR_FAILPOINTS entry 'sink.before-prepare=crash@0': '@0' is not a hit number (1, 2, ...)"],
    ['sink.before-prepare=crash@x', "WEIR_FAILPOINTS entry 'sink.before-prepare=crash@x': '@x' is not a hit number (1, 2, ...)"],
    ['sink.before-prepare=crash,sink.before-prepare=error', "WEIR_FAILPOINTS entry 'sink.before-prepare=error': failpoint 'sink.before-prepare' is configured twice"],
  ])('rejects %s', (spec, message) => {
    const error = thrown(() => parseFailpoints(spec));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(message);
  });

  it('rejects an unknown failpoint name and lists the known ones', () => {
    const error = thrown(() => parseFailpoints('sink.before-prepar=crash'));
    expect(error.message).toMatch(/^WEIR_FAILPOINTS entry 'sink.before-prepar=crash': unknown failpoint 'sink.before-prepar'; known: checkpoint.during-state-write, /);
    for (const name of Object.values(FAILPOINTS)) expect(error.message).toContain(name);
  });
});

describe('FailpointRegistry', () => {
  it('is disabled without a spec and ignores unconfigured points', () => {
    const registry = new FailpointRegistry('');
    expect(registry.enabled).toBe(false);
    registry.hit(FAILPOINTS.sinkBeforePrepare);
    expect(registry.hitCount(FAILPOINTS.sinkBeforePrepare)).toBe(0);
  });

  it('throws an INTERNAL_ERROR on every hit in error mode', () => {
    const registry = new FailpointRegistry('sink.between-commits=error');
    for (let i = 0; i < 2; i++) {
      const error = thrown(() => registry.hit(FAILPOINTS.sinkBetweenCommits));
      expect(error.code).toBe('INTERNAL_ERROR');
      expect(error.message).toBe('failpoint sink.between-commits triggered');
    }
    registry.hit(FAILPOINTS.sinkBeforePrepare);
    expect(registry.hitCount(FAILPOINTS.sinkBetweenCommits)).toBe(2);
  });

  it('triggers only on the n-th hit with @n', () => {
    const registry = new FailpointRegistry('recovery.during-restore=error@3');
    registry.hit(FAILPOINTS.recoveryDuringRestore);
    registry.hit(FAILPOINTS.recoveryDuringRestore);
    expect(() => registry.hit(FAILPOINTS.recoveryDuringRestore)).toThrow('failpoint recovery.during-restore triggered');
    registry.hit(FAILPOINTS.recoveryDuringRestore);
    expect(registry.hitCount(FAILPOINTS.recoveryDuringRestore)).toBe(4);
  });

  it('crashes through the crash action and never continues past the point', () => {
    const crashed: string[] = [];
    const registry = new FailpointRegistry('sink.after-prepare-before-ack=crash@2', { crash: (name) => crashed.push(name) });
    registry.hit(FAILPOINTS.sinkAfterPrepareBeforeAck);
    expect(crashed).toEqual([]);
    expect(() => registry.hit(FAILPOINTS.sinkAfterPrepareBeforeAck)).toThrow('failpoint sink.after-prepare-before-ack triggered');
    expect(crashed).toEqual(['sink.after-prepare-before-ack']);
  });
});

describe('failpoint', () => {
  let dir: string | undefined;

  afterEach(async () => {
    setFailpoints('');
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('does nothing when no failpoint is configured', () => {
    expect(() => failpoint(FAILPOINTS.sinkBeforePrepare)).not.toThrow();
  });

  it('interrupts a state file write half-way, leaving no completed checkpoint', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-failpoints-'));
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    setFailpoints('checkpoint.during-state-write=error');

    await expect(storage.writeStateFile(id, 'checkpoint', 'agg-0.bin', new Uint8Array(10))).rejects.toThrow('failpoint checkpoint.during-state-write triggered');

    expect(await readdir(join(dir, 'job', `chk-${id}`))).toEqual(['agg-0.bin']);
    expect(await storage.latest()).toBeUndefined();
  });

  it('interrupts a streamed state file after its first batch, and the stream is not read further', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-failpoints-'));
    const storage = new FileCheckpointStorage(dir, 'job');
    const id = await storage.nextCheckpointId();
    setFailpoints('checkpoint.during-state-write=error');
    let pulled = 0;
    let closed = false;
    async function* stream(): AsyncGenerator<Uint8Array[]> {
      try {
        for (let i = 0; i < 5; i++) {
          pulled++;
          yield [new Uint8Array([i]), new Uint8Array([i + 10])];
        }
      } finally {
        closed = true;
      }
    }

    await expect(storage.writeStateFile(id, 'checkpoint', 'agg-0.state', stream())).rejects.toThrow('failpoint checkpoint.during-state-write triggered');

    expect(pulled).toBe(2);
    expect(closed).toBe(true);
    expect([...(await readFile(join(dir, 'job', `chk-${id}`, 'agg-0.state')))]).toEqual([0, 10]);
    expect(await storage.latest()).toBeUndefined();
  });
});

describe('crash failpoints in a real process', () => {
  let dir: string | undefined;

  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const childScript = `
    import { FileCheckpointStorage } from './src/runtime/checkpoint/file-checkpoint-storage.ts';
    import { CHECKPOINT_METADATA_VERSION } from './src/runtime/checkpoint/checkpoint-metadata.ts';
    const storage = new FileCheckpointStorage(process.argv[2], 'job');
    for (;;) {
      const id = await storage.nextCheckpointId();
      await storage.writeStateFile(id, 'checkpoint', 'agg-0.bin', new Uint8Array(1000).fill(id));
      await storage.commitMetadata({ version: CHECKPOINT_METADATA_VERSION, jobName: 'job', checkpointId: id, kind: 'checkpoint', completedAt: 0,
        graphFingerprint: 'g', maxParallelism: 128, finished: false, operators: {} });
    }
  `;

  it('reads WEIR_FAILPOINTS at start and dies by SIGKILL mid-write, leaving the previous checkpoint as the latest', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-failpoints-'));
    const script = join(dir, 'child.mjs');
    await build({ stdin: { contents: childScript, resolveDir: resolve(import.meta.dirname, '../../..'), loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: script, logLevel: 'silent' });

    const child = spawnSync(process.execPath, [script, dir], { env: { ...process.env, WEIR_FAILPOINTS: 'checkpoint.during-state-write=crash@3' }, encoding: 'utf8' });

    expect(child.signal).toBe('SIGKILL');
    const storage = new FileCheckpointStorage(dir, 'job');
    expect((await storage.latest())?.metadata.checkpointId).toBe(2);
    expect(await readdir(join(dir, 'job', 'chk-3'))).toEqual(['agg-0.bin']);
    expect((await stat(join(dir, 'job', 'chk-3', 'agg-0.bin'))).size).toBe(500);
    expect(await storage.nextCheckpointId()).toBe(4);
  });
});
