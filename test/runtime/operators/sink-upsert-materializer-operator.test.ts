/**
 * The sink upsert materializer: per primary key the rows present, the latest (DEDUPLICATE) or the
 * earliest (NOTHING) shown as an upsert changelog of the key; ERROR fails at a barrier or at the
 * end of input when a key holds two rows, never on a conflict that resolves before. Property: for
 * random changelogs of a multiset of rows (inserts, updates, deletes, duplicates) cut into random
 * batches, the output applied by key equals a plain model of the rows per key after every batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConflictStrategy } from '../../../src/common/conflict-strategy.js';
import { encodeComponent } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { SinkUpsertMaterializerOperator } from '../../../src/runtime/operators/sink-upsert-materializer-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

/** Rows are [key, value]; the sink's primary key is column 0. */
const schema = [
  { name: 'k', type: SqlTypes.int(false) },
  { name: 'v', type: SqlTypes.varchar(10) },
];

const open = (strategy: ConflictStrategy): Promise<OperatorHarness> =>
  OperatorHarness.open(new SinkUpsertMaterializerOperator({ kind: 'sink-upsert-materializer', table: 's', keys: [0], conflictStrategy: strategy }, schema));

/** The table an upsert changelog of key column 0 leaves. */
function upsertTable(changes: readonly Change[]): Map<string, Row> {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    const key = encodeComponent(row[0]);
    if (kind === '+I' || kind === '+U') table.set(key, row);
    else if (kind === '-D') {
      if (!table.has(key)) throw new Error(`-D of a key the table does not have: ${JSON.stringify(row)}`);
      table.delete(key);
    } else throw new Error(`an upsert changelog has no ${kind}`);
  }
  return table;
}

describe('sink upsert materializer', () => {
  it('DEDUPLICATE shows the latest row of a key, and the one before it again when the latest goes', async () => {
    const h = await open('DEDUPLICATE');
    expect(h.push([['+I', [1, 'a']]])).toEqual([['+I', [1, 'a']]]);
    expect(h.push([['+I', [1, 'b']]])).toEqual([['+U', [1, 'b']]]);
    expect(h.push([['-D', [1, 'a']]])).toEqual([]);
    expect(h.push([['+I', [1, 'c']], ['-U', [1, 'c']]])).toEqual([]);
    expect(h.push([['-D', [1, 'b']]])).toEqual([['-D', [1, 'b']]]);
  });

  it('NOTHING keeps the earliest row of a key until it goes', async () => {
    const h = await open('NOTHING');
    expect(h.push([['+I', [1, 'a']], ['+I', [1, 'b']]])).toEqual([['+I', [1, 'a']]]);
    expect(h.push([['-U', [1, 'a']], ['+U', [1, 'c']]])).toEqual([['+U', [1, 'b']]]);
    expect(h.push([['-D', [1, 'b']], ['-D', [1, 'c']]])).toEqual([['-D', [1, 'b']]]);
  });

  it('folds a batch into one change per key', async () => {
    const h = await open('DEDUPLICATE');
    expect(h.push([['+I', [1, 'a']], ['+I', [2, 'x']], ['-D', [1, 'a']], ['+I', [1, 'b']], ['+I', [2, 'y']]])).toEqual([
      ['+I', [1, 'b']],
      ['+I', [2, 'y']],
    ]);
  });

  it('ignores a retraction of a row it does not hold, with one warning', async () => {
    const h = await open('DEDUPLICATE');
    h.push([['+I', [1, 'a']]]);
    expect(h.push([['-D', [1, 'zzz']], ['-D', [2, 'a']]])).toEqual([]);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/ignored a retraction of a row it does not hold/);
  });

  it('ERROR fails at a barrier when a key holds two rows, naming the key and both rows', async () => {
    const h = await open('ERROR');
    h.push([['+I', [1, 'a']], ['+I', [2, 'b']]]);
    expect(h.operator.snapshotState?.(1)).toBeUndefined();
    h.push([['+I', [1, 'c']]]);
    expect(() => h.operator.snapshotState?.(2)).toThrow("ON CONFLICT DO ERROR: the query has 2 rows with primary key (k=1) of sink table 's', e.g. (1, a) and (1, c)");
    await expect(h.settle()).rejects.toThrow('ON CONFLICT DO ERROR');
  });

  it('ERROR accepts a conflict that resolves before the barrier (a row moving between keys), and checks at the end of input', async () => {
    const h = await open('ERROR');
    h.push([['+I', [1, 'a']]]);
    h.push([['+I', [1, 'b']]]);
    h.push([['-D', [1, 'a']]]);
    expect(h.operator.snapshotState?.(1)).toBeUndefined();
    h.push([['+I', [1, 'c']]]);
    await expect(h.endInput()).rejects.toThrow('ON CONFLICT DO ERROR');
  });

  for (const strategy of ['DEDUPLICATE', 'NOTHING'] as const) {
    it(`${strategy}: output applied by key equals the model after every batch (property)`, async () => {
      const record = fc.record({ insert: fc.boolean(), key: fc.integer({ min: 0, max: 3 }), value: fc.constantFrom('a', 'b', 'c', null) });
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(record, { minLength: 1, maxLength: 6 }), { maxLength: 25 }), async (batches) => {
          const h = await open(strategy);
          const live = new Map<string, Row[]>();
          for (const batch of batches) {
            const changes: Change[] = [];
            for (const { insert, key, value } of batch) {
              const row: Row = [key, value];
              const rows = live.get(String(key)) ?? [];
              if (insert) {
                rows.push(row);
                changes.push(['+I', row]);
              } else {
                // Retract only rows present: a correct changelog never retracts anything else.
                const index = strategy === 'NOTHING' ? rows.map((r) => r[1]).lastIndexOf(value) : rows.findIndex((r) => r[1] === value);
                if (index < 0) continue;
                rows.splice(index, 1);
                changes.push(['-U', row]);
              }
              live.set(String(key), rows);
            }
            h.push(changes);
            const expected = new Map<string, Row>();
            for (const [key, rows] of live) if (rows.length > 0) expected.set(encodeComponent(Number(key)), strategy === 'NOTHING' ? rows[0]! : rows[rows.length - 1]!);
            expect(upsertTable(h.output)).toEqual(expected);
          }
        }),
        { numRuns: 200 },
      );
    });
  }
});
