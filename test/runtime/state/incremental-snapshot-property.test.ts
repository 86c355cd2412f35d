/**
 * The heap backend's asynchronous, copy-on-access, full and incremental snapshots against a plain
 * model (a Map per declared state): random operations on value, map and list states of many keys
 * (list states of numbers and of rows, as joins keep them: rows appended, lists replaced with a row
 * changed or removed, cleared; values and maps changed in place, as the heap backend allows),
 * barriers at random points, snapshots
 * written a chunk at a time with operations in between, checkpoints that complete or fail, and
 * restores from the chain of the last completed checkpoint (base + deltas, as KeyedStateChain
 * decides them) into one backend and into two (rescaled), oldest file first and newest first — each
 * compared with the model as it was at that checkpoint's barrier.
 */
import fc from 'fast-check';
import { filterByGroup, nonEmpty, type StateModel } from './state-model.js';
import { describe, expect, it } from 'vitest';
import { subtaskOfKeyGroup, type Key } from '../../../src/common/key-codec.js';
import { KeyedStateChain, type ChainFile } from '../../../src/runtime/checkpoint/keyed-state-chain.js';
import type { HeapSnapshotWriter } from '../../../src/runtime/state/heap-snapshot-writer.js';
import { readStateFile } from '../../../src/runtime/state/key-group-state-file.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { RemovedKeys } from '../../../src/runtime/state/snapshotting-state-backend.js';

const MAX_P = 16;
type Model = StateModel;

type Op =
  | { readonly op: 'update'; readonly key: Key; readonly value: number }
  | { readonly op: 'bump'; readonly key: Key }
  | { readonly op: 'clear'; readonly key: Key }
  | { readonly op: 'put'; readonly key: Key; readonly mapKey: string; readonly value: number }
  | { readonly op: 'remove'; readonly key: Key; readonly mapKey: string }
  | { readonly op: 'add'; readonly key: Key; readonly value: number }
  | { readonly op: 'clearList'; readonly key: Key }
  | { readonly op: 'addRow'; readonly key: Key; readonly value: number }
  | { readonly op: 'replaceRow'; readonly key: Key }
  | { readonly op: 'dropRow'; readonly key: Key }
  | { readonly op: 'barrier' }
  | { readonly op: 'step' }
  | { readonly op: 'finish'; readonly fail: boolean };

const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom<Key>('a', 'b', 'c', 'longer key', null, 7n));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('update' as const), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('bump' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('put' as const), key, mapKey: fc.constantFrom('x', 'y', 'z'), value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), key, mapKey: fc.constantFrom('x', 'y', 'z') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('add' as const), key, value: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clearList' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('addRow' as const), key, value: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replaceRow' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('dropRow' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ op: 'barrier' as const }) },
  { weight: 3, arbitrary: fc.constant({ op: 'step' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('finish' as const), fail: fc.boolean() }) },
);

function copyModel(model: Model): Model {
  return structuredClone(model);
}

/** The backend's content in the model's shape (states without entries left out). */
function contents(backend: MemoryStateBackend): Model {
  const out: Model = new Map();
  for (const table of backend.states()) {
    const entries = new Map(table.entries());
    if (entries.size > 0) out.set(table.name, entries);
  }
  return out;
}


describe('heap backend snapshots against a model', () => {
  it('full and incremental snapshots, written while processing goes on, restore the state at their barrier', () => {
    let restoredDeltas = 0;
    let restoredChains = 0;
    let appendedLists = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200, size: 'max' }), fc.integer({ min: 1, max: 5 }), (ops, chunk) => {
        const backend = new MemoryStateBackend({ maxParallelism: MAX_P, trackChanges: true, snapshotChunkEntries: chunk });
        const value = backend.getValueState<number[]>({ name: 'value' });
        const map = backend.getMapState<string, number>({ name: 'map' });
        const list = backend.getListState<number>({ name: 'list' });
        const rows = backend.getListState<[number, string]>({ name: 'rows' });
        const model: Model = new Map([
          ['value', new Map()],
          ['map', new Map()],
          ['list', new Map()],
          ['rows', new Map()],
        ]);
        const chain = new KeyedStateChain(true);
        const files = new Map<string, Uint8Array>();
        let nextId = 1;
        let inFlight: { id: number; kind: 'full' | 'delta'; writer: HeapSnapshotWriter; expected: Model } | undefined;
        let completed: { chain: readonly ChainFile[]; expected: Model } | undefined;
        let deltas = 0;

        const finish = (fail: boolean): void => {
          const { id, kind, writer, expected } = inFlight!;
          inFlight = undefined;
          const bytes = writer.writeSync();
          if (fail) return; // declined or timed out: never completes, its changes must reach the next delta
          const file: ChainFile | undefined = writer.empty ? undefined : { checkpointId: id, name: `chk-${id}`, checksum: '', bytes: bytes.byteLength, kind };
          if (file !== undefined) files.set(file.name, bytes);
          if (file?.kind === 'delta') readStateFile(bytes, file.name, () => true, (_, frame) => void (appendedLists += frame.appends?.bases.length ?? 0));
          const recorded = chain.record(id, 'checkpoint', kind, file);
          chain.complete(id);
          backend.notifyCheckpointComplete(id);
          completed = { chain: recorded, expected };
          if (kind === 'delta') deltas++;
          // Restore the whole chain into one backend, and rescaled into two.
          const whole = new MemoryStateBackend({ maxParallelism: MAX_P });
          for (const f of recorded) whole.restoreKeyGroups(files.get(f.name)!, () => true, f.name);
          expect(contents(whole)).toEqual(nonEmpty(expected));
          // The same chain applied newest first, as the runtime does: the same state.
          const newestFirst = new MemoryStateBackend({ maxParallelism: MAX_P });
          const removed = new RemovedKeys();
          for (const f of [...recorded].reverse()) newestFirst.restoreKeyGroups(files.get(f.name)!, () => true, f.name, removed);
          expect(contents(newestFirst)).toEqual(nonEmpty(expected));
          for (const subtask of [0, 1]) {
            const owns = (group: number): boolean => subtaskOfKeyGroup(group, 2, MAX_P) === subtask;
            const part = new MemoryStateBackend({ maxParallelism: MAX_P });
            for (const f of recorded) part.restoreKeyGroups(files.get(f.name)!, owns, f.name);
            expect(contents(part)).toEqual(filterByGroup(expected, owns, MAX_P));
            const partNewestFirst = new MemoryStateBackend({ maxParallelism: MAX_P });
            const partRemoved = new RemovedKeys();
            for (const f of [...recorded].reverse()) partNewestFirst.restoreKeyGroups(files.get(f.name)!, owns, f.name, partRemoved);
            expect(contents(partNewestFirst)).toEqual(filterByGroup(expected, owns, MAX_P));
          }
        };

        for (const o of ops) {
          switch (o.op) {
            case 'barrier': {
              if (inFlight !== undefined) finish(true);
              const id = nextId++;
              const kind = chain.nextKind('checkpoint');
              inFlight = { id, kind, writer: backend.beginSnapshot({ kind, checkpointId: id }), expected: copyModel(model) };
              break;
            }
            case 'step':
              inFlight?.writer.step();
              break;
            case 'finish':
              if (inFlight !== undefined) finish(o.fail);
              break;
            case 'update':
              backend.setCurrentKey(o.key);
              value.update([o.value, 0]);
              model.get('value')!.set(o.key, [o.value, 0]);
              break;
            case 'bump': {
              backend.setCurrentKey(o.key);
              const current = value.value();
              if (current === undefined) break;
              current[1]! += 1; // in place, as operators do
              (model.get('value')!.get(o.key) as number[])[1]! += 1;
              break;
            }
            case 'clear':
              backend.setCurrentKey(o.key);
              value.clear();
              model.get('value')!.delete(o.key);
              break;
            case 'put': {
              backend.setCurrentKey(o.key);
              map.put(o.mapKey, o.value);
              const entries = model.get('map')!;
              if (!entries.has(o.key)) entries.set(o.key, new Map());
              (entries.get(o.key) as Map<string, number>).set(o.mapKey, o.value);
              break;
            }
            case 'remove': {
              backend.setCurrentKey(o.key);
              map.remove(o.mapKey);
              const entries = model.get('map')!;
              const inner = entries.get(o.key) as Map<string, number> | undefined;
              inner?.delete(o.mapKey);
              if (inner?.size === 0) entries.delete(o.key);
              break;
            }
            case 'add': {
              backend.setCurrentKey(o.key);
              list.add(o.value);
              const entries = model.get('list')!;
              if (!entries.has(o.key)) entries.set(o.key, []);
              (entries.get(o.key) as number[]).push(o.value);
              break;
            }
            case 'clearList':
              backend.setCurrentKey(o.key);
              list.clear();
              model.get('list')!.delete(o.key);
              break;
            case 'addRow': {
              backend.setCurrentKey(o.key);
              rows.add([o.value, `r${o.value}`]);
              const entries = model.get('rows')!;
              if (!entries.has(o.key)) entries.set(o.key, []);
              (entries.get(o.key) as [number, string][]).push([o.value, `r${o.value}`]);
              break;
            }
            case 'replaceRow': {
              // A row changed: rows in a list are immutable, the list is replaced with a new row in its place.
              backend.setCurrentKey(o.key);
              const stored = rows.get();
              if (stored.length === 0) break;
              const [first, ...rest] = stored;
              rows.update([[first![0] + 1, first![1]], ...rest]);
              ((model.get('rows')!.get(o.key) as [number, string][])[0]!)[0]++;
              break;
            }
            case 'dropRow': {
              // A row retracted, as a join drops one: the list without it.
              backend.setCurrentKey(o.key);
              const stored = rows.get();
              if (stored.length === 0) break;
              rows.update(stored.slice(1));
              const modelRows = model.get('rows')!.get(o.key) as [number, string][];
              if (modelRows.length === 1) model.get('rows')!.delete(o.key);
              else modelRows.shift();
              break;
            }
            default:
              o satisfies never;
          }
        }
        if (inFlight !== undefined) finish(false);
        // The live state is the model's, whatever the snapshots did.
        expect(contents(backend)).toEqual(nonEmpty(model));
        restoredDeltas += deltas;
        if (completed !== undefined && completed.chain.length > 1) restoredChains++;
      }),
      {
        numRuns: 300,
        examples: [
          // A key emitted, then removed and created again while the full snapshot was paused in
          // its group: the Map's iteration visits it again, with the value after the barrier.
          [
            [
              { op: 'add', key: 0, value: 0 },
              { op: 'update', key: null, value: 0 },
              { op: 'update', key: 0, value: 0 },
              { op: 'add', key: null, value: 0 },
              { op: 'put', key: null, mapKey: 'x', value: 0 },
              { op: 'update', key: 1, value: 0 },
              { op: 'barrier' },
              { op: 'step' },
              { op: 'clearList', key: null },
              { op: 'add', key: null, value: 1 },
            ],
            5,
          ],
        ],
      },
    );
    // The runs did exercise what they are for: deltas, restores of chains longer than a base, and lists written as their appended rows.
    expect(restoredDeltas).toBeGreaterThan(50);
    expect(restoredChains).toBeGreaterThan(10);
    expect(appendedLists).toBeGreaterThan(50);
  });
});
