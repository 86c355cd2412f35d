/**
 * Values as the programmatic API hands them out: plain JavaScript that loses nothing — DECIMAL as
 * its exact text (`'12.50'`), TIMESTAMP as a Date (its wall-clock time read as UTC; a
 * {@link PreciseTimestamp}, a Date with its nanoseconds, for TIMESTAMP(p > 3)), TIMESTAMP_LTZ
 * as a {@link LocalZonedTimestamp} (a Date of the instant that knows the session zone, and its
 * nanoseconds for p > 3), DATE and
 * TIME as ISO text, ROW as an object keyed by field name, ARRAY as an array, MAP as a Map,
 * BINARY/VARBINARY/BYTES as a Uint8Array (the engine's own value: treat it as read-only); NULL
 * as null.
 */
import type { Row } from '../common/row.js';
import type { Schema } from '../common/schema.js';
import type { SqlType } from '../common/sql-type.js';
import { formatTimestamp } from '../common/datetime.js';
import { formatTimestampNanos, MAX_MILLIS_PRECISION, millisOfNanos, nanoOfMilliOf, nanosOfMillis } from '../common/epoch-nanos.js';
import { localOf, localOfNanos, UTC_ZONE } from '../common/time-zone.js';
import { formatValue } from '../common/value-format.js';

/**
 * A TIMESTAMP_LTZ value: a Date of the instant (so `getTime()` and `toISOString()` are exact to the
 * millisecond), carrying the session zone it is shown in, as Flink shows TIMESTAMP_LTZ in
 * `table.local-time-zone`; for a TIMESTAMP_LTZ(p > 3) also the nanoseconds within the millisecond.
 */
export class LocalZonedTimestamp extends Date {
  constructor(
    millis: number,
    /** The resolved session zone (`table.local-time-zone`). */
    readonly timeZone: string,
    /** The nanoseconds within the millisecond (0..999999): nonzero only for a TIMESTAMP_LTZ(p > 3). */
    readonly nanoOfMillisecond: number = 0,
    /** The type's precision (fraction digits of the second). */
    readonly precision: number = 3,
  ) {
    super(millis);
  }

  /** The instant in nanoseconds since the epoch, exactly. */
  get epochNanos(): bigint {
    return nanosOfMillis(this.getTime(), this.nanoOfMillisecond);
  }

  /** `yyyy-MM-dd HH:mm:ss.SSS` (the type's fraction digits, at least three): the instant's wall-clock time in {@link timeZone}, as the SQL client shows it. */
  toZonedString(): string {
    const precision = Math.max(MAX_MILLIS_PRECISION, this.precision);
    if (precision === MAX_MILLIS_PRECISION) return formatTimestamp(localOf(this.getTime(), this.timeZone), precision);
    return formatTimestampNanos(localOfNanos(this.epochNanos, this.timeZone), precision);
  }
}

/**
 * A TIMESTAMP(p) value with p > 3: a Date of its wall-clock time read as UTC (exact to the
 * millisecond, as the Date of a TIMESTAMP(3)), with the nanoseconds within the millisecond.
 */
export class PreciseTimestamp extends Date {
  constructor(
    /** The wall-clock time in nanoseconds since 1970-01-01 00:00:00. */
    readonly epochNanos: bigint,
    /** The type's precision (fraction digits of the second, 4..9). */
    readonly precision: number,
  ) {
    super(millisOfNanos(epochNanos));
  }

  /** The nanoseconds within the millisecond (0..999999). */
  get nanoOfMillisecond(): number {
    return nanoOfMilliOf(this.epochNanos);
  }

  /** `yyyy-MM-dd HH:mm:ss.ffffff`, with the type's fraction digits, as Flink's SQL client shows it. */
  toSqlString(): string {
    return formatTimestampNanos(this.epochNanos, this.precision);
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
      return typeof value === 'bigint' ? new PreciseTimestamp(value, type.precision) : new Date(value as number);
    case 'TIMESTAMP_LTZ':
      if (typeof value === 'bigint') return new LocalZonedTimestamp(millisOfNanos(value), zone, nanoOfMilliOf(value), type.precision);
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
