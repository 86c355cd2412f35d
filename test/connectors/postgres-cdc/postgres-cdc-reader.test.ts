/**
 * The postgres-cdc reader against the suite's PostgreSQL (wal_level = logical): the snapshot, then
 * inserts, updates (a primary-key change as -D/+I), deletes; a transaction over several tables
 * yields only the captured table's rows, whole and never split by a barrier; changes made while
 * the snapshot is read appear exactly once; a restore continues after the checkpointed position,
 * and the slot is confirmed only when the checkpoint completes. A prepared transaction left in the
 * cluster holds the slot's creation: the reader says so, and goes on once it ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import type { PostgresCdcReader } from '../../../src/connectors/postgres-cdc/postgres-cdc-reader.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { cdcDatabase, cdcReader, dropDatabaseAndSlots, expectTable, materialize, readFor, readUntil, sameTable, type Change } from './cdc-test-support.js';

let db: TestDatabase;
const readers: PostgresCdcReader[] = [];
const warnings: string[] = [];

const schema: Schema = [
  { name: 'id', type: SqlTypes.bigint(false) },
  { name: 'customer', type: SqlTypes.int() },
  { name: 'amount', type: SqlTypes.decimal(10, 2) },
  { name: 'note', type: SqlTypes.string() },
];

beforeAll(async () => {
  db = await cdcDatabase('cdc');
});

afterAll(async () => {
  await Promise.allSettled(readers.map((r) => r.close()));
  await dropDatabaseAndSlots(db);
});

async function createOrders(name: string, rows = 0): Promise<void> {
  await db.client.query(`CREATE TABLE ${name} (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text)`);
  await db.client.query(`ALTER TABLE ${name} REPLICA IDENTITY FULL`);
  if (rows > 0) await db.client.query(`INSERT INTO ${name} SELECT g, g % 7, (g % 100) + 0.25, 'n' || g FROM generate_series(1, ${rows}) g`);
}

async function open(table: string, options: Record<string, string> = {}, offset?: unknown): Promise<PostgresCdcReader> {
  const reader = cdcReader(db.url, table, schema, ['id'], options);
  readers.push(reader);
  if (offset !== undefined) reader.seek(offset);
  await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
  return reader;
}

async function tableRows(table: string): Promise<Row[]> {
  const { rows } = await db.client.query<{ id: string; customer: number | null; amount: string | null; note: string | null }>(`SELECT id::text, customer, amount::text, note FROM ${table}`);
  return rows.map((r) => [Number(r.id), r.customer, r.amount === null ? null : BigInt(r.amount.replace('.', '')), r.note]);
}

const byId = (row: Row): string => String(row[0]);

async function slotConfirmed(slot: string): Promise<string | null> {
  const { rows } = await db.client.query<{ lsn: string | null }>('SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return rows[0]?.lsn ?? null;
}

describe('postgres-cdc reader', () => {
  it('reads the snapshot, then inserts, updates, a primary-key change and deletes', async () => {
    await createOrders('orders_basic', 3);
    const reader = await open('orders_basic', { 'slot.name': 'basic' });
    expect(reader.checkpointable()).toBe(false);
    const changes: Change[] = [];
    await readUntil(reader, changes, (c) => c.length >= 3);
    expect(changes).toEqual([
      ['+I', [1, 1, 125n, 'n1']],
      ['+I', [2, 2, 225n, 'n2']],
      ['+I', [3, 3, 325n, 'n3']],
    ]);
    await readUntil(reader, changes, () => reader.checkpointable());
    changes.length = 0;
    await db.client.query("INSERT INTO orders_basic VALUES (4, 9, 10.5, 'four')");
    await db.client.query("UPDATE orders_basic SET amount = 99.99, note = NULL WHERE id = 1");
    await db.client.query('UPDATE orders_basic SET id = 20 WHERE id = 2');
    await db.client.query('DELETE FROM orders_basic WHERE id = 3');
    await readUntil(reader, changes, (c) => c.length >= 6);
    expect(changes).toEqual([
      ['+I', [4, 9, 1050n, 'four']],
      ['-U', [1, 1, 125n, 'n1']],
      ['+U', [1, 1, 9999n, null]],
      ['-D', [2, 2, 225n, 'n2']],
      ['+I', [20, 2, 225n, 'n2']],
      ['-D', [3, 3, 325n, 'n3']],
    ]);
    expectTable(materialize(changes, byId, materialize([['+I', [1, 1, 125n, 'n1']], ['+I', [2, 2, 225n, 'n2']], ['+I', [3, 3, 325n, 'n3']]], byId)), await tableRows('orders_basic'));
  });

  it('emits only the captured table of a transaction over several tables, whole, and never lets a barrier split it', async () => {
    await createOrders('orders_multi');
    await db.client.query('CREATE TABLE audit (id serial PRIMARY KEY, what text)');
    await db.client.query('CREATE PUBLICATION both_tables FOR TABLE orders_multi, audit');
    const reader = await open('orders_multi', { 'slot.name': 'multi', 'publication.name': 'both_tables' });
    const changes: Change[] = [];
    await readUntil(reader, changes, () => reader.checkpointable());
    expect(changes).toEqual([]);
    const before = reader.currentOffset();
    await db.client.query('BEGIN');
    for (let id = 1; id <= 5; id++) {
      await db.client.query("INSERT INTO audit (what) VALUES ('insert')");
      await db.client.query(`INSERT INTO orders_multi VALUES (${id}, 1, 1, 'x')`);
    }
    await db.client.query('UPDATE orders_multi SET customer = 2 WHERE id = 5');
    await db.client.query('COMMIT');
    await db.client.query("INSERT INTO audit (what) VALUES ('alone')");

    const polls: { size: number; checkpointable: boolean; offset: unknown }[] = [];
    while (changes.length < 7) {
      const size = changes.length;
      await readUntil(reader, changes, (c) => c.length > size, 20_000, 2);
      polls.push({ size: changes.length - size, checkpointable: reader.checkpointable(), offset: reader.currentOffset() });
    }
    expect(changes.map(([kind, row]) => `${kind}${row[0]}`)).toEqual(['+I1', '+I2', '+I3', '+I4', '+I5', '-U5', '+U5']);
    expect(polls.map((p) => p.checkpointable)).toEqual([false, false, false, true]);
    expect(polls.slice(0, 3).every((p) => JSON.stringify(p.offset) === JSON.stringify(before))).toBe(true);
    expect(polls[3]!.offset).not.toEqual(before);
  });

  it('changes made while the snapshot is read appear exactly once', async () => {
    await createOrders('orders_busy', 20_000);
    const reader = await open('orders_busy', { 'slot.name': 'busy' });
    const changes: Change[] = [];
    await readUntil(reader, changes, (c) => c.length >= 2048);
    await db.client.query('UPDATE orders_busy SET amount = amount + 1 WHERE id % 3 = 0');
    await db.client.query('DELETE FROM orders_busy WHERE id % 5 = 0');
    await db.client.query("INSERT INTO orders_busy SELECT g, 1, 2, 'late' FROM generate_series(20001, 20500) g");
    await db.client.query('UPDATE orders_busy SET id = id + 100000 WHERE id % 11 = 0');
    expect(reader.checkpointable()).toBe(false);
    const expected = await tableRows('orders_busy');
    await readUntil(reader, changes, (c) => {
      try {
        return reader.checkpointable() && sameTable(materialize(c, byId), expected);
      } catch {
        return false;
      }
    });
    await readFor(reader, changes, 300);
    expectTable(materialize(changes, byId), expected);
  });

  it('resumes after the checkpointed position, and confirms the slot only when the checkpoint completes', async () => {
    await createOrders('orders_resume', 2);
    const first = await open('orders_resume', { 'slot.name': 'resume' });
    const changes: Change[] = [];
    await readUntil(first, changes, (c) => c.length >= 2 && first.checkpointable());
    await db.client.query("INSERT INTO orders_resume VALUES (3, 3, 3, 'three')");
    await readUntil(first, changes, (c) => c.length >= 3);
    const checkpointed = first.currentOffset(1) as { lsn: string };
    const confirmedBefore = await slotConfirmed('resume');
    await db.client.query("UPDATE orders_resume SET note = 'changed' WHERE id = 3");
    await readUntil(first, changes, (c) => c.length >= 5);
    await new Promise((r) => setTimeout(r, 200));
    expect(await slotConfirmed('resume')).toBe(confirmedBefore);
    first.notifyCheckpointComplete(1);
    const deadline = Date.now() + 10_000;
    while ((await slotConfirmed('resume')) !== checkpointed.lsn && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await slotConfirmed('resume')).toBe(checkpointed.lsn);
    await first.close();

    await db.client.query('DELETE FROM orders_resume WHERE id = 1');
    const second = await open('orders_resume', { 'slot.name': 'resume' }, JSON.parse(JSON.stringify(checkpointed)));
    expect(second.checkpointable()).toBe(true);
    const replayed: Change[] = [];
    await readUntil(second, replayed, (c) => c.length >= 3);
    await readFor(second, replayed, 200);
    expect(replayed).toEqual([
      ['-U', [3, 3, 300n, 'three']],
      ['+U', [3, 3, 300n, 'changed']],
      ['-D', [1, 1, 125n, 'n1']],
    ]);
    expectTable(materialize(replayed, byId, materialize(changes.slice(0, 3), byId)), await tableRows('orders_resume'));
  });

  it('names the prepared transaction that holds the creation of its slot, and goes on once it ends', async () => {
    await createOrders('orders_blocked', 2);
    await db.client.query('CREATE TABLE blocker (x int)');
    await db.client.query('BEGIN');
    await db.client.query('INSERT INTO blocker VALUES (1)');
    await db.client.query("PREPARE TRANSACTION 'weir_test_blocker'");
    const before = warnings.length;
    const opening = open('orders_blocked', { 'slot.name': 'blocked' });
    while (!warnings.slice(before).some((w) => w.includes("'weir_test_blocker'"))) await new Promise((r) => setTimeout(r, 20));
    expect(warnings.slice(before).find((w) => w.includes('weir_test_blocker'))).toMatch(
      /creating replication slot 'blocked' waits until the 1 prepared transaction\(s\) of the cluster end: 'weir_test_blocker' \(database \w+\); COMMIT PREPARED or ROLLBACK PREPARED them if nothing will$/,
    );
    await db.client.query("ROLLBACK PREPARED 'weir_test_blocker'");
    const reader = await opening;
    const changes: Change[] = [];
    await readUntil(reader, changes, (seen) => seen.length >= 2);
    expect(changes.map(([, row]) => row[0]).sort()).toEqual([1, 2]);
  });
});
