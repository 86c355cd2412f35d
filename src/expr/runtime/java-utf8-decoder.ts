/**
 * UTF-8 decoding as Java's `new String(bytes, UTF_8)` does it: each malformed sequence becomes one
 * U+FFFD, sequences measured as Java's UTF-8 decoder measures them (its malformed lengths), which
 * is where it differs from the WHATWG decoder (TextDecoder): an encoded surrogate (`ED A0 80`) is
 * one malformed sequence of three bytes, not three. Truncated bytes at the end are one U+FFFD. A
 * byte order mark is kept, as Java keeps it.
 */

const REPLACEMENT = 0xfffd;

const isContinuation = (b: number): boolean => (b & 0xc0) === 0x80;

/** Java's isMalformed3_2: the second byte of a three-byte sequence already makes it malformed. */
const malformed3At2 = (b1: number, b2: number): boolean => (b1 === 0xe0 && (b2 & 0xe0) === 0x80) || !isContinuation(b2);

/** Java's isMalformed4_2: the second byte of a four-byte sequence already makes it malformed. */
const malformed4At2 = (b1: number, b2: number): boolean => (b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || !isContinuation(b2);

/** The text of UTF-8 bytes, malformed sequences replaced as Java replaces them (see the module comment). */
export function decodeUtf8AsJava(bytes: Uint8Array): string {
  const units: number[] = [];
  let text = '';
  const flush = (): void => {
    text += String.fromCharCode(...units);
    units.length = 0;
  };
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    if (units.length >= 4096) flush();
    const b1 = bytes[i]!;
    if (b1 < 0x80) {
      units.push(b1);
      i += 1;
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (i + 1 >= n) {
        units.push(REPLACEMENT);
        i = n;
      } else if (!isContinuation(bytes[i + 1]!)) {
        units.push(REPLACEMENT);
        i += 1;
      } else {
        units.push(((b1 & 0x1f) << 6) | (bytes[i + 1]! & 0x3f));
        i += 2;
      }
    } else if (b1 >= 0xe0 && b1 <= 0xef) {
      if (i + 2 >= n) {
        // Truncated: malformed at its second byte, else the rest is one replacement.
        if (i + 1 < n && malformed3At2(b1, bytes[i + 1]!)) i += 1;
        else i = n;
        units.push(REPLACEMENT);
        continue;
      }
      const b2 = bytes[i + 1]!;
      const b3 = bytes[i + 2]!;
      if (malformed3At2(b1, b2)) {
        units.push(REPLACEMENT);
        i += 1;
      } else if (!isContinuation(b3)) {
        units.push(REPLACEMENT);
        i += 2;
      } else {
        const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
        // An encoded surrogate is one malformed sequence of three bytes.
        units.push(c >= 0xd800 && c <= 0xdfff ? REPLACEMENT : c);
        i += 3;
      }
    } else if (b1 >= 0xf0 && b1 <= 0xf7) {
      if (i + 3 >= n) {
        if (i + 1 < n && malformed4At2(b1, bytes[i + 1]!)) i += 1;
        else if (i + 2 < n && !isContinuation(bytes[i + 2]!)) i += 2;
        else i = n;
        units.push(REPLACEMENT);
        continue;
      }
      const b2 = bytes[i + 1]!;
      if (b1 > 0xf4 || malformed4At2(b1, b2)) {
        units.push(REPLACEMENT);
        i += 1;
      } else if (!isContinuation(bytes[i + 2]!)) {
        units.push(REPLACEMENT);
        i += 2;
      } else if (!isContinuation(bytes[i + 3]!)) {
        units.push(REPLACEMENT);
        i += 3;
      } else {
        const cp = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((bytes[i + 2]! & 0x3f) << 6) | (bytes[i + 3]! & 0x3f);
        const v = cp - 0x10000;
        units.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
        i += 4;
      }
    } else {
      // A continuation byte out of place, an overlong lead (C0, C1) or F8..FF.
      units.push(REPLACEMENT);
      i += 1;
    }
  }
  flush();
  return text;
}
