/**
 * What a user gets wrong, and the message that says so: options and declarations at DDL time;
 * a server without wal_level = logical (the machine's own server), a role without REPLICATION
 * (its password never printed), a missing table, a table without primary key or without
 * REPLICA IDENTITY FULL, a declared primary key that differs, a slot in use; a TRUNCATE and a
 * value that does not fit while streaming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { postgresCdcDescriptor } from '../../../src/connectors/postgres-cdc/postgres-cdc-connector.js';
import type { PostgresCdcReader } from '../../../src/connectors/postgres-cdc/postgres-cdc-reader.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { cdcDatabase, cdcReader, dropDatabaseAndSlots, readUntil, type Change } from './cdc-test-support.js';

let db: TestDatabase;
const readers: PostgresCdcReader[] = [];

const schema: Schema = [
  { name: 'id', type: SqlTypes.int(false) },
  { name: 'v', type: SqlTypes.string() },
];

beforeAll(async () => {
  db = await cdcDatabase('cdc_err');
  for (const name of ['no_key', 'default_identity', 'keyed', 'truncated']) {
    await db.client.query(`CREATE TABLE ${name} (id int ${name === 'no_key' ? '' : 'PRIMARY KEY'}, v text, w int)`);
    if (name !== 'default_identity') await db.client.query(`ALTER TABLE ${name} REPLICA IDENTITY FULL`);
  }
  await db.client.query("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'weir_norepl') THEN CREATE ROLE weir_norepl LOGIN PASSWORD 's3cret-pw'; END IF; END $$");
});

afterAll(async () => {
  await Promise.allSettled(readers.map((r) => r.close()));
  await dropDatabaseAndSlots(db);
});

async function openError(url: string, table: string, options: Record<string, string> = {}, primaryKey = ['id'], readerSchema = schema): Promise<WeirError> {
  const reader = cdcReader(url, table, readerSchema, primaryKey, { 'connect.max-retries': '0', ...options });
  readers.push(reader);
  const error = await reader.open({ subtask: 0, parallelism: 1, warn: () => undefined }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

function validate(options: Record<string, string>, primaryKey: string[] = ['id'], tableSchema: Schema = schema): void {
  postgresCdcDescriptor.validate!(new Map(Object.entries({ connector: 'postgres-cdc', ...options })), tableSchema, primaryKey);
}

describe('postgres-cdc at DDL time', () => {
  it('refuses an unknown option, a bad slot name, a missing table-name, no primary key and a type it cannot read', () => {
    expect(() => validate({ 'table-name': 't', 'slot.nmae': 'x' })).toThrow("postgres-cdc does not support option 'slot.nmae'; did you mean 'slot.name'?");
    expect(() => validate({ 'table-name': 't', 'slot.name': 'My-Slot' })).toThrow("postgres-cdc option 'slot.name' must be 1 to 63 lower-case letters, digits or underscores, got 'My-Slot'");
    expect(() => validate({ 'table-name': 't', 'changelog-mode': 'retract' })).toThrow("postgres-cdc option 'changelog-mode' must be 'all' or 'upsert', got 'retract'");
    expect(() => validate({})).toThrow("postgres-cdc needs option 'table-name'");
    expect(() => validate({ 'table-name': 't' }, [])).toThrow("postgres-cdc needs the table's primary key: declare PRIMARY KEY (...) NOT ENFORCED");
    expect(() => validate({ 'table-name': 't' }, ['id'], [...schema, { name: 'tags', type: SqlTypes.array(SqlTypes.string()) }])).toThrow(
      "postgres-cdc cannot read column 'tags' as ARRAY<STRING>; declare it STRING to get its text",
    );
    expect(() => validate({ 'table-name': 't', url: 'mysql://u:hunter22@h/db' })).toThrow("must be a URL such as postgres://user@host:5432/database, got 'mysql://u:***@h/db'");
  });
});

describe('postgres-cdc at job start', () => {
  it('names wal_level on a server without logical decoding', async () => {
    const error = await openError('postgres://postgres@127.0.0.1:5432/postgres', 'anything');
    expect(error.message).toBe(
      "postgres-cdc source 'anything': the server at postgres://postgres@127.0.0.1:5432/postgres has wal_level = replica, but change data capture needs wal_level = logical",
    );
    expect(error.hint).toContain('wal_level = logical');
  });

  it('names the missing REPLICATION attribute, without the password', async () => {
    const url = db.url.replace('postgres@', 'weir_norepl:s3cret-pw@');
    const error = await openError(url, 'keyed');
    expect(error.message).toBe("postgres-cdc source 'keyed': role 'weir_norepl' at " + url.replace('s3cret-pw', '***') + ' may not use replication (it lacks the REPLICATION attribute)');
    expect(error.message).not.toContain('s3cret');
    expect(error.hint).toBe('ALTER ROLE weir_norepl WITH REPLICATION, or connect as a role that has it');
  });

  it('names a missing table, a missing primary key, the replica identity and a different primary key', async () => {
    expect((await openError(db.url, 'nowhere')).message).toBe(`postgres-cdc source 'nowhere': table public.nowhere does not exist at ${db.url}`);
    expect((await openError(db.url, 'no_key')).message).toBe("postgres-cdc source 'no_key': table public.no_key has no primary key, so its changes cannot be keyed");
    const identity = await openError(db.url, 'default_identity');
    expect(identity.message).toBe(
      "postgres-cdc source 'default_identity': table public.default_identity has REPLICA IDENTITY DEFAULT, so its updates and deletes do not carry the old row a retract changelog needs",
    );
    expect(identity.hint).toBe(
      "ALTER TABLE public.default_identity REPLICA IDENTITY FULL, or read the table as an upsert changelog with 'changelog-mode' = 'upsert' (weir then keeps the last row of each key in state)",
    );
    const key = await openError(db.url, 'keyed', {}, ['v']);
    expect(key.message).toBe("postgres-cdc source 'keyed' declares PRIMARY KEY (v), but the primary key of public.keyed is (id)");
    const column = await openError(db.url, 'keyed', {}, ['id'], [...schema, { name: 'w', type: SqlTypes.smallint() }]);
    expect(column.message).toBe("postgres-cdc source 'keyed': column 'w' of public.keyed is integer, which cannot be read as SMALLINT without loss");
  });

  it('refuses a slot another session is streaming from', async () => {
    const first = cdcReader(db.url, 'keyed', schema, ['id'], { 'slot.name': 'taken' });
    readers.push(first);
    await first.open({ subtask: 0, parallelism: 1, warn: () => undefined });
    await readUntil(first, [], () => first.checkpointable());
    const deadline = Date.now() + 10_000;
    while ((await db.rows<{ active: boolean }>("SELECT active FROM pg_replication_slots WHERE slot_name = 'taken'"))[0]?.active !== true && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const error = await openError(db.url, 'keyed', { 'slot.name': 'taken' });
    expect(error.message).toMatch(/^postgres-cdc source 'keyed': replication slot 'taken' at .* is in use by another session \(pid \d+\)$/);
    await first.close();
  });
});

describe('postgres-cdc while streaming', () => {
  it('fails on a TRUNCATE of the table, and on a value that does not fit its column', async () => {
    const reader = cdcReader(db.url, 'truncated', schema, ['id'], { 'slot.name': 'truncated' });
    readers.push(reader);
    await reader.open({ subtask: 0, parallelism: 1, warn: () => undefined });
    const changes: Change[] = [];
    await readUntil(reader, changes, () => reader.checkpointable());
    await db.client.query("INSERT INTO truncated VALUES (1, 'a')");
    await db.client.query('TRUNCATE truncated');
    const failure = await readUntil(reader, changes, () => false, 10_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(changes).toEqual([['+I', [1, 'a']]]);
    expect((failure as Error).message).toMatch(/^postgres-cdc source 'truncated': public\.truncated was truncated \(the transaction committed at [0-9A-F]+\/[0-9A-F]+\); a TRUNCATE cannot be captured as row changes$/);

    await db.client.query('CREATE TABLE wide (id smallint PRIMARY KEY, v text)');
    await db.client.query('ALTER TABLE wide REPLICA IDENTITY FULL');
    const wide = cdcReader(db.url, 'wide', [{ name: 'id', type: SqlTypes.tinyint(false) }, { name: 'v', type: SqlTypes.string() }], ['id'], { 'slot.name': 'wide' });
    readers.push(wide);
    await wide.open({ subtask: 0, parallelism: 1, warn: () => undefined });
    await readUntil(wide, [], () => wide.checkpointable());
    await db.client.query("INSERT INTO wide VALUES (200, 'too big')");
    const overflow = await readUntil(wide, [], () => false, 10_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((overflow as Error).message).toMatch(
      /^postgres-cdc source 'wide', table public\.wide: column 'id' in the transaction committed at [0-9A-F/]+: 200 is outside the range of TINYINT$/,
    );
  });
});

