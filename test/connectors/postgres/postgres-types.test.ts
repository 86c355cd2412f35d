/**
 * Values of every Flink type written through the postgres sink and read back from PostgreSQL:
 * what the database holds must be exactly what was written (DECIMAL digits, BIGINT at 2^53 - 1,
 * TIMESTAMP milliseconds, NULLs, text that looks like array syntax, JSON for nested types).
 */
import { INT64_MAX, INT64_MIN, normalizeInt64, parseInt64 } from '../../../src/common/int64.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDecimal } from '../../../src/common/decimal.js';
import { daysFromCivil, parseDate, parseTimestamp } from '../../../src/common/datetime.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes, type SqlType } from '../../../src/common/sql-type.js';
import { PostgresSinkWriter } from '../../../src/connectors/postgres/postgres-sink-writer.js';
import { arrayElementType, columnHolds, jsonText, postgresType, valueEncoder, type ExistingColumn } from '../../../src/connectors/postgres/postgres-types.js';
import { createTestDatabase, type TestDatabase } from './pg-test-database.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('types');
});

afterAll(async () => {
  await db?.drop();
});

/** Writes the rows through an append sink in one checkpoint and returns the writer (closed). */
async function writeRows(table: string, schema: Schema, rows: readonly Row[], checkpointId = 1): Promise<void> {
  const writer = new PostgresSinkWriter({ kind: 'sink', table, connector: 'postgres', options: { url: db.url }, schema, primaryKey: [] }, {});
  await writer.open({ subtask: 0, parallelism: 1, warn: () => {} });
  try {
    await writer.write(ChangeBatch.of(rows.map((row) => [RowKind.INSERT, row] as const)));
    await writer.commit([await writer.prepareCommit(checkpointId)]);
  } finally {
    await writer.close();
  }
}

const millis = (iso: string): number => Date.parse(`${iso}Z`);

describe('type mapping', () => {
  it('maps each Flink type to its PostgreSQL column type and an unconstrained array element type', () => {
    const cases: [SqlType, string, string][] = [
      [SqlTypes.boolean(), 'boolean', 'boolean'],
      [SqlTypes.tinyint(), 'smallint', 'smallint'],
      [SqlTypes.smallint(), 'smallint', 'smallint'],
      [SqlTypes.int(), 'integer', 'integer'],
      [SqlTypes.bigint(), 'bigint', 'bigint'],
      [SqlTypes.float(), 'real', 'real'],
      [SqlTypes.double(), 'double precision', 'double precision'],
      [SqlTypes.decimal(38, 10), 'numeric(38,10)', 'numeric'],
      [SqlTypes.char(3), 'char(3)', 'text'],
      // CHAR(0), the type of the literal '', has no char(n) in PostgreSQL (n >= 1).
      [SqlTypes.char(0), 'text', 'text'],
      [SqlTypes.varchar(20), 'varchar(20)', 'text'],
      [SqlTypes.string(), 'text', 'text'],
      [SqlTypes.date(), 'date', 'date'],
      [SqlTypes.time(0), 'time(0)', 'time'],
      [SqlTypes.timestamp(9), 'timestamp(6)', 'timestamp'],
      [SqlTypes.timestampLtz(3), 'timestamptz(3)', 'timestamptz'],
      [SqlTypes.intervalDayTime(), 'interval', 'interval'],
      [SqlTypes.row([{ name: 'a', type: SqlTypes.int() }]), 'jsonb', 'jsonb'],
      [SqlTypes.array(SqlTypes.int()), 'jsonb', 'jsonb'],
      [SqlTypes.map(SqlTypes.string(), SqlTypes.int()), 'jsonb', 'jsonb'],
      [SqlTypes.bytes(), 'bytea', 'bytea'],
      [SqlTypes.varbinary(4), 'bytea', 'bytea'],
      [SqlTypes.binary(3), 'bytea', 'bytea'],
    ];
    for (const [type, column, element] of cases) {
      expect([postgresType(type), arrayElementType(type)]).toEqual([column, element]);
    }
  });

  it('accepts existing columns that hold every value without loss, and only those', () => {
    const column = (base: string, typmod = -1): ExistingColumn => ({ name: 'c', type: base, base, typmod, notNull: false, hasDefault: false });
    const numeric = (precision: number, scale: number): ExistingColumn => column('numeric', ((precision << 16) | scale) + 4);
    expect(columnHolds(column('int8'), SqlTypes.int())).toBe(true);
    expect(columnHolds(column('int4'), SqlTypes.bigint())).toBe(false);
    expect(columnHolds(numeric(19, 0), SqlTypes.bigint())).toBe(true);
    expect(columnHolds(numeric(18, 0), SqlTypes.bigint())).toBe(false);
    expect(columnHolds(numeric(12, 4), SqlTypes.decimal(10, 2))).toBe(true);
    expect(columnHolds(numeric(10, 1), SqlTypes.decimal(10, 2))).toBe(false);
    expect(columnHolds(column('numeric'), SqlTypes.decimal(38, 18))).toBe(true);
    expect(columnHolds(column('float4'), SqlTypes.double())).toBe(false);
    expect(columnHolds(column('varchar', 24), SqlTypes.varchar(20))).toBe(true);
    expect(columnHolds(column('varchar', 14), SqlTypes.varchar(20))).toBe(false);
    expect(columnHolds(column('varchar', 24), SqlTypes.string())).toBe(false);
    expect(columnHolds(column('bpchar', 7), SqlTypes.char(3))).toBe(true);
    expect(columnHolds(column('bpchar', 7), SqlTypes.varchar(3))).toBe(false);
    expect(columnHolds(column('timestamp', 3), SqlTypes.timestamp(3))).toBe(true);
    expect(columnHolds(column('timestamp', 0), SqlTypes.timestamp(3))).toBe(false);
    expect(columnHolds(column('timestamptz'), SqlTypes.timestamp(3))).toBe(false);
    expect(columnHolds(column('json'), SqlTypes.array(SqlTypes.int()))).toBe(true);
    expect(columnHolds(column('text'), SqlTypes.array(SqlTypes.int()))).toBe(false);
    expect(columnHolds(column('bytea'), SqlTypes.bytes())).toBe(true);
    expect(columnHolds(column('bytea'), SqlTypes.binary(2))).toBe(true);
    expect(columnHolds(column('text'), SqlTypes.bytes())).toBe(false);
    expect(columnHolds(column('bytea'), SqlTypes.string())).toBe(false);
  });

  it('renders nested values as JSON with exact decimals and PostgreSQL to_json temporal forms', () => {
    const type = SqlTypes.row([
      { name: 'd', type: SqlTypes.decimal(30, 3) },
      { name: 'ts', type: SqlTypes.timestamp(3) },
      { name: 'ltz', type: SqlTypes.timestampLtz(3) },
      { name: 'day', type: SqlTypes.date() },
      { name: 'x', type: SqlTypes.double() },
      { name: 'tags', type: SqlTypes.array(SqlTypes.string()) },
      { name: 'm', type: SqlTypes.map(SqlTypes.int(), SqlTypes.boolean()) },
    ]);
    const value = [123456789012345678901234567890n, millis('2024-05-06T07:08:09.010'), 5, 19_000, Number.NaN, ['a"b', null], new Map([[1, true]])];
    expect(jsonText(value, type)).toBe(
      '{"d":123456789012345678901234567.890,"ts":"2024-05-06T07:08:09.010","ltz":"1970-01-01T00:00:00.005+00:00","day":"2022-01-08","x":"NaN","tags":["a\\"b",null],"m":{"1":true}}',
    );
  });
});

describe('bytes into PostgreSQL', () => {
  it('writes BYTES, VARBINARY(n) and BINARY(n) into bytea byte for byte, and bytes nested in a ROW as to_json writes bytea', async () => {
    const schema: Schema = [
      { name: 'n', type: SqlTypes.int() },
      { name: 'b', type: SqlTypes.bytes() },
      { name: 'v', type: SqlTypes.varbinary(4) },
      { name: 'c', type: SqlTypes.binary(3) },
      { name: 'r', type: SqlTypes.row([{ name: 'x', type: SqlTypes.bytes() }]) },
    ];
    const every = Uint8Array.from({ length: 256 }, (_unused, i) => i);
    const rows: Row[] = [
      [1, every, Uint8Array.from([0x5c, 0x22, 0x7b, 0x2c]), Uint8Array.from([0, 0, 0]), [Uint8Array.from([0x0a, 0xff])]],
      [2, new Uint8Array(0), new Uint8Array(0), Uint8Array.from([1, 2, 3]), [null]],
      [3, null, null, null, null],
    ];
    await writeRows('bytes_round_trip', schema, rows);
    const read = await db.rows<Record<string, string | null>>(
      "SELECT n, encode(b, 'hex') AS b, encode(v, 'hex') AS v, encode(c, 'hex') AS c, r::text AS r, pg_typeof(b)::text AS t FROM bytes_round_trip ORDER BY n",
    );
    expect(read).toEqual([
      { n: 1, b: Buffer.from(every).toString('hex'), v: '5c227b2c', c: '000000', r: '{"x": "\\\\x0aff"}', t: 'bytea' },
      { n: 2, b: '', v: '', c: '010203', r: '{"x": null}', t: 'bytea' },
      { n: 3, b: null, v: null, c: null, r: null, t: 'bytea' },
    ]);
    expect(valueEncoder(SqlTypes.bytes())(Uint8Array.from([0x0a, 0xff]))).toBe('\\x0aff');
  });
});

describe('type round trip through PostgreSQL', () => {
  const schema: Schema = [
    { name: 'bool', type: SqlTypes.boolean() },
    { name: 'tiny', type: SqlTypes.tinyint() },
    { name: 'small', type: SqlTypes.smallint() },
    { name: 'int', type: SqlTypes.int() },
    { name: 'big', type: SqlTypes.bigint() },
    { name: 'float', type: SqlTypes.float() },
    { name: 'double', type: SqlTypes.double() },
    { name: 'dec', type: SqlTypes.decimal(38, 10) },
    { name: 'small dec', type: SqlTypes.decimal(5, 2) },
    { name: 'char', type: SqlTypes.char(3) },
    { name: 'varchar', type: SqlTypes.varchar(40) },
    { name: 'string', type: SqlTypes.string() },
    { name: 'date', type: SqlTypes.date() },
    { name: 'time', type: SqlTypes.time(3) },
    { name: 'ts', type: SqlTypes.timestamp(3) },
    { name: 'ts0', type: SqlTypes.timestamp(0) },
    { name: 'ltz', type: SqlTypes.timestampLtz(3) },
    { name: 'days', type: SqlTypes.intervalDayTime() },
    { name: 'months', type: SqlTypes.intervalYearMonth() },
    { name: 'row', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.string() }, { name: 'c', type: SqlTypes.decimal(20, 2) }]) },
    { name: 'array', type: SqlTypes.array(SqlTypes.int()) },
    { name: 'map', type: SqlTypes.map(SqlTypes.string(), SqlTypes.bigint()) },
  ];
  const columns = schema.map((f) => `"${f.name}"::text AS "${f.name}"`).join(', ');

  it('reads back exactly what was written, for every type', async () => {
    const rows: Row[] = [
      [
        true,
        -128,
        -32768,
        2147483647,
        9007199254740991,
        Math.fround(0.1),
        0.1 + 0.2,
        12345678901234567890123456780123456789n,
        -5n,
        'abc',
        'héllo "quoted" \\ back, {braces}',
        'NULL',
        daysFromCivil(2024, 2, 29),
        (12 * 3600 + 34 * 60 + 56) * 1000 + 789,
        millis('2024-01-01T12:00:00.123'),
        millis('2024-01-01T12:00:00.999'),
        millis('2024-01-01T12:00:00.005'),
        90_061_001,
        14,
        [1, 'x', 1234567890123456789n],
        [1, null, 3],
        new Map([['k', 9007199254740991]]),
      ],
      [false, 0, 0, 0, -9007199254740991, Number.POSITIVE_INFINITY, -0, 0n, 0n, '', '', '', daysFromCivil(0, 1, 1), 0, -1, -1, 0, -1, -1, [null, null, null], [], new Map()],
      schema.map(() => null),
    ];
    await writeRows('round_trip', schema, rows);
    const read = await db.rows<Record<string, string | null>>(`SELECT ${columns}, (extract(epoch FROM ltz) * 1000)::bigint::text AS ltz_ms FROM round_trip ORDER BY tiny NULLS LAST`);
    expect(read[0]).toEqual({
      bool: 'true',
      tiny: '-128',
      small: '-32768',
      int: '2147483647',
      big: '9007199254740991',
      float: '0.1',
      double: '0.30000000000000004',
      dec: '1234567890123456789012345678.0123456789',
      'small dec': '-0.05',
      char: 'abc',
      varchar: 'héllo "quoted" \\ back, {braces}',
      string: 'NULL',
      date: '2024-02-29',
      time: '12:34:56.789',
      ts: '2024-01-01 12:00:00.123',
      ts0: '2024-01-01 12:00:00',
      ltz: read[0]!.ltz,
      ltz_ms: String(millis('2024-01-01T12:00:00.005')),
      days: '25:01:01.001',
      months: '1 year 2 mons',
      row: '{"a": 1, "b": "x", "c": 12345678901234567.89}',
      array: '[1, null, 3]',
      map: '{"k": 9007199254740991}',
    });
    expect(read[1]).toEqual({
      bool: 'false',
      tiny: '0',
      small: '0',
      int: '0',
      big: '-9007199254740991',
      float: 'Infinity',
      double: '-0',
      dec: '0.0000000000',
      'small dec': '0.00',
      char: '',
      varchar: '',
      string: '',
      date: '0001-01-01 BC',
      time: '00:00:00',
      ts: '1969-12-31 23:59:59.999',
      ts0: '1969-12-31 23:59:59',
      ltz: read[1]!.ltz,
      ltz_ms: '0',
      days: '-00:00:00.001',
      months: '-1 mons',
      row: '{"a": null, "b": null, "c": null}',
      array: '[]',
      map: '{}',
    });
    expect(Object.values(read[2]!).every((value) => value === null)).toBe(true);
    expect(Math.fround(Number(read[0]!.float))).toBe(rows[0]![5]);
    expect(Object.is(Number(read[1]!.double), -0)).toBe(true);
    expect(parseDecimal(read[0]!.dec!)!.unscaled).toBe(rows[0]![7]);
    expect(parseDate(read[0]!.date!)).toBe(rows[0]![12]);
    expect(parseTimestamp(read[0]!.ts!)).toBe(rows[0]![14]);
    expect(Number(read[0]!.big)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('keeps every digit of decimals, the full BIGINT range and timestamp milliseconds (property)', async () => {
    const propertySchema: Schema = [
      { name: 'run', type: SqlTypes.int() },
      { name: 'i', type: SqlTypes.int() },
      { name: 'd', type: SqlTypes.decimal(38, 9) },
      { name: 'b', type: SqlTypes.bigint() },
      { name: 'ts', type: SqlTypes.timestamp(3) },
      { name: 's', type: SqlTypes.string() },
    ];
    const limit = 10n ** 38n - 1n;
    const value = fc.tuple(
      fc.bigInt({ min: -limit, max: limit }),
      fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(normalizeInt64)),
      fc.integer({ min: millis('0001-01-01T00:00:00.000'), max: millis('9999-12-31T23:59:59.999') }),
      fc.string({ unit: 'grapheme', maxLength: 12 }).map((text) => text.replace(/\u0000/g, '')),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 20 }), async (values) => {
        run++;
        await writeRows('property', propertySchema, values.map(([d, b, ts, s], i) => [run, i, d, b, ts, s]), run);
        const read = await db.rows<{ d: string; b: string; ts: string; s: string }>('SELECT d::text, b::text, ts::text, s FROM property WHERE run = $1 ORDER BY i', [run]);
        expect(read.map((r) => [parseDecimal(r.d)!.unscaled, parseInt64(r.b), parseTimestamp(r.ts), r.s])).toEqual(values);
      }),
      { numRuns: 25 },
    );
  });
});
