import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { checkFormatSupports, createRowFormat } from '../../../src/connectors/filesystem/row-formats.js';

const noon = Date.UTC(2020, 0, 1, 12);
const newYear = Date.UTC(2020, 0, 1) / 86_400_000;

const wide: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'name', type: SqlTypes.string() },
  { name: 'amount', type: SqlTypes.decimal(5, 2) },
  { name: 'ts', type: SqlTypes.timestamp(3) },
  { name: 'ok', type: SqlTypes.boolean() },
  { name: 'd', type: SqlTypes.date() },
  { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }, { name: 'b', type: SqlTypes.string() }]) },
  { name: 'tags', type: SqlTypes.array(SqlTypes.string()) },
  { name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.int()) },
  { name: 'big', type: SqlTypes.bigint() },
  { name: 'x', type: SqlTypes.double() },
  { name: 'ltz', type: SqlTypes.timestampLtz(3) },
];

const wideRow = [1, 'a"b', 1250n, noon, true, newYear, [7, 'x'], ['p', null], new Map([['k', 1]]), 9007199254740991, 0.5, noon + 7];

const json = (schema: Schema) => createRowFormat('json', schema, { fieldDelimiter: ',' });
const csv = (schema: Schema, fieldDelimiter = ',') => createRowFormat('csv', schema, { fieldDelimiter });
const debezium = (schema: Schema) => createRowFormat('debezium-json', schema, { fieldDelimiter: ',' });

describe('json format', () => {
  it('writes one object per line with Flink’s encoding of every type', () => {
    expect(json(wide).serialize(RowKind.INSERT, wideRow)).toBe(
      '{"id":1,"name":"a\\"b","amount":12.50,"ts":"2020-01-01 12:00:00.000","ok":true,"d":"2020-01-01",' +
        '"r":{"a":7,"b":"x"},"tags":["p",null],"m":{"k":1},"big":9007199254740991,"x":0.5,"ltz":"2020-01-01 12:00:00.007Z"}\n',
    );
  });

  it('writes NULL as null at every level', () => {
    expect(json(wide).serialize(RowKind.INSERT, wide.map(() => null))).toBe(
      '{"id":null,"name":null,"amount":null,"ts":null,"ok":null,"d":null,"r":null,"tags":null,"m":null,"big":null,"x":null,"ltz":null}\n',
    );
    const nested: Schema = [{ name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }]) }, { name: 'm', type: SqlTypes.map(SqlTypes.int(), SqlTypes.int()) }];
    expect(json(nested).serialize(RowKind.INSERT, [[null], new Map([[3, null]])])).toBe('{"r":{"a":null},"m":{"3":null}}\n');
  });

  it('writes DOUBLE in Java’s notation, non-finite values as strings, and DECIMAL with its scale', () => {
    const schema: Schema = [
      { name: 'a', type: SqlTypes.double() },
      { name: 'b', type: SqlTypes.double() },
      { name: 'c', type: SqlTypes.double() },
      { name: 'd', type: SqlTypes.decimal(10, 3) },
      { name: 'e', type: SqlTypes.decimal(10, 0) },
    ];
    expect(json(schema).serialize(RowKind.INSERT, [1e7, 2, Number.NaN, -5n, 42n])).toBe('{"a":1.0E7,"b":2.0,"c":"NaN","d":-0.005,"e":42}\n');
    expect(JSON.parse(json(schema).serialize(RowKind.INSERT, [1e7, 2, -Infinity, 1n, 0n]))).toEqual({ a: 1e7, b: 2, c: '-Infinity', d: 0.001, e: 0 });
  });

  it('escapes column names and strings as JSON', () => {
    const schema: Schema = [{ name: 'we"ird', type: SqlTypes.string() }];
    expect(json(schema).serialize(RowKind.INSERT, ['line\nbreak\u0001'])).toBe('{"we\\"ird":"line\\nbreak\\u0001"}\n');
  });
});

describe('debezium-json format', () => {
  it('writes +I and +U as creations, -U and -D as deletions, as Flink does', () => {
    const schema: Schema = [
      { name: 'id', type: SqlTypes.int() },
      { name: 'v', type: SqlTypes.string() },
    ];
    const format = debezium(schema);
    expect(format.appendOnly).toBe(false);
    expect(format.extension).toBe('json');
    expect(format.serialize(RowKind.INSERT, [1, 'a'])).toBe('{"before":null,"after":{"id":1,"v":"a"},"op":"c"}\n');
    expect(format.serialize(RowKind.UPDATE_BEFORE, [1, 'a'])).toBe('{"before":{"id":1,"v":"a"},"after":null,"op":"d"}\n');
    expect(format.serialize(RowKind.UPDATE_AFTER, [1, 'b'])).toBe('{"before":null,"after":{"id":1,"v":"b"},"op":"c"}\n');
    expect(format.serialize(RowKind.DELETE, [1, null])).toBe('{"before":{"id":1,"v":null},"after":null,"op":"d"}\n');
  });
});

describe('csv format', () => {
  const schema: Schema = wide.filter((field) => field.name !== 'm');
  const row = wideRow.filter((_value, i) => wide[i]!.name !== 'm');

  it('writes RFC 4180 fields: quotes doubled, delimiters and line breaks quoted, ARRAY and ROW joined by ;', () => {
    const format = csv(schema);
    expect(format.extension).toBe('csv');
    expect(format.appendOnly).toBe(true);
    expect(format.serialize(RowKind.INSERT, row)).toBe('1,"a""b",12.50,2020-01-01 12:00:00.000,true,2020-01-01,7;x,p;,9007199254740991,0.5,2020-01-01 12:00:00.007Z\n');
    const text: Schema = [
      { name: 'a', type: SqlTypes.string() },
      { name: 'b', type: SqlTypes.string() },
      { name: 'c', type: SqlTypes.string() },
      { name: 'd', type: SqlTypes.string() },
      { name: 'e', type: SqlTypes.string() },
    ];
    expect(csv(text).serialize(RowKind.INSERT, ['x,y', 'two\nlines', 'cr\r', ' spaced ', 'plain'])).toBe('"x,y","two\nlines","cr\r", spaced ,plain\n');
  });

  it('writes the timestamps and dates of every row, in runs of equal and changing values', () => {
    const format = csv([
      { name: 'ts', type: SqlTypes.timestamp(3) },
      { name: 'd', type: SqlTypes.date() },
    ]);
    const rows = [[noon, newYear], [noon, newYear], [noon + 1, newYear + 1], [noon, newYear], [null, null], [noon, newYear]];
    expect(rows.map((r) => format.serialize(RowKind.INSERT, r))).toEqual([
      '2020-01-01 12:00:00.000,2020-01-01\n',
      '2020-01-01 12:00:00.000,2020-01-01\n',
      '2020-01-01 12:00:00.001,2020-01-02\n',
      '2020-01-01 12:00:00.000,2020-01-01\n',
      ',\n',
      '2020-01-01 12:00:00.000,2020-01-01\n',
    ]);
  });

  it('writes NULL as an empty field and the empty string as ""', () => {
    const text: Schema = [
      { name: 'a', type: SqlTypes.string() },
      { name: 'b', type: SqlTypes.int() },
      { name: 'c', type: SqlTypes.string() },
    ];
    expect(csv(text).serialize(RowKind.INSERT, [null, null, ''])).toBe(',,""\n');
  });

  it('uses the configured delimiter, and quotes only for that one', () => {
    const text: Schema = [
      { name: 'a', type: SqlTypes.string() },
      { name: 'b', type: SqlTypes.string() },
    ];
    expect(csv(text, '|').serialize(RowKind.INSERT, ['a,b', 'c|d'])).toBe('a,b|"c|d"\n');
    expect(csv(text, '\t').serialize(RowKind.INSERT, ['a b', 'c\td'])).toBe('a b\t"c\td"\n');
  });

  it('refuses MAP columns and nested ARRAY or ROW values', () => {
    expect(() => checkFormatSupports('csv', wide)).toThrow("format 'csv' cannot write column 'm' of type MAP<STRING, INT>");
    expect(() => checkFormatSupports('csv', [{ name: 'n', type: SqlTypes.array(SqlTypes.array(SqlTypes.int())) }])).toThrow(
      "format 'csv' cannot write column 'n' of type ARRAY<ARRAY<INT>>",
    );
    expect(() => checkFormatSupports('csv', schema)).not.toThrow();
    expect(() => checkFormatSupports('json', wide)).not.toThrow();
  });
});
