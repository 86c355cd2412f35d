/**
 * The physical schema of a nexmark table, as the published `ddl.sql` declares it (Flink's
 * `RowDataEventDeserializer` layout): `event_type` (0 person, 1 auction, 2 bid) and one nullable
 * ROW per event kind, of which exactly the one matching `event_type` is set.
 */
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { formatType, SqlTypes, type RowField, type SqlType } from '../../common/sql-type.js';

const field = (name: string, type: SqlType): RowField => ({ name, type });
const bigint = SqlTypes.bigint();
const varchar = SqlTypes.string();
const timestamp = SqlTypes.timestamp(3);

/** The columns the connector produces, in order; every row is positional in this layout. */
export const NEXMARK_SCHEMA: Schema = [
  field('event_type', SqlTypes.int()),
  field(
    'person',
    SqlTypes.row([
      field('id', bigint),
      field('name', varchar),
      field('emailAddress', varchar),
      field('creditCard', varchar),
      field('city', varchar),
      field('state', varchar),
      field('dateTime', timestamp),
      field('extra', varchar),
    ]),
  ),
  field(
    'auction',
    SqlTypes.row([
      field('id', bigint),
      field('itemName', varchar),
      field('description', varchar),
      field('initialBid', bigint),
      field('reserve', bigint),
      field('dateTime', timestamp),
      field('expires', timestamp),
      field('seller', bigint),
      field('category', bigint),
      field('extra', varchar),
    ]),
  ),
  field(
    'bid',
    SqlTypes.row([
      field('auction', bigint),
      field('bidder', bigint),
      field('price', bigint),
      field('channel', varchar),
      field('url', varchar),
      field('dateTime', timestamp),
      field('extra', varchar),
    ]),
  ),
];

/**
 * Checks a declared physical schema against {@link NEXMARK_SCHEMA}: the same columns and ROW fields
 * in the same order (names compared case-insensitively, as values are positional), VARCHAR of any
 * length, and nullable ROW columns. Throws INVALID_OPTION naming the first mismatch.
 */
export function checkNexmarkSchema(schema: Schema): void {
  const expected = NEXMARK_SCHEMA.map((f) => f.name).join(', ');
  if (schema.length !== NEXMARK_SCHEMA.length) {
    throw mismatch(`a nexmark table has ${NEXMARK_SCHEMA.length} physical columns (${expected}), but this one declares ${schema.length} (${schema.map((f) => f.name).join(', ')})`);
  }
  NEXMARK_SCHEMA.forEach((want, i) => {
    const got = schema[i]!;
    checkField(want, got, i + 1, '');
    if (want.type.kind === 'ROW' && !got.type.nullable) {
      throw mismatch(`nexmark column '${want.name}' must be nullable: it is NULL unless the event is of its kind`);
    }
  });
}

function checkField(want: RowField, got: RowField, position: number, parent: string): void {
  const path = parent + want.name;
  if (got.name.toLowerCase() !== want.name.toLowerCase()) {
    const where = parent === '' ? `column ${position}` : `field ${position} of '${parent.slice(0, -1)}'`;
    throw mismatch(`nexmark ${where} must be '${want.name}', got '${got.name}'`);
  }
  if (!compatible(want.type, got.type)) {
    throw mismatch(`nexmark ${parent === '' ? 'column' : 'field'} '${path}' must be ${describe(want.type)}, got ${formatType(got.type)}`);
  }
  if (want.type.kind !== 'ROW' || got.type.kind !== 'ROW') return;
  const wantFields = want.type.fields;
  const gotFields = got.type.fields;
  if (wantFields.length !== gotFields.length) {
    throw mismatch(`nexmark column '${path}' must have ${wantFields.length} fields (${wantFields.map((f) => f.name).join(', ')}), got ${gotFields.length}`);
  }
  wantFields.forEach((f, j) => checkField(f, gotFields[j]!, j + 1, `${path}.`));
}

function compatible(want: SqlType, got: SqlType): boolean {
  if (want.kind !== got.kind) return false;
  if (want.kind === 'TIMESTAMP' && got.kind === 'TIMESTAMP') return got.precision === want.precision;
  return true;
}

function describe(type: SqlType): string {
  if (type.kind === 'VARCHAR') return 'VARCHAR';
  if (type.kind === 'ROW') return `ROW<${type.fields.map((f) => `${f.name} ${describe(f.type)}`).join(', ')}>`;
  return formatType(type).replace(/ NOT NULL$/, '');
}

function mismatch(message: string): WeirError {
  return new WeirError('INVALID_OPTION', message, { hint: 'declare the table as the published nexmark ddl.sql does' });
}
