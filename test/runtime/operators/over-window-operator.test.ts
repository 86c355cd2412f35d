/**
 * The general OVER operator. Examples: LAG/LEAD of a deleted row's neighbours change, NTILE and
 * CUME_DIST of the whole partition change, state survives a restore. Property: for random
 * insert/update/delete changelogs (ties and NULLs in the ORDER BY, several partitions) cut into
 * random batches, the output applied as a changelog equals, after every batch, every partition's
 * window values computed from scratch by a plain model written independently here (stable sort,
 * then each function by its definition).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrderKey } from '../../../src/common/order-key.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { WindowFrame, WindowFunction } from '../../../src/common/window-function.js';
import type { AggregateCallSpec, OverWindowSpec } from '../../../src/dataflow/job-graph.js';
import { OverWindowOperator } from '../../../src/runtime/operators/over-window-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';

// Rows: [partition, a, b, v, id, fallback]; ORDER BY a ASC (NULLs first), b DESC NULLS FIRST.
const P = 0;
const A = 1;
const B = 2;
const V = 3;
const FALLBACK = 5;
const bigint = SqlTypes.bigint();
const aggregate = (fn: string, args: number[]): AggregateCallSpec => ({ function: fn, args, argTypes: args.map(() => bigint), distinct: false, filter: null, type: fn === 'COUNT' ? SqlTypes.bigint(false) : bigint });
const rows = (start: number | null, end: number | null): WindowFrame => ({ unit: 'ROWS', start, end });
const range = (start: number | null, end: number | null): WindowFrame => ({ unit: 'RANGE', start, end });

const FUNCTIONS: readonly WindowFunction<AggregateCallSpec>[] = [
  { kind: 'ranking', function: 'ROW_NUMBER' },
  { kind: 'ranking', function: 'RANK' },
  { kind: 'ranking', function: 'DENSE_RANK' },
  { kind: 'ranking', function: 'PERCENT_RANK' },
  { kind: 'ranking', function: 'CUME_DIST' },
  { kind: 'ntile', buckets: 3 },
  { kind: 'offset', function: 'LAG', arg: V, offset: 1, default: null },
  { kind: 'offset', function: 'LAG', arg: V, offset: 2, default: FALLBACK },
  { kind: 'offset', function: 'LEAD', arg: V, offset: 1, default: null },
  { kind: 'offset', function: 'LEAD', arg: A, offset: 0, default: null },
  { kind: 'frame-value', function: 'FIRST_VALUE', arg: V, frame: range(null, 0) },
  { kind: 'frame-value', function: 'LAST_VALUE', arg: V, frame: rows(-1, 1) },
  { kind: 'frame-value', function: 'LAST_VALUE', arg: V, frame: range(null, 0) },
  { kind: 'aggregate', aggregate: aggregate('SUM', [V]), frame: range(null, 0) },
  { kind: 'aggregate', aggregate: aggregate('COUNT', [V]), frame: rows(-2, 0) },
  { kind: 'aggregate', aggregate: aggregate('MIN', [V]), frame: range(null, null) },
  { kind: 'aggregate', aggregate: aggregate('MAX', [V]), frame: rows(1, 3) },
  { kind: 'aggregate', aggregate: aggregate('SUM', [V]), frame: range(0, null) },
  { kind: 'aggregate', aggregate: aggregate('COUNT', []), frame: rows(2, 1) },
];

/** The functions whose values before a change stay as they are (finite reach): the operator then recomputes only from a little before the change. */
const LOCAL_FUNCTIONS = FUNCTIONS.filter((f) => !(f.kind === 'ntile' || (f.kind === 'ranking' && (f.function === 'PERCENT_RANK' || f.function === 'CUME_DIST')) || ((f.kind === 'aggregate' || f.kind === 'frame-value') && f.frame.end === null)));

const ORDERS: readonly (readonly OrderKey[])[] = [[{ index: A, descending: false }, { index: B, descending: true, nullsFirst: true }], [{ index: A, descending: true }], []];

const spec = (orderKeys: readonly OrderKey[], partitionKeys: readonly number[], functions: readonly WindowFunction<AggregateCallSpec>[]): OverWindowSpec => ({ kind: 'over-window', partitionKeys, orderKeys, functions });

// ---- The model: each function by its definition over a stably sorted partition. ----

/** -1, 0 or 1 as `x` orders before, with or after `y` under one key (NULLs first ascending, last descending, unless told). */
function compareKey(x: unknown, y: unknown, key: OrderKey): number {
  const nullsFirst = key.nullsFirst ?? !key.descending;
  if (x === null && y === null) return 0;
  if (x === null) return nullsFirst ? -1 : 1;
  if (y === null) return nullsFirst ? 1 : -1;
  const c = (x as number) - (y as number);
  return Math.sign(key.descending ? -c : c);
}

function compareRows(a: Row, b: Row, keys: readonly OrderKey[]): number {
  for (const key of keys) {
    const c = compareKey(a[key.index], b[key.index], key);
    if (c !== 0) return c;
  }
  return 0;
}

/** The frame's row indexes for row `j` of `n`, peers being the rows that compare equal. */
function frameIndexes(frame: WindowFrame, j: number, sorted: readonly Row[], keys: readonly OrderKey[]): number[] {
  const n = sorted.length;
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    let after: boolean;
    let before: boolean;
    if (frame.unit === 'ROWS') {
      after = frame.start === null || k >= j + frame.start;
      before = frame.end === null || k <= j + frame.end;
    } else {
      const c = compareRows(sorted[k]!, sorted[j]!, keys);
      after = frame.start === null || c >= 0;
      before = frame.end === null || c <= 0;
    }
    if (after && before) out.push(k);
  }
  return out;
}

function modelAggregate(fn: string, args: readonly number[], frame: readonly Row[]): unknown {
  if (fn === 'COUNT') return args.length === 0 ? frame.length : frame.filter((r) => r[args[0]!] !== null).length;
  const values = frame.map((r) => r[args[0]!] as number | null).filter((x): x is number => x !== null);
  if (values.length === 0) return null;
  if (fn === 'SUM') return values.reduce((s, x) => s + x, 0);
  if (fn === 'MIN') return Math.min(...values);
  if (fn === 'MAX') return Math.max(...values);
  throw new Error(`model has no ${fn}`);
}

function modelPartition(rowsInArrivalOrder: readonly Row[], keys: readonly OrderKey[], functions: readonly WindowFunction<AggregateCallSpec>[]): Row[] {
  const sorted = [...rowsInArrivalOrder].sort((a, b) => compareRows(a, b, keys)); // stable: peers in arrival order
  const n = sorted.length;
  return sorted.map((row, j) => {
    const peers = sorted.map((_, k) => k).filter((k) => compareRows(sorted[k]!, row, keys) === 0);
    const rank = sorted.filter((r) => compareRows(r, row, keys) < 0).length + 1;
    const values = functions.map((f): unknown => {
      switch (f.kind) {
        case 'ranking':
          switch (f.function) {
            case 'ROW_NUMBER':
              return j + 1;
            case 'RANK':
              return rank;
            case 'DENSE_RANK':
              return new Set(sorted.filter((r) => compareRows(r, row, keys) < 0).map((r) => JSON.stringify(keys.map((k) => r[k.index])))).size + 1;
            case 'PERCENT_RANK':
              return n === 1 ? 0 : (rank - 1) / (n - 1);
            case 'CUME_DIST':
              return (Math.max(...peers) + 1) / n;
          }
          throw new Error('unreachable');
        case 'ntile': {
          // Deal the rows out as PostgreSQL does: bucket sizes differ by at most one, larger first.
          const sizes = Array.from({ length: f.buckets }, (_, b) => Math.floor(n / f.buckets) + (b < n % f.buckets ? 1 : 0));
          let seen = 0;
          for (let b = 0; b < sizes.length; b++) {
            seen += sizes[b]!;
            if (j < seen) return b + 1;
          }
          throw new Error('unreachable');
        }
        case 'offset': {
          const k = f.function === 'LAG' ? j - f.offset : j + f.offset;
          if (k >= 0 && k < n) return sorted[k]![f.arg];
          return f.default === null ? null : row[f.default];
        }
        case 'frame-value': {
          const frame = frameIndexes(f.frame, j, sorted, keys);
          if (frame.length === 0) return null;
          return sorted[f.function === 'FIRST_VALUE' ? frame[0]! : frame[frame.length - 1]!]![f.arg];
        }
        case 'aggregate':
          return modelAggregate(f.aggregate.function, f.aggregate.args, frameIndexes(f.frame, j, sorted, keys).map((k) => sorted[k]!));
      }
    });
    return [...row, ...values];
  });
}

function model(live: readonly Row[], keys: readonly OrderKey[], partitionKeys: readonly number[], functions: readonly WindowFunction<AggregateCallSpec>[]): Row[] {
  const partitions = new Map<string, Row[]>();
  for (const row of live) {
    const key = JSON.stringify(partitionKeys.map((k) => row[k]));
    partitions.set(key, [...(partitions.get(key) ?? []), row]);
  }
  return [...partitions.values()].flatMap((p) => modelPartition(p, keys, functions));
}

// ---- Examples ----

describe('over window operator', () => {
  const lagLead: OverWindowSpec = {
    kind: 'over-window',
    partitionKeys: [0],
    orderKeys: [{ index: 1, descending: false }],
    functions: [
      { kind: 'offset', function: 'LAG', arg: 2, offset: 1, default: null },
      { kind: 'offset', function: 'LEAD', arg: 2, offset: 1, default: null },
    ],
  };

  it('a deleted row changes the LAG and LEAD of its neighbours', async () => {
    const h = await OperatorHarness.open(new OverWindowOperator(lagLead));
    h.push([
      ['+I', ['k', 1, 'x']],
      ['+I', ['k', 2, 'y']],
      ['+I', ['k', 3, 'z']],
    ]);
    expect(materialize(h.output)).toEqual(materialize([['+I', ['k', 1, 'x', null, 'y']], ['+I', ['k', 2, 'y', 'x', 'z']], ['+I', ['k', 3, 'z', 'y', null]]]));
    expect(h.push([['-D', ['k', 2, 'y']]])).toEqual([
      ['-D', ['k', 2, 'y', 'x', 'z']],
      ['-U', ['k', 1, 'x', null, 'y']],
      ['+U', ['k', 1, 'x', null, 'z']],
      ['-U', ['k', 3, 'z', 'y', null]],
      ['+U', ['k', 3, 'z', 'x', null]],
    ]);
  });

  it('an insert renumbers NTILE and CUME_DIST across the partition, and state survives a restore', async () => {
    const s: OverWindowSpec = { kind: 'over-window', partitionKeys: [], orderKeys: [{ index: 0, descending: false }], functions: [{ kind: 'ntile', buckets: 2 }, { kind: 'ranking', function: 'CUME_DIST' }] };
    const h = await OperatorHarness.open(new OverWindowOperator(s));
    h.push([['+I', [10]], ['+I', [20]]]);
    expect(h.push([['+I', [5]]])).toEqual([
      ['+I', [5, 1, 1 / 3]],
      ['-U', [10, 1, 0.5]],
      ['+U', [10, 1, 2 / 3]],
    ]);
    const restored = await OperatorHarness.open(new OverWindowOperator(s), { restore: { snapshot: h.state.snapshot()! } });
    expect(restored.push([['-D', [20]]])).toEqual([
      ['-D', [20, 2, 1]],
      ['-U', [5, 1, 1 / 3]],
      ['+U', [5, 1, 0.5]],
      ['-U', [10, 1, 2 / 3]],
      ['+U', [10, 2, 1]],
    ]);
  });

  it('ignores, with one warning, a retraction of a row it does not hold', async () => {
    const h = await OperatorHarness.open(new OverWindowOperator(lagLead));
    expect(h.push([['-D', ['k', 1, 'x']]])).toEqual([]);
    expect(h.warnings).toHaveLength(1);
  });
});

// ---- Property ----

interface Step {
  readonly op: 'insert' | 'delete' | 'update' | 'duplicate';
  readonly partition: number;
  readonly a: number | null;
  readonly b: number | null;
  readonly v: number | null;
  readonly pick: number;
  readonly batchEnd: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom('insert', 'insert', 'delete', 'update', 'duplicate'),
  partition: fc.integer({ min: 0, max: 2 }),
  a: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 5 }),
  b: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 4 }),
  v: fc.option(fc.integer({ min: -5, max: 9 }), { freq: 6 }),
  pick: fc.nat(),
  batchEnd: fc.boolean(),
});

describe('over window operator (property)', () => {
  const cases = ORDERS.flatMap((keys) => [[keys, [P], FUNCTIONS, 'every function'] as const, [keys, [], FUNCTIONS, 'every function'] as const, [keys, [P], LOCAL_FUNCTIONS, 'functions of finite reach'] as const]);
  for (const [keys, partitionKeys, functions, which] of cases) {
    it(`${which}, ORDER BY ${keys.map((k) => `${k.index}${k.descending ? ' DESC' : ''}`).join(', ') || '(none)'}, PARTITION BY ${partitionKeys.length > 0 ? 'p' : '(none)'}: after every batch the output equals the model`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
          const h = await OperatorHarness.open(new OverWindowOperator(spec(keys, partitionKeys, functions)));
          const live: Row[] = [];
          let batch: Change[] = [];
          let id = 0;
          const check = (): void => {
            const emitted = h.push(batch);
            batch = [];
            expect(emitted.filter(([kind]) => kind === '-U').length).toBe(emitted.filter(([kind]) => kind === '+U').length);
            expect(materialize(h.output)).toEqual(materialize(model(live, keys, partitionKeys, functions).map((row) => ['+I', row] as Change)));
          };
          for (const s of steps) {
            const op = live.length === 0 ? 'insert' : s.op;
            if (op === 'duplicate') {
              // An equal row again (an input without a key): peers that are equal rows.
              const copy = [...live[s.pick % live.length]!];
              live.push(copy);
              batch.push(['+I', copy]);
            } else {
              if (op !== 'insert') {
                // A retraction removes the latest equal row, as the operator does (equal rows are peers, in arrival order).
                const content = JSON.stringify(live[s.pick % live.length]);
                const at = live.map((r) => JSON.stringify(r)).lastIndexOf(content);
                const [old] = live.splice(at, 1);
                batch.push([op === 'delete' ? '-D' : '-U', old!]);
              }
              if (op !== 'delete') {
                const row = [s.partition, s.a, s.b, s.v, id++, -(id % 3)];
                live.push(row);
                batch.push([op === 'insert' ? '+I' : '+U', row]);
              }
            }
            if (s.batchEnd) check();
          }
          check();
          expect(h.warnings).toEqual([]);
        }),
        {
          numRuns: 120,
          examples: [
            // A retraction and an insertion of rows of different peer groups at the same position:
            // the inserted row's peers before it (ORDER BY a DESC) must be recomputed too.
            [
              [
                { op: 'insert', partition: 0, a: 0, b: null, v: 0, pick: 0, batchEnd: false },
                { op: 'duplicate', partition: 0, a: null, b: null, v: null, pick: 0, batchEnd: false },
                { op: 'duplicate', partition: 0, a: null, b: null, v: null, pick: 0, batchEnd: false },
                { op: 'duplicate', partition: 0, a: null, b: null, v: null, pick: 0, batchEnd: false },
                { op: 'insert', partition: 0, a: null, b: null, v: null, pick: 0, batchEnd: true },
                { op: 'update', partition: 0, a: 0, b: null, v: 1, pick: 4, batchEnd: false },
              ],
            ],
          ],
        },
      );
    });
  }
});
