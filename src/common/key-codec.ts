/**
 * Keys for keyed state and partitioning. A single-column key is the column's value itself (a
 * JavaScript primitive, so Map lookups need no encoding); a composite key is a string built from
 * its components with length prefixes, so that no component can be confused with a separator.
 * Keys are only compared for equality and hashed; their order carries no meaning. Whole rows can
 * be compared and hashed under the same equality without being encoded (for indexes of rows).
 * A BIGINT is a number or a bigint depending only on its value (int64.ts), so one value always
 * has one key, one encoding and one hash.
 */
import { bytesToHex } from './bytes.js';
import type { Row } from './row.js';

/** A state key: a primitive value (single column) or an encoded composite key. */
export type Key = string | number | boolean | bigint | null;

/** Extracts the key of a row. */
export type KeySelector = (row: Row) => Key;

/**
 * The key of the given columns: the value itself for one column (its encoding when it is an
 * ARRAY, ROW or MAP value or a binary string, which are objects that Map lookups would compare by
 * identity: equal bytes give equal keys), an
 * encoded string otherwise.
 * A composite selector remembers the last row's primitive components and their encodings (rows
 * of one window, or of one group, arrive in runs): unchanged components are not encoded again,
 * and a key whose components all repeat is the previous string itself, whose hash V8 has
 * already computed. Objects are always encoded afresh.
 */
export function keySelector(indexes: readonly number[]): KeySelector {
  if (indexes.length === 0) return () => null;
  if (indexes.length === 1) {
    const index = indexes[0]!;
    return (row) => {
      const value = row[index];
      return typeof value === 'object' && value !== null ? encodeComponent(value) : (value as Key);
    };
  }
  if (indexes.length === 2) {
    const [a, b] = indexes as [number, number];
    let lastA: unknown;
    let lastB: unknown;
    let codeA = encodeComponent(undefined);
    let codeB = codeA;
    let key = codeA + codeB;
    return (row) => {
      const x = row[a];
      const y = row[b];
      const sameA = x === lastA && typeof x !== 'object';
      const sameB = y === lastB && typeof y !== 'object';
      if (sameA && sameB) return key;
      if (!sameA) codeA = encodeComponent((lastA = x));
      if (!sameB) codeB = encodeComponent((lastB = y));
      return (key = codeA + codeB);
    };
  }
  const values: unknown[] = indexes.map(() => undefined);
  const codes: string[] = indexes.map(() => encodeComponent(undefined));
  let key = codes.join('');
  return (row) => {
    let changed = false;
    for (let i = 0; i < indexes.length; i++) {
      const value = row[indexes[i]!];
      if (value === values[i] && typeof value !== 'object') continue;
      values[i] = value;
      codes[i] = encodeComponent(value);
      changed = true;
    }
    if (!changed) return key;
    key = '';
    for (let i = 0; i < codes.length; i++) key += codes[i];
    return key;
  };
}

/** Encodes one key component; strings are length-prefixed, so the concatenation is unambiguous. */
export function encodeComponent(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return 'n' + value + ';';
    case 'string':
      return 's' + value.length + ':' + value;
    case 'boolean':
      return value ? 't' : 'f';
    case 'bigint':
      return 'd' + value + ';';
    case 'object':
      if (value === null) return '~';
      return 'j' + encodeNested(value) + ';';
    default:
      return 'u';
  }
}

function encodeNested(value: object): string {
  if (value instanceof Uint8Array) return 'x' + bytesToHex(value);
  if (Array.isArray(value)) {
    const body = value.map((v) => encodeComponent(v)).join('');
    return body.length + ':' + body;
  }
  if (value instanceof Map) {
    const body = [...value].map(([k, v]) => encodeComponent(k) + encodeComponent(v)).sort().join('');
    return 'm' + body.length + ':' + body;
  }
  const text = String(value);
  return text.length + ':' + text;
}

/**
 * True when two rows would encode to the same composite key (every column equal under
 * {@link encodeComponent}: NaN equals NaN, -0 equals 0, nested values compare by their
 * encoding), without building the encoding for primitive columns.
 */
export function rowsEqual(a: Row, b: Row): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x !== typeof y) return false;
    if (typeof x === 'number') {
      if (x === x || y === y) return false;
    } else if (typeof x !== 'object' || x === null || y === null || encodeComponent(x) !== encodeComponent(y)) return false;
  }
  return true;
}

/**
 * A 30-bit hash of a whole row, consistent with {@link rowsEqual} (equal rows hash equally), that
 * allocates nothing for numbers, strings and booleans. Like {@link hashKey} it is the same across
 * processes and platforms, because state kept in checkpoints (a join's counted rows) is indexed
 * by it; it fits a small integer, so a Map keyed by it does not box its keys.
 */
export function hashRow(row: Row): number {
  let h = 0x9747b28c ^ row.length;
  for (let i = 0; i < row.length; i++) {
    h = Math.imul(h ^ hashComponent(row[i]), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return mix32(h) & 0x3fffffff;
}

const doubleBits = new DataView(new ArrayBuffer(8));

function hashComponent(value: unknown): number {
  switch (typeof value) {
    case 'number':
      if ((value | 0) === value) return value | 0;
      if (Number.isSafeInteger(value)) return (value | 0) ^ Math.imul(Math.floor(value / 0x100000000) | 0, 0x9e3779b1);
      if (value !== value) return 0x7ff80000;
      doubleBits.setFloat64(0, value, true);
      return doubleBits.getInt32(0, true) ^ Math.imul(doubleBits.getInt32(4, true), 0x9e3779b1);
    case 'string':
      return hashString(value);
    case 'boolean':
      return value ? 0x5bd1e995 : 0x1b873593;
    case 'object':
      return value === null ? 0x2f6b3a1d : hashString(encodeComponent(value));
    default:
      return hashString(encodeComponent(value));
  }
}

/**
 * A stable 32-bit hash of a key (Murmur3's finaliser over the key's bits or characters), the
 * same across processes and runs, so that key groups survive restarts; unsigned.
 */
export function hashKey(key: Key): number {
  return hashKeyBits(key) >>> 0;
}

/**
 * {@link hashKey}'s bits as a signed 32-bit integer: V8 keeps it a small integer, where the
 * unsigned value beyond 2^31 is a heap number — allocated on every call that is not inlined.
 * For callers that need the key group and more bits of the same hash ({@link keyGroupOfHash}).
 */
export function hashKeyBits(key: Key): number {
  switch (typeof key) {
    case 'number':
      return Number.isInteger(key) && Math.abs(key) <= 0x7fffffff ? mix32(key | 0) : hashString('n' + key);
    case 'string':
      return hashString(key);
    case 'boolean':
      return key ? 0x5bd1e995 : 0x1b873593;
    case 'bigint':
      return hashString('d' + key);
    default:
      return 0;
  }
}

function hashString(text: string): number {
  let h = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return mix32(h);
}

function mix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * The key group of a key: `hashKey(key) % maxParallelism`, as Flink assigns them. The unsigned
 * hash is a double beyond 2^31, where `%` is a floating-point remainder (a call, ~20 ns), so this
 * works on its signed bits: a power of two of key groups (the default 128) takes the low bits;
 * other numbers up to 2^15 compute the same remainder from the hash's two 16-bit halves in
 * small-integer arithmetic: ((hi mod m)·(2^16 mod m) + lo) mod m.
 */
export function keyGroupOf(key: Key, maxParallelism: number): number {
  return keyGroupOfHash(hashKeyBits(key), maxParallelism);
}

/** {@link keyGroupOf} of a key whose {@link hashKeyBits} are `hash`. */
export function keyGroupOfHash(hash: number, maxParallelism: number): number {
  if ((maxParallelism & (maxParallelism - 1)) === 0) return hash & (maxParallelism - 1);
  if (maxParallelism > 0x8000) return (hash >>> 0) % maxParallelism;
  return (((hash >>> 16) % maxParallelism) * (0x10000 % maxParallelism) + (hash & 0xffff)) % maxParallelism;
}

/** The subtask that owns a key group at a parallelism: `floor(keyGroup * parallelism / maxParallelism)`. */
export function subtaskOfKeyGroup(keyGroup: number, parallelism: number, maxParallelism: number): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}
