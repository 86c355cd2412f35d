/** How the CLI shows one value of a row from the programmatic API in a table cell. */

/** A value as text: NULL for SQL NULL, timestamps without the ISO `T`/`Z`, collections as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (value instanceof Map) return JSON.stringify(Object.fromEntries(value));
  if (typeof value === 'object') return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}
