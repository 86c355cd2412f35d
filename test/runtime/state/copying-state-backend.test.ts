/**
 * The contract-checking copying backend: it catches an operator that mutates what it read from
 * state in place (its change is lost, as on a serialising backend), while one that writes back
 * behaves as on the heap backend; every read is a fresh copy and every write is copied; map-state
 * keys must be primitives; iteration sees state as it was when it began; functions are refused;
 * its snapshots and the heap backend's are interchangeable; and under random operations it
 * agrees with a plain model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../../src/common/row.js';
import type { Key } from '../../../src/common/key-codec.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { CopyingStateBackend } from '../../../src/runtime/state/copying-state-backend.js';
import type { ValueState } from '../../../src/runtime/state/keyed-state-backend.js';
import { MemoryStateBackend } from '../../../src/runtime/state/memory-state-backend.js';
import { createStateBackend, stateBackendKindFromEnv } from '../../../src/runtime/state/state-backend-factory.js';
import type { OperatorContext, StreamOperator } from '../../../src/runtime/stream-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

/**
 * A count per key as an operator might write it: `[count]` in value state, emitted as +I/+U. The
 * careless one bumps the array it read and writes back only when it creates it (what weir's
 * operators did before the contract was checked); the careful one writes back every change.
 */
class CountingOperator implements StreamOperator {
  private state!: ValueState<number[]>;
  private context!: OperatorContext;

  constructor(private readonly careful: boolean) {}

  open(context: OperatorContext): void {
    this.context = context;
    this.state = context.keyedState.getValueState<number[]>({ name: 'count' });
  }

  processBatch(batch: ChangeBatch): void {
    const out = new ChangeBatch();
    for (const row of batch.rows) {
      this.context.keyedState.setCurrentKey(row[0] as Key);
      let counter = this.state.value();
      if (counter === undefined) this.state.update((counter = [0]));
      counter[0]!++;
      if (this.careful) this.state.update(counter);
      out.push(counter[0] === 1 ? RowKind.INSERT : RowKind.UPDATE_AFTER, [row[0], counter[0]]);
    }
    this.context.output.collect(out);
  }
}

describe('copying state backend', () => {
  it('loses the change of an operator that mutates state in place, which the heap backend hides', async () => {
    const rows: Change[] = [['+I', ['a']], ['+I', ['a']], ['+I', ['b']], ['+I', ['a']]];
    const heap = await OperatorHarness.open(new CountingOperator(false), { stateBackend: 'hashmap' });
    heap.push(rows);
    expect(heap.output).toEqual([['+I', ['a', 1]], ['+U', ['a', 2]], ['+I', ['b', 1]], ['+U', ['a', 3]]]);
    const copying = await OperatorHarness.open(new CountingOperator(false), { stateBackend: 'copying' });
    copying.push(rows);
    // The careless operator's increments never reach state: every count starts again from the stored 0.
    expect(copying.output).toEqual([['+I', ['a', 1]], ['+I', ['a', 1]], ['+I', ['b', 1]], ['+I', ['a', 1]]]);
    const careful = await OperatorHarness.open(new CountingOperator(true), { stateBackend: 'copying' });
    careful.push(rows);
    expect(careful.output).toEqual(heap.output);
  });

  it('hands out a fresh copy on every read and stores a copy of every write, for every kind of state', () => {
    const backend = new CopyingStateBackend();
    backend.setCurrentKey('k');
    const value = backend.getValueState<{ row: unknown[]; seen: Map<string, number>; bytes: Uint8Array; big: bigint }>({ name: 'v' });
    const written = { row: [1, 'x', null], seen: new Map([['a', 1]]), bytes: new Uint8Array([1, 2]), big: 2n ** 70n };
    value.update(written);
    written.row.push('after the write');
    const first = value.value()!;
    expect(first).toEqual({ row: [1, 'x', null], seen: new Map([['a', 1]]), bytes: new Uint8Array([1, 2]), big: 2n ** 70n });
    first.seen.set('b', 2);
    first.bytes[0] = 9;
    expect(value.value()).toEqual({ row: [1, 'x', null], seen: new Map([['a', 1]]), bytes: new Uint8Array([1, 2]), big: 2n ** 70n });
    expect(value.value()).not.toBe(value.value());

    const map = backend.getMapState<string, number[]>({ name: 'm' });
    map.put('x', [1]);
    map.get('x')!.push(2);
    for (const [, v] of map.entries()) v.push(3);
    expect(map.get('x')).toEqual([1]);

    const list = backend.getListState<number[]>({ name: 'l' });
    const element = [1];
    list.add(element);
    element.push(2);
    (list.get() as number[][])[0]!.push(3);
    expect(list.get()).toEqual([[1]]);

    const reducing = backend.getReducingState<number[]>({ name: 'r' }, (a, b) => {
      a.push(...b);
      return a;
    });
    reducing.add([1]);
    reducing.add([2]);
    reducing.get()!.push(99);
    expect(reducing.get()).toEqual([1, 2]);

    const [[key, stored]] = [...backend.entriesOf<{ row: unknown[] }>({ name: 'v' })];
    stored.row.length = 0;
    expect(key).toBe('k');
    expect(value.value()!.row).toEqual([1, 'x', null]);
  });

  it('keeps objects shared within one value shared in its copy, and copies class instances as plain data as a disk backend would', () => {
    const backend = new CopyingStateBackend();
    backend.setCurrentKey(1);
    const state = backend.getValueState<{ a: number[]; b: number[]; when: Date; point: unknown }>({ name: 'v' });
    const shared = [1];
    class Point {
      constructor(readonly x: number) {}
      norm(): number {
        return Math.abs(this.x);
      }
    }
    state.update({ a: shared, b: shared, when: new Date(5), point: new Point(-3) });
    const copy = state.value()!;
    expect(copy.a).toBe(copy.b);
    expect(copy.a).not.toBe(shared);
    expect(copy.when).toEqual(new Date(5));
    expect(copy.point).toEqual({ x: -3 });
    expect(copy.point).not.toBeInstanceOf(Point);
  });

  it('refuses object map keys and functions, which a serialising backend cannot keep alike', () => {
    const backend = new CopyingStateBackend();
    backend.setCurrentKey('k');
    const map = backend.getMapState<unknown, number>({ name: 'm' });
    expect(() => map.put(['row'], 1)).toThrow(/map state 'm' got an object as map key \(\[object Array\]\)/);
    expect(() => map.get({})).toThrow(/map keys must be primitives/);
    const value = backend.getValueState<unknown>({ name: 'v' });
    expect(() => value.update({ callback: () => 1 })).toThrow(/a function cannot be kept in state/);
  });

  it('iterates map entries and entriesOf as they were when iteration began', () => {
    const backend = new CopyingStateBackend();
    backend.setCurrentKey('k');
    const map = backend.getMapState<number, string>({ name: 'm' });
    map.put(1, 'a');
    map.put(2, 'b');
    const seen: number[] = [];
    for (const [k] of map.entries()) {
      seen.push(k);
      map.remove(2);
      map.put(3, 'c');
    }
    expect(seen).toEqual([1, 2]);
    expect([...map.entries()]).toEqual([[1, 'a'], [3, 'c']]);
  });

  it('writes snapshots the heap backend restores, and restores the heap backend\'s', () => {
    const fill = (backend: MemoryStateBackend): void => {
      for (const key of ['a', 'b', 7]) {
        backend.setCurrentKey(key);
        backend.getValueState<unknown[]>({ name: 'v' }).update([key, 1n, [2]]);
        backend.getMapState<string, number>({ name: 'm' }).put(`x${String(key)}`, 3);
        backend.getListState<string>({ name: 'l' }).add(String(key));
      }
    };
    const read = (backend: MemoryStateBackend): unknown => ({
      v: [...backend.entriesOf({ name: 'v' })],
      m: [...backend.entriesOf({ name: 'm' })],
      l: [...backend.entriesOf({ name: 'l' })],
    });
    const heap = new MemoryStateBackend();
    fill(heap);
    const copying = new CopyingStateBackend();
    fill(copying);
    const fromCopying = new MemoryStateBackend();
    fromCopying.restore(copying.snapshot()!, () => true);
    const fromHeap = new CopyingStateBackend();
    fromHeap.restore(heap.snapshot()!, () => true);
    expect(read(fromCopying)).toEqual(read(heap));
    expect(read(fromHeap)).toEqual(read(heap));
  });

  it('agrees with a plain model under random value, map and list operations', () => {
    type Op =
      | { op: 'update'; key: number; value: number[] }
      | { op: 'mutateRead'; key: number }
      | { op: 'clear'; key: number }
      | { op: 'put'; key: number; mapKey: string; value: number }
      | { op: 'remove'; key: number; mapKey: string }
      | { op: 'add'; key: number; value: number };
    const key = fc.integer({ min: 0, max: 3 });
    const mapKey = fc.constantFrom('x', 'y', 'z');
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('update' as const), key, value: fc.array(fc.integer(), { maxLength: 3 }) }),
      fc.record({ op: fc.constant('mutateRead' as const), key }),
      fc.record({ op: fc.constant('clear' as const), key }),
      fc.record({ op: fc.constant('put' as const), key, mapKey, value: fc.integer() }),
      fc.record({ op: fc.constant('remove' as const), key, mapKey }),
      fc.record({ op: fc.constant('add' as const), key, value: fc.integer() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const backend = new CopyingStateBackend();
        const value = backend.getValueState<number[]>({ name: 'v' });
        const map = backend.getMapState<string, number>({ name: 'm' });
        const list = backend.getListState<number>({ name: 'l' });
        const model = { v: new Map<number, number[]>(), m: new Map<number, Map<string, number>>(), l: new Map<number, number[]>() };
        for (const o of ops) {
          backend.setCurrentKey(o.key);
          switch (o.op) {
            case 'update':
              value.update(o.value);
              model.v.set(o.key, [...o.value]);
              break;
            case 'mutateRead':
              // Not written back: the model does not change either.
              value.value()?.push(42);
              break;
            case 'clear':
              value.clear();
              model.v.delete(o.key);
              break;
            case 'put':
              map.put(o.mapKey, o.value);
              model.m.set(o.key, new Map(model.m.get(o.key)).set(o.mapKey, o.value));
              break;
            case 'remove': {
              map.remove(o.mapKey);
              const entries = new Map(model.m.get(o.key));
              entries.delete(o.mapKey);
              if (entries.size === 0) model.m.delete(o.key);
              else model.m.set(o.key, entries);
              break;
            }
            case 'add':
              list.add(o.value);
              model.l.set(o.key, [...(model.l.get(o.key) ?? []), o.value]);
              break;
            default: {
              const never: never = o;
              throw new Error(`unknown op ${JSON.stringify(never)}`);
            }
          }
        }
        for (let k = 0; k <= 3; k++) {
          backend.setCurrentKey(k);
          expect(value.value()).toEqual(model.v.get(k));
          expect(new Map(map.entries())).toEqual(model.m.get(k) ?? new Map());
          expect(list.get()).toEqual(model.l.get(k) ?? []);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is chosen by WEIR_TEST_STATE_BACKEND, and a misspelt value is an error', () => {
    expect(stateBackendKindFromEnv({})).toBe('hashmap');
    expect(stateBackendKindFromEnv({ WEIR_TEST_STATE_BACKEND: 'copying' })).toBe('copying');
    expect(() => stateBackendKindFromEnv({ WEIR_TEST_STATE_BACKEND: 'rocksdb' })).toThrow("WEIR_TEST_STATE_BACKEND must be 'hashmap', 'copying' or 'lmdb', got 'rocksdb'");
    expect(createStateBackend('copying')).toBeInstanceOf(CopyingStateBackend);
    expect(createStateBackend('hashmap')).not.toBeInstanceOf(CopyingStateBackend);
  });
});
