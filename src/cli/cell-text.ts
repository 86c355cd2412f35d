/** How the CLI shows one value of a row from the programmatic API in a table cell. */
import { LocalZonedTimestamp, PreciseTimestamp } from '../engine/api-values.js';

/**
 * A value as text: NULL for SQL NULL, timestamps without the ISO `T`/`Z` (with every fraction digit of a TIMESTAMP(p > 3); a TIMESTAMP_LTZ in its
 * session zone), binary strings as Flink's SQL client prints them (`x'0aff'`), collections as JSON.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof LocalZonedTimestamp) return value.toZonedString();
  if (value instanceof PreciseTimestamp) return value.toSqlString();
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (value instanceof Uint8Array) return bytesText(value);
  if (value instanceof Map) return JSON.stringify(Object.fromEntries(value), jsonReplacer);
  if (typeof value === 'object') return JSON.stringify(value, jsonReplacer);
  return String(value);
}

function jsonReplacer(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  return v instanceof Uint8Array ? bytesText(v) : v;
}

/** `x'0aff'`. */
function bytesText(bytes: Uint8Array): string {
  return `x'${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}'`;
}
