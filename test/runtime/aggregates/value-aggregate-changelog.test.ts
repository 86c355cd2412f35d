/**
 * Property: for random interleavings of inserts, deletes and -U/+U updates of present rows, cut
 * into random batches, the changelog a GroupAggregateOperator emits for FIRST_VALUE, LAST_VALUE,
 * LISTAGG, ARRAY_AGG, COLLECT, JSON_ARRAYAGG, the variance family and PERCENTILE, applied to a table, equals
 * after every batch a model computed from scratch. The order-dependent aggregates follow Flink's
 * retracting versions: a group's values are kept in arrival order and a retraction removes the
 * earliest equal value (so the model replays every change on a list per group and aggregate); the
 * statistics of DOUBLE values replay Welford's updates change by change, as Flink's WELFORD_M2
 * does; the others depend only on the rows present. DOUBLE inputs are halves of small integers,
 * so that sums are exact and the incremental result equals the recomputed one bit for bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalFromNumber } from '../../../src/common/decimal.js';
import { encodeComponent } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import type { RowKindShort } from '../../../src/common/row-kind.js';
import { SqlTypes as T, type SqlType } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec } from '../../../src/dataflow/job-graph.js';
import { jsonSerializer } from '../../../src/expr/runtime/json-lib.js';
import { GroupAggregateOperator } from '../../../src/runtime/operators/group-aggregate-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { aggCall, groupSpec } from './aggregate-call.js';

/**
 * Input columns: k INT, x INT, s STRING, y DOUBLE, d DECIMAL(10, 2), sep STRING, f BOOLEAN, and the
 * percentages of PERCENTILE (constant, as a literal would be): p DOUBLE, ps ARRAY<DOUBLE>.
 */
const [K, X, S, Y, D, SEP, F, P, PS] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
const TYPES: readonly SqlType[] = [T.int(), T.int(), T.string(), T.double(), T.decimal(10, 2), T.string(false), T.boolean(), T.double(false), T.array(T.double(false), false)];
const PERCENTAGE = 0.3;
const PERCENTAGES = [0, 0.25, 0.5, 0.9, 1];
const col = (index: number) => [index, TYPES[index]!] as const;

const AGGREGATES: readonly AggregateCallSpec[] = [
  aggCall('FIRST_VALUE', [col(X)]),
  aggCall('LAST_VALUE', [col(X)]),
  aggCall('FIRST_VALUE', [col(S)], { filter: F }),
  aggCall('LAST_VALUE', [col(D)]),
  aggCall('LISTAGG', [col(S)]),
  aggCall('LISTAGG', [col(S), col(SEP)]),
  aggCall('LISTAGG', [col(S)], { distinct: true }),
  aggCall('ARRAY_AGG', [col(X)]),
  aggCall('ARRAY_AGG_IGNORE_NULLS', [col(S)]),
  aggCall('ARRAY_AGG', [col(X)], { distinct: true }),
  aggCall('COLLECT', [col(S)]),
  aggCall('JSON_ARRAYAGG_ABSENT_ON_NULL', [col(S)]),
  aggCall('JSON_ARRAYAGG_NULL_ON_NULL', [col(Y)]),
  aggCall('VAR_POP', [col(Y)]),
  aggCall('VAR_SAMP', [col(X)]),
  aggCall('STDDEV_POP', [col(X)]),
  aggCall('STDDEV_SAMP', [col(Y)]),
  aggCall('VAR_SAMP', [col(D)]),
  aggCall('STDDEV_POP', [col(D)], { filter: F }),
  aggCall('PERCENTILE', [col(Y), col(P)]),
  aggCall('PERCENTILE', [col(D), col(PS)]),
  aggCall('PERCENTILE', [col(Y), col(P), col(X)]),
  aggCall('PERCENTILE', [col(X), col(PS)], { distinct: true }),
];

const ORDERED = new Set(['FIRST_VALUE', 'LAST_VALUE', 'LISTAGG', 'ARRAY_AGG', 'ARRAY_AGG_IGNORE_NULLS', 'JSON_ARRAYAGG_ABSENT_ON_NULL', 'JSON_ARRAYAGG_NULL_ON_NULL']);
// FIRST_VALUE and LAST_VALUE count NULL values (Flink's FirstLastValueAggregationFunctionITCase), as ARRAY_AGG does.
const STATISTICS = new Set(['VAR_POP', 'VAR_SAMP', 'STDDEV_POP', 'STDDEV_SAMP']);
const ACCEPTS_NULLS = new Set(['FIRST_VALUE', 'LAST_VALUE', 'ARRAY_AGG', 'JSON_ARRAYAGG_NULL_ON_NULL']);

const nullable = <V,>(values: fc.Arbitrary<V>) => fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: values });

const rowArbitrary: fc.Arbitrary<Row> = fc.tuple(
  nullable(fc.integer({ min: 0, max: 2 })),
  nullable(fc.integer({ min: -6, max: 6 })),
  nullable(fc.constantFrom('a', 'b', '', 'a,b', 'é')),
  nullable(fc.integer({ min: -10, max: 10 }).map((v) => v / 2 + 0)),
  nullable(fc.bigInt({ min: -300n, max: 300n })),
  fc.constant('|'),
  nullable(fc.boolean()),
  fc.constant(PERCENTAGE),
  fc.constant(PERCENTAGES),
);

const operationArbitrary = fc.record({
  op: fc.constantFrom('insert', 'insert', 'delete', 'update'),
  row: rowArbitrary,
  pick: fc.nat(),
  accumulateKind: fc.constantFrom<RowKindShort>('+I', '+U'),
  retractKind: fc.constantFrom<RowKindShort>('-D', '-U'),
  endsBatch: fc.nat(3).map((n) => n === 0),
});

/** A group of the model: its rows present, and per ordered aggregate the values in Flink's retracting order (with distinct counts). */
interface Group {
  readonly key: unknown;
  readonly rows: Row[];
  readonly lists: unknown[][];
  readonly distinct: Map<string, number>[];
  /** Welford's state per aggregate (used by the statistics of DOUBLE values), replayed change by change as Flink's WELFORD_M2 does. */
  readonly welford: { n: number; mean: number; m2: number }[];
}

const same = (a: unknown, b: unknown): boolean => encodeComponent(a) === encodeComponent(b);

/** Applies one accumulate (+1) or retract (-1) of `row` to the model. */
function apply(groups: Map<string, Group>, row: Row, sign: 1 | -1): void {
  const id = encodeComponent(row[K]);
  let group = groups.get(id);
  if (group === undefined) {
    group = { key: row[K], rows: [], lists: AGGREGATES.map(() => []), distinct: AGGREGATES.map(() => new Map()), welford: AGGREGATES.map(() => ({ n: 0, mean: 0, m2: 0 })) };
    groups.set(id, group);
  }
  if (sign > 0) group.rows.push(row);
  else group.rows.splice(group.rows.findIndex((r) => same(r, row)), 1);
  AGGREGATES.forEach((call, i) => {
    if (STATISTICS.has(call.function) && call.argTypes[0]!.kind === 'DOUBLE') {
      const x = row[call.args[0]!] as number | null;
      if (x === null || (call.filter !== null && row[call.filter] !== true)) return;
      const w = group.welford[i]!;
      if (sign > 0) {
        w.n++;
        const delta = x - w.mean;
        w.mean += delta / w.n;
        w.m2 += delta * (x - w.mean);
      } else if (--w.n === 0) {
        w.mean = 0;
        w.m2 = 0;
      } else {
        const delta = x - w.mean;
        w.mean -= delta / w.n;
        w.m2 -= (x - w.mean) * delta;
      }
      return;
    }
    if (!ORDERED.has(call.function)) return;
    if (call.filter !== null && row[call.filter] !== true) return;
    const value = row[call.args[0]!];
    if (value === null && !ACCEPTS_NULLS.has(call.function)) return;
    const list = group.lists[i]!;
    if (call.distinct) {
      const counts = group.distinct[i]!;
      const key = encodeComponent(value);
      const count = (counts.get(key) ?? 0) + sign;
      counts.set(key, count);
      if (sign > 0 && count === 1) list.push(value);
      if (sign < 0 && count === 0) list.splice(list.findIndex((v) => same(v, value)), 1);
    } else if (sign > 0) list.push(value);
    else list.splice(list.findIndex((v) => same(v, value)), 1);
  });
  if (group.rows.length === 0) groups.delete(id);
}

/** The aggregate of a group, computed from the model. */
function result(call: AggregateCallSpec, index: number, group: Group): unknown {
  const list = group.lists[index]!;
  const rows = group.rows.filter((r) => call.filter === null || r[call.filter] === true);
  const values = rows.map((r) => r[call.args[0]!]).filter((v) => v !== null);
  switch (call.function) {
    case 'FIRST_VALUE':
      return list.length === 0 ? null : list[0];
    case 'LAST_VALUE':
      return list.length === 0 ? null : list[list.length - 1];
    case 'LISTAGG':
      return list.length === 0 ? null : list.join(call.args.length > 1 ? '|' : ',');
    case 'ARRAY_AGG':
    case 'ARRAY_AGG_IGNORE_NULLS':
      return list.length === 0 ? null : [...list];
    case 'JSON_ARRAYAGG_ABSENT_ON_NULL':
    case 'JSON_ARRAYAGG_NULL_ON_NULL': {
      const serialize = jsonSerializer(call.argTypes[0]!);
      return `[${list.map((v) => (v === null ? 'null' : serialize(v))).join(',')}]`;
    }
    case 'COLLECT': {
      const counts = new Map<unknown, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      return counts;
    }
    case 'PERCENTILE':
      return percentile(call, rows);
    default:
      return statistic(call, values, group.welford[index]!);
  }
}

/**
 * PERCENTILE from scratch: every value as a double, repeated by its frequency (rows with a NULL
 * or non-positive one left out), sorted; percentage p at 1-based position p * (n - 1) + 1,
 * interpolated linearly between the values at the positions around it.
 */
function percentile(call: AggregateCallSpec, rows: readonly Row[]): unknown {
  const [valueColumn, percentageColumn, frequencyColumn] = call.args;
  const sorted: number[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const value = row[valueColumn!];
    const frequency = frequencyColumn === undefined ? 1 : (row[frequencyColumn] as number | null);
    if (value === null || frequency === null || frequency <= 0) continue;
    if (call.distinct) {
      if (seen.has(encodeComponent(value))) continue;
      seen.add(encodeComponent(value));
    }
    const x = typeof value === 'bigint' ? Number(value) / 100 : (value as number);
    for (let i = 0; i < frequency; i++) sorted.push(x);
  }
  if (sorted.length === 0) return null;
  sorted.sort((a, b) => a - b);
  const at = (p: number): number => {
    const position = p * (sorted.length - 1) + 1;
    const [low, high] = [sorted[Math.floor(position) - 1]!, sorted[Math.ceil(position) - 1]!];
    return low === high ? low : (Math.ceil(position) - position) * low + (position - Math.floor(position)) * high;
  };
  return percentageColumn === P ? at(PERCENTAGE) : PERCENTAGES.map(at);
}

/**
 * VAR/STDDEV: M2 over the count, as Flink since FLINK-38740; for doubles M2 is Welford's, replayed
 * change by change; for integers and decimals it is exact (from the sums) before it becomes a
 * double. The result is cast to the result type: integers truncate, decimals round HALF_UP.
 */
function statistic(call: AggregateCallSpec, values: readonly unknown[], welford: { n: number; m2: number }): unknown {
  const sample = call.function.endsWith('SAMP');
  const root = call.function.startsWith('STDDEV');
  const type = call.argTypes[0]!;
  const [n, m2] = ((): [number, number] => {
    if (type.kind === 'DOUBLE') return [welford.n, welford.m2];
    const big = type.kind === 'DECIMAL' ? (values as bigint[]) : (values as number[]).map(BigInt);
    const sum = big.reduce((a, b) => a + b, 0n);
    const squares = big.reduce((a, b) => a + b * b, 0n);
    const scale = type.kind === 'DECIMAL' ? type.scale : 0;
    return [values.length, values.length === 0 ? 0 : Number(BigInt(values.length) * squares - sum * sum) / values.length / 10 ** (2 * scale)];
  })();
  const denominator = sample ? n - 1 : n;
  if (n <= 0 || denominator === 0 || m2 < 0) return null;
  const variance = root ? Math.pow(m2 / denominator, 0.5) : m2 / denominator;
  if (type.kind === 'DOUBLE') return variance;
  if (call.type.kind === 'DECIMAL') return decimalFromNumber(variance, call.type.scale);
  return Math.trunc(variance);
}

describe('GroupAggregateOperator changelog of order-dependent and statistical aggregates', () => {
  it('materializes to the model of Flink’s retracting aggregates after every batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(operationArbitrary, { maxLength: 60 }), async (emitUpdateBefore, operations) => {
        const h = await OperatorHarness.open(new GroupAggregateOperator(groupSpec([K], AGGREGATES, { emitUpdateBefore })));
        const present: Row[] = [];
        const groups = new Map<string, Group>();
        let batch: Change[] = [];
        for (const [i, operation] of operations.entries()) {
          const { op, row, pick, accumulateKind, retractKind } = operation;
          if (op === 'insert' || present.length === 0) {
            present.push(row);
            apply(groups, row, 1);
            batch.push([accumulateKind, row]);
          } else {
            const [old] = present.splice(pick % present.length, 1);
            apply(groups, old!, -1);
            if (op === 'delete') batch.push([retractKind, old!]);
            else {
              present.push(row);
              apply(groups, row, 1);
              batch.push(['-U', old!], ['+U', row]);
            }
          }
          if (operation.endsBatch || i === operations.length - 1) {
            h.push(batch);
            batch = [];
            const expected = [...groups.values()].map((g): Change => ['+I', [g.key, ...AGGREGATES.map((call, j) => result(call, j, g))]]);
            const actual = emitUpdateBefore ? materialize(h.output) : upserts(h.output);
            expect(actual).toEqual(materialize(expected));
          }
        }
        expect(h.warnings).toEqual([]);
      }),
      { numRuns: 250 },
    );
  });
});

/** The table an upsert changelog keyed by the first column describes. */
function upserts(changes: readonly Change[]): Row[] {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    const key = encodeComponent(row[0]);
    if (kind === '-D') table.delete(key);
    else table.set(key, row);
  }
  return materialize([...table.values()].map((r): Change => ['+I', r]));
}
