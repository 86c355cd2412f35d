/**
 * Values as the programmatic API hands them out: plain JavaScript that loses nothing — DECIMAL as
 * its exact text (`'12.50'`), TIMESTAMP as a Date, DATE and TIME as ISO text, ROW as an object
 * keyed by field name, ARRAY as an array, MAP as a Map, BINARY/VARBINARY/BYTES as a Uint8Array
 * (the engine's own value: treat it as read-only); NULL as null.
 */
import type { Row } from '../common/row.js';
import type { Schema } from '../common/schema.js';
import type { SqlType } from '../common/sql-type.js';
import { formatValue } from '../common/value-format.js';

/** A row as an object keyed by column name. */
export type ApiRow = Record<string, unknown>;

/** The API form of one value. */
export function toApiValue(value: unknown, type: SqlType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'DECIMAL':
    case 'DATE':
    case 'TIME':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return formatValue(value, type);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return new Date(value as number);
    case 'ROW':
      return Object.fromEntries(type.fields.map((f, i) => [f.name, toApiValue((value as unknown[])[i], f.type)]));
    case 'ARRAY':
      return (value as unknown[]).map((v) => toApiValue(v, type.element));
    case 'MAP':
      return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [toApiValue(k, type.key), toApiValue(v, type.value)]));
    default:
      return value;
  }
}

/** A row as an object keyed by the schema's column names. */
export function toApiRow(row: Row, schema: Schema): ApiRow {
  const result: ApiRow = {};
  for (let i = 0; i < schema.length; i++) result[schema[i]!.name] = toApiValue(row[i], schema[i]!.type);
  return result;
}
