/**
 * Renders values as Flink's `CAST(x AS STRING)` does; the print sink, the REPL and CAST share it.
 * Binary strings are the exception: they render as Flink prints them (`x'0aff'`, its SQL client's
 * and print sink's form), while `CAST(... AS STRING)` decodes them as UTF-8, at the top level and
 * nested in a ROW, ARRAY or MAP (see expr/cast.ts).
 */
import { formatBytes } from './bytes.js';
import { formatDecimal } from './decimal.js';
import { formatDate, formatTimeOfDay, formatTimestamp } from './datetime.js';
import { formatTimestampNanos } from './epoch-nanos.js';
import { invariant } from './errors.js';
import type { SqlType } from './sql-type.js';
import { localOf, localOfNanos, UTC_ZONE } from './time-zone.js';

/**
 * The text of a non-NULL value of `type`, as Flink's CAST to STRING: `TRUE`, `1.0E7`, `10.500`,
 * `2020-01-01 12:00:00.000`, `+0 00:00:04.000`, `(1, a)`, `[1, 2]`, `{a=1, b=2}`, `x'0aff'`.
 * The value must not be NULL: how a top-level NULL is shown is the caller's choice; NULLs nested
 * in a ROW, ARRAY or MAP render as `NULL`. A TIMESTAMP_LTZ instant is shown as its wall-clock time
 * in `zone` (a resolved `table.local-time-zone`; UTC when not given). `binary` renders binary
 * strings (default `x'0aff'`, the print form; CAST passes its UTF-8 decoding, as Flink's collection
 * and row cast rules cast each element with the binary-to-string rule).
 */
export function formatValue(value: unknown, type: SqlType, zone: string = UTC_ZONE, binary: (bytes: Uint8Array) => string = formatBytes): string {
  invariant(value !== null && value !== undefined, 'formatValue called with NULL');
  switch (type.kind) {
    case 'BOOLEAN':
      return value ? 'TRUE' : 'FALSE';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return String(value);
    case 'FLOAT':
      return formatFloat(value as number);
    case 'DOUBLE':
      return formatDouble(value as number);
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return value as string;
    case 'BINARY':
    case 'VARBINARY':
      return binary(value as Uint8Array);
    case 'DATE':
      return formatDate(value as number);
    case 'TIME':
      return formatTimeOfDay(value as number, type.precision);
    case 'TIMESTAMP':
      return typeof value === 'bigint' ? formatTimestampNanos(value, type.precision) : formatTimestamp(value as number, type.precision);
    case 'TIMESTAMP_LTZ':
      return typeof value === 'bigint' ? formatTimestampNanos(localOfNanos(value, zone), type.precision) : formatTimestamp(localOf(value as number, zone), type.precision);
    case 'INTERVAL_DAY_TIME':
      return formatIntervalDayTime(value as number);
    case 'INTERVAL_YEAR_MONTH':
      return formatIntervalYearMonth(value as number);
    case 'ROW': {
      const row = value as readonly unknown[];
      return `(${type.fields.map((field, i) => formatNested(row[i], field.type, zone, binary)).join(', ')})`;
    }
    case 'ARRAY':
      return `[${(value as readonly unknown[]).map((element) => formatNested(element, type.element, zone, binary)).join(', ')}]`;
    case 'MAP': {
      const entries: string[] = [];
      for (const [k, v] of value as ReadonlyMap<unknown, unknown>) {
        entries.push(`${formatNested(k, type.key, zone, binary)}=${formatNested(v, type.value, zone, binary)}`);
      }
      return `{${entries.join(', ')}}`;
    }
    case 'NULL':
      return 'NULL';
  }
}

function formatNested(value: unknown, type: SqlType, zone: string, binary: (bytes: Uint8Array) => string): string {
  return value === null || value === undefined ? 'NULL' : formatValue(value, type, zone, binary);
}

/** Java's `Double.toString`: `1.0`, `0.5`, `1.0E7`, `1.234E-5`, `NaN`, `Infinity`, `-0.0`. */
export function formatDouble(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  return javaStyle(value.toExponential());
}

/** Java's `Float.toString` for a value held as a double: the shortest digits that read back as the same float. */
export function formatFloat(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const float = Math.fround(value);
  for (let digits = 1; digits < 9; digits++) {
    const text = float.toExponential(digits - 1);
    if (Math.fround(Number(text)) === float) return javaStyle(text);
  }
  return javaStyle(float.toExponential(8));
}

/** Renders JS exponential notation (`-1.234e-5`) the way Java prints doubles. */
function javaStyle(exponential: string): string {
  const e = exponential.indexOf('e');
  const exponent = Number(exponential.slice(e + 1));
  const negative = exponential.startsWith('-');
  const digits = exponential.slice(negative ? 1 : 0, e).replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent >= -3 && exponent < 7) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const integer = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${integer}.${fraction === '' ? '0' : fraction}`;
  }
  const fraction = digits.slice(1);
  return `${sign}${digits[0]}.${fraction === '' ? '0' : fraction}E${exponent}`;
}

/** Flink's rendering of INTERVAL DAY TO SECOND(3) milliseconds: `+0 00:00:04.000`, `-1 02:00:00.000`. */
export function formatIntervalDayTime(millis: number): string {
  const sign = millis < 0 ? '-' : '+';
  const abs = Math.abs(millis);
  const days = Math.floor(abs / 86_400_000);
  return `${sign}${days} ${formatTimeOfDay(abs - days * 86_400_000, 3)}`;
}

/** Flink's rendering of INTERVAL YEAR TO MONTH months: `+1-02`, `-0-06`. */
export function formatIntervalYearMonth(months: number): string {
  const sign = months < 0 ? '-' : '+';
  const abs = Math.abs(months);
  return `${sign}${Math.floor(abs / 12)}-${String(abs % 12).padStart(2, '0')}`;
}
