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
  return columnar([...entries.keys()], [...entries.values()]) ?? entries;
}

/**
 * {@link encodeEntries} of entries held as parallel arrays (distinct keys, as a snapshot writer
 * collects them, without building a Map first): the columnar form when it applies, else a Map.
 */
export function encodeEntryArrays(keys: readonly Key[], values: readonly unknown[]): EncodedEntries {
  return columnar(keys, values) ?? new Map(keys.map((key, i) => [key, values[i]]));
}

/** The columns of the values, or undefined when they are not all flat arrays of one length. */
function columnar(keys: readonly Key[], values: readonly unknown[]): ColumnarEntries | undefined {
  const first: unknown = values[0];
  if (!Array.isArray(first)) return undefined;
  const width = first.length;
  const count = keys.length;
  const keyColumn = new ColumnBuilder(count);
  const columns: ColumnBuilder[] = [];
  for (let j = 0; j < width; j++) columns.push(new ColumnBuilder(count));
  for (let i = 0; i < count; i++) {
    const value: unknown = values[i];
    if (!Array.isArray(value) || value.length !== width) return undefined;
    for (let j = 0; j < width; j++) {
      const element: unknown = value[j];
      if (element !== null && typeof element === 'object') return undefined;
      columns[j]!.add(element);
    }
    keyColumn.add(keys[i]);
  }
  return { keys: keyColumn.build(), columns: columns.map((c) => c.build()) };
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
  const row = rowBuilder(columns);
  for (let i = 0; i < keys.length; i++) add(keys[i] as Key, row(i));
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
