/**
 * Run-time helpers of the binary string functions (values are Uint8Array, see common/bytes.ts):
 * comparison, `||`/CONCAT, SUBSTRING, ENCODE/DECODE with Java's six standard charsets, HEX/UNHEX,
 * TO_BASE64 and the digests of bytes. Every result is a fresh array owning its buffer.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { bytesEqual, bytesToBase64, compareBytes, copyBytes, utf8Bytes, utf8Text } from '../../common/bytes.js';
import { decodeUtf8AsJava } from './java-utf8-decoder.js';
import { fromBase64 } from './string-lib.js';
import { WeirError } from '../../common/errors.js';

/** True when two binary strings hold the same bytes; false when either is NULL (an IN list's NULL element). */
export function equalBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a !== null && b !== null && bytesEqual(a, b);
}

/** Unsigned lexicographic comparison of two non-NULL binary strings (negative, 0, positive). */
export function orderBytes(a: Uint8Array, b: Uint8Array): number {
  return compareBytes(a, b);
}

/** The concatenation of binary strings (`||`, CONCAT). */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const result = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

/** SUBSTRING of bytes, with the positions of the string SUBSTRING: 1-based, negative from the end, 0 as 1; NULL for a negative length. */
export function substringBytes(bytes: Uint8Array, start: number, length: number = Number.MAX_SAFE_INTEGER): Uint8Array | null {
  if (length < 0) return null;
  let from: number;
  if (start > 0) {
    from = start - 1;
    if (from >= bytes.length) return new Uint8Array(0);
  } else if (start < 0) {
    from = bytes.length + start;
    if (from < 0) return new Uint8Array(0);
  } else {
    from = 0;
  }
  return copyBytes(bytes.subarray(from, bytes.length - from < length ? bytes.length : from + length));
}

/** The largest of non-NULL binary strings (GREATEST). */
export function greatestBytes(...values: Uint8Array[]): Uint8Array {
  let result = values[0]!;
  for (let i = 1; i < values.length; i++) if (compareBytes(values[i]!, result) > 0) result = values[i]!;
  return result;
}

/** The smallest of non-NULL binary strings (LEAST). */
export function leastBytes(...values: Uint8Array[]): Uint8Array {
  let result = values[0]!;
  for (let i = 1; i < values.length; i++) if (compareBytes(values[i]!, result) < 0) result = values[i]!;
  return result;
}

/** Java's standard charsets, by the upper-case name ENCODE and DECODE take. */
type Charset = 'US-ASCII' | 'ISO-8859-1' | 'UTF-8' | 'UTF-16BE' | 'UTF-16LE' | 'UTF-16';

const CHARSETS: ReadonlySet<string> = new Set<Charset>(['US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16']);

/** The charset named (case-insensitively) or an EXECUTION_ERROR naming the function and the charsets it accepts. */
export function charsetNamed(fn: string, name: string): Charset {
  const upper = name.toUpperCase();
  if (CHARSETS.has(upper)) return upper as Charset;
  throw new WeirError('EXECUTION_ERROR', `${fn}: unsupported charset '${name}'; use one of 'US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'`);
}

/** A string's UTF-16 code units, big- or little-endian. */
function utf16Bytes(s: string, littleEndian: boolean, bom: boolean): Uint8Array {
  const offset = bom ? 2 : 0;
  const bytes = new Uint8Array(offset + 2 * s.length);
  if (bom) {
    bytes[0] = 0xfe;
    bytes[1] = 0xff;
  }
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    bytes[offset + 2 * i] = littleEndian ? unit & 0xff : unit >> 8;
    bytes[offset + 2 * i + 1] = littleEndian ? unit >> 8 : unit & 0xff;
  }
  return bytes;
}

/** ENCODE(s, charset): Java's `String.getBytes(charset)`: characters a one-byte charset cannot hold become '?', UTF-16 starts with a big-endian byte order mark. */
export function encodeString(s: string, charsetName: string): Uint8Array {
  const charset = charsetNamed('ENCODE', charsetName);
  switch (charset) {
    case 'UTF-8':
      return utf8Bytes(s);
    case 'US-ASCII':
    case 'ISO-8859-1': {
      const limit = charset === 'US-ASCII' ? 0x7f : 0xff;
      const codePoints = Array.from(s);
      const bytes = new Uint8Array(codePoints.length);
      codePoints.forEach((c, i) => {
        const code = c.codePointAt(0)!;
        bytes[i] = code <= limit ? code : 0x3f;
      });
      return bytes;
    }
    case 'UTF-16BE':
      return utf16Bytes(s, false, false);
    case 'UTF-16LE':
      return utf16Bytes(s, true, false);
    case 'UTF-16':
      return utf16Bytes(s, false, true);
  }
}

/** UTF-16 code units to text; an odd last byte becomes U+FFFD, as Java's decoder. */
function utf16Text(bytes: Uint8Array, littleEndian: boolean, start: number): string {
  let text = '';
  let i = start;
  for (; i + 1 < bytes.length; i += 2) text += String.fromCharCode(littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
  return i < bytes.length ? text + '\uFFFD' : text;
}

/** DECODE(bytes, charset): Java's `new String(bytes, charset)`: malformed input becomes U+FFFD; UTF-16 reads a byte order mark (big-endian without one). */
export function decodeBytes(bytes: Uint8Array, charsetName: string): string {
  const charset = charsetNamed('DECODE', charsetName);
  switch (charset) {
    case 'UTF-8':
      return decodeUtf8AsJava(bytes);
    case 'US-ASCII': {
      let text = '';
      for (const b of bytes) text += b < 0x80 ? String.fromCharCode(b) : '\uFFFD';
      return text;
    }
    case 'ISO-8859-1': {
      let text = '';
      for (const b of bytes) text += String.fromCharCode(b);
      return text;
    }
    case 'UTF-16BE':
      return utf16Text(bytes, false, 0);
    case 'UTF-16LE':
      return utf16Text(bytes, true, 0);
    case 'UTF-16': {
      if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return utf16Text(bytes, true, 2);
      return utf16Text(bytes, false, bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff ? 2 : 0);
    }
  }
}

/** HEX of bytes: two upper-case digits a byte, as Flink's HEX of a binary string. */
export function hexOfBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').toUpperCase();
}

const HEX_TEXT = /^[0-9A-Fa-f]*$/;

/**
 * UNHEX(s): the bytes of hex text; NULL when s holds a character that is not a hex digit. As
 * Flink's: with an odd number of digits the first one is dropped (checked, not used) and the
 * result starts with a zero byte (`UNHEX('ABC')` = x'00bc').
 */
export function unhex(s: string): Uint8Array | null {
  if (!HEX_TEXT.test(s)) return null;
  const bytes = new Uint8Array((s.length + 1) >> 1);
  bytes.set(Buffer.from(s.length % 2 === 0 ? s : s.slice(1), 'hex'), s.length % 2);
  return bytes;
}

/** TO_BASE64 of bytes. */
export function base64OfBytes(bytes: Uint8Array): string {
  return bytesToBase64(bytes);
}

/** The hex digest of bytes with a node:crypto algorithm (MD5, SHA1, SHA2 ... of a binary string). */
export function hashBytesHex(algorithm: string, bytes: Uint8Array): string {
  return createHash(algorithm).update(bytes).digest('hex');
}

const SHA2_ALGORITHMS: Readonly<Record<number, string>> = { 224: 'sha224', 256: 'sha256', 384: 'sha384', 512: 'sha512' };

/** SHA2(bytes, bits): the hex SHA-2 digest of the given bit length; NULL for a length that is not 224, 256, 384 or 512. */
export function sha2OfBytes(bytes: Uint8Array, bits: number): string | null {
  const algorithm = SHA2_ALGORITHMS[bits];
  return algorithm === undefined ? null : hashBytesHex(algorithm, bytes);
}

/** FROM_BASE64 of a binary string: its bytes read as (UTF-8) base64 text, decoded to UTF-8 text, as Flink's. */
export function fromBase64Bytes(bytes: Uint8Array): string {
  return fromBase64(utf8Text(bytes, 'FROM_BASE64'));
}

/** IS_VALID_UTF8(bytes): whether the bytes are well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing above U+10FFFF). */
export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/** MAKE_VALID_UTF8(bytes): the text of the bytes, each malformed sequence replaced by U+FFFD as Java's `new String(bytes, UTF_8)` does. */
export function makeValidUtf8(bytes: Uint8Array): string {
  return decodeUtf8AsJava(bytes);
}
