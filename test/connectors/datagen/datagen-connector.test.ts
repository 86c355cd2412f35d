import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { datagenDescriptor } from '../../../src/connectors/datagen/datagen-connector.js';
import { schemaOf } from './datagen-test-util.js';

const schema = schemaOf(
  ['id', SqlTypes.int(false)],
  ['price', SqlTypes.double()],
  ['name', SqlTypes.varchar(10)],
  ['code', SqlTypes.char(3)],
  ['ts', SqlTypes.timestamp(3)],
  ['amount', SqlTypes.decimal(5, 2)],
);

function validate(options: Record<string, string>, columns: Schema = schema): void {
  datagenDescriptor.validate!(new Map(Object.entries({ connector: 'datagen', ...options })), columns, []);
}

const sequence = (field: string, start: string, end: string): Record<string, string> => ({
  [`fields.${field}.kind`]: 'sequence',
  [`fields.${field}.start`]: start,
  [`fields.${field}.end`]: end,
});

describe('datagen descriptor', () => {
  it('is an insert-only source', () => {
    expect(datagenDescriptor.name).toBe('datagen');
    expect(datagenDescriptor.source?.changelog).toBe('insert-only');
    expect(datagenDescriptor.sink).toBeUndefined();
  });

  it('is bounded with number-of-rows or a sequence field, and always replayable', () => {
    const traits = (options: Record<string, string>) => datagenDescriptor.source!.traits(new Map(Object.entries(options)), schema);
    expect(traits({})).toEqual({ bounded: false, replayable: true });
    expect(traits({ 'number-of-rows': '10' })).toEqual({ bounded: true, replayable: true });
    expect(traits(sequence('id', '1', '5'))).toEqual({ bounded: true, replayable: true });
  });

  it('accepts valid options', () => {
    expect(() =>
      validate({
        'rows-per-second': '5',
        'number-of-rows': '100',
        seed: '-3',
        'base-time': '2020-02-29T12:00:00.5',
        'fields.price.min': '-1.5e3',
        'fields.price.max': '100',
        'fields.price.null-rate': '0.25',
        'fields.name.length': '10',
        'fields.name.var-len': 'TRUE',
        'fields.ts.max-past': '5 min',
        'fields.amount.min': '-999.99',
        'fields.amount.max': '1.5',
        ...sequence('id', '1', '10'),
      }),
    ).not.toThrow();
  });

  const errors: [string, Record<string, string>, string, Schema?][] = [
    ['a non-numeric min', { 'fields.price.min': 'abc' }, "datagen option 'fields.price.min' must be a number, got 'abc'"],
    ['a fractional integer bound', { 'fields.id.min': '1.5' }, "datagen option 'fields.id.min' must be an integer, got '1.5'"],
    ['a bound outside the type', { 'fields.id.max': '3000000000' }, "datagen option 'fields.id.max' must be within the range of INT [-2147483648, 2147483647], got '3000000000'"],
    ['min above max', { 'fields.id.min': '10', 'fields.id.max': '5' }, "datagen option 'fields.id.min' (10) must not be greater than 'fields.id.max' (5)"],
    ['decimal min above max', { 'fields.amount.min': '2.5', 'fields.amount.max': '1.25' }, "datagen option 'fields.amount.min' (2.50) must not be greater than 'fields.amount.max' (1.25)"],
    ['too many decimal digits', { 'fields.amount.min': '1.234' }, "datagen option 'fields.amount.min' has more fractional digits than DECIMAL(5, 2) holds, got '1.234'"],
    ['a decimal bound out of precision', { 'fields.amount.max': '1000' }, "datagen option 'fields.amount.max' must be within the range of DECIMAL(5, 2), got '1000'"],
    ['an unknown column', { 'fields.nmae.length': '5' }, "datagen option 'fields.nmae.length' refers to no field 'nmae'"],
    ['an unknown field option', { 'fields.name.colour': '5' }, "datagen option 'fields.name.colour' is not a field option; expected 'fields.<field>.<kind|null-rate|min|max|max-past|length|var-len|start|end>'"],
    ['an unknown table option', { 'rows-per-secnd': '5' }, "datagen does not support option 'rows-per-secnd'; did you mean 'rows-per-second'?"],
    ['a zero rate', { 'rows-per-second': '0' }, "datagen option 'rows-per-second' must be a positive integer, got '0'"],
    ['a negative row count', { 'number-of-rows': '-1' }, "datagen option 'number-of-rows' must be a non-negative integer, got '-1'"],
    ['NULLs in a NOT NULL column', { 'fields.id.null-rate': '0.5' }, "datagen option 'fields.id.null-rate' must be 0 for NOT NULL field 'id'"],
    ['a null-rate above 1', { 'fields.price.null-rate': '2' }, "datagen option 'fields.price.null-rate' must be a number between 0 and 1, got '2'"],
    ['a length beyond VARCHAR(n)', { 'fields.name.length': '20' }, "datagen option 'fields.name.length' (20) exceeds the length of VARCHAR(10) field 'name'"],
    ['a length for CHAR', { 'fields.code.length': '2' }, "datagen option 'fields.code.length' does not apply to CHAR(3) field 'code': its length is fixed by the type"],
    ['min for a string', { 'fields.name.min': '2' }, "datagen option 'fields.name.min' does not apply to VARCHAR(10) field 'name'"],
    ['a bad boolean', { 'fields.name.var-len': 'yes' }, "datagen option 'fields.name.var-len' must be 'true' or 'false', got 'yes'"],
    ['start on a random field', { 'fields.id.start': '2' }, "datagen option 'fields.id.start' needs 'fields.id.kind' = 'sequence'"],
    ['a sequence without start', { 'fields.id.kind': 'sequence', 'fields.id.end': '2' }, "datagen option 'fields.id.start' is required when 'fields.id.kind' is 'sequence'"],
    ['a descending sequence', sequence('id', '5', '2'), "datagen option 'fields.id.end' (2) must not be less than 'fields.id.start' (5)"],
    ['sequences of different lengths', { ...sequence('id', '1', '10'), ...sequence('name', '1', '5') }, "datagen sequence fields 'id' (10 values) and 'name' (5 values) must have the same length"],
    ['sequence values longer than the string type', sequence('code', '1', '1000'), "datagen sequence field 'code' has values of 4 characters, longer than CHAR(3)"],
    ['min on a sequence', { ...sequence('id', '1', '10'), 'fields.id.min': '1' }, "datagen option 'fields.id.min' does not apply to sequence field 'id'"],
    ['a sequence of timestamps', { 'fields.ts.kind': 'sequence' }, "datagen option 'fields.ts.kind' = 'sequence' is not supported for TIMESTAMP(3) field 'ts'; only numeric and string fields can be sequences"],
    ['an unknown kind', { 'fields.ts.kind': 'sorted' }, "datagen option 'fields.ts.kind' must be 'random' or 'sequence', got 'sorted'"],
    ['a bad duration', { 'fields.ts.max-past': 'ages' }, "datagen option 'fields.ts.max-past' must be a duration such as '10 s' or '5 min', got 'ages'"],
    ['a bad base time', { 'base-time': 'yesterday' }, "datagen option 'base-time' must be a timestamp such as '2024-01-01 00:00:00', got 'yesterday'"],
    ['a bad seed', { seed: 'x' }, "datagen option 'seed' must be an integer, got 'x'"],
    ['an unsupported type', {}, "datagen cannot generate INTERVAL SECOND(3) field 'span'", schemaOf(['span', SqlTypes.intervalDayTime()])],
    [
      'a sequence inside an ARRAY',
      { 'fields.a.element.kind': 'sequence' },
      "datagen option 'fields.a.element.kind' = 'sequence' is not supported inside ARRAY or MAP",
      schemaOf(['a', SqlTypes.array(SqlTypes.int())]),
    ],
  ];

  it.each(errors)('rejects %s', (_what, options, message, columns) => {
    let error: unknown;
    try {
      validate(options, columns);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INVALID_OPTION');
    expect((error as WeirError).message).toBe(message);
  });
});
