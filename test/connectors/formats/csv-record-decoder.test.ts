import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { createRowFormat } from '../../../src/connectors/filesystem/row-formats.js';
import { CsvRecordDecoder } from '../../../src/connectors/formats/csv-record-decoder.js';
import { readFormatOptions } from '../../../src/connectors/formats/format-options.js';
import { RecordDecodeError } from '../../../src/connectors/formats/record-decoder.js';
import { checkDecodable, createRecordDecoder } from '../../../src/connectors/formats/record-decoder-factory.js';

const noon = Date.UTC(2020, 0, 1, 12);
const newYear = Date.UTC(2020, 0, 1) / 86_400_000;

const every: Schema = [
  { name: 'b', type: SqlTypes.boolean() },
  { name: 'ti', type: SqlTypes.tinyint() },
  { name: 'i', type: SqlTypes.int() },
  { name: 'bi', type: SqlTypes.bigint() },
  { name: 'f', type: SqlTypes.float() },
  { name: 'd', type: SqlTypes.double() },
  { name: 'dec', type: SqlTypes.decimal(10, 2) },
  { name: 'c', type: SqlTypes.char(3) },
  { name: 's', type: SqlTypes.string() },
  { name: 'dt', type: SqlTypes.date() },
  { name: 'tm', type: SqlTypes.time(3) },
  { name: 'ts', type: SqlTypes.timestamp(3) },
  { name: 'ltz', type: SqlTypes.timestampLtz(3) },
  { name: 'ids', type: SqlTypes.intervalDayTime() },
  { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.string() }]) },
  { name: 'arr', type: SqlTypes.array(SqlTypes.decimal(5, 1)) },
];

const everyRow = [
  false, 127, -7, -9007199254740991, 1e7, -0.25, -1250n, 'ab ', 'x,"y"\r\nz', newYear, 45_296_007, noon, noon + 7, 4000, [7, 'x'], [15n, null, -3n],
];

function decoder(schema: Schema, options: Record<string, string> = {}): CsvRecordDecoder {
  return new CsvRecordDecoder(schema, readFormatOptions('test', new Map(Object.entries({ format: 'csv', ...options }))).csv);
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

const strings: Schema = [
  { name: 'a', type: SqlTypes.string() },
  { name: 'b', type: SqlTypes.string() },
  { name: 'c', type: SqlTypes.string() },
];

describe('csv record decoder', () => {
  it('reads back every type exactly as the filesystem sink writes it, also with other settings', () => {
    for (const settings of [{}, { 'csv.field-delimiter': '|', 'csv.quote-character': "'", 'csv.null-literal': 'N/A' }, { 'csv.field-delimiter': '\\t' }]) {
      const options = readFormatOptions('test', new Map(Object.entries({ format: 'csv', ...settings })));
      const format = createRowFormat('csv', every, { ...options.csv, nullLiteral: options.csv.nullLiteral ?? '' });
      const d = new CsvRecordDecoder(every, options.csv);
      expect(d.decode(format.serialize(RowKind.INSERT, everyRow).slice(0, -1)), JSON.stringify(settings)).toEqual(everyRow);
      expect(d.decode(format.serialize(RowKind.INSERT, every.map(() => null)).slice(0, -1))).toEqual(every.map(() => null));
    }
  });

  it('unquotes RFC 4180 fields and tells NULL from the empty string', () => {
    const d = decoder(strings);
    expect(d.decode('x,"a,b","say ""hi"""')).toEqual(['x', 'a,b', 'say "hi"']);
    expect(d.decode(',"",')).toEqual([null, '', null]);
    expect(d.decode('"two\nlines",a"b, spaced ')).toEqual(['two\nlines', 'a"b', ' spaced ']);
    expect(d.decode('"",,""')).toEqual(['', null, '']);
  });

  it('reads the null literal as NULL only unquoted', () => {
    const d = decoder(strings, { 'csv.null-literal': 'NULL' });
    expect(d.decode('NULL,"NULL",')).toEqual([null, 'NULL', null]);
  });

  it('reads ARRAY and ROW fields with ; between elements, an empty element being NULL', () => {
    const schema: Schema = [
      { name: 'tags', type: SqlTypes.array(SqlTypes.string()) },
      { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.boolean() }]) },
    ];
    const d = decoder(schema);
    expect(d.decode('a;;b,1;true')).toEqual([['a', null, 'b'], [1, true]]);
    expect(d.decode('"",;')).toEqual([[], [null, null]]);
    expect(failure(() => d.decode('a,1')).message).toBe("column 'r': found 1 value for ROW<a INT, b BOOLEAN>, expected 2");
    expect(failure(() => d.decode('a,x;true')).message).toBe("column 'r': 'x' is not a valid INT");
  });

  it('names the column, the value and the type in every error', () => {
    const d = decoder(every);
    const line = (column: string, value: string): string => every.map((field) => (field.name === column ? value : '')).join(',');
    const cases: [string, string, string][] = [
      ['b', 'yes', "column 'b': 'yes' is not a valid BOOLEAN"],
      ['ti', '200', "column 'ti': '200' is out of range for TINYINT"],
      ['i', '1.5', "column 'i': '1.5' is not a valid INT"],
      ['bi', '9223372036854775808', "column 'bi': '9223372036854775808' is out of range for BIGINT"],
      ['f', '1e39', "column 'f': '1e39' is out of range for FLOAT"],
      ['d', 'one', "column 'd': 'one' is not a valid DOUBLE"],
      ['dec', 'abc', "column 'dec': 'abc' is not a valid DECIMAL(10, 2)"],
      ['dec', '123456789', "column 'dec': '123456789' is out of range for DECIMAL(10, 2)"],
      ['c', 'abcd', "column 'c': 'abcd' is longer than CHAR(3)"],
      ['dt', '2021-02-29', "column 'dt': '2021-02-29' is not a valid DATE"],
      ['ts', '2020-01-01 24:00:00', "column 'ts': '2020-01-01 24:00:00' is not a valid TIMESTAMP(3)"],
      ['ids', '1 day', "column 'ids': '1 day' is not a valid INTERVAL SECOND(3)"],
      ['arr', '1;x', "column 'arr': 'x' is not a valid DECIMAL(5, 1)"],
    ];
    for (const [column, value, message] of cases) {
      const error = failure(() => d.decode(line(column, value)));
      expect(error.message, value).toBe(message);
      expect(error.column, value).toBe(column);
    }
    expect(d.decode(line('i', ' 42 '))[2]).toBe(42);
  });

  it('refuses a wrong number of fields, bad quoting and NULL in a NOT NULL column', () => {
    const d = decoder(strings);
    expect(failure(() => d.decode('a,b')).message).toBe('found 2 fields, expected 3');
    expect(failure(() => d.decode('a,b,c,d')).message).toBe('found 4 fields, expected 3');
    expect(failure(() => d.decode('a,"b')).message).toBe('field 2: the quoted field is not closed');
    expect(failure(() => d.decode('a,"b"c,d')).message).toBe('field 2: text after the closing quote');
    const notNull = decoder([{ name: 'id', type: SqlTypes.int(false) }]);
    expect(failure(() => notNull.decode('')).message).toBe("column 'id': NULL, but the column is NOT NULL");
    expect(failure(() => notNull.decode('')).column).toBe('id');
  });

  it('is what the factory creates for format csv, which holds no MAP', () => {
    const options = readFormatOptions('test', new Map([['format', 'csv']]));
    expect(createRecordDecoder(every, options)).toBeInstanceOf(CsvRecordDecoder);
    expect(() => checkDecodable('nats', 'csv', [{ name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.int()) }])).toThrow(
      "format 'csv' cannot read column 'm' of type MAP<STRING, INT>",
    );
    expect(() => checkDecodable('nats', 'avro', every)).toThrow("nats cannot read format 'avro'; the formats it reads are 'json', 'csv'");
  });
});
