/**
 * Keyed state round trip: a snapshot restored gives identical state per key group; restored at
 * another parallelism, every key lands on the subtask that owns its key group.
 */
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { keyGroupOf, subtaskOfKeyGroup, type Key } from '../../../src/common/key-codec.js';
import { readStateFile } from '../../../src/runtime/state/key-group-state-file.js';
import type { ListState } from '../../../src/runtime/state/keyed-state-backend.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { RemovedKeys } from '../../../src/runtime/state/snapshotting-state-backend.js';
import { forEachDecodedEntry } from '../../../src/runtime/state/state-table-codec.js';

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
  return new Map([...backend.states()].map((t) => [t.name, new Map(t.entries())]));
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
          for (const [key] of table.entries()) expect(subtaskOfKeyGroup(keyGroupOf(key, MAX_P), layout.length, MAX_P)).toBe(subtask);
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
    expect([...backend.states()].map((t) => t.size)).toEqual([1, 0, 0]);
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

describe('memory state backend by key group', () => {
  it('keeps each key in the Map of its own key group, so no Map holds more than its group', () => {
    const backend = filled(keys);
    for (const table of backend.states()) {
      let used = 0;
      table.groups.forEach((map, group) => {
        if (map === undefined || map.size === 0) return;
        used++;
        for (const key of map.keys()) expect(keyGroupOf(key, MAX_P)).toBe(group);
      });
      // 800 keys spread over the 128 groups: a map per group in use, none holding them all.
      expect(used).toBeGreaterThan(64);
      expect(Math.max(...table.groups.map((m) => m?.size ?? 0))).toBeLessThan(table.size / 4);
    }
  });

  it('decodes only the key groups a subtask owns: a damaged frame of another group is never read', () => {
    const snapshot = filled(keys).snapshot()!;
    const owned = (group: number): boolean => subtaskOfKeyGroup(group, 2, MAX_P) === 0;
    const clean = new MemoryStateBackend();
    clean.restoreKeyGroups(snapshot, owned);
    // Overwrite the body of every frame of a group subtask 0 does not own with garbage.
    const damaged = Uint8Array.from(snapshot);
    const view = Buffer.from(damaged.buffer);
    let at = 8 + 4 + view.readUInt32LE(8);
    let spoiled = 0;
    while (at < view.length) {
      const group = view.readUInt32LE(at);
      const length = view.readUInt32LE(at + 8);
      if (!owned(group)) {
        view.fill(0xff, at + 12, at + 12 + length);
        spoiled++;
      }
      at += 12 + length;
    }
    expect(spoiled).toBeGreaterThan(0);
    const restored = new MemoryStateBackend();
    restored.restoreKeyGroups(damaged, owned);
    expect(contents(restored)).toEqual(contents(clean));
    expect(contents(clean).get('acc')!.size).toBeGreaterThan(0);
    for (const table of clean.states()) for (const [key] of table.entries()) expect(owned(keyGroupOf(key, MAX_P))).toBe(true);
    expect(() => new MemoryStateBackend().restoreKeyGroups(damaged, () => true, 'chk-9/agg-0.state')).toThrow();
  });

  it('names the file when a framed snapshot is truncated', () => {
    const snapshot = filled(keys).snapshot()!;
    expect(() => new MemoryStateBackend().restore(snapshot.subarray(0, snapshot.length - 3), () => true, 'chk-4/agg-0.state')).toThrow(/^state file chk-4\/agg-0.state is truncated: the frame of key group \d+ at byte \d+ ends beyond its \d+ bytes$/);
  });

  it('a snapshot being written keeps the values of its barrier while the job mutates, removes and adds keys', () => {
    const backend = new MemoryStateBackend({ snapshotChunkEntries: 1 });
    const value = backend.getValueState<number[]>({ name: 'v' });
    for (let key = 0; key < 50; key++) {
      backend.setCurrentKey(key);
      value.update([key]);
    }
    const writer = backend.beginSnapshot({ kind: 'full' });
    writer.step();
    for (let key = 0; key < 60; key++) {
      backend.setCurrentKey(key);
      if (key >= 50) value.update([key]);
      else if (key % 3 === 0) value.clear();
      else value.value()![0] = -1;
      writer.step();
    }
    const restored = new MemoryStateBackend();
    restored.restore(writer.writeSync());
    expect(new Map(restored.states().next().value!.entries())).toEqual(new Map(Array.from({ length: 50 }, (_, key) => [key, [key]])));
  });

  it('a TTL sweep during a snapshot leaves the snapshot as of its barrier', () => {
    let now = 1_000;
    const backend = new MemoryStateBackend({ ttl: { ttlMillis: 100, clock: () => now }, snapshotChunkEntries: 1 });
    const value = backend.getValueState<string>({ name: 'v' });
    for (const key of ['a', 'b', 'c', 'd']) {
      backend.setCurrentKey(key);
      value.update(key);
    }
    const writer = backend.beginSnapshot({ kind: 'full' });
    now += 150;
    backend.setCurrentKey('e');
    value.update('e'); // sweeps a, b, c, d
    expect(backend.keyCount()).toBe(1);
    now = 1_050;
    const restored = new MemoryStateBackend({ ttl: { ttlMillis: 100, clock: () => now } });
    restored.restore(writer.writeSync());
    expect(new Map(restored.states().next().value!.entries())).toEqual(new Map(['a', 'b', 'c', 'd'].map((k) => [k, k])));
  });

  it('restores a snapshot of the single-buffer form weir wrote before key groups, into the owned groups only', () => {
    const source = filled(keys);
    const legacy = serialize([...source.states()].map((t) => [t.name, t.kind, new Map(t.entries())]));
    const owned = (group: number): boolean => subtaskOfKeyGroup(group, 3, MAX_P) === 1;
    const restored = new MemoryStateBackend();
    restored.restoreKeyGroups(legacy, owned);
    const expected = new MemoryStateBackend();
    expected.restoreKeyGroups(source.snapshot()!, owned);
    expect(contents(restored)).toEqual(contents(expected));
    expect(contents(restored).get('acc')!.size).toBeGreaterThan(0);
  });
});

describe('memory state backend change tracking', () => {
  /** The entries and tombstones of a state file, per key, counted over all its frames. */
  function occurrences(file: Uint8Array): Map<Key, number> {
    const counts = new Map<Key, number>();
    readStateFile(file, 'delta', () => true, (_header, frame) => {
      forEachDecodedEntry(frame.entries, (key) => counts.set(key, (counts.get(key) ?? 0) + 1));
      for (const key of frame.tombstones) counts.set(key, (counts.get(key) ?? 0) + 1);
    });
    return counts;
  }

  it('writes each changed key once in a delta, though a key selected again after others is logged again', () => {
    // 20,000 keys selected twice, in two passes: more keys than the filter of recently logged keys
    // has slots, so the second pass logs every key again; the delta still holds each key once.
    const backend = new MemoryStateBackend({ trackChanges: true, maxParallelism: 8 });
    const state = backend.getValueState<number>({ name: 'v' });
    backend.notifyCheckpointComplete(0);
    const keys = Array.from({ length: 20_000 }, (_, i) => i);
    for (const pass of [1, 2]) {
      for (const key of keys) {
        backend.setCurrentKey(key);
        if (key % 5 === 0 && pass === 2) state.clear();
        else state.update(key * pass);
      }
    }
    const writer = backend.beginSnapshot({ kind: 'delta', checkpointId: 1 });
    const counts = occurrences(writer.writeSync());
    expect(counts.size).toBe(keys.length + 1); // and the key selected before any (null), with no state: a tombstone
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const restored = new MemoryStateBackend({ maxParallelism: 8 });
    restored.restore(backend.snapshot()!);
    const values = restored.getValueState<number>({ name: 'v' });
    for (const key of [0, 1, 5, 19_999]) {
      restored.setCurrentKey(key);
      expect(values.value()).toBe(key % 5 === 0 ? undefined : key * 2);
    }
  });

  it('streams a snapshot a chunk\'s parts at a time, keeping no part it handed out, and restores from the streamed file', async () => {
    const backend = new MemoryStateBackend({ snapshotChunkEntries: 10 });
    const state = backend.getValueState<[number, string]>({ name: 'v' });
    for (let key = 0; key < 100; key++) {
      backend.setCurrentKey(key);
      state.update([key, `v${key}`]);
    }
    const writer = backend.beginSnapshot({ kind: 'full' });
    const parts: Uint8Array[] = [];
    for await (const batch of writer.stream()) {
      // A batch is valid until the next is asked for: kept as a copy.
      parts.push(Buffer.concat(batch));
      // Processing goes on between batches: the snapshot keeps the values of its barrier.
      backend.setCurrentKey(parts.length % 100);
      state.update([-1, 'after']);
    }
    expect(writer.done).toBe(true);
    expect(parts.length).toBe(10); // a batch per chunk of 10 entries, the header in the first
    expect(writer.byteLength).toBe(parts.reduce((sum, p) => sum + p.byteLength, 0));
    expect(writer.writeSync().byteLength).toBe(0);
    const restored = new MemoryStateBackend();
    restored.restore(Buffer.concat(parts));
    const entries = new Map([...restored.states()][0]!.entries());
    expect(entries.size).toBe(100);
    for (let key = 0; key < 100; key++) expect(entries.get(key)).toEqual([key, `v${key}`]);
  });

  it('a pending snapshot is also written along with processing: key changes alone complete it, exactly as of its barrier', () => {
    const backend = new MemoryStateBackend({ snapshotChunkEntries: 64 });
    const state = backend.getValueState<number[]>({ name: 'v' });
    for (let key = 0; key < 1000; key++) {
      backend.setCurrentKey(key);
      state.update([key]);
    }
    const writer = backend.beginSnapshot({ kind: 'full' });
    let changes = 0;
    while (!writer.done && changes < 1_000_000) {
      backend.setCurrentKey(changes % 1000);
      const value = state.value()!;
      value[0] = -changes; // in place, as the heap backend allows
      state.update(value);
      changes++;
    }
    expect(writer.done).toBe(true);
    expect(changes).toBeGreaterThan(1000);
    const restored = new MemoryStateBackend();
    restored.restore(writer.writeSync());
    expect(new Map([...restored.states()][0]!.entries())).toEqual(new Map(Array.from({ length: 1000 }, (_, key) => [key, [key]])));
  });

  it('a stream given up midway abandons its snapshot: the writer lets its copies go and a new snapshot starts clean', async () => {
    const backend = new MemoryStateBackend({ snapshotChunkEntries: 5, trackChanges: true });
    const state = backend.getValueState<number[]>({ name: 'v' });
    for (let key = 0; key < 50; key++) {
      backend.setCurrentKey(key);
      state.update([key]);
    }
    const writer = backend.beginSnapshot({ kind: 'full', checkpointId: 1 });
    const stream = writer.stream();
    expect((await stream.next()).done).toBe(false);
    await stream.return(undefined);
    expect(writer.done).toBe(true);
    expect(() => writer.step()).toThrow(/abandoned/);
    // A later snapshot takes the state as it is then.
    backend.setCurrentKey(3);
    state.update([33]);
    const full = backend.beginSnapshot({ kind: 'full', checkpointId: 2 }).writeSync();
    const restored = new MemoryStateBackend();
    restored.restore(full);
    expect(new Map([...restored.states()][0]!.entries()).get(3)).toEqual([33]);
  });

  it('logs a key again after a barrier, though it was logged just before', () => {
    const backend = new MemoryStateBackend({ trackChanges: true });
    const state = backend.getValueState<number>({ name: 'v' });
    backend.setCurrentKey('a');
    state.update(1);
    backend.setCurrentKey('b');
    state.update(1);
    const first = backend.beginSnapshot({ kind: 'delta', checkpointId: 1 });
    first.writeSync();
    backend.notifyCheckpointComplete(1);
    backend.setCurrentKey('a');
    state.update(2);
    const second = occurrences(backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync());
    // 'b' was current at the barrier, so it is logged for the new epoch too (a handle may touch it unselected).
    expect([...second.keys()].sort()).toEqual(['a', 'b']);
  });
});

describe('memory state backend list deltas', () => {
  type Row = [number, string];
  const row = (i: number): Row => [i, `row ${i}`];

  /** A backend tracking changes whose list state 'rows' holds `sizes[k]` rows under key k, written into a completed full checkpoint 1. */
  function withLists(sizes: readonly number[]): { backend: MemoryStateBackend; rows: ListState<Row>; full: Uint8Array } {
    const backend = new MemoryStateBackend({ trackChanges: true, maxParallelism: 8 });
    const rows = backend.getListState<Row>({ name: 'rows' });
    sizes.forEach((size, key) => {
      backend.setCurrentKey(key);
      for (let i = 0; i < size; i++) rows.add(row(i));
    });
    const full = backend.beginSnapshot({ kind: 'full', checkpointId: 1 }).writeSync();
    backend.notifyCheckpointComplete(1);
    return { backend, rows, full };
  }

  /** Per key, what a delta file says of it: its appended rows with their base, an entry, or a tombstone. */
  function changesIn(file: Uint8Array): Map<Key, { base: number; rows: unknown[] } | 'entry' | 'tombstone'> {
    const out = new Map<Key, { base: number; rows: unknown[] } | 'entry' | 'tombstone'>();
    readStateFile(file, 'delta', () => true, (_header, frame) => {
      forEachDecodedEntry(frame.entries, (key) => out.set(key, 'entry'));
      for (const key of frame.tombstones) out.set(key, 'tombstone');
      const appends = frame.appends;
      if (appends !== undefined) forEachDecodedEntry(appends.entries, (key, rows, i) => out.set(key, { base: appends.bases[i]!, rows: rows as unknown[] }));
    });
    return out;
  }

  /** The lists of 'rows' after restoring `chain` oldest first, and newest first as the runtime does. */
  function restoredBothWays(chain: readonly Uint8Array[]): [Map<Key, unknown>, Map<Key, unknown>] {
    const forward = new MemoryStateBackend({ maxParallelism: 8 });
    chain.forEach((file, i) => forward.restoreKeyGroups(file, () => true, `file ${i}`));
    const backward = new MemoryStateBackend({ maxParallelism: 8 });
    const newer = new RemovedKeys();
    [...chain].reverse().forEach((file, i) => backward.restoreKeyGroups(file, () => true, `file ${chain.length - 1 - i}`, newer));
    newer.checkComplete('the chain');
    const lists = (backend: MemoryStateBackend): Map<Key, unknown> => new Map([...backend.states()].find((t) => t.name === 'rows')?.entries() ?? []);
    return [lists(forward), lists(backward)];
  }

  it('writes a list that only grew as its new rows, and nothing for a list only selected', () => {
    const { backend, rows, full } = withLists([5_000, 3, 7]);
    backend.setCurrentKey(0);
    rows.add(row(5_000));
    backend.setCurrentKey(1);
    expect(rows.get()).toHaveLength(3); // read, not changed
    const delta = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync();
    expect(changesIn(delta)).toEqual(new Map([[0, { base: 5_000, rows: [row(5_000)] }]]));
    expect(delta.byteLength).toBeLessThan(full.byteLength / 100);
    const expected = new Map<Key, unknown>([
      [0, Array.from({ length: 5_001 }, (_, i) => row(i))],
      [1, [row(0), row(1), row(2)]],
      [2, Array.from({ length: 7 }, (_, i) => row(i))],
    ]);
    for (const lists of restoredBothWays([full, delta])) expect(lists).toEqual(expected);
  });

  it('writes a list replaced, cleared, or grown after a rewrite whole (or as a tombstone)', () => {
    const { backend, rows, full } = withLists([4, 4, 4, 4]);
    backend.setCurrentKey(0);
    rows.update([row(9)]); // replaced
    backend.setCurrentKey(1);
    rows.clear();
    backend.setCurrentKey(2);
    rows.update(rows.get().slice(1)); // a row retracted, then one appended
    rows.add(row(10));
    backend.setCurrentKey(3);
    rows.add(row(4));
    const delta = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync();
    expect(changesIn(delta)).toEqual(
      new Map<Key, unknown>([
        [0, 'entry'],
        [1, 'tombstone'],
        [2, 'entry'],
        [3, { base: 4, rows: [row(4)] }],
      ]),
    );
    const expected = new Map<Key, unknown>([
      [0, [row(9)]],
      [2, [row(1), row(2), row(3), row(10)]],
      [3, [row(0), row(1), row(2), row(3), row(4)]],
    ]);
    for (const lists of restoredBothWays([full, delta])) expect(lists).toEqual(expected);
  });

  it('takes rows appended after the barrier out of the snapshot, whether written before or after them', () => {
    const { backend, rows, full } = withLists([3]);
    backend.setCurrentKey(0);
    rows.add(row(3));
    const writer = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 });
    backend.setCurrentKey(0);
    rows.add(row(4)); // after the barrier: the writer keeps the list as its array and its length then
    const delta = writer.writeSync();
    expect(changesIn(delta)).toEqual(new Map([[0, { base: 3, rows: [row(3)] }]]));
    for (const lists of restoredBothWays([full, delta])) expect(lists.get(0)).toEqual([row(0), row(1), row(2), row(3)]);
  });

  it('a delta taken while the checkpoint before it was pending restores on top of that checkpoint too: its rows follow the base it counted from', () => {
    const { backend, rows, full } = withLists([2]);
    backend.setCurrentKey(0);
    rows.add(row(2));
    const second = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync(); // completes only after the next barrier
    rows.add(row(3));
    const third = backend.beginSnapshot({ kind: 'delta', checkpointId: 3 });
    backend.notifyCheckpointComplete(2);
    const thirdFile = third.writeSync();
    // The third counts from checkpoint 1 (the last completed at its barrier): rows 2 and 3 after 2 rows.
    expect(changesIn(thirdFile)).toEqual(new Map([[0, { base: 2, rows: [row(2), row(3)] }]]));
    const all = [row(0), row(1), row(2), row(3)];
    // On checkpoint 1, or on checkpoint 2's chain (which already holds row 2): the same list.
    for (const chain of [[full, thirdFile], [full, second, thirdFile]]) for (const lists of restoredBothWays(chain)) expect(lists.get(0)).toEqual(all);
  });

  it('refuses a chain whose delta appends after rows no file before it holds, naming the file', () => {
    const { backend, rows } = withLists([2]);
    backend.setCurrentKey(0);
    rows.add(row(2));
    const delta = backend.beginSnapshot({ kind: 'delta', checkpointId: 2 }).writeSync();
    expect(() => new MemoryStateBackend({ maxParallelism: 8 }).restoreKeyGroups(delta, () => true, 'chk-2/state')).toThrow(
      "state file chk-2/state does not follow the files before it: it appends to the list of key 0 of state 'rows' after 2 rows, but they hold 0",
    );
    const newer = new RemovedKeys();
    new MemoryStateBackend({ maxParallelism: 8 }).restoreKeyGroups(delta, () => true, 'chk-2/state', newer);
    expect(() => newer.checkComplete('chk-2')).toThrow("the state files of chk-2 do not form a chain: a delta appends to the list of key 0 of state 'rows' after 2 rows that no file before it holds");
  });
});
