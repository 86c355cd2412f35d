/**
 * Values arrive in weir's representation (sql-type.ts), the same from the snapshot and from the
 * change stream: integers as numbers, DECIMAL as the unscaled bigint, dates as days, times and
 * timestamps as milliseconds (TIMESTAMP_LTZ in UTC), any column as STRING text; unchanged TOASTed
 * values of an update are filled in from the old row. Plus the pure parts: LSN text, the text
 * parsers' edge cases, and malformed pgoutput messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { formatLsn, parseLsn } from '../../../src/connectors/postgres-cdc/lsn-format.js';
import { decodePgoutput } from '../../../src/connectors/postgres-cdc/pgoutput-decoder.js';
import type { PostgresCdcReader } from '../../../src/connectors/postgres-cdc/postgres-cdc-reader.js';
import { textParser } from '../../../src/connectors/postgres/postgres-text-parser.js';
import type { TestDatabase } from '../postgres/pg-test-database.js';
import { cdcDatabase, cdcReader, dropDatabaseAndSlots, readUntil, type Change } from './cdc-test-support.js';

let db: TestDatabase;
const readers: PostgresCdcReader[] = [];

beforeAll(async () => {
  db = await cdcDatabase('cdc_values');
});

afterAll(async () => {
  await Promise.allSettled(readers.map((r) => r.close()));
  await dropDatabaseAndSlots(db);
});

const schema: Schema = [
  { name: 'id', type: SqlTypes.smallint(false) },
  { name: 'big', type: SqlTypes.bigint() },
  { name: 'flag', type: SqlTypes.boolean() },
  { name: 'price', type: SqlTypes.decimal(12, 3) },
  { name: 'ratio', type: SqlTypes.double() },
  { name: 'day', type: SqlTypes.date() },
  { name: 'at', type: SqlTypes.timestamp(3) },
  { name: 'at_utc', type: SqlTypes.timestampLtz(3) },
  { name: 'clock', type: SqlTypes.time(3) },
  { name: 'doc', type: SqlTypes.string() },
  { name: 'blob', type: SqlTypes.string() },
];

const ROW_SQL = `(1, 9007199254740991, true, -12.5, 0.1, '2024-02-29', '2024-02-29 23:59:59.123456', '2024-03-01 01:00:00.5+01', '12:34:56.789', '{"a": [1, 2]}', repeat('x', 100000))`;
const day = Date.UTC(2024, 1, 29) / 86_400_000;
const expected = [1, 9007199254740991, true, -12500n, 0.1, day, Date.UTC(2024, 1, 29, 23, 59, 59, 123), Date.UTC(2024, 2, 1, 0, 0, 0, 500), 45296789, '{"a": [1, 2]}', 'x'.repeat(100000)];

describe('postgres-cdc values', () => {
  it('are the same from the snapshot and the stream, with unchanged TOASTed values filled in', async () => {
    await db.client.query(`CREATE TABLE typed (id smallint PRIMARY KEY, big int8, flag bool, price numeric(10,3), ratio float8, day date, at timestamp(6),
      at_utc timestamptz, clock time, doc jsonb, blob text)`);
    await db.client.query('ALTER TABLE typed ALTER COLUMN blob SET STORAGE EXTERNAL');
    await db.client.query('ALTER TABLE typed REPLICA IDENTITY FULL');
    await db.client.query(`INSERT INTO typed VALUES ${ROW_SQL}`);
    const reader = cdcReader(db.url, 'typed', schema, ['id']);
    readers.push(reader);
    await reader.open({ subtask: 0, parallelism: 1, warn: () => undefined });
    const changes: Change[] = [];
    await readUntil(reader, changes, (c) => c.length >= 1 && reader.checkpointable());
    await db.client.query(`INSERT INTO typed VALUES ${ROW_SQL.replace('(1,', '(2,')}`);
    await db.client.query('UPDATE typed SET flag = NULL WHERE id = 2');
    await readUntil(reader, changes, (c) => c.length >= 4);
    expect(changes).toEqual([
      ['+I', expected],
      ['+I', [2, ...expected.slice(1)]],
      ['-U', [2, ...expected.slice(1)]],
      ['+U', [2, expected[1], null, ...expected.slice(3)]],
    ]);
  });
});

describe('postgres-cdc bytea', () => {
  it('reads bytea (hex output) as BYTES and BINARY(n) values, the same from the snapshot and the stream, a TOASTed value filled in', async () => {
    await db.client.query('CREATE TABLE blobs (id int PRIMARY KEY, small bytea, code bytea, big bytea)');
    await db.client.query('ALTER TABLE blobs ALTER COLUMN big SET STORAGE EXTERNAL');
    await db.client.query('ALTER TABLE blobs REPLICA IDENTITY FULL');
    await db.client.query(`INSERT INTO blobs VALUES (1, '\\x00ff7f80', '\\x01', decode(repeat('ab', 100000), 'hex')), (2, '', NULL, NULL)`);
    const blobSchema: Schema = [
      { name: 'id', type: SqlTypes.int(false) },
      { name: 'small', type: SqlTypes.bytes() },
      { name: 'code', type: SqlTypes.binary(2) },
      { name: 'big', type: SqlTypes.bytes() },
    ];
    const reader = cdcReader(db.url, 'blobs', blobSchema, ['id']);
    readers.push(reader);
    await reader.open({ subtask: 0, parallelism: 1, warn: () => undefined });
    const changes: Change[] = [];
    await readUntil(reader, changes, (c) => c.length >= 2 && reader.checkpointable());
    await db.client.query(`INSERT INTO blobs VALUES (3, '\\xdeadbeef', '\\x0102', decode(repeat('cd', 50000), 'hex'))`);
    await db.client.query(`UPDATE blobs SET small = '\\x' WHERE id = 1`);
    await readUntil(reader, changes, (c) => c.length >= 5);
    const big = new Uint8Array(100000).fill(0xab);
    const row1 = [1, Uint8Array.from([0, 0xff, 0x7f, 0x80]), Uint8Array.from([1, 0]), big];
    expect(changes).toEqual([
      ['+I', row1],
      ['+I', [2, new Uint8Array(0), null, null]],
      ['+I', [3, Uint8Array.from([0xde, 0xad, 0xbe, 0xef]), Uint8Array.from([1, 2]), new Uint8Array(50000).fill(0xcd)]],
      ['-U', row1],
      ['+U', [1, new Uint8Array(0), Uint8Array.from([1, 0]), big]],
    ]);
    for (const [, row] of changes) for (const value of row) if (value !== null && typeof value === 'object') expect(value).toBeInstanceOf(Uint8Array);
  });

  it('refuses bytea text that is not hex, and more bytes than BINARY(n) or VARBINARY(n) holds', () => {
    expect(Array.from(textParser(SqlTypes.bytes())('\\x0aFF') as Uint8Array)).toEqual([10, 255]);
    expect(() => textParser(SqlTypes.bytes())('\\001')).toThrow("\\001 is not bytea in hex format (bytea_output must be 'hex')");
    expect(() => textParser(SqlTypes.varbinary(1))('\\x0102')).toThrow('2 bytes do not fit VARBINARY(1)');
    expect(() => textParser(SqlTypes.binary(1))('\\x0102')).toThrow('2 bytes do not fit BINARY(1)');
  });
});

describe('postgres-cdc pure parts', () => {
  it('reads and writes LSNs as PostgreSQL prints them', () => {
    expect(parseLsn('16/B374D848', 'x')).toBe(0x16b374d848n);
    expect(formatLsn(0x16b374d848n)).toBe('16/B374D848');
    expect(formatLsn(0n)).toBe('0/0');
    expect(() => parseLsn('16-B3', 'the offset')).toThrow("the offset is not a WAL position (like 16/B374D848): '16-B3'");
  });

  it('parses text values at their limits, and refuses what does not fit', () => {
    expect(textParser(SqlTypes.decimal(5, 2))('123.40')).toBe(12340n);
    expect(() => textParser(SqlTypes.decimal(5, 2))('1.234')).toThrow('1.234 has more than 2 digits after the point of DECIMAL(5, 2)');
    expect(() => textParser(SqlTypes.decimal(5, 2))('1234.5')).toThrow('1234.5 does not fit DECIMAL(5, 2)');
    expect(textParser(SqlTypes.date())('0001-01-01 BC')).toBe(-719528);
    expect(textParser(SqlTypes.timestampLtz(3))('2020-01-01 05:30:00+05:30')).toBe(Date.UTC(2020, 0, 1));
    expect(textParser(SqlTypes.timestamp(0))('2020-01-01 00:00:01.999')).toBe(Date.UTC(2020, 0, 1, 0, 0, 1));
    expect(textParser(SqlTypes.double())('-Infinity')).toBe(-Infinity);
    expect(() => textParser(SqlTypes.tinyint())('200')).toThrow('200 is outside the range of TINYINT');
    expect(() => textParser(SqlTypes.date())('infinity')).toThrow("'infinity' is not a DATE");
  });

  it('refuses a malformed pgoutput message, naming what is wrong', () => {
    expect(() => decodePgoutput(Buffer.from('I\0\0\0\x01X', 'latin1'))).toThrow("malformed pgoutput message: expected 'N', found 'X'");
    expect(() => decodePgoutput(Buffer.from('B\0\0', 'latin1'))).toThrow('malformed pgoutput message: truncated after 1 of 3 bytes');
    expect(() => decodePgoutput(Buffer.from('Z', 'latin1'))).toThrow("malformed pgoutput message: unknown message type 'Z'");
  });
});
