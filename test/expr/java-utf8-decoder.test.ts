/**
 * The UTF-8 decoder of DECODE and MAKE_VALID_UTF8 against a model of Java's: well-formed input
 * decodes as the WHATWG decoder decodes it, and malformed input is replaced sequence by sequence
 * with Java's malformed lengths (where the two decoders differ: encoded surrogates, truncated tails).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8AsJava } from '../../src/expr/runtime/java-utf8-decoder.js';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));

describe('decodeUtf8AsJava', () => {
  it('decodes well-formed UTF-8 as the standard decoder does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        expect(decodeUtf8AsJava(Buffer.from(text, 'utf8'))).toBe(text);
      }),
    );
  });

  it("replaces malformed sequences with Java's lengths", () => {
    const cases: [string, string][] = [
      ['61ff62', 'a\uFFFDb'], // a byte that is never UTF-8
      ['c080', '\uFFFD\uFFFD'], // overlong lead, then a lone continuation
      ['eda080', '\uFFFD'], // an encoded surrogate: one sequence of three bytes
      ['e282', '\uFFFD'], // truncated at the end: one replacement for the rest
      ['e2827a', '\uFFFDz'], // a bad third byte: the first two are one sequence
      ['e0807a', '\uFFFD\uFFFDz'], // E0 80 is overlong: malformed at its second byte
      ['f09f98', '\uFFFD'], // a four-byte sequence cut short
      ['f4908080', '\uFFFD\uFFFD\uFFFD\uFFFD'], // above U+10FFFF: malformed at its second byte
      ['f5808080', '\uFFFD\uFFFD\uFFFD\uFFFD'], // a lead beyond F4
      ['efbbbf61', '\uFEFFa'], // a byte order mark is kept
    ];
    for (const [bytes, text] of cases) expect(decodeUtf8AsJava(hex(bytes)), bytes).toBe(text);
  });

  it('never throws and yields one replacement at most per byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = decodeUtf8AsJava(bytes);
        expect([...text].filter((c) => c === '\uFFFD').length).toBeLessThanOrEqual(bytes.length);
      }),
    );
  });
});
