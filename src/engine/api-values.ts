/**
 * Values as the programmatic API hands them out: plain JavaScript that loses nothing — DECIMAL as
 * its exact text (`'12.50'`), TIMESTAMP as a Date (its wall-clock time read as UTC), TIMESTAMP_LTZ
 * as a {@link LocalZonedTimestamp} (a Date of the instant that knows the session zone), DATE and
 * TIME as ISO text, ROW as an object keyed by field name, ARRAY as an array, MAP as a Map,
 * BINARY/VARBINARY/BYTES as a Uint8Array (the engine's own value: treat it as read-only); NULL
 * as null.
 */
import type { Row } from '../common/row.js';
import type { Schema } from '../common/schema.js';
import type { SqlType } from '../common/sql-type.js';
import { formatTimestamp } from '../common/datetime.js';
import { localOf, UTC_ZONE } from '../common/time-zone.js';
import { formatValue } from '../common/value-format.js';

/**
 * A TIMESTAMP_LTZ value: a Date of the instant (so `getTime()` and `toISOString()` are exact),
 * carrying the session zone it is shown in, as Flink shows TIMESTAMP_LTZ in `table.local-time-zone`.
 */
export class LocalZonedTimestamp extends Date {
  constructor(
    millis: number,
    /** The resolved session zone (`table.local-time-zone`). */
    readonly timeZone: string,
  ) {
    super(millis);
  }

  /** `yyyy-MM-dd HH:mm:ss.SSS`: the instant's wall-clock time in {@link timeZone}, as the SQL client shows it. */
  toZonedString(): string {
    return formatTimestamp(localOf(this.getTime(), this.timeZone), 3);
  }
}

/** A row as an object keyed by column name. */
export type ApiRow = Record<string, unknown>;

/** The API form of one value; `zone` is the session zone TIMESTAMP_LTZ values are shown in. */
export function toApiValue(value: unknown, type: SqlType, zone: string = UTC_ZONE): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'DECIMAL':
    case 'DATE':
    case 'TIME':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return formatValue(value, type);
    case 'TIMESTAMP':
      return new Date(value as number);
    case 'TIMESTAMP_LTZ':
      return new LocalZonedTimestamp(value as number, zone);
    case 'ROW':
      return Object.fromEntries(type.fields.map((f, i) => [f.name, toApiValue((value as unknown[])[i], f.type, zone)]));
    case 'ARRAY':
      return (value as unknown[]).map((v) => toApiValue(v, type.element, zone));
    case 'MAP':
      return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [toApiValue(k, type.key, zone), toApiValue(v, type.value, zone)]));
    default:
      return value;
  }
}

/** A row as an object keyed by the schema's column names. */
export function toApiRow(row: Row, schema: Schema, zone: string = UTC_ZONE): ApiRow {
  const result: ApiRow = {};
  for (let i = 0; i < schema.length; i++) result[schema[i]!.name] = toApiValue(row[i], schema[i]!.type, zone);
  return result;
}
