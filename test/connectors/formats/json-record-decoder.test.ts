import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { createRowFormat } from '../../../src/connectors/filesystem/row-formats.js';
import { readFormatOptions } from '../../../src/connectors/formats/format-options.js';
import { JsonRecordDecoder } from '../../../src/connectors/formats/json-record-decoder.js';
import { RecordDecodeError } from '../../../src/connectors/formats/record-decoder.js';
import { createRecordDecoder } from '../../../src/connectors/formats/record-decoder-factory.js';

const noon = Date.UTC(2020, 0, 1, 12);
const newYear = Date.UTC(2020, 0, 1) / 86_400_000;

const every: Schema = [
  { name: 'b', type: SqlTypes.boolean() },
  { name: 'ti', type: SqlTypes.tinyint() },
  { name: 'si', type: SqlTypes.smallint() },
  { name: 'i', type: SqlTypes.int() },
  { name: 'bi', type: SqlTypes.bigint() },
  { name: 'f', type: SqlTypes.float() },
  { name: 'd', type: SqlTypes.double() },
  { name: 'dec', type: SqlTypes.decimal(10, 2) },
  { name: 'wide', type: SqlTypes.decimal(38, 4) },
  { name: 'c', type: SqlTypes.char(3) },
  { name: 's', type: SqlTypes.string() },
  { name: 'v', type: SqlTypes.varchar(5) },
  { name: 'dt', type: SqlTypes.date() },
  { name: 'tm', type: SqlTypes.time(0) },
  { name: 'ts', type: SqlTypes.timestamp(3) },
  { name: 'ltz', type: SqlTypes.timestampLtz(3) },
  { name: 'ids', type: SqlTypes.intervalDayTime() },
  { name: 'iym', type: SqlTypes.intervalYearMonth() },
  { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.string() }]) },
  { name: 'arr', type: SqlTypes.array(SqlTypes.int()) },
  { name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.decimal(5, 1)) },
];

const everyRow = [
  true, -128, 32767, -2147483648, 9007199254740991, 0.5, 1e-7, 1250n, 123456789012345678901234567890n, 'ab ', 'a"b\n', 'abcde',
  newYear, 45_296_000, noon, noon + 7, 4000, 14, [7, 'x'], [1, null, 3], new Map([['k', 15n]]),
];

function decoder(schema: Schema, options: Record<string, string> = {}): JsonRecordDecoder {
  return new JsonRecordDecoder(schema, readFormatOptions('test', new Map(Object.entries({ format: 'json', ...options }))).json);
}

function failure(decode: () => unknown): RecordDecodeError {
  try {
    decode();
  } catch (error) {
    if (error instanceof RecordDecodeError) return error;
    throw error;
  }
  throw new Error('expected a RecordDecodeError');
}

describe('json record decoder', () => {
  it('reads back every type exactly as the filesystem sink writes it', () => {
    const line = createRowFormat('json', every, { fieldDelimiter: ',' }).serialize(RowKind.INSERT, everyRow);
    expect(decoder(every).decode(line.trimEnd())).toEqual(everyRow);
    const nulls = createRowFormat('json', every, { fieldDelimiter: ',' }).serialize(RowKind.INSERT, every.map(() => null));
    expect(decoder(every).decode(nulls.trimEnd())).toEqual(every.map(() => null));
  });

  it('takes fields by name, in any order, and a missing field as NULL', () => {
    const schema: Schema = [{ name: 'id', type: SqlTypes.int() }, { name: 'name', type: SqlTypes.string() }];
    expect(decoder(schema).decode('{"name":"x","extra":[1],"id":3}')).toEqual([3, 'x']);
    expect(decoder(schema).decode('{"id":3}')).toEqual([3, null]);
    expect(decoder(schema).decode(' {} ')).toEqual([null, null]);
  });

  it('converts strings and numbers per column type, as Flink does', () => {
    const schema: Schema = [
      { name: 'i', type: SqlTypes.int() },
      { name: 'dec', type: SqlTypes.decimal(10, 2) },
      { name: 'b', type: SqlTypes.boolean() },
      { name: 's', type: SqlTypes.string() },
      { name: 'd', type: SqlTypes.double() },
    ];
    expect(decoder(schema).decode('{"i":"42","dec":"12.345","b":"TRUE","s":12.5,"d":"NaN"}')).toEqual([42, 1235n, true, '12.5', NaN]);
    expect(decoder(schema).decode('{"i":1.0,"dec":7,"b":false,"s":{"a":[1,true]},"d":"-Infinity"}')).toEqual([1, 700n, false, '{"a":[1,true]}', -Infinity]);
  });

  it('reads the SQL and the ISO-8601 timestamp formats', () => {
    const schema: Schema = [
      { name: 'ts', type: SqlTypes.timestamp(3) },
      { name: 'ltz', type: SqlTypes.timestampLtz(3) },
      { name: 't0', type: SqlTypes.timestamp(0) },
    ];
    const d = decoder(schema);
    expect(d.decode('{"ts":"2020-01-01 12:00:00","ltz":"2020-01-01 12:00:00.007Z","t0":"2020-01-01 12:00:00.999"}')).toEqual([noon, noon + 7, noon]);
    expect(d.decode('{"ts":"2020-01-01T12:00:00.5","ltz":"2020-01-01T14:00:00+02:00","t0":"2020-01-01T12:00"}')).toEqual([noon + 500, noon, noon]);
    expect(d.decode('{"ltz":"2020-01-01T07:30:00-0430"}')).toEqual([null, noon, null]);
    expect(failure(() => d.decode('{"ts":"2020-01-01T12:00:00Z"}')).message).toBe("column 'ts': '2020-01-01T12:00:00Z' is not a valid TIMESTAMP(3)");
    expect(failure(() => d.decode('{"ts":"2020-02-30 00:00:00"}')).message).toBe("column 'ts': '2020-02-30 00:00:00' is not a valid TIMESTAMP(3)");
    expect(failure(() => d.decode('{"ts":1577880000000}')).message).toBe("column 'ts': 1577880000000 is not a valid TIMESTAMP(3)");
  });

  it('keeps DECIMAL and BIGINT values a double cannot hold exact', () => {
    const schema: Schema = [
      { name: 'wide', type: SqlTypes.decimal(38, 2) },
      { name: 'bi', type: SqlTypes.bigint() },
      { name: 'x', type: SqlTypes.double() },
    ];
    const d = decoder(schema);
    expect(d.decode('{"wide":123456789012345678901234.56,"bi":1,"x":0.1}')).toEqual([12345678901234567890123456n, 1, 0.1]);
    expect(d.decode('{"wide":1234567890123456.78}')).toEqual([123456789012345678n, null, null]);
    expect(d.decode('{"wide":1.005}')).toEqual([101n, null, null]);
    expect(d.decode('{"bi":9007199254740993}')).toEqual([null, 9007199254740993n, null]);
    expect(d.decode('{"bi":"9007199254740993"}')).toEqual([null, 9007199254740993n, null]);
    expect(d.decode('{"bi":-9223372036854775808,"wide":0.1}')).toEqual([10n, -9223372036854775808n, null]);
    expect(d.decode('{"bi":9007199254740991}')).toEqual([null, 9007199254740991, null]);
    expect(failure(() => d.decode('{"bi":9223372036854775808}')).message).toBe("column 'bi': 9223372036854775808 is out of range for BIGINT");
    expect(failure(() => d.decode('{"bi":"9223372036854775808"}')).message).toBe("column 'bi': '9223372036854775808' is out of range for BIGINT");
    expect(failure(() => d.decode('{"wide":1e40}')).message).toBe("column 'wide': 1e+40 is out of range for DECIMAL(38, 2)");
  });

  it('names the column, the value and the type in every error', () => {
    const d = decoder(every);
    const cases: [string, string][] = [
      ['{"b":1}', "column 'b': 1 is not a valid BOOLEAN"],
      ['{"b":"yes"}', "column 'b': 'yes' is not a valid BOOLEAN"],
      ['{"ti":128}', "column 'ti': 128 is out of range for TINYINT"],
      ['{"si":"-32769"}', "column 'si': '-32769' is out of range for SMALLINT"],
      ['{"i":3000000000}', "column 'i': 3000000000 is out of range for INT"],
      ['{"i":1.5}', "column 'i': 1.5 is not a valid INT"],
      ['{"i":"12abc"}', "column 'i': '12abc' is not a valid INT"],
      ['{"i":true}', "column 'i': true is not a valid INT"],
      ['{"f":1e39}', "column 'f': 1e+39 is out of range for FLOAT"],
      ['{"d":"1,5"}', "column 'd': '1,5' is not a valid DOUBLE"],
      ['{"dec":"abc"}', "column 'dec': 'abc' is not a valid DECIMAL(10, 2)"],
      ['{"dec":123456789.5}', "column 'dec': 123456789.5 is out of range for DECIMAL(10, 2)"],
      ['{"c":"abcd"}', "column 'c': 'abcd' is longer than CHAR(3)"],
      ['{"v":"abcdef"}', "column 'v': 'abcdef' is longer than VARCHAR(5)"],
      ['{"dt":"2020-13-01"}', "column 'dt': '2020-13-01' is not a valid DATE"],
      ['{"tm":"25:00:00"}', "column 'tm': '25:00:00' is not a valid TIME(0)"],
      ['{"ltz":"noon"}', "column 'ltz': 'noon' is not a valid TIMESTAMP_LTZ(3)"],
      ['{"iym":0.5}', "column 'iym': 0.5 is not a valid INTERVAL MONTH"],
      ['{"r":[1,"x"]}', "column 'r': [1,\"x\"] is not a valid ROW<a INT, b STRING>"],
      ['{"r":{"a":"one"}}', "column 'r': field 'a': 'one' is not a valid INT"],
      ['{"arr":[1,"two"]}', "column 'arr': element 2: 'two' is not a valid INT"],
      ['{"arr":{"0":1}}', `column 'arr': {"0":1} is not a valid ARRAY<INT>`],
      ['{"m":{"k":"1.25e9"}}', "column 'm': key 'k': '1.25e9' is out of range for DECIMAL(5, 1)"],
    ];
    for (const [text, message] of cases) {
      const error = failure(() => d.decode(text));
      expect(error.message, text).toBe(message);
      expect(error.column, text).toBe(message.slice(8, message.indexOf("'", 8)));
    }
  });

  it('refuses what is not one JSON object', () => {
    const d = decoder(every);
    expect(failure(() => d.decode('[1,2]')).message).toBe('not a JSON object: [1,2]');
    expect(failure(() => d.decode('"text"')).message).toBe("not a JSON object: 'text'");
    expect(failure(() => d.decode('null')).message).toBe('not a JSON object: null');
    expect(failure(() => d.decode('{"b":true')).message).toMatch(/^not valid JSON: /);
    expect(failure(() => d.decode('{"b":true')).column).toBeUndefined();
  });

  it('fails on a missing field with json.fail-on-missing-field, and on NULL in a NOT NULL column', () => {
    const schema: Schema = [
      { name: 'id', type: SqlTypes.int(false) },
      { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int(false) }]) },
      { name: 'tags', type: SqlTypes.array(SqlTypes.string(false)) },
    ];
    expect(failure(() => decoder(schema).decode('{"r":null}')).message).toBe("column 'id': missing, but the column is NOT NULL");
    expect(failure(() => decoder(schema).decode('{"id":null}')).message).toBe("column 'id': null, but the column is NOT NULL");
    expect(failure(() => decoder(schema).decode('{"id":1,"r":{}}')).message).toBe("column 'r': field 'a': missing, but the field is NOT NULL");
    expect(failure(() => decoder(schema).decode('{"id":1,"tags":["a",null]}')).message).toBe("column 'tags': element 2: null, but the element is NOT NULL");
    const strict = decoder(schema, { 'json.fail-on-missing-field': 'true' });
    expect(failure(() => strict.decode('{"id":1,"r":null}')).message).toBe("column 'tags': missing");
    expect(strict.decode('{"id":1,"r":null,"tags":null}')).toEqual([1, null, null]);
  });

  it('is what the factory creates for format json', () => {
    const options = readFormatOptions('test', new Map([['format', 'json']]));
    expect(createRecordDecoder(every, options)).toBeInstanceOf(JsonRecordDecoder);
  });
});
