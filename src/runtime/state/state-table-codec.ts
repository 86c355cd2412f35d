/**
 * How a state table's entries go into a snapshot. V8's serializer writes a Map of small arrays
 * (a GROUP BY's accumulators) at about 300 ns an entry, most of it tracking each array's identity
 * for back-references that flat state never has. Entries are therefore written transposed when
 * their values have one of two plain shapes:
 * - every value an array of one length holding only primitives (accumulators): the keys and each
 *   array position as a column;
 * - every value an array of such arrays, all of one width (the rows a join, a rank or an OVER
 *   aggregate keeps per key in list state): the keys, the number of rows of each key (`counts`),
 *   and the rows of all keys one after the other, each row position as a column.
 * Numbers go in typed arrays (copied as bytes), other primitives in packed arrays (V8 writes holey
 * ones property by property). Any other table (map state, nested values, arrays of differing
 * lengths, binary strings) stays a Map. Every form restores to the same entries, with fresh arrays
 * (a fresh list of fresh rows per key); snapshots written before the columnar forms existed hold
 * only Maps and restore unchanged.
 */
import type { Key } from '../../common/key-codec.js';

/**
 * A column of a transposed table: numbers in a typed array (Int32Array when every one is an int32,
 * else Float64Array, which keeps -0 and NaN), any other primitives in a packed array.
 */
export type Column = Int32Array | Float64Array | unknown[];

/**
 * A table's entries transposed. Without `counts`, `columns[j][i]` is element j of the value of
 * `keys[i]`. With `counts`, the value of `keys[i]` is a list of `counts[i]` rows, the rows of all
 * keys being stored in key order: `columns[j][r]` is element j of row r.
 */
export interface ColumnarEntries {
  readonly keys: Column;
  readonly columns: Column[];
  readonly counts?: Int32Array;
}

/** The entries as a snapshot holds them. */
export type EncodedEntries = Map<Key, unknown> | ColumnarEntries;

/**
 * The columnar form of `entries` when every value is an array of one length holding only
 * primitives (at least one entry); otherwise the Map itself (serialized as it is).
 */
export function encodeEntries(entries: Map<Key, unknown>): EncodedEntries {
  const keys = [...entries.keys()];
  const values = [...entries.values()];
  return columnar(keys, values) ?? columnarLists(keys, values) ?? entries;
}

/**
 * {@link encodeEntries} of entries held as parallel arrays (distinct keys, as a snapshot writer
 * collects them, without building a Map first): the columnar form when it applies, else a Map.
 */
export function encodeEntryArrays(keys: readonly Key[], values: readonly unknown[]): EncodedEntries {
  return columnar(keys, values) ?? columnarLists(keys, values) ?? new Map(keys.map((key, i) => [key, values[i]]));
}

/** True for a value a column holds: anything but an object (null included). */
const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';

/** The columns of the values, or undefined when they are not all flat arrays of one length. */
function columnar(keys: readonly Key[], values: readonly unknown[]): ColumnarEntries | undefined {
  const first: unknown = values[0];
  if (!Array.isArray(first)) return undefined;
  // A list of rows (or any nested value) is told apart before a column per element is allocated.
  for (const element of first as unknown[]) if (!isPrimitive(element)) return undefined;
  const keyColumn = new ColumnBuilder();
  const columns = columnBuilders(first.length);
  for (let i = 0; i < keys.length; i++) {
    if (!addRow(columns, values[i])) return undefined;
    keyColumn.add(keys[i]);
  }
  return { keys: keyColumn.build(), columns: columns.map((c) => c.build()) };
}

/**
 * The transposed form of values that are all lists of rows of one width holding only primitives
 * (see the module comment), or undefined for any other values. Lists may be empty; a table whose
 * rows are all missing (only empty lists) has no width to take and stays a Map.
 */
function columnarLists(keys: readonly Key[], values: readonly unknown[]): ColumnarEntries | undefined {
  const firstRow: unknown = (values.find((list) => Array.isArray(list) && list.length > 0) as unknown[] | undefined)?.[0];
  if (!Array.isArray(firstRow)) return undefined;
  const keyColumn = new ColumnBuilder();
  const counts = new Int32Array(keys.length);
  const columns = columnBuilders(firstRow.length);
  for (let i = 0; i < keys.length; i++) {
    const list: unknown = values[i];
    if (!Array.isArray(list)) return undefined;
    for (let r = 0; r < list.length; r++) if (!addRow(columns, list[r])) return undefined;
    counts[i] = list.length;
    keyColumn.add(keys[i]);
  }
  return { keys: keyColumn.build(), columns: columns.map((c) => c.build()), counts };
}

/** Adds each element of `row` to its column; false when `row` is not an array of primitives, one per column. */
function addRow(columns: readonly ColumnBuilder[], row: unknown): boolean {
  if (!Array.isArray(row) || row.length !== columns.length) return false;
  for (let j = 0; j < columns.length; j++) {
    const element: unknown = row[j];
    if (!isPrimitive(element)) return false;
    columns[j]!.add(element);
  }
  return true;
}

/** A builder per column. */
function columnBuilders(width: number): ColumnBuilder[] {
  return Array.from({ length: width }, () => new ColumnBuilder());
}

/**
 * Collects one column: in a Float64Array while every value is a number (an Int32Array at the end
 * when every one is an int32 and not -0), else in a packed array — from the first value on when
 * that is not a number (a column of strings never allocates a typed array). The typed array starts
 * small and doubles: a chunk's columns may hold millions of rows, and a zeroed buffer of the final
 * size allocated up front costs more than the copies.
 */
class ColumnBuilder {
  private numbers: Float64Array | undefined;
  private values: unknown[] | undefined;
  private int32 = true;
  private size = 0;

  add(value: unknown): void {
    let numbers = this.numbers;
    if (numbers === undefined && this.values === undefined) {
      if (typeof value !== 'number') this.values = [];
      else this.numbers = numbers = new Float64Array(INITIAL_COLUMN_CAPACITY);
    }
    if (numbers !== undefined) {
      if (typeof value === 'number') {
        if (this.size === numbers.length) {
          const grown = new Float64Array(numbers.length * 2);
          grown.set(numbers);
          this.numbers = numbers = grown;
        }
        numbers[this.size++] = value;
        if ((value | 0) !== value || (value === 0 && 1 / value < 0)) this.int32 = false;
        return;
      }
      this.values = Array.from(numbers.subarray(0, this.size));
      this.numbers = undefined;
    }
    this.values!.push(value);
    this.size++;
  }

  build(): Column {
    const numbers = this.numbers;
    if (numbers === undefined) return this.values ?? [];
    const used = numbers.subarray(0, this.size);
    return this.int32 ? new Int32Array(used) : used.slice();
  }
}

/** Rows a column's typed array holds before it first grows. */
const INITIAL_COLUMN_CAPACITY = 1024;

/**
 * Calls `add` with every entry of an encoded table (and its position among the entries), each
 * columnar value a fresh array; an entry whose key `skip` accepts is passed over without building
 * its value.
 */
export function forEachDecodedEntry(encoded: EncodedEntries, add: (key: Key, value: unknown, index: number) => void, skip?: (key: Key) => boolean): void {
  if (encoded instanceof Map) {
    let index = 0;
    encoded.forEach((value, key) => {
      if (skip === undefined || !skip(key)) add(key, value, index);
      index++;
    });
    return;
  }
  const { keys, columns, counts } = encoded;
  const row = rowBuilder(columns);
  if (counts === undefined) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as Key;
      if (skip === undefined || !skip(key)) add(key, row(i), i);
    }
    return;
  }
  let next = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as Key;
    const end = next + counts[i]!;
    if (skip !== undefined && skip(key)) {
      next = end;
      continue;
    }
    const list: unknown[] = [];
    for (; next < end; next++) list.push(row(next));
    add(key, list, i);
  }
}

/**
 * Builds the value of row `i` of the columns. Widths up to 8 are array literals: V8 then
 * allocates each value at its final length in one go and, seeing from the literal's allocation
 * site that the values live on, allocates them in the old generation directly — a restore of
 * millions of keys otherwise spends most of its time copying young arrays in scavenges.
 */
function rowBuilder(columns: readonly Column[]): (i: number) => unknown[] {
  const [a, b, c, d, e, f, g, h] = columns as readonly (Column | undefined)[];
  switch (columns.length) {
    case 0:
      return () => [];
    case 1:
      return (i) => [a![i]];
    case 2:
      return (i) => [a![i], b![i]];
    case 3:
      return (i) => [a![i], b![i], c![i]];
    case 4:
      return (i) => [a![i], b![i], c![i], d![i]];
    case 5:
      return (i) => [a![i], b![i], c![i], d![i], e![i]];
    case 6:
      return (i) => [a![i], b![i], c![i], d![i], e![i], f![i]];
    case 7:
      return (i) => [a![i], b![i], c![i], d![i], e![i], f![i], g![i]];
    case 8:
      return (i) => [a![i], b![i], c![i], d![i], e![i], f![i], g![i], h![i]];
    default:
      return (i) => {
        const value: unknown[] = [];
        for (let j = 0; j < columns.length; j++) value.push(columns[j]![i]);
        return value;
      };
  }
}
