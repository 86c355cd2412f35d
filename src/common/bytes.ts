/**
 * Values of the binary string types (BINARY, VARBINARY, BYTES), held as Uint8Array: comparison
 * (unsigned lexicographic, as Flink's `byte[]` comparison), and the text forms they convert to
 * and from (hex, base64, UTF-8). Every function returns a fresh array that owns its buffer (never
 * a view of Node's shared Buffer pool, which V8 would otherwise serialize whole into a snapshot).
 */
import { WeirError } from './errors.js';

/** A binary string value. By convention never mutated once made. */
export type Bytes = Uint8Array;

/** True for a binary string value (a Uint8Array, Buffer included). */
export function isBytes(value: unknown): value is Bytes {
  return value instanceof Uint8Array;
}

/** Unsigned lexicographic comparison: negative when `a` orders first, 0 when equal, positive otherwise. A prefix orders first. */
export function compareBytes(a: Bytes, b: Bytes): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** True when both hold the same bytes. */
export function bytesEqual(a: Bytes, b: Bytes): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A fresh array holding a copy of `view`'s bytes (owning its buffer). */
export function copyBytes(view: ArrayLike<number>): Bytes {
  return Uint8Array.from(view);
}

const HEX_DIGITS = '0123456789abcdef';

/** The bytes in lower-case hex, two digits a byte (`0aff`). */
export function bytesToHex(bytes: Bytes): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    text += HEX_DIGITS[b >> 4]! + HEX_DIGITS[b & 15]!;
  }
  return text;
}

/** The bytes of hex text with an even number of digits (either case); undefined when it is not that. */
export function hexToBytes(hex: string): Bytes | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** A binary value as Flink's SQL client prints it: `x'0aff'`. */
export function formatBytes(bytes: Bytes): string {
  return `x'${bytesToHex(bytes)}'`;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The UTF-8 encoding of a string (lone surrogates become U+FFFD, as Java's encoder does). */
export function utf8Bytes(text: string): Bytes {
  return encoder.encode(text);
}

/**
 * The text of UTF-8 bytes, strictly: a malformed sequence is an EXECUTION_ERROR (Flink's strict
 * `CAST(bytes AS STRING)`), naming `what` (the operation) and the bytes.
 */
export function utf8Text(bytes: Bytes, what: string): string {
  try {
    return strictDecoder.decode(bytes);
  } catch (error) {
    throw new WeirError('EXECUTION_ERROR', `${what}: ${abbreviated(bytes)} is not valid UTF-8`, { cause: error });
  }
}

/** The base64 text of the bytes (standard alphabet, padded). */
export function bytesToBase64(bytes: Bytes): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** The bytes of base64 text (padding optional); undefined when it is not base64 (Node alone would skip what it cannot read). */
export function base64ToBytes(text: string): Bytes | undefined {
  if (!BASE64.test(text)) return undefined;
  return copyBytes(Buffer.from(text, 'base64'));
}

/** `x'...'` of at most 32 bytes, for messages. */
export function abbreviated(bytes: Bytes): string {
  return bytes.length > 32 ? `x'${bytesToHex(bytes.subarray(0, 32))}...' (${bytes.length} bytes)` : formatBytes(bytes);
}
