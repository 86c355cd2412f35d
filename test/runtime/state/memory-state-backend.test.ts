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
