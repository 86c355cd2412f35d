/**
 * Property: for random interleavings of inserts, deletes and -U/+U updates of present rows, cut
 * into random batches, the changelog a GroupAggregateOperator emits, applied to a table, equals
 * after every batch the aggregate computed directly from the rows present at that point — for
 * every supported aggregate function, with DISTINCT and FILTER, over several key shapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pow10 } from '../../../src/common/decimal.js';
import { encodeComponent } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import type { RowKindShort } from '../../../src/common/row-kind.js';
import { SqlTypes as T, type SqlType } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec } from '../../../src/dataflow/job-graph.js';
import { GroupAggregateOperator } from '../../../src/runtime/operators/group-aggregate-operator.js';
import { OperatorHarness, materialize, type Change } from '../operator-harness.js';
import { aggCall, groupSpec } from './aggregate-call.js';

/** Input columns: k1 INT, k2 STRING, x BIGINT, d DECIMAL(10, 2), s STRING, f BOOLEAN, y DOUBLE, t TIMESTAMP(3). */
const K1 = 0;
const K2 = 1;
const X = 2;
const D = 3;
const S = 4;
const F = 5;
const Y = 6;
const TS = 7;
const TYPES: Record<number, SqlType> = {
  [K1]: T.int(),
  [K2]: T.string(),
  [X]: T.bigint(),
  [D]: T.decimal(10, 2),
  [S]: T.string(),
  [F]: T.boolean(),
  [Y]: T.double(),
  [TS]: T.timestamp(3),
};

const col = (index: number) => [index, TYPES[index]!] as const;

const AGGREGATES: readonly AggregateCallSpec[] = [
  aggCall('COUNT', []),
  aggCall('COUNT', [col(X)]),
  aggCall('COUNT', [col(X)], { distinct: true }),
  aggCall('SUM', [col(X)]),
  aggCall('SUM', [col(X)], { distinct: true }),
  aggCall('AVG', [col(X)]),
  aggCall('MIN', [col(X)]),
  aggCall('MAX', [col(X)]),
  aggCall('MIN', [col(S)]),
  aggCall('MAX', [col(S)]),
  aggCall('SUM', [col(D)]),
  aggCall('AVG', [col(D)]),
  aggCall('MIN', [col(D)]),
  aggCall('SUM', [col(Y)]),
  aggCall('AVG', [col(Y)]),
  aggCall('MAX', [col(Y)]),
  aggCall('MIN', [col(TS)]),
  aggCall('MAX', [col(F)]),
  aggCall('COUNT', [], { filter: F }),
  aggCall('SUM', [col(X)], { filter: F }),
  aggCall('MAX', [col(S)], { filter: F }),
  aggCall('MIN', [col(X)], { distinct: true, filter: F }),
  aggCall('COUNT', [col(X), col(S)], { distinct: true }),
  aggCall('AVG', [col(X)], { distinct: true }),
];

const nullable = <V,>(values: fc.Arbitrary<V>) => fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: values });

const rowArbitrary: fc.Arbitrary<Row> = fc.tuple(
  nullable(fc.integer({ min: 0, max: 3 })),
  nullable(fc.constantFrom('a', 'a;', 's1:a', '')),
  nullable(fc.integer({ min: -20, max: 20 })),
  nullable(fc.bigInt({ min: -500n, max: 500n })),
  nullable(fc.constantFrom('', 'a', 'b', '\uFFFF', '\u{1F600}')),
  nullable(fc.boolean()),
  nullable(fc.integer({ min: -20, max: 20 }).map((v) => v / 2 + 0)),
  nullable(fc.integer({ min: 0, max: 5 }).map((v) => 1_700_000_000_000 + v)),
);

const operationArbitrary = fc.record({
  op: fc.constantFrom('insert', 'insert', 'delete', 'update'),
  row: rowArbitrary,
  pick: fc.nat(),
  accumulateKind: fc.constantFrom<RowKindShort>('+I', '+U'),
  retractKind: fc.constantFrom<RowKindShort>('-D', '-U'),
  endsBatch: fc.nat(3).map((n) => n === 0),
});

describe('GroupAggregateOperator changelog', () => {
  it('materializes to the batch aggregate of the surviving rows after every batch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<readonly number[]>([K1], [K2], [K1, K2], [], [S, K1]),
        fc.boolean(),
        fc.array(operationArbitrary, { maxLength: 80 }),
        async (keys, emitUpdateBefore, operations) => {
          const h = await OperatorHarness.open(new GroupAggregateOperator(groupSpec(keys, AGGREGATES, { emitUpdateBefore })));
          const present: Row[] = [];
          let batch: Change[] = [];
          for (const [i, operation] of operations.entries()) {
            const { op, row, pick, accumulateKind, retractKind } = operation;
            if (op === 'insert' || present.length === 0) {
              present.push(row);
              batch.push([accumulateKind, row]);
            } else {
              const [old] = present.splice(pick % present.length, 1);
              if (op === 'delete') batch.push([retractKind, old!]);
              else {
                present.push(row);
                batch.push(['-U', old!], ['+U', row]);
              }
            }
            if (operation.endsBatch || i === operations.length - 1) {
              h.push(batch);
              // A barrier after every batch: the output as a checkpoint commits it (a global
              // aggregate's row over no rows goes out before a barrier when no row came first).
              h.operator.snapshotState?.(i + 1);
              batch = [];
              const expected = batchAggregate(keys, present);
              const actual = emitUpdateBefore ? materialize(h.output) : materializeUpserts(h.output, keys.length);
              expect(actual).toEqual(materialize(expected.map((r): Change => ['+I', r])));
            }
          }
          expect(h.warnings).toEqual([]);
          expect(h.state.keyCount()).toBe(new Set(present.map((r) => keys.map((k) => encodeComponent(r[k])).join(''))).size);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The table an upsert changelog (no -U) describes, keyed by its first `keyCount` columns. */
function materializeUpserts(changes: readonly Change[], keyCount: number): Row[] {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    const key = row.slice(0, keyCount).map(encodeComponent).join('');
    const existing = table.get(key);
    if (kind === '+I') expect(existing).toBeUndefined();
    else expect(existing).toBeDefined();
    if (kind === '-D') {
      expect(row).toEqual(existing);
      table.delete(key);
    } else table.set(key, row);
  }
  return materialize([...table.values()].map((r): Change => ['+I', r]));
}

/** SELECT keys, AGGREGATES FROM rows GROUP BY keys, computed from scratch (without keys: one row, even over no rows). */
function batchAggregate(keys: readonly number[], rows: readonly Row[]): Row[] {
  if (keys.length === 0 && rows.length === 0) return [AGGREGATES.map((call) => evaluate(call, []))];
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = keys.map((k) => encodeComponent(row[k])).join('');
    const group = groups.get(key) ?? [];
    group.push(row);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => [...keys.map((k) => group[0]![k]), ...AGGREGATES.map((call) => evaluate(call, group))]);
}

function evaluate(call: AggregateCallSpec, group: readonly Row[]): unknown {
  const rows = call.filter === null ? group : group.filter((r) => r[call.filter!] === true);
  if (call.args.length === 0) return rows.length;
  let values = rows.filter((r) => call.args.every((a) => r[a] !== null)).map((r) => (call.args.length === 1 ? r[call.args[0]!] : call.args.map((a) => encodeComponent(r[a])).join('')));
  if (call.distinct) values = [...new Set(values)];
  if (call.function === 'COUNT') return values.length;
  if (values.length === 0) return null;
  const argType = call.argTypes[0]!;
  switch (call.function) {
    case 'MIN':
      return values.reduce((a, b) => ((b as never) < (a as never) ? b : a));
    case 'MAX':
      return values.reduce((a, b) => ((b as never) > (a as never) ? b : a));
    case 'SUM':
      return argType.kind === 'DECIMAL' ? (values as bigint[]).reduce((a, b) => a + b) : (values as number[]).reduce((a, b) => a + b);
    case 'AVG':
      return average(values, argType, call.type);
    default:
      throw new Error(`no reference for ${call.function}`);
  }
}

function average(values: readonly unknown[], argType: SqlType, resultType: SqlType): unknown {
  const n = BigInt(values.length);
  if (argType.kind === 'DECIMAL' && resultType.kind === 'DECIMAL') {
    const sum = (values as bigint[]).reduce((a, b) => a + b) * pow10(resultType.scale - argType.scale);
    const magnitude = ((sum < 0n ? -sum : sum) * 2n + n) / (2n * n);
    return sum < 0n ? -magnitude : magnitude;
  }
  if (argType.kind === 'DOUBLE') return (values as number[]).reduce((a, b) => a + b) / values.length;
  return Number((values as number[]).reduce((a, b) => a + BigInt(b), 0n) / n);
}
