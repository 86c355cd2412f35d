/**
 * The postgres sink's tables for views without a plain key, against a real PostgreSQL: a multiset
 * table (a hidden content hash per row; a retraction deletes one equal row) and a table keyed by
 * columns that may be NULL (a unique key NULLS NOT DISTINCT). Property: random changelogs — with
 * duplicates, NULLs, every type the test schema has, and rows inserted and retracted within one
 * checkpoint — written through exactly-once checkpoints leave the table equal to the model after
 * every checkpoint. A multiset retraction of a row the table lacks fails, naming the sink.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../src/common/decimal.js';
import { encodeComponent } from '../../../src/common/key-codec.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { PostgresSinkWriter } from '../../../src/connectors/postgres/postgres-sink-writer.js';
import type { SinkSpec } from '../../../src/dataflow/job-graph.js';
import { createTestDatabase, type TestDatabase } from './pg-test-database.js';

let db: TestDatabase;
const writers: PostgresSinkWriter[] = [];
let tables = 0;

beforeAll(async () => {
  db = await createTestDatabase('multiset_sink');
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((writer) => writer.close()));
});

afterAll(async () => {
  await db?.drop();
});

/** Rows are [k INT, s STRING, d DECIMAL(6, 2), x DOUBLE]. */
const SCHEMA: Schema = [
  { name: 'k', type: SqlTypes.int() },
  { name: 's', type: SqlTypes.string() },
  { name: 'd', type: SqlTypes.decimal(6, 2) },
  { name: 'x', type: SqlTypes.double() },
];

async function open(primaryKey: readonly string[], multiset: boolean): Promise<{ writer: PostgresSinkWriter; table: string }> {
  const table = `multiset_${++tables}`;
  const spec: SinkSpec = {
    kind: 'sink',
    table,
    connector: 'postgres',
    options: { connector: 'postgres', url: db.url },
    schema: SCHEMA,
    primaryKey,
    ...(multiset ? { multiset: true as const } : {}),
  };
  const writer = new PostgresSinkWriter(spec, {});
  writers.push(writer);
  await writer.open({ subtask: 0, parallelism: 1, warn: () => {} });
  return { writer, table };
}

/** The table's rows as comparable text, sorted (the hidden column left out). */
async function contents(table: string): Promise<string[]> {
  const rows = await db.rows(`SELECT k, s, d::text AS d, x FROM "${table}"`);
  return rows.map((r) => JSON.stringify([r.k, r.s, r.d, r.x])).sort();
}

/** The model's rows in the same form. */
function expected(rows: readonly Row[]): string[] {
  return rows.map((r) => JSON.stringify([r[0], r[1], r[2] === null ? null : formatDecimal(r[2] as bigint, 2), r[3] === null ? null : Object.is(r[3], -0) ? 0 : r[3]])).sort();
}

const rowArbitrary = fc.tuple(
  fc.constantFrom(null, 1, 2),
  fc.constantFrom(null, 'a', "it's", 'ü'),
  fc.constantFrom(null, 0n, 150n, -5n),
  fc.constantFrom(null, 0.5, -0, 1e20),
);

describe('multiset and nullable-key postgres tables', () => {
  it('a multiset table equals the model after every checkpoint (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.tuple(fc.boolean(), rowArbitrary, fc.nat()), { maxLength: 12 }), { minLength: 1, maxLength: 6 }), async (checkpoints) => {
        const { writer, table } = await open([], true);
        const live: Row[] = [];
        let id = 0;
        for (const changes of checkpoints) {
          const batch = new ChangeBatch();
          for (const [insert, row, pick] of changes) {
            if (insert || live.length === 0) {
              live.push([...row]);
              batch.push(pick % 2 === 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, [...row]);
            } else {
              const [gone] = live.splice(pick % live.length, 1);
              batch.push(pick % 3 === 0 ? RowKind.UPDATE_BEFORE : RowKind.DELETE, gone!);
            }
          }
          await writer.write(batch);
          const transaction = await writer.prepareCommit(++id);
          await writer.commit([transaction]);
          expect(await contents(table)).toEqual(expected(live));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a table keyed by columns that may be NULL upserts and deletes the NULL key like any other (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.tuple(fc.boolean(), rowArbitrary), { maxLength: 10 }), { minLength: 1, maxLength: 5 }), async (checkpoints) => {
        const { writer, table } = await open(['k', 's'], false);
        const byKey = new Map<string, Row>();
        let id = 0;
        for (const changes of checkpoints) {
          const batch = new ChangeBatch();
          for (const [upsert, row] of changes) {
            const key = encodeComponent(row[0]) + encodeComponent(row[1]);
            if (upsert) {
              byKey.set(key, [...row]);
              batch.push(RowKind.UPDATE_AFTER, [...row]);
            } else if (byKey.has(key)) {
              batch.push(RowKind.DELETE, byKey.get(key)!);
              byKey.delete(key);
            }
          }
          await writer.write(batch);
          const transaction = await writer.prepareCommit(++id);
          await writer.commit([transaction]);
          expect(await contents(table)).toEqual(expected([...byKey.values()]));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a multiset table that lacks a row its changelog retracts fails the write, naming the sink', async () => {
    const { writer, table } = await open([], true);
    await writer.write(ChangeBatch.of([[RowKind.INSERT, [1, 'a', 100n, 0.5]]]));
    await writer.commit([await writer.prepareCommit(1)]);
    await db.rows(`DELETE FROM "${table}"`);
    await writer.write(ChangeBatch.of([[RowKind.DELETE, [1, 'a', 100n, 0.5]]]));
    await expect(writer.prepareCommit(2)).rejects.toThrow(new RegExp(`postgres sink '${table}'.*lacks 1 of the 1 rows its changelog retracts`));
  });
});
