/**
 * The disk (LMDB) keyed state backend against a plain model: random operations on value, map,
 * list and reducing states of many keys through a tiny write-back cache (so entries are evicted,
 * written and read back all the time), barriers at random points, snapshots written a chunk at a
 * time with operations in between, checkpoints that complete or fail, and restores of the chain of
 * the last completed checkpoint (base + deltas) into one backend and into two (rescaled by key
 * group) — into the disk backend and into the heap backend, and the heap backend's own chain,
 * driven alongside, into the disk backend. Also: values and keys round-trip through disk as through
 * a checkpoint, and the backend's directory exists only while it is in use.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { filterByGroup, nonEmpty, type StateModel } from './state-model.js';
import { afterAll, describe, expect, it } from 'vitest';
import { subtaskOfKeyGroup, type Key } from '../../../src/common/key-codec.js';
import { KeyedStateChain, type ChainFile } from '../../../src/runtime/checkpoint/keyed-state-chain.js';
import { LmdbStateBackend } from '../../../src/runtime/state/lmdb-state-backend.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { createStateBackend, stateBackendKindFromEnv } from '../../../src/runtime/state/state-backend-factory.js';
import type { SnapshottingStateBackend, StateSnapshotWriter } from '../../../src/runtime/state/snapshotting-state-backend.js';

const MAX_P = 16;
const STATES = ['value', 'map', 'list', 'reducing'] as const;
type Model = StateModel;

const localDir = mkdtempSync(join(tmpdir(), 'weir-lmdb-test-'));
afterAll(() => {
  // Every backend of these tests was disposed: nothing is left in the directory they used.
  expect(readdirSync(localDir)).toEqual([]);
  rmSync(localDir, { recursive: true });
});

type Op =
  | { readonly op: 'update'; readonly key: Key; readonly value: number }
  | { readonly op: 'bump'; readonly key: Key }
  | { readonly op: 'clear'; readonly key: Key }
  | { readonly op: 'put'; readonly key: Key; readonly mapKey: string; readonly value: number }
  | { readonly op: 'remove'; readonly key: Key; readonly mapKey: string }
  | { readonly op: 'add'; readonly key: Key; readonly value: number }
  | { readonly op: 'clearList'; readonly key: Key }
  | { readonly op: 'reduce'; readonly key: Key; readonly value: number }
  | { readonly op: 'barrier' }
  | { readonly op: 'step' }
  | { readonly op: 'finish'; readonly fail: boolean };

const longKey = 'k'.repeat(3000);
const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom<Key>('a', 'b', 'c', 'longer key', null, 7n, true, -0.5, longKey));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('update' as const), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('bump' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('put' as const), key, mapKey: fc.constantFrom('x', 'y', 'z'), value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), key, mapKey: fc.constantFrom('x', 'y', 'z') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('add' as const), key, value: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clearList' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reduce' as const), key, value: fc.integer({ min: -5, max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'barrier' as const }) },
  { weight: 3, arbitrary: fc.constant({ op: 'step' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('finish' as const), fail: fc.boolean() }) },
);

/** The backend's content in the model's shape (states without entries left out). */
function contents(backend: SnapshottingStateBackend): Model {
  const out: Model = new Map();
  for (const name of STATES) {
    const entries = new Map(backend.entriesOf({ name }));
    if (entries.size > 0) out.set(name, entries);
  }
  return out;
}


const disk = (options: { cacheEntries?: number; trackChanges?: boolean; snapshotChunkEntries?: number } = {}): LmdbStateBackend => new LmdbStateBackend({ maxParallelism: MAX_P, localDir, ...options });
const heap = (options: { trackChanges?: boolean; snapshotChunkEntries?: number } = {}): MemoryStateBackend => new MemoryStateBackend({ maxParallelism: MAX_P, ...options });

/** A backend under test with its chain of checkpoint files and the snapshot in flight. */
interface Driven {
  readonly backend: SnapshottingStateBackend;
  readonly chain: KeyedStateChain;
  readonly files: Map<string, Uint8Array>;
  inFlight: { readonly id: number; readonly kind: 'full' | 'delta'; readonly writer: StateSnapshotWriter } | undefined;
}

/** Applies one state operation through the handles of a backend (writing back every change, values changed in place as operators change them). */
function apply(backend: SnapshottingStateBackend, o: Op): void {
  const value = backend.getValueState<number[]>({ name: 'value' });
  const map = backend.getMapState<string, number>({ name: 'map' });
  const list = backend.getListState<number>({ name: 'list' });
  const reducing = backend.getReducingState<number>({ name: 'reducing' }, (a, b) => a + b);
  switch (o.op) {
    case 'update':
      backend.setCurrentKey(o.key);
      value.update([o.value, 0]);
      break;
    case 'bump': {
      backend.setCurrentKey(o.key);
      // As operators do: change the value read in place, then write it back.
      const current = value.value();
      if (current !== undefined) {
        current[1]! += 1;
        value.update(current);
      }
      break;
    }
    case 'clear':
      backend.setCurrentKey(o.key);
      value.clear();
      break;
    case 'put':
      backend.setCurrentKey(o.key);
      map.put(o.mapKey, o.value);
      break;
    case 'remove':
      backend.setCurrentKey(o.key);
      map.remove(o.mapKey);
      break;
    case 'add':
      backend.setCurrentKey(o.key);
      list.add(o.value);
      break;
    case 'clearList':
      backend.setCurrentKey(o.key);
      list.clear();
      break;
    case 'reduce':
      backend.setCurrentKey(o.key);
      reducing.add(o.value);
      break;
    case 'barrier':
    case 'step':
    case 'finish':
      break;
    default:
      o satisfies never;
  }
}

/** The same operation on the model. */
function applyToModel(model: Model, o: Op): void {
  switch (o.op) {
    case 'update':
      model.get('value')!.set(o.key, [o.value, 0]);
      break;
    case 'bump': {
      const current = model.get('value')!.get(o.key) as number[] | undefined;
      if (current !== undefined) current[1]! += 1;
      break;
    }
    case 'clear':
      model.get('value')!.delete(o.key);
      break;
    case 'put': {
      const entries = model.get('map')!;
      if (!entries.has(o.key)) entries.set(o.key, new Map());
      (entries.get(o.key) as Map<string, number>).set(o.mapKey, o.value);
      break;
    }
    case 'remove': {
      const entries = model.get('map')!;
      const inner = entries.get(o.key) as Map<string, number> | undefined;
      inner?.delete(o.mapKey);
      if (inner?.size === 0) entries.delete(o.key);
      break;
    }
    case 'add': {
      const entries = model.get('list')!;
      if (!entries.has(o.key)) entries.set(o.key, []);
      (entries.get(o.key) as number[]).push(o.value);
      break;
    }
    case 'clearList':
      model.get('list')!.delete(o.key);
      break;
    case 'reduce': {
      const entries = model.get('reducing')!;
      entries.set(o.key, ((entries.get(o.key) as number | undefined) ?? 0) + o.value);
      break;
    }
    case 'barrier':
    case 'step':
    case 'finish':
      break;
    default:
      o satisfies never;
  }
}

/** Restores a chain of files into a fresh backend (keeping the key groups `owns` accepts), returns its contents and disposes it. */
function restoredContents(target: SnapshottingStateBackend, chain: readonly ChainFile[], files: ReadonlyMap<string, Uint8Array>, owns: (group: number) => boolean = () => true): Model {
  try {
    for (const f of chain) target.restoreKeyGroups(files.get(f.name)!, owns, f.name);
    return contents(target);
  } finally {
    target.dispose();
  }
}

describe('disk (LMDB) state backend', () => {
  it('agrees with a model through full and incremental snapshots written while processing goes on, restoring into either backend', () => {
    let restoredChains = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 150, size: 'max' }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 12 }), (ops, chunk, cacheEntries) => {
        const driven: Driven[] = [
          { backend: disk({ cacheEntries, trackChanges: true, snapshotChunkEntries: chunk }), chain: new KeyedStateChain(true), files: new Map(), inFlight: undefined },
          { backend: heap({ trackChanges: true, snapshotChunkEntries: chunk }), chain: new KeyedStateChain(true), files: new Map(), inFlight: undefined },
        ];
        const model: Model = new Map(STATES.map((name) => [name, new Map()]));
        let nextId = 1;
        let expected: Model | undefined;
        try {
          const finish = (fail: boolean): void => {
            const checkpointModel = expected!;
            expected = undefined;
            for (const d of driven) {
              const { id, kind, writer } = d.inFlight!;
              d.inFlight = undefined;
              const bytes = writer.writeSync();
              if (fail) continue;
              const file: ChainFile | undefined = writer.empty ? undefined : { checkpointId: id, name: `chk-${id}`, checksum: '', bytes: bytes.byteLength, kind };
              if (file !== undefined) d.files.set(file.name, bytes);
              const recorded = d.chain.record(id, 'checkpoint', kind, file);
              d.chain.complete(id);
              d.backend.notifyCheckpointComplete(id);
              if (recorded.length > 1) restoredChains++;
              // Each chain restores into both backends, whole and rescaled to two subtasks.
              for (const target of [() => disk({ cacheEntries }), () => heap()]) {
                expect(restoredContents(target(), recorded, d.files)).toEqual(nonEmpty(checkpointModel));
                for (const subtask of [0, 1]) {
                  const owns = (group: number): boolean => subtaskOfKeyGroup(group, 2, MAX_P) === subtask;
                  expect(restoredContents(target(), recorded, d.files, owns)).toEqual(filterByGroup(checkpointModel, owns, MAX_P));
                }
              }
            }
          };
          for (const o of ops) {
            switch (o.op) {
              case 'barrier': {
                if (expected !== undefined) finish(true);
                const id = nextId++;
                for (const d of driven) {
                  const kind = d.chain.nextKind('checkpoint');
                  d.inFlight = { id, kind, writer: d.backend.beginSnapshot({ kind, checkpointId: id }) };
                }
                expected = structuredClone(model);
                break;
              }
              case 'step':
                for (const d of driven) d.inFlight?.writer.step();
                break;
              case 'finish':
                if (expected !== undefined) finish(o.fail);
                break;
              default:
                for (const d of driven) apply(d.backend, o);
                applyToModel(model, o);
            }
          }
          if (expected !== undefined) finish(false);
          for (const d of driven) expect(contents(d.backend)).toEqual(nonEmpty(model));
          const keys = new Set<Key>();
          for (const entries of model.values()) for (const k of entries.keys()) keys.add(k);
          expect(driven[0]!.backend.keyCount()).toBe(keys.size);
        } finally {
          for (const d of driven) d.backend.dispose();
        }
      }),
      { numRuns: 80 },
    );
    expect(restoredChains).toBeGreaterThan(0);
  });

  it('round-trips what operators keep, through disk and through its snapshots', () => {
    const values: unknown[] = [
      [1, -0, NaN, Infinity, 2.5, 2 ** 40, 'text', '', null, undefined, true, false, 12345678901234567890n, -3n],
      ['\uD800 lone surrogate', 'é ü 漢字 🎉'],
      [],
      [[1, 2], { a: 1 }],
      new Map<unknown, unknown>([['x', [1, 2]], [2, new Map([[null, 'y']])]]),
      { nested: { list: [1, undefined, null], bytes: new Uint8Array([0, 1, 255]) }, big: 5n },
      new Uint8Array([9, 8, 7]),
      [new Uint8Array([1, 2]), null, 'x'],
      -0,
      NaN,
      'a string',
      7n,
      false,
      [new Date(0)],
    ];
    const keys: Key[] = [0, 1.5, -7, NaN, 'k', '', '\uDC00', 'x'.repeat(5000), 2n ** 70n, -5n, true, false, null];
    const backend = disk({ cacheEntries: 1 });
    const state = backend.getValueState<unknown>({ name: 'v' });
    try {
      keys.forEach((k, i) => {
        backend.setCurrentKey(k);
        state.update(values[i % values.length]);
      });
      // A cache of one entry: every read below comes from disk.
      keys.forEach((k, i) => {
        backend.setCurrentKey(k);
        const read = state.value();
        expect(read).toEqual(values[i % values.length]);
        if (Object.is(values[i % values.length], -0)) expect(Object.is(read, -0)).toBe(true);
      });
      backend.setCurrentKey(0);
      expect(Object.is((state.value() as unknown[])[1], -0)).toBe(true);
      const snapshot = backend.snapshot()!;
      for (const target of [disk(), heap()]) {
        target.restore(snapshot);
        expect(new Map(target.entriesOf({ name: 'v' }))).toEqual(new Map(keys.map((k, i) => [k, values[i % values.length]])));
        target.dispose();
      }
    } finally {
      backend.dispose();
    }
  });

  it('keeps removals until they are flushed, and a cleared key stays gone after eviction', () => {
    const backend = disk({ cacheEntries: 2 });
    try {
      const state = backend.getValueState<number>({ name: 'v' });
      for (let k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        state.update(k);
      }
      expect(backend.keyCount()).toBe(20); // reads from disk: flushes the cache first
      for (let k = 0; k < 20; k += 2) {
        backend.setCurrentKey(k);
        state.clear();
      }
      for (let k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        expect(state.value()).toBe(k % 2 === 0 ? undefined : k);
      }
      expect(backend.keyCount()).toBe(10);
    } finally {
      backend.dispose();
    }
  });

  it('writes nothing to disk at a barrier: the snapshot has the cached changes as they were then, whatever processing does next', () => {
    const backend = disk({ cacheEntries: 4, trackChanges: true });
    try {
      const state = backend.getValueState<number[]>({ name: 'v' });
      const set = (k: number, value: number): void => {
        backend.setCurrentKey(k);
        state.update([value]);
      };
      const bump = (k: number): void => {
        backend.setCurrentKey(k);
        const acc = state.value() ?? [0];
        acc[0]! += 1; // in place, as operators change what they read
        state.update(acc);
      };
      for (const [checkpointId, kind] of [[1, 'full'], [2, 'delta']] as const) {
        for (let k = 0; k < 10; k++) set(k, checkpointId * 100 + k); // keys 0-5 evicted (written to disk), 6-9 cached and dirty
        const onDisk = backend.stateEntries();
        const writer = backend.beginSnapshot({ kind, checkpointId });
        expect(backend.stateEntries()).toBe(onDisk); // the barrier wrote nothing
        // After the barrier: the cached keys changed in place, then evicted (written) by new keys.
        for (let k = 9; k >= 0; k--) bump(k);
        for (let k = 100; k < 110; k++) bump(k);
        const target = heap();
        target.restore(writer.writeSync());
        expect(new Map(target.entriesOf({ name: 'v' }))).toEqual(new Map(Array.from({ length: 10 }, (_, k) => [k, [checkpointId * 100 + k]])));
        backend.notifyCheckpointComplete(checkpointId);
        for (let k = 100; k < 110; k++) {
          backend.setCurrentKey(k);
          state.clear();
        }
      }
    } finally {
      backend.dispose();
    }
  });

  it('creates its directory under the local directory at the first declared state and removes it when disposed', () => {
    const unused = disk();
    expect(unused.directory).toBeUndefined();
    expect(unused.snapshot()).toBeUndefined();
    unused.dispose();
    const used = disk();
    used.getValueState({ name: 'v' });
    const dir = used.directory!;
    expect(dir.startsWith(localDir)).toBe(true);
    expect(existsSync(dir)).toBe(true);
    used.dispose();
    expect(existsSync(dir)).toBe(false);
    expect(() => used.getValueState({ name: 'w' })).toThrow(/disposed/);
  });

  it('a snapshot being written when the backend is disposed fails instead of reading a closed database', () => {
    const backend = disk({ snapshotChunkEntries: 1 });
    const state = backend.getValueState<number>({ name: 'v' });
    for (let k = 0; k < 5; k++) {
      backend.setCurrentKey(k);
      state.update(k);
    }
    const writer = backend.beginSnapshot({ kind: 'full' });
    writer.step();
    backend.dispose();
    expect(() => writer.writeSync()).toThrow(/disposed/);
  });

  it('is chosen by WEIR_TEST_STATE_BACKEND=lmdb', () => {
    expect(stateBackendKindFromEnv({ WEIR_TEST_STATE_BACKEND: 'lmdb' })).toBe('lmdb');
    const backend = createStateBackend('lmdb');
    expect(backend).toBeInstanceOf(LmdbStateBackend);
    expect(backend.sharesValues).toBe(false);
    backend.dispose();
  });
});
