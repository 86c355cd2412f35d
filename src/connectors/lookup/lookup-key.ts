/** The encoding of a lookup key (one value per key column) shared by lookup functions and their caches. */
import { encodeComponent } from '../../common/key-codec.js';
import type { Row } from '../../common/row.js';

/** The values `values` as one string; equal keys (under key-codec equality) encode equally. */
export function encodeLookupKey(values: readonly unknown[]): string {
  let encoded = '';
  for (const value of values) encoded += encodeComponent(value);
  return encoded;
}

/** The key of a table row: its values at `columns`, or undefined when one of them is NULL (such a row matches nothing). */
export function tableRowKey(row: Row, columns: readonly number[]): string | undefined {
  let encoded = '';
  for (const column of columns) {
    const value = row[column];
    if (value === null || value === undefined) return undefined;
    encoded += encodeComponent(value);
  }
  return encoded;
}
