/**
 * Keyed state round trip: a snapshot restored gives identical state per key group; restored at
 * another parallelism, every key lands on the subtask that owns its key group.
 */
import { describe, expect, it } from 'vitest';
import { keyGroupOf, subtaskOfKeyGroup, type Key } from '../../../src/common/key-codec.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';

const MAX_P = 128;

function filled(keys: readonly Key[]): MemoryStateBackend {
  const backend = new MemoryStateBackend();
  const value = backend.getValueState<[number, bigint, string]>({ name: 'acc' });
  const map = backend.getMapState<string, number>({ name: 'distinct' });
  const list = backend.getListState<number>({ name: 'list' });
  keys.forEach((key, i) => {
    backend.setCurrentKey(key);
    value.update([i, BigInt(i) * 10n, `v${i}`]);
    if (i % 2 === 0) map.put(`m${i}`, i);
    if (i % 3 === 0) list.add(i);
  });
  return backend;
}

function contents(backend: MemoryStateBackend): Map<string, Map<Key, unknown>> {
  return new Map([...backend.states()].map((t) => [t.name, new Map(t.entries)]));
}

const keys: Key[] = [...Array.from({ length: 500 }, (_, i) => i), ...Array.from({ length: 300 }, (_, i) => `key-${i}`), null, true, 12345678901n];

describe('memory state backend snapshots', () => {
  it('restores a snapshot to identical state', () => {
    const original = filled(keys);
    const restored = new MemoryStateBackend();
    restored.restore(original.snapshot()!, () => true);
    expect(contents(restored)).toEqual(contents(original));
  });

  it('the snapshot is a copy: later updates do not change it', () => {
    const backend = filled([1, 2]);
    const snapshot = backend.snapshot()!;
    const value = backend.getValueState<[number, bigint, string]>({ name: 'acc' });
    backend.setCurrentKey(1);
    value.value()![0] = 999;
    const restored = new MemoryStateBackend();
    restored.restore(snapshot, () => true);
    restored.setCurrentKey(1);
    expect(restored.getValueState<[number, bigint, string]>({ name: 'acc' }).value()![0]).toBe(0);
  });

  it('redistributes by key group when the parallelism changes (1 → 3 → 2)', () => {
    const original = filled(keys);
    const rescale = (sources: MemoryStateBackend[], parallelism: number): MemoryStateBackend[] =>
      Array.from({ length: parallelism }, (_, subtask) => {
        const target = new MemoryStateBackend();
        for (const source of sources) target.restore(source.snapshot()!, (key) => subtaskOfKeyGroup(keyGroupOf(key, MAX_P), parallelism, MAX_P) === subtask);
        return target;
      });
    for (const layout of [rescale([original], 3), rescale(rescale([original], 3), 2)]) {
      layout.forEach((backend, subtask) => {
        for (const table of backend.states()) {
          for (const key of table.entries.keys()) expect(subtaskOfKeyGroup(keyGroupOf(key, MAX_P), layout.length, MAX_P)).toBe(subtask);
        }
      });
      const merged = new MemoryStateBackend();
      for (const backend of layout) merged.restore(backend.snapshot()!, () => true);
      expect(contents(merged)).toEqual(contents(original));
    }
  });

  it('has nothing to snapshot when there is no state', () => {
    expect(new MemoryStateBackend().snapshot()).toBeUndefined();
  });
});

describe('memory state backend with a time-to-live', () => {
  const clocked = (ttlMillis: number): { backend: MemoryStateBackend; advance: (ms: number) => void } => {
    let now = 1_000;
    return { backend: new MemoryStateBackend({ ttlMillis, clock: () => now }), advance: (ms) => void (now += ms) };
  };

  it('drops a key idle for the ttl, and keeps a key read or written within it', () => {
    const { backend, advance } = clocked(100);
    const state = backend.getValueState<number>({ name: 'v' });
    for (const key of ['idle', 'read', 'written']) {
      backend.setCurrentKey(key);
      state.update(1);
    }
    advance(60);
    backend.setCurrentKey('read');
    expect(state.value()).toBe(1);
    backend.setCurrentKey('written');
    state.update(2);
    advance(60);
    backend.setCurrentKey('idle');
    expect(state.value()).toBeUndefined();
    backend.setCurrentKey('read');
    expect(state.value()).toBe(1);
    backend.setCurrentKey('written');
    expect(state.value()).toBe(2);
    expect(backend.keyCount()).toBe(2);
  });

  it('sweeps expired keys that are never touched again, in every kind of state', () => {
    const { backend, advance } = clocked(100);
    const value = backend.getValueState<number>({ name: 'v' });
    const map = backend.getMapState<string, number>({ name: 'm' });
    const list = backend.getListState<number>({ name: 'l' });
    for (let i = 0; i < 50; i++) {
      backend.setCurrentKey(i);
      value.update(i);
      map.put('x', i);
      list.add(i);
    }
    expect(backend.keyCount()).toBe(50);
    advance(100);
    backend.setCurrentKey('fresh');
    value.update(0);
    expect([...backend.states()].map((t) => t.entries.size)).toEqual([1, 0, 0]);
  });

  it('leaves expired keys out of snapshots, and restores when each key was last used', () => {
    const { backend, advance } = clocked(100);
    const value = backend.getValueState<string>({ name: 'v' });
    backend.setCurrentKey('old');
    value.update('old');
    advance(80);
    backend.setCurrentKey('young');
    value.update('young');
    const snapshot = backend.snapshot()!;
    advance(30);
    expect(backend.snapshot()).not.toEqual(snapshot);

    let now = 1_080;
    const restored = new MemoryStateBackend({ ttlMillis: 100, clock: () => now });
    restored.restore(snapshot, () => true);
    const again = restored.getValueState<string>({ name: 'v' });
    now += 30;
    restored.setCurrentKey('old');
    expect(again.value()).toBeUndefined();
    restored.setCurrentKey('young');
    expect(again.value()).toBe('young');
  });

  it('refuses a ttl that is not positive', () => {
    expect(() => new MemoryStateBackend({ ttlMillis: 0 })).toThrow(/positive/);
  });
});
