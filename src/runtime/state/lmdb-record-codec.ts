/**
 * How the disk (LMDB) state backend lays keyed state out: one LMDB entry per (declared state,
 * key group, key), its LMDB key the bytes
 *
 *     u16 BE state id, u16 BE key group, then the key: a tag byte and its payload
 *
 * so that the keys of one declared state in one key group are one contiguous range (a snapshot
 * reads a key group of a state as one range scan). Keys encode by value, so the key's order on
 * disk carries no meaning beyond grouping: null, false, true, a number as float64 (with -0 as 0
 * and one NaN: a JavaScript Map, which the heap backend uses, makes no difference there either), a
 * string as UTF-8 (or UTF-16 when it is not well formed, which UTF-8 cannot keep), a bigint in
 * decimal. A key longer than {@link MAX_INLINE_KEY_BYTES} (LMDB limits keys to 1978 bytes) is
 * stored under its SHA-256 instead, and its encoding goes at the start of the stored value.
 *
 * A stored value is, by its first byte: 0x01 an array of primitives (a GROUP BY's accumulators,
 * the common case: written without V8's serializer, which costs microseconds per call), 0x02 a
 * single primitive, 0x03 a long key's encoding followed by the value, 0x04 the entry's last write
 * time (a float64 LE of epoch milliseconds, for a state time-to-live) followed by the rest of the
 * stored value as without one, or V8's serialization
 * (which begins with its version tag 0xFF) for anything else — Maps, objects, nested arrays,
 * typed arrays — exactly as checkpoint files serialise values, so every value round-trips as it
 * does through a checkpoint.
 */
import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import type { Key } from '../../common/key-codec.js';
import { deserializeOwning } from './owning-deserializer.js';

/** Bytes before the key in an LMDB key: the state id and the key group. */
export const RECORD_PREFIX_BYTES = 4;

/** Key encodings longer than this are stored under their hash (LMDB's limit is 1978 bytes with the prefix). */
export const MAX_INLINE_KEY_BYTES = 1024;

const KEY_NULL = 0x00;
const KEY_FALSE = 0x01;
const KEY_TRUE = 0x02;
const KEY_NUMBER = 0x03;
const KEY_UTF8 = 0x04;
const KEY_UTF16 = 0x05;
const KEY_BIGINT = 0x06;
const KEY_HASHED = 0x7f;

const VALUE_FLAT_ARRAY = 0x01;
const VALUE_PRIMITIVE = 0x02;
const VALUE_LONG_KEY = 0x03;
const VALUE_ACCESSED = 0x04;
/** Bytes of the last-write prefix: its tag and a float64. */
const ACCESSED_BYTES = 9;
const VALUE_V8 = 0xff;

const EL_UNDEFINED = 0;
const EL_NULL = 1;
const EL_FALSE = 2;
const EL_TRUE = 3;
const EL_INT32 = 4;
const EL_FLOAT64 = 5;
const EL_UTF8 = 6;
const EL_UTF16 = 7;
const EL_BIGINT = 8;

/** True when a string has no lone surrogate, so UTF-8 keeps it (String.prototype.isWellFormed, in Node 20 but not in the ES2023 typings). */
function wellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** The encoding of a key (tag and payload), without the prefix. */
export function encodeKey(key: Key): Buffer {
  switch (typeof key) {
    case 'number': {
      const out = Buffer.allocUnsafe(9);
      out[0] = KEY_NUMBER;
      out.writeDoubleBE(key === 0 ? 0 : Number.isNaN(key) ? NaN : key, 1);
      return out;
    }
    case 'string':
      return taggedString(key, KEY_UTF8, KEY_UTF16);
    case 'boolean':
      return Buffer.of(key ? KEY_TRUE : KEY_FALSE);
    case 'bigint':
      return taggedString(key.toString(), KEY_BIGINT, KEY_BIGINT);
    case 'object':
      if (key === null) return Buffer.of(KEY_NULL);
      break;
    default:
      break;
  }
  throw new Error(`a state key must be a primitive, got ${typeof key}`);
}

function taggedString(text: string, utf8Tag: number, utf16Tag: number): Buffer {
  const utf8 = wellFormed(text);
  const encoding = utf8 ? 'utf8' : 'utf16le';
  const out = Buffer.allocUnsafe(1 + Buffer.byteLength(text, encoding));
  out[0] = utf8 ? utf8Tag : utf16Tag;
  out.write(text, 1, encoding);
  return out;
}

/** Decodes a key's encoding (tag and payload). */
export function decodeKey(bytes: Uint8Array, start = 0, end = bytes.length): Key {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = buffer[start];
  switch (tag) {
    case KEY_NULL:
      return null;
    case KEY_FALSE:
      return false;
    case KEY_TRUE:
      return true;
    case KEY_NUMBER:
      return buffer.readDoubleBE(start + 1);
    case KEY_UTF8:
      return buffer.toString('utf8', start + 1, end);
    case KEY_UTF16:
      return buffer.toString('utf16le', start + 1, end);
    case KEY_BIGINT:
      return BigInt(buffer.toString('latin1', start + 1, end));
    default:
      throw new Error(`disk state is corrupt: unknown key tag ${String(tag)}`);
  }
}

/** True when a key's encoding is too long to be part of an LMDB key (it is stored under its hash). */
export function isLongKey(encodedKey: Buffer): boolean {
  return encodedKey.length > MAX_INLINE_KEY_BYTES;
}

/** The LMDB key of a key (its {@link encodeKey}) in a declared state and key group. */
export function recordKey(stateId: number, keyGroup: number, encodedKey: Buffer): Buffer {
  const long = isLongKey(encodedKey);
  const out = Buffer.allocUnsafe(RECORD_PREFIX_BYTES + (long ? 33 : encodedKey.length));
  out.writeUInt16BE(stateId, 0);
  out.writeUInt16BE(keyGroup, 2);
  if (long) {
    out[RECORD_PREFIX_BYTES] = KEY_HASHED;
    createHash('sha256').update(encodedKey).digest().copy(out, RECORD_PREFIX_BYTES + 1);
  } else {
    encodedKey.copy(out, RECORD_PREFIX_BYTES);
  }
  return out;
}

/** The key group of an LMDB key. */
export function keyGroupOfRecord(lmdbKey: Uint8Array): number {
  return (lmdbKey[2]! << 8) | lmdbKey[3]!;
}

/** The first LMDB key of a declared state's key group (the end of a range is the next group's). */
export function rangeStart(stateId: number, keyGroup: number): Buffer {
  const out = Buffer.allocUnsafe(RECORD_PREFIX_BYTES);
  out.writeUInt16BE(stateId, 0);
  out.writeUInt16BE(keyGroup, 2);
  return out;
}

/**
 * The stored bytes of a value; `longKey` is the key's encoding when it is stored under its hash;
 * `accessed` the entry's last write (epoch milliseconds) when its state has a time-to-live.
 */
export function encodeValue(value: unknown, longKey?: Buffer, accessed?: number): Buffer {
  const body = encodeBody(value);
  const prefix = (longKey === undefined ? 0 : 5 + longKey.length) + (accessed === undefined ? 0 : ACCESSED_BYTES);
  if (prefix === 0) return body;
  const out = Buffer.allocUnsafe(prefix + body.length);
  let at = 0;
  if (accessed !== undefined) {
    out[0] = VALUE_ACCESSED;
    out.writeDoubleLE(accessed, 1);
    at = ACCESSED_BYTES;
  }
  if (longKey !== undefined) {
    out[at] = VALUE_LONG_KEY;
    out.writeUInt32LE(longKey.length, at + 1);
    longKey.copy(out, at + 5);
    at += 5 + longKey.length;
  }
  body.copy(out, at);
  return out;
}

/** The stored bytes after a last-write prefix, if any. */
function withoutAccessed(stored: Uint8Array): Buffer {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  return bytes[0] === VALUE_ACCESSED ? bytes.subarray(ACCESSED_BYTES) : bytes;
}

/** A float64 read through its bytes (little-endian as written, whatever the platform's order). */
const scratchDouble = new Float64Array(1);
const scratchBytes = new Uint8Array(scratchDouble.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The last write recorded with a stored value (epoch milliseconds), or undefined when it has none
 * (written without a time-to-live). Read without a Buffer view: a cleanup scan reads it of every record.
 */
export function storedAccess(stored: Uint8Array): number | undefined {
  if (stored[0] !== VALUE_ACCESSED) return undefined;
  for (let i = 0; i < 8; i++) scratchBytes[LITTLE_ENDIAN ? i : 7 - i] = stored[1 + i]!;
  return scratchDouble[0];
}

/** Decodes a stored value (as {@link encodeValue} wrote it), ignoring a last write and a long key before it. */
export function decodeValue(stored: Uint8Array): unknown {
  const bytes = withoutAccessed(stored);
  if (bytes[0] === VALUE_LONG_KEY) return decodeBody(bytes.subarray(5 + bytes.readUInt32LE(1)));
  return decodeBody(bytes);
}

/** The key and value of an LMDB entry (its LMDB key and stored bytes). */
export function decodeRecord(lmdbKey: Uint8Array, stored: Uint8Array): [Key, unknown] {
  const bytes = withoutAccessed(stored);
  if (lmdbKey[RECORD_PREFIX_BYTES] === KEY_HASHED) {
    if (bytes[0] !== VALUE_LONG_KEY) throw new Error('disk state is corrupt: a hashed key without its key');
    const length = bytes.readUInt32LE(1);
    return [decodeKey(bytes, 5, 5 + length), decodeBody(bytes.subarray(5 + length))];
  }
  return [decodeKey(lmdbKey, RECORD_PREFIX_BYTES), decodeBody(bytes)];
}

/** Arrays longer than this always go through V8's serializer (which writes a sparse array compactly). */
const MAX_FLAT_LENGTH = 1024;

/** True when an array is short, has no holes and holds only primitives (serialisable without V8's serializer). */
function isFlat(value: readonly unknown[]): boolean {
  if (value.length > MAX_FLAT_LENGTH || Object.getPrototypeOf(value) !== Array.prototype) return false;
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return false;
    const element = value[i];
    if (typeof element === 'object' ? element !== null : typeof element === 'function' || typeof element === 'symbol') return false;
  }
  return true;
}

function encodeBody(value: unknown): Buffer {
  if (Array.isArray(value) && isFlat(value)) {
    let size = 5;
    for (let i = 0; i < value.length; i++) size += elementSize(value[i]);
    const out = Buffer.allocUnsafe(size);
    out[0] = VALUE_FLAT_ARRAY;
    out.writeUInt32LE(value.length, 1);
    let at = 5;
    for (let i = 0; i < value.length; i++) at = writeElement(out, at, value[i]);
    return out;
  }
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw new Error(`a ${typeof value} cannot be kept in state: state values must be plain data that a backend can serialise`);
    const out = Buffer.allocUnsafe(1 + elementSize(value));
    out[0] = VALUE_PRIMITIVE;
    writeElement(out, 1, value);
    return out;
  }
  return serialize(value);
}

function decodeBody(bytes: Buffer): unknown {
  switch (bytes[0]) {
    case VALUE_FLAT_ARRAY: {
      const length = bytes.readUInt32LE(1);
      const out: unknown[] = [];
      cursor = 5;
      for (let i = 0; i < length; i++) out.push(readElement(bytes));
      return out;
    }
    case VALUE_PRIMITIVE:
      cursor = 1;
      return readElement(bytes);
    case VALUE_V8:
      // A copy: LMDB's buffers are reused or mapped, and V8 returns typed arrays as views of its input.
      return deserializeOwning(Uint8Array.prototype.slice.call(bytes));
    default:
      throw new Error(`disk state is corrupt: unknown value tag ${String(bytes[0])}`);
  }
}

function elementSize(element: unknown): number {
  switch (typeof element) {
    case 'number':
      return (element | 0) === element && !Object.is(element, -0) ? 5 : 9;
    case 'string':
      return 5 + Buffer.byteLength(element, wellFormed(element) ? 'utf8' : 'utf16le');
    case 'bigint':
      return 5 + element.toString().length;
    default:
      return 1;
  }
}

function writeElement(out: Buffer, at: number, element: unknown): number {
  switch (typeof element) {
    case 'undefined':
      out[at] = EL_UNDEFINED;
      return at + 1;
    case 'boolean':
      out[at] = element ? EL_TRUE : EL_FALSE;
      return at + 1;
    case 'number':
      if ((element | 0) === element && !Object.is(element, -0)) {
        out[at] = EL_INT32;
        out.writeInt32LE(element, at + 1);
        return at + 5;
      }
      out[at] = EL_FLOAT64;
      out.writeDoubleLE(element, at + 1);
      return at + 9;
    case 'string': {
      const utf8 = wellFormed(element);
      out[at] = utf8 ? EL_UTF8 : EL_UTF16;
      const written = out.write(element, at + 5, utf8 ? 'utf8' : 'utf16le');
      out.writeUInt32LE(written, at + 1);
      return at + 5 + written;
    }
    case 'bigint': {
      out[at] = EL_BIGINT;
      const written = out.write(element.toString(), at + 5, 'latin1');
      out.writeUInt32LE(written, at + 1);
      return at + 5 + written;
    }
    case 'object':
      if (element === null) {
        out[at] = EL_NULL;
        return at + 1;
      }
      break;
    default:
      break;
  }
  throw new Error(`not a primitive state value element: ${typeof element}`);
}

/** Where {@link readElement} reads next (a module variable: no tuple allocated per element). */
let cursor = 0;

function readElement(bytes: Buffer): unknown {
  const at = cursor;
  const tag = bytes[at];
  switch (tag) {
    case EL_UNDEFINED:
      cursor = at + 1;
      return undefined;
    case EL_NULL:
      cursor = at + 1;
      return null;
    case EL_FALSE:
      cursor = at + 1;
      return false;
    case EL_TRUE:
      cursor = at + 1;
      return true;
    case EL_INT32:
      cursor = at + 5;
      return bytes.readInt32LE(at + 1);
    case EL_FLOAT64:
      cursor = at + 9;
      return bytes.readDoubleLE(at + 1);
    case EL_UTF8:
    case EL_UTF16:
    case EL_BIGINT: {
      const start = at + 5;
      const end = start + bytes.readUInt32LE(at + 1);
      cursor = end;
      if (tag === EL_BIGINT) return BigInt(bytes.toString('latin1', start, end));
      return bytes.toString(tag === EL_UTF8 ? 'utf8' : 'utf16le', start, end);
    }
    default:
      throw new Error(`disk state is corrupt: unknown value element tag ${String(tag)}`);
  }
}
