/**
 * A state time-to-live on the disk (LMDB) backend, against a model that keeps each key's value
 * with its last write: a key not written for the ttl is never returned (reads do not refresh it,
 * as in Flink's default OnCreateAndWrite), through a tiny cache that evicts and reloads all the
 * time, full and incremental snapshots, and restores of the chain into the disk backend and into
 * the heap backend at a later time. Also: the incremental cleanup removes expired records nobody
 * reads (and the next delta says so), and the heap backend's files keep their access times on disk.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Key } from '../../../src/common/key-codec.js';
import { LmdbStateBackend } from '../../../src/runtime/state/lmdb-state-backend.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { createStateBackend } from '../../../src/runtime/state/state-backend-factory.js';
import type { SnapshottingStateBackend } from '../../../src/runtime/state/snapshotting-state-backend.js';

const MAX_P = 8;
const TTL = 100;
const START = Date.UTC(2026, 0, 1);

const localDir = mkdtempSync(join(tmpdir(), 'weir-lmdb-ttl-test-'));
afterAll(() => {
  expect(readdirSync(localDir)).toEqual([]);
  rmSync(localDir, { recursive: true });
});

/** A clock a test moves, shared by the backends it creates. */
class Clock {
  now = START;
  readonly read = (): number => this.now;
}

const disk = (clock: Clock, options: { cacheEntries?: number; trackChanges?: boolean } = {}): LmdbStateBackend =>
  new LmdbStateBackend({ maxParallelism: MAX_P, localDir, ttl: { ttlMillis: TTL, clock: clock.read }, ...options });
const heap = (clock: Clock): MemoryStateBackend => new MemoryStateBackend({ maxParallelism: MAX_P, ttl: { ttlMillis: TTL, clock: clock.read } });

type Op =
  | { readonly op: 'update'; readonly key: Key; readonly value: number }
  | { readonly op: 'bump'; readonly key: Key }
  | { readonly op: 'clear'; readonly key: Key }
  | { readonly op: 'add'; readonly key: Key; readonly value: number }
  | { readonly op: 'advance'; readonly ms: number }
  | { readonly op: 'checkpoint'; readonly kind: 'full' | 'delta' };

const key = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom<Key>('a', 'b', null, 'k'.repeat(2000)));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('update' as const), key, value: fc.integer({ min: 0, max: 99 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('bump' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('add' as const), key, value: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('checkpoint' as const), kind: fc.constantFrom<'full' | 'delta'>('full', 'delta') }) },
);

/** Per state name, per key: the value and its last write. */
type TimedModel = Map<string, Map<Key, { value: unknown; written: number }>>;

/** What a backend must show of the model at `now`: the entries written less than the ttl ago. */
function visible(model: TimedModel, now: number): Map<string, Map<Key, unknown>> {
  const out = new Map<string, Map<Key, unknown>>();
  for (const [name, entries] of model) {
    const live = new Map<Key, unknown>();
    for (const [k, { value, written }] of entries) if (now - written < TTL) live.set(k, value);
    if (live.size > 0) out.set(name, live);
  }
  return out;
}

function contents(backend: SnapshottingStateBackend): Map<string, Map<Key, unknown>> {
  const out = new Map<string, Map<Key, unknown>>();
  for (const name of ['value', 'list']) {
    const entries = new Map(backend.entriesOf<unknown>({ name }));
    if (entries.size > 0) out.set(name, entries);
  }
  return out;
}

function copyModel(model: TimedModel): TimedModel {
  return new Map([...model].map(([name, entries]) => [name, new Map([...entries].map(([k, e]) => [k, { value: structuredClone(e.value), written: e.written }]))]));
}

/** Applies an operation to the backend and the model alike (a read of an expired key finds nothing in both). */
function apply(backend: LmdbStateBackend, model: TimedModel, clock: Clock, o: Exclude<Op, { op: 'advance' | 'checkpoint' }>): void {
  const values = model.get('value')!;
  const lists = model.get('list')!;
  const live = (entries: Map<Key, { value: unknown; written: number }>): { value: unknown; written: number } | undefined => {
    const entry = entries.get(o.key);
    if (entry !== undefined && clock.now - entry.written >= TTL) entries.delete(o.key);
    return entries.get(o.key);
  };
  backend.setCurrentKey(o.key);
  const value = backend.getValueState<number[]>({ name: 'value' });
  const list = backend.getListState<number>({ name: 'list' });
  switch (o.op) {
    case 'update':
      value.update([o.value, 0]);
      values.set(o.key, { value: [o.value, 0], written: clock.now });
      break;
    case 'bump': {
      const current = value.value();
      const expected = live(values);
      expect(current).toEqual(expected?.value);
      if (current !== undefined) {
        current[1]! += 1;
        value.update(current);
        values.set(o.key, { value: [...current], written: clock.now });
      }
      break;
    }
    case 'clear':
      value.clear();
      values.delete(o.key);
      break;
    case 'add': {
      const before = live(lists);
      expect([...list.get()]).toEqual(before?.value ?? []);
      list.add(o.value);
      lists.set(o.key, { value: [...((before?.value as number[] | undefined) ?? []), o.value], written: clock.now });
      break;
    }
    default:
      o satisfies never;
  }
}

describe('disk (LMDB) state backend with a time-to-live', () => {
  it('agrees with a model of last writes through evictions, snapshots and restores into either backend', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 150 }), fc.integer({ min: 1, max: 6 }), (ops, cacheEntries) => {
        const clock = new Clock();
        const backend = disk(clock, { cacheEntries, trackChanges: true });
        const model: TimedModel = new Map([['value', new Map()], ['list', new Map()]]);
        // The files of the chain of the last completed checkpoint, and the model at its barrier.
        let chain: Uint8Array[] = [];
        let atBarrier: TimedModel | undefined;
        let checkpointId = 0;
        try {
          for (const o of ops) {
            if (o.op === 'advance') clock.now += o.ms;
            else if (o.op === 'checkpoint') {
              const kind = chain.length === 0 ? 'full' : o.kind;
              const writer = backend.beginSnapshot({ kind, checkpointId: ++checkpointId });
              const file = writer.empty ? undefined : writer.writeSync();
              backend.notifyCheckpointComplete(checkpointId);
              if (kind === 'full') chain = [];
              if (file !== undefined) chain.push(file);
              atBarrier = copyModel(model);
            } else apply(backend, model, clock, o);
            expect(contents(backend)).toEqual(visible(model, clock.now));
          }
          if (atBarrier === undefined) return;
          // Restored later: what had not expired then, and has not now.
          clock.now += 30;
          for (const target of [disk(clock), heap(clock)]) {
            try {
              for (const file of chain) target.restoreKeyGroups(file, () => true, 'chain');
              expect(contents(target)).toEqual(visible(atBarrier, clock.now));
            } finally {
              target.dispose();
            }
          }
        } finally {
          backend.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('does not refresh a key on reads: it expires the ttl after its last write', () => {
    const clock = new Clock();
    const backend = disk(clock);
    try {
      const state = backend.getValueState<number>({ name: 'v' });
      backend.setCurrentKey('k');
      state.update(1);
      clock.now += TTL - 1;
      expect(state.value()).toBe(1);
      clock.now += 1;
      expect(state.value()).toBeUndefined();
      state.update(2);
      clock.now += TTL - 1;
      expect(state.value()).toBe(2);
    } finally {
      backend.dispose();
    }
  });

  it('leaves expired keys out of full snapshots, removes expired records nobody reads, and the next delta removes them from the chain too', () => {
    const clock = new Clock();
    const backend = disk(clock, { cacheEntries: 16, trackChanges: true });
    try {
      const state = backend.getValueState<number>({ name: 'v' });
      for (let k = 0; k < 200; k++) {
        backend.setCurrentKey(k);
        state.update(k);
      }
      const base = backend.beginSnapshot({ kind: 'full', checkpointId: 1 }).writeSync();
      backend.notifyCheckpointComplete(1);
      expect(backend.keyCount()).toBe(200);
      expect(backend.stateEntries()).toBe(200);
      // Past the ttl, a full snapshot leaves the expired keys out (a heap restoring it at an earlier time finds none).
      clock.now += TTL;
      const savepoint = heap(new Clock());
      savepoint.restoreKeyGroups(backend.beginSnapshot({ kind: 'full' }).writeSync(), () => true, 'savepoint');
      expect(savepoint.keyCount()).toBe(0);
      // Other keys are written (and evicted: every write of the cache cleans up).
      for (let k = 1000; k < 1400; k++) {
        backend.setCurrentKey(k);
        state.update(k);
      }
      expect(backend.keyCount()).toBe(400);
      expect(backend.stateEntries()).toBe(400); // keys 0-199 are gone from disk, never read
      const delta = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync();
      // Restored at a time the old keys had not expired yet: only the delta's removals take them away.
      const earlier = new Clock();
      const restored = heap(earlier);
      restored.restoreKeyGroups(base, () => true, 'base');
      expect(restored.keyCount()).toBe(200);
      restored.restoreKeyGroups(delta, () => true, 'delta');
      expect([...restored.entriesOf({ name: 'v' })].map(([k]) => k).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 400 }, (_, i) => 1000 + i));
    } finally {
      backend.dispose();
    }
  });

  it("keeps the heap backend's access times through a checkpoint, and the heap keeps the disk's", () => {
    const clock = new Clock();
    const source = heap(clock);
    const state = source.getValueState<number>({ name: 'v' });
    source.setCurrentKey('old');
    state.update(1);
    clock.now += 60;
    source.setCurrentKey('new');
    state.update(2);
    const fromHeap = source.snapshot()!;
    const onDisk = disk(clock);
    try {
      onDisk.restoreKeyGroups(fromHeap, () => true, 'heap file');
      expect(new Map(onDisk.entriesOf({ name: 'v' }))).toEqual(new Map([['old', 1], ['new', 2]]));
      clock.now += 40; // 'old' was written 100 ms ago
      expect(new Map(onDisk.entriesOf({ name: 'v' }))).toEqual(new Map([['new', 2]]));
      const back = heap(clock);
      back.restoreKeyGroups(onDisk.snapshot()!, () => true, 'disk file');
      expect(new Map(back.entriesOf({ name: 'v' }))).toEqual(new Map([['new', 2]]));
      clock.now += 59;
      expect(new Map(back.entriesOf({ name: 'v' }))).toEqual(new Map([['new', 2]]));
      clock.now += 1;
      expect(new Map(back.entriesOf({ name: 'v' }))).toEqual(new Map());
    } finally {
      onDisk.dispose();
    }
  });

  it('is created by the factory with a ttl, and refuses one that is not positive', () => {
    const backend = createStateBackend('lmdb', { ttlMillis: 1000 });
    expect(backend).toBeInstanceOf(LmdbStateBackend);
    backend.dispose();
    expect(() => createStateBackend('lmdb', { ttlMillis: 0 })).toThrow(/positive/);
  });
});
