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
 * none; an empty ESCAPE '' also means none, as in Flink) quoting the next. Errors use Calcite's
 * words: "Invalid escape character 'ab'", "Invalid escape sequence 'te_st', 2" (the escape's index).
 */
export function likeRegExp(pattern: string, escape: string | null): RegExp {
  if (escape === '') escape = null;
  if (escape !== null && (escape.length !== 1 || escape === '\0')) {
    throw new WeirError('EXECUTION_ERROR', `Invalid escape character '${escape}'`);
  }
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === escape) {
      const next = pattern[i + 1];
      if (next !== '%' && next !== '_' && next !== escape) {
        throw new WeirError('EXECUTION_ERROR', `Invalid escape sequence '${pattern}', ${i}`);
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

/** How many capturing groups `regex` has. */
function groupCount(regex: RegExp): number {
  return new RegExp(`${regex.source}|`, regex.flags.replace(/[gy]/g, '')).exec('')!.length - 1;
}

/** REGEXP_EXTRACT: group `group` (0 = the whole match) of the first match of `regex` in `s`; NULL without a match, for a group `regex` has not, or for an invalid regex. */
export function regexpExtract(s: string, regex: RegExp | null, group: number): string | null {
  if (regex === null || group < 0) return null;
  const match = regex.exec(s);
  if (match === null || group >= match.length) return null;
  return match[group] ?? null;
}

/** REGEXP_EXTRACT_ALL: group `group` of every match (NULL for a match where it took no part); NULL for a group `regex` has not or an invalid regex. */
export function regexpExtractAll(s: string, regex: RegExp | null, group: number): (string | null)[] | null {
  if (regex === null || group < 0 || group > groupCount(regex)) return null;
  const result: (string | null)[] = [];
  for (const match of s.matchAll(regex)) result.push(match[group] ?? null);
  return result;
}

/** REGEXP_COUNT: how many times `regex` (global) matches `s`; NULL for an invalid regex. */
export function regexpCount(s: string, regex: RegExp | null): number | null {
  if (regex === null) return null;
  let count = 0;
  for (const _ of s.matchAll(regex)) count++;
  return count;
}

/** REGEXP_INSTR: the 1-based position of the first match, 0 without one; NULL for an invalid regex. */
export function regexpInstr(s: string, regex: RegExp | null): number | null {
  if (regex === null) return null;
  const match = regex.exec(s);
  return match === null ? 0 : match.index + 1;
}

/** REGEXP_SUBSTR: the first match; NULL without one or for an invalid regex. */
export function regexpSubstr(s: string, regex: RegExp | null): string | null {
  if (regex === null) return null;
  const match = regex.exec(s);
  return match === null ? null : match[0];
}

/** REGEXP: true when `regex` matches somewhere in `s`; FALSE for an invalid or empty regex, as Flink's. */
export function regexpMatches(s: string, regex: RegExp | null): boolean {
  return regex !== null && regex.source !== '(?:)' && regex.test(s);
}

/**
 * REGEXP_REPLACE: every match of `regex` (a global RegExp) replaced by `replacement`, taken
 * literally (Flink quotes it: `$1` is not a group reference); NULL for an invalid regex.
 */
export function regexpReplace(s: string, regex: RegExp | null, replacement: string): string | null {
  if (regex === null) return null;
  regex.lastIndex = 0;
  return s.replace(regex, () => replacement);
}

/** The hex digest of the UTF-8 bytes of `s` (MD5, SHA1, SHA-2). */
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

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** The UTF-8 text of base64 `s` (padding optional, as Java's decoder); text that is not base64 is an error (Node would skip what it cannot read). */
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

/** Flink's CHR: the character of the low byte of `n` (CHR(353) = 'a'); empty for a negative `n`. */
export function chr(n: number): string {
  return n < 0 ? '' : String.fromCharCode(n & 0xff);
}

/** Flink's LOCATE(a, b, from): the 1-based position of `a` in `b` at or after position `from`; 0 when absent; an empty `a` is found at 1. */
export function locate(needle: string, haystack: string, from: number): number {
  if (needle.length === 0) return 1;
  return haystack.indexOf(needle, Math.max(0, from - 1)) + 1;
}

/** Flink's OVERLAY(s PLACING r FROM start [FOR length]): s when start is outside it, else s[..start) + r + the rest after `length` characters (nothing of it when it runs past the end). */
export function overlay(s: string, r: string, start: number, length: number = r.length): string {
  if (start <= 0 || start > s.length) return s;
  const rest = start + length <= s.length && length > 0 ? s.slice(start - 1 + length) : '';
  return s.slice(0, start - 1) + r + rest;
}

/** Flink's TRANSLATE: each code point of `from` replaced by the one at the same place in `to` (removed when `to` is shorter); the first mapping of a repeated code point wins. */
export function translate(s: string, from: string, to: string): string {
  if (s.length === 0 || from.length === 0) return s;
  const target = Array.from(to);
  const dict = new Map<string, string>();
  Array.from(from).forEach((c, i) => {
    if (!dict.has(c)) dict.set(c, target[i] ?? '');
  });
  let result = '';
  for (const c of s) result += dict.get(c) ?? c;
  return result;
}

/** SPLIT(s, delimiter): the pieces of `s` between delimiters (empty ones kept); each character for an empty delimiter. */
export function split(s: string, delimiter: string): string[] {
  return delimiter.length === 0 ? Array.from(s) : s.split(delimiter);
}

/** Flink's SPLIT_INDEX with a character code as separator (1 to 255); NULL otherwise. */
export function splitIndexByCode(s: string, code: number, index: number): string | null {
  if (code > 255 || code < 1 || index < 0) return null;
  const pieces = s.split(String.fromCharCode(code));
  return index < pieces.length && s.length > 0 ? pieces[index]! : null;
}

/** Java's String.split(regex): the pieces between matches, trailing empty pieces dropped. */
function javaSplit(s: string, regex: RegExp, limit = 0): string[] {
  const pieces: string[] = [];
  let last = 0;
  regex.lastIndex = 0;
  for (const match of s.matchAll(regex)) {
    if (limit > 0 && pieces.length === limit - 1) break;
    if (match[0].length === 0 && match.index === 0) continue;
    if (match[0].length === 0 && match.index >= s.length) break;
    pieces.push(s.slice(last, match.index));
    last = match.index + match[0].length;
  }
  pieces.push(s.slice(last));
  if (limit === 0) while (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
  return pieces;
}

/**
 * Flink's STR_TO_MAP: `s` split at the (regular expression) pair delimiter, each pair at the first
 * key-value delimiter; a pair without one maps to NULL. Empty text gives an empty map.
 */
export function strToMap(s: string, pairDelimiter = ',', keyValueDelimiter = '='): Map<string, string | null> {
  const map = new Map<string, string | null>();
  if (s.length === 0) return map;
  const pairs = javaRegex(pairDelimiter, true);
  const keyValue = javaRegex(keyValueDelimiter, true);
  if (pairs === null || keyValue === null) throw new WeirError('EXECUTION_ERROR', `STR_TO_MAP: invalid delimiter '${pairs === null ? pairDelimiter : keyValueDelimiter}'`);
  for (const pair of javaSplit(s, pairs)) {
    const [key, value] = javaSplit(pair, keyValue, 2);
    map.set(key!, value ?? null);
  }
  return map;
}

/** The characters Java's URLEncoder leaves as they are. */
const URL_SAFE = /[A-Za-z0-9.*_-]/;

/** Java's URLEncoder.encode(s, UTF-8): `application/x-www-form-urlencoded` (space as '+'). */
export function urlEncode(s: string): string {
  let result = '';
  for (const c of s) {
    if (c === ' ') result += '+';
    else if (URL_SAFE.test(c)) result += c;
    else for (const byte of Buffer.from(c, 'utf8')) result += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return result;
}

/** Java's URLDecoder.decode(s, UTF-8) ('+' as a space); NULL for an illegal escape, as Flink's URL_DECODE. */
export function urlDecode(s: string): string | null {
  const bytes: number[] = [];
  let result = '';
  const flush = (): void => {
    if (bytes.length > 0) result += Buffer.from(bytes).toString('utf8');
    bytes.length = 0;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      flush();
      result += c === '+' ? ' ' : c;
    }
  }
  flush();
  return result;
}

/**
 * Flink's URL_DECODE_RECURSIVE: {@link urlDecode} up to `maxDepth` times, stopping when a pass
 * changes nothing; when a pass fails, the result of the one before (NULL when the first fails).
 */
export function urlDecodeRecursive(s: string, maxDepth: number): string | null {
  let current = s;
  for (let pass = 0; pass < maxDepth; pass++) {
    const next = urlDecode(current);
    if (next === null) return pass === 0 ? null : current;
    if (next === current) break;
    current = next;
  }
  return current;
}

const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/((?:([^@/?#]*)@)?([^/?#:]*)(?::(\d*))?))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const URL_PROTOCOLS = new Set(['http', 'https', 'ftp', 'file', 'jar', 'mailto']);

/**
 * Flink's PARSE_URL (java.net.URL): the HOST, PATH, QUERY, REF, PROTOCOL, AUTHORITY, FILE or
 * USERINFO of `url`; NULL when the URL does not parse, the part is absent, or the part is unknown.
 */
export function parseUrl(url: string, part: string): string | null {
  const m = URL_PARTS.exec(url);
  if (m === null || !URL_PROTOCOLS.has(m[1]!.toLowerCase())) return null;
  const [, protocol, authority, userInfo, host, , path, query, ref] = m;
  switch (part) {
    case 'HOST':
      return host ?? '';
    case 'PATH':
      return path ?? '';
    case 'QUERY':
      return query ?? null;
    case 'REF':
      return ref ?? null;
    case 'PROTOCOL':
      return protocol!;
    case 'FILE':
      return (path ?? '') + (query === undefined ? '' : `?${query}`);
    case 'AUTHORITY':
      return authority ?? null;
    case 'USERINFO':
      return userInfo ?? null;
    default:
      return null;
  }
}

/** PARSE_URL(url, 'QUERY', key): the value of `key` in the query; NULL when absent (or the part is not QUERY). */
export function parseUrlQuery(url: string, part: string, key: string): string | null {
  if (part !== 'QUERY') return null;
  const query = parseUrl(url, 'QUERY');
  if (query === null) return null;
  const match = new RegExp(`(?:&|^)${key.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}=([^&]*)`).exec(query);
  return match === null ? null : match[1]!;
}

/** IS_ALPHA: every character a letter (and at least one). */
export function isAlpha(s: string): boolean {
  return /^\p{L}+$/u.test(s);
}

/** IS_DIGIT: every character a digit (and at least one), as Apache Commons' isNumeric. */
export function isDigit(s: string): boolean {
  return /^\p{Nd}+$/u.test(s);
}

const JAVA_INTEGER = /^[+-]?\d+$/;
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)$/;

/** IS_DECIMAL: the text is a number Java's Integer/Long/Double parsers accept (Double.parseDouble trims spaces). */
export function isDecimal(s: string): boolean {
  if (s.length === 0) return false;
  return JAVA_INTEGER.test(s) || JAVA_DOUBLE.test(s.trim());
}

/**
 * INET_ATON, as Flink's: an IPv4 address as a number, NULL when it is not one. Parts are decimal
 * digits (leading zeros allowed) separated by single dots; a.b.c.d is the standard form, a.b means
 * a.0.0.b and a.b.c means a.b.0.c (each part at most 255), and a lone number is the address itself
 * (at most 4294967295).
 */
export function inetAton(s: string): number | null {
  if (!/^\d+(?:\.\d+){0,3}$/.test(s)) return null;
  const parts = s.split('.').map(Number);
  if (parts.length === 1) return parts[0]! <= 0xffffffff ? parts[0]! : null;
  if (parts.some((p) => p > 255)) return null;
  const last = parts.pop()!;
  return parts.reduce((acc, p) => acc * 256 + p, 0) * 256 ** (4 - parts.length) + last;
}

/**
 * INET_NTOA, as Flink's: a number in [0, 4294967295] as an IPv4 address, NULL outside it. A
 * TINYINT, SMALLINT or INT is read as unsigned at its width (`bits`: INT -1 is 255.255.255.255,
 * SMALLINT -1 is 0.0.255.255); a BIGINT (`bits` 0) as it is.
 */
export function inetNtoa(n: number, bits: number): string | null {
  const value = bits > 0 && n < 0 ? n + 2 ** bits : n;
  if (value < 0 || value > 0xffffffff) return null;
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

const SHA2_ALGORITHMS: Readonly<Record<number, string>> = { 224: 'sha224', 256: 'sha256', 384: 'sha384', 512: 'sha512' };

/** SHA2(s, bits): the hex SHA-2 digest of the given bit length; NULL for a length that is not 224, 256, 384 or 512. */
export function sha2(s: string, bits: number): string | null {
  const algorithm = SHA2_ALGORITHMS[bits];
  return algorithm === undefined ? null : hashHex(algorithm, s);
}

/** ELT's zero-based position for a 1-based `index` among `count` values; out of [1, count] is an error, as Flink's. */
export function eltIndex(index: number, count: number): number {
  if (index < 1 || index > count) throw new WeirError('EXECUTION_ERROR', `ELT: Index ${index} is out of range [1, ${count}]`);
  return index - 1;
}

/**
 * INSTR(s, sub, start, nth) as Flink's: the 1-based position of the nth occurrence of `sub` in
 * `s` found searching forward from position `start`, or, for a negative `start`, backward among
 * the occurrences that end by position length + start + 1 (Flink searches the reversed strings);
 * 0 when there is none or `start` is 0. `nth` must be positive.
 */
export function instr(s: string, sub: string, start: number, nth: number): number {
  if (nth <= 0) throw new WeirError('EXECUTION_ERROR', `INSTR: the occurrence must be positive, got ${nth}`);
  if (start === 0) return 0;
  let found = -1;
  if (start > 0) {
    let from = start - 1;
    for (let i = 0; i < nth; i++) {
      found = s.indexOf(sub, from);
      if (found < 0) return 0;
      from = found + 1;
    }
  } else {
    let from = s.length + start + 1 - sub.length;
    for (let i = 0; i < nth; i++) {
      if (from < 0) return 0;
      found = s.lastIndexOf(sub, from);
      if (found < 0) return 0;
      from = found - 1;
    }
  }
  return found + 1;
}

/** Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit arithmetic. */
export function javaHashCode(s: string): number {
  let hash = 0;
  for (let i = 0; i < s.length; i++) hash = (Math.imul(hash, 31) + s.charCodeAt(i)) | 0;
  return hash;
}

/**
 * PRINT's side effect: writes the line `prefix` + `text` to standard output (`null` for either
 * when NULL), as Flink's code generator prints to System.out, and returns `value` unchanged.
 * Reads `value` (which may be NULL) as text only through `format`.
 */
export function printThrough(prefix: string | null, value: unknown, format: (value: unknown) => string): unknown {
  process.stdout.write(`${prefix ?? 'null'}${value === null ? 'null' : format(value)}\n`);
  return value;
}
