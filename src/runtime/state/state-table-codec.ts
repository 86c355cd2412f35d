/**
 * How a state table's entries go into a snapshot. V8's serializer writes a Map of small arrays
 * (a GROUP BY's accumulators) at about 300 ns an entry, most of it tracking each array's identity
 * for back-references that flat state never has. Entries whose values are arrays of one length
 * holding only primitives are therefore written transposed: the keys and each array position as a
 * column, numbers in typed arrays (copied as bytes), other primitives in packed arrays (V8 writes
 * holey ones property by property). Any other table (map and list state, nested values, arrays of
 * differing lengths) stays a Map. Both forms restore to the same entries, with a fresh array per
 * key; snapshots written before the columnar form existed hold only Maps and restore unchanged.
 */
import type { Key } from '../../common/key-codec.js';

/**
 * A column of a transposed table: numbers in a typed array (Int32Array when every one is an int32,
 * else Float64Array, which keeps -0 and NaN), any other primitives in a packed array.
 */
export type Column = Int32Array | Float64Array | unknown[];

/** A table's entries transposed: `columns[j][i]` is element j of the value of `keys[i]`. */
export interface ColumnarEntries {
  readonly keys: Column;
  readonly columns: Column[];
}

/** The entries as a snapshot holds them. */
export type EncodedEntries = Map<Key, unknown> | ColumnarEntries;

/**
 * The columnar form of `entries` when every value is an array of one length holding only
 * primitives (at least one entry); otherwise the Map itself (serialized as it is).
 */
export function encodeEntries(entries: Map<Key, unknown>): EncodedEntries {
  const first: unknown = entries.values().next().value;
  if (!Array.isArray(first)) return entries;
  const width = first.length;
  const keys = new ColumnBuilder(entries.size);
  const columns: ColumnBuilder[] = [];
  for (let j = 0; j < width; j++) columns.push(new ColumnBuilder(entries.size));
  for (const [key, value] of entries) {
    if (!Array.isArray(value) || value.length !== width) return entries;
    for (let j = 0; j < width; j++) {
      const element: unknown = value[j];
      if (element !== null && typeof element === 'object') return entries;
      columns[j]!.add(element);
    }
    keys.add(key);
  }
  return { keys: keys.build(), columns: columns.map((c) => c.build()) };
}

/** Collects one column: in a Float64Array while every value is a number, then in a packed array. */
class ColumnBuilder {
  private numbers: Float64Array | undefined;
  private values: unknown[] | undefined;
  private int32 = true;
  private size = 0;

  constructor(capacity: number) {
    this.numbers = new Float64Array(capacity);
  }

  add(value: unknown): void {
    const numbers = this.numbers;
    if (numbers !== undefined && typeof value === 'number') {
      numbers[this.size++] = value;
      if ((value | 0) !== value || (value === 0 && 1 / value < 0)) this.int32 = false;
      return;
    }
    if (numbers !== undefined) {
      this.values = Array.from(numbers.subarray(0, this.size));
      this.numbers = undefined;
    }
    this.values!.push(value);
    this.size++;
  }

  build(): Column {
    const numbers = this.numbers;
    if (numbers === undefined) return this.values!;
    return this.int32 ? Int32Array.from(numbers) : numbers;
  }
}

/** Calls `add` with every entry of an encoded table, each columnar value a fresh array. */
export function forEachDecodedEntry(encoded: EncodedEntries, add: (key: Key, value: unknown) => void): void {
  if (encoded instanceof Map) {
    encoded.forEach((value, key) => add(key, value));
    return;
  }
  const { keys, columns } = encoded;
  const width = columns.length;
  for (let i = 0; i < keys.length; i++) {
    const value: unknown[] = [];
    for (let j = 0; j < width; j++) value.push(columns[j]![i]);
    add(keys[i] as Key, value);
  }
}
