/**
 * Keys for keyed state and partitioning. A single-column key is the column's value itself (a
 * JavaScript primitive, so Map lookups need no encoding); a composite key is a string built from
 * its components with length prefixes, so that no component can be confused with a separator.
 * Keys are only compared for equality and hashed; their order carries no meaning.
 */
import type { Row } from './row.js';

/** A state key: a primitive value (single column) or an encoded composite key. */
export type Key = string | number | boolean | bigint | null;

/** Extracts the key of a row. */
export type KeySelector = (row: Row) => Key;

/** The key of the given columns: the value itself for one column, an encoded string otherwise. */
export function keySelector(indexes: readonly number[]): KeySelector {
  if (indexes.length === 0) return () => null;
  if (indexes.length === 1) {
    const index = indexes[0]!;
    return (row) => row[index] as Key;
  }
  if (indexes.length === 2) {
    const [a, b] = indexes as [number, number];
    return (row) => encodeComponent(row[a]) + encodeComponent(row[b]);
  }
  return (row) => {
    let key = '';
    for (let i = 0; i < indexes.length; i++) key += encodeComponent(row[indexes[i]!]);
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
  if (Array.isArray(value)) {
    const body = value.map((v) => encodeComponent(v)).join('');
    return body.length + ':' + body;
  }
  const text = String(value);
  return text.length + ':' + text;
}

/**
 * A stable 32-bit hash of a key (Murmur3's finaliser over the key's bits or characters), the
 * same across processes and runs, so that key groups survive restarts.
 */
export function hashKey(key: Key): number {
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
  return h >>> 0;
}

/** The key group of a key: `hash(key) % maxParallelism`, as Flink assigns them. */
export function keyGroupOf(key: Key, maxParallelism: number): number {
  return hashKey(key) % maxParallelism;
}

/** The subtask that owns a key group at a parallelism: `floor(keyGroup * parallelism / maxParallelism)`. */
export function subtaskOfKeyGroup(keyGroup: number, parallelism: number, maxParallelism: number): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}
