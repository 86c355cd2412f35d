/** How the CLI shows one value of a row from the programmatic API in a table cell. */
import { LocalZonedTimestamp } from '../engine/api-values.js';

/** A value as text: NULL for SQL NULL, timestamps without the ISO `T`/`Z` (a TIMESTAMP_LTZ in its session zone), collections as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof LocalZonedTimestamp) return value.toZonedString();
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (value instanceof Map) return JSON.stringify(Object.fromEntries(value));
  if (typeof value === 'object') return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}
