/**
 * Run-time helpers for string functions, called by generated code with non-NULL arguments.
 * Positions and lengths count UTF-16 code units (Flink counts code points; they differ only
 * outside the Basic Multilingual Plane).
 */
import { createHash, randomUUID } from 'node:crypto';
import { WeirError } from '../../common/errors.js';

/**
 * The RegExp a LIKE pattern means, as Calcite translates it: `%` any sequence (line breaks
 * included), `_` one character other than a line break, `escape` (one character, or null for
 * none) quoting the next.
 */
export function likeRegExp(pattern: string, escape: string | null): RegExp {
  if (escape !== null && escape.length !== 1) {
    throw new WeirError('EXECUTION_ERROR', `invalid escape character '${escape}' in LIKE: it must be a single character`);
  }
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === escape) {
      const next = pattern[i + 1];
      if (next !== '%' && next !== '_' && next !== escape) {
        throw new WeirError('EXECUTION_ERROR', `invalid escape sequence in LIKE pattern '${pattern}'`);
      }
      source += escapeRegExp(next);
      i++;
    } else if (c === '%') {
      source += '[\\s\\S]*';
    } else if (c === '_') {
      source += '.';
    } else {
      source += escapeRegExp(c);
    }
  }
  return new RegExp(`${source}$`);
}

const SIMILAR_SPECIALS = '[]()|^-+*_%?{}';
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  '[:ALPHA:]': 'a-zA-Z',
  '[:alpha:]': 'a-zA-Z',
  '[:UPPER:]': 'A-Z',
  '[:upper:]': 'A-Z',
  '[:LOWER:]': 'a-z',
  '[:lower:]': 'a-z',
  '[:DIGIT:]': '0-9',
  '[:digit:]': '0-9',
  '[:SPACE:]': ' ',
  '[:space:]': ' ',
  '[:WHITESPACE:]': '\\s',
  '[:whitespace:]': '\\s',
  '[:ALNUM:]': 'a-zA-Z0-9',
  '[:alnum:]': 'a-zA-Z0-9',
};

function invalidSimilar(pattern: string, i: number): WeirError {
  return new WeirError('EXECUTION_ERROR', `invalid SIMILAR TO pattern '${pattern}' at index ${i}`);
}

/**
 * The RegExp a SIMILAR TO pattern (a SQL regular expression) means, as Calcite translates it: `%`
 * and `_` as in LIKE, `|`, `*`, `+`, `?`, `{m,n}`, `( )` and `[ ]` (with `[:ALPHA:]`-style classes)
 * as in regular expressions, the whole text matched; `escape` quotes the special character after it.
 */
export function similarRegExp(pattern: string, escape: string | null): RegExp {
  if (escape !== null && escape.length !== 1) {
    throw new WeirError('EXECUTION_ERROR', `invalid escape character '${escape}' in SIMILAR TO: it must be a single character`);
  }
  let source = '^(?:';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === escape) {
      const next = pattern[i + 1];
      if (next === undefined || (!SIMILAR_SPECIALS.includes(next) && next !== escape)) throw invalidSimilar(pattern, i);
      source += escapeRegExp(next);
      i++;
      continue;
    }
    if (inClass) {
      const posix = Object.keys(POSIX_CLASSES).find((name) => pattern.startsWith(name, i));
      if (posix !== undefined) {
        source += POSIX_CLASSES[posix];
        i += posix.length - 1;
      } else if (c === ']') {
        source += ']';
        inClass = false;
      } else if (c === '-' || c === '^') {
        source += c;
      } else if (SIMILAR_SPECIALS.includes(c)) {
        throw invalidSimilar(pattern, i);
      } else {
        source += escapeRegExp(c);
      }
      continue;
    }
    switch (c) {
      case '_':
        source += '.';
        break;
      case '%':
        source += '[\\s\\S]*';
        break;
      case '[':
        source += '[';
        inClass = true;
        break;
      case ']':
        throw invalidSimilar(pattern, i);
      case '\\':
        source += '\\\\';
        break;
      case '$':
      case '/':
        source += `\\${c}`;
        break;
      default:
        source += c;
    }
  }
  if (inClass) throw invalidSimilar(pattern, pattern.length);
  try {
    return new RegExp(`${source})$`);
  } catch {
    throw invalidSimilar(pattern, 0);
  }
}

const similarCache = new Map<string, RegExp>();

/** `s SIMILAR TO pattern [ESCAPE escape]` for a pattern known only at run time (the RegExp is cached). */
export function similar(s: string, pattern: string, escape: string | null): boolean {
  const key = escape === null ? pattern : `${escape}\u0000${pattern}`;
  let regex = similarCache.get(key);
  if (regex === undefined) {
    regex = similarRegExp(pattern, escape);
    if (similarCache.size >= 256) similarCache.clear();
    similarCache.set(key, regex);
  }
  return regex.test(s);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const likeCache = new Map<string, RegExp>();

/** `s LIKE pattern [ESCAPE escape]` for a pattern known only at run time (the RegExp is cached). */
export function like(s: string, pattern: string, escape: string | null): boolean {
  const key = escape === null ? pattern : `${escape}\u0000${pattern}`;
  let regex = likeCache.get(key);
  if (regex === undefined) {
    regex = likeRegExp(pattern, escape);
    if (likeCache.size >= 256) likeCache.clear();
    likeCache.set(key, regex);
  }
  return regex.test(s);
}

/**
 * Flink's SUBSTRING(s, start[, length]): 1-based; a negative start counts from the end, 0 acts as
 * 1; NULL for a negative length; empty when the start is beyond either end.
 */
export function substring(s: string, start: number, length: number = Number.MAX_SAFE_INTEGER): string | null {
  if (length < 0) return null;
  let from: number;
  if (start > 0) {
    from = start - 1;
    if (from >= s.length) return '';
  } else if (start < 0) {
    from = s.length + start;
    if (from < 0) return '';
  } else {
    from = 0;
  }
  return s.length - from < length ? s.slice(from) : s.slice(from, from + length);
}

/** Removes any of `chars` from the start and/or end of `s` (TRIM, LTRIM, RTRIM). */
export function trimChars(s: string, chars: string, leading: boolean, trailing: boolean): string {
  let start = 0;
  let end = s.length;
  if (chars.length === 1) {
    const code = chars.charCodeAt(0);
    if (leading) while (start < end && s.charCodeAt(start) === code) start++;
    if (trailing) while (end > start && s.charCodeAt(end - 1) === code) end--;
  } else {
    if (leading) while (start < end && chars.includes(s[start]!)) start++;
    if (trailing) while (end > start && chars.includes(s[end - 1]!)) end--;
  }
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** TRIM with the mode given as text: `BOTH`, `LEADING` or `TRAILING`. */
export function trimMode(mode: string, chars: string, s: string): string {
  const upper = mode.toUpperCase();
  if (upper !== 'BOTH' && upper !== 'LEADING' && upper !== 'TRAILING') {
    throw new WeirError('EXECUTION_ERROR', `invalid TRIM mode '${mode}': expected BOTH, LEADING or TRAILING`);
  }
  return trimChars(s, chars, upper !== 'TRAILING', upper !== 'LEADING');
}

/** Java's `String.replace(search, replacement)`: every occurrence, literally (an empty search inserts between all characters). */
export function replaceAll(s: string, search: string, replacement: string): string {
  if (search.length === 0) return s.length === 0 ? replacement : replacement + Array.from(s).join(replacement) + replacement;
  return s.split(search).join(replacement);
}

/** Flink's LPAD: `s` left-padded with `pad` to `length`, or cut to `length`; NULL for a negative length or an empty pad. */
export function lpad(s: string, length: number, pad: string): string | null {
  if (length < 0 || pad.length === 0) return null;
  return s.length >= length ? s.slice(0, length) : s.padStart(length, pad);
}

/** Flink's RPAD; see {@link lpad}. */
export function rpad(s: string, length: number, pad: string): string | null {
  if (length < 0 || pad.length === 0) return null;
  return s.length >= length ? s.slice(0, length) : s.padEnd(length, pad);
}

/** Calcite's INITCAP: the first ASCII letter or digit of each word upper case, the other letters lower case; words are runs of ASCII letters and digits. */
export function initcap(s: string): string {
  let result = '';
  let start = true;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const digit = code >= 48 && code <= 57;
    const upper = code >= 65 && code <= 90;
    const lower = code >= 97 && code <= 122;
    let out = code;
    if (start) {
      if (lower) out = code - 32;
      if (digit || upper || lower) start = false;
    } else if (upper) {
      out = code + 32;
    } else if (!digit && !lower) {
      start = true;
    }
    result += String.fromCharCode(out);
  }
  return result;
}

/**
 * Flink's SPLIT_INDEX: the `index`-th (0-based) piece of `s` split at every `separator` (empty
 * pieces kept); NULL when out of range, for a negative index, or for an empty `s`. An empty
 * separator splits at whitespace.
 */
export function splitIndex(s: string, separator: string, index: number): string | null {
  if (index < 0 || s.length === 0) return null;
  if (separator.length === 0) return s.split(/\s/)[index] ?? null;
  let start = 0;
  for (let i = 0; i < index; i++) {
    const at = s.indexOf(separator, start);
    if (at < 0) return null;
    start = at + separator.length;
  }
  const end = s.indexOf(separator, start);
  return end < 0 ? s.slice(start) : s.slice(start, end);
}

/** CONCAT_WS: the non-NULL values joined by `separator`. */
export function concatWs(separator: string, ...values: unknown[]): string {
  let result = '';
  let first = true;
  for (const value of values) {
    if (value === null) continue;
    result += first ? (value as string) : separator + (value as string);
    first = false;
  }
  return result;
}

/** REPEAT: `s` repeated `times` times (empty for zero or less). */
export function repeat(s: string, times: number): string {
  return times <= 0 ? '' : s.repeat(times);
}

const regexCache = new Map<string, RegExp | null>();

/**
 * A Java regular expression as a JS RegExp (cached), or null when it is invalid (Flink's regex
 * functions return NULL then). A leading inline flag group such as `(?i)` becomes a RegExp flag.
 */
export function javaRegex(pattern: string, global = false): RegExp | null {
  const key = global ? `g\u0000${pattern}` : pattern;
  let regex = regexCache.get(key);
  if (regex === undefined) {
    regex = compileJavaRegex(pattern, global);
    if (regexCache.size >= 256) regexCache.clear();
    regexCache.set(key, regex);
  }
  return regex;
}

function compileJavaRegex(pattern: string, global: boolean): RegExp | null {
  let flags = global ? 'g' : '';
  let source = pattern;
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline !== null && !inline[1]!.includes('x')) {
    flags += inline[1]!.replace(/[^ims]/g, '');
    source = source.slice(inline[0].length);
  }
  try {
    return new RegExp(source, flags);
  } catch {
    return null;
  }
}

/** REGEXP_EXTRACT: group `group` (0 = the whole match) of the first match of `regex` in `s`; NULL without a match or such a group. */
export function regexpExtract(s: string, regex: RegExp | null, group: number): string | null {
  if (regex === null || group < 0) return null;
  const match = regex.exec(s);
  if (match === null || group >= match.length) return null;
  return match[group] ?? null;
}

/** REGEXP: true when `regex` matches somewhere in `s`; NULL for an invalid regex. */
export function regexpMatches(s: string, regex: RegExp | null): boolean | null {
  return regex === null ? null : regex.test(s);
}

/**
 * REGEXP_REPLACE: every match of `regex` (a global RegExp) replaced by `replacement`, written as
 * in Java (`$1` a group, `\$` a dollar); NULL for an invalid regex.
 */
export function regexpReplace(s: string, regex: RegExp | null, replacement: string): string | null {
  if (regex === null) return null;
  regex.lastIndex = 0;
  return s.replace(regex, javaReplacement(replacement));
}

const replacementCache = new Map<string, string>();

function javaReplacement(replacement: string): string {
  let converted = replacementCache.get(replacement);
  if (converted !== undefined) return converted;
  converted = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\' && i + 1 < replacement.length) {
      const next = replacement[++i]!;
      converted += next === '$' ? '$$' : next;
    } else if (c === '$') {
      const named = /^\$\{(\w+)\}/.exec(replacement.slice(i));
      if (named !== null) {
        converted += `$<${named[1]}>`;
        i += named[0].length - 1;
      } else {
        converted += '$';
      }
    } else {
      converted += c;
    }
  }
  if (replacementCache.size >= 256) replacementCache.clear();
  replacementCache.set(replacement, converted);
  return converted;
}

/** The hex digest of the UTF-8 bytes of `s` (MD5, SHA1, SHA256). */
export function hashHex(algorithm: string, s: string): string {
  return createHash(algorithm).update(s, 'utf8').digest('hex');
}

/** Flink's LEFT(s, n): the first n characters, empty for a negative n. */
export function left(s: string, n: number): string {
  return n <= 0 ? '' : s.slice(0, n);
}

/** Flink's RIGHT(s, n): the last n characters, empty for a negative n. */
export function right(s: string, n: number): string {
  return n <= 0 ? '' : s.slice(Math.max(0, s.length - n));
}

/** The base64 text of the UTF-8 bytes of `s`. */
export function toBase64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The UTF-8 text of base64 `s`; text that is not base64 is an error (Node would skip what it cannot read). */
export function fromBase64(s: string): string {
  if (!BASE64.test(s)) throw new WeirError('EXECUTION_ERROR', `FROM_BASE64: '${s.length > 40 ? s.slice(0, 40) + '...' : s}' is not base64 text`);
  return Buffer.from(s, 'base64').toString('utf8');
}

/** A random (version 4) UUID. */
export function uuid(): string {
  return randomUUID();
}

/** The upper-case hex of the UTF-8 bytes of `s` (HEX of a string). */
export function hexOfString(s: string): string {
  return Buffer.from(s, 'utf8').toString('hex').toUpperCase();
}
