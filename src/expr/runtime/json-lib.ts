/**
 * JSON for the JSON functions: SQL values serialized as Flink's JSON_STRING / JSON_OBJECT /
 * JSON_ARRAY serialize them (Jackson): strings quoted, numbers as Java prints them, TIMESTAMP as
 * `LocalDateTime.toString()` (`"1990-06-02T13:37:42.001"`), TIMESTAMP_LTZ as `Instant.toString()`
 * (`"...Z"`), ROW and MAP as objects with their keys sorted, ARRAY as arrays, NULL nested in a
 * ROW/ARRAY/MAP as `null`.
 */
import { isNanoTimestamp, millisOfNanos, nanoOfMilliOf } from '../../common/epoch-nanos.js';
import { bytesToBase64 } from '../../common/bytes.js';
import { formatDecimal } from '../../common/decimal.js';
import { WeirError } from '../../common/errors.js';
import { civilFromDays, floorDiv, floorMod, MILLIS_PER_DAY } from '../../common/datetime.js';
import type { SqlType } from '../../common/sql-type.js';
import { formatDouble, formatFloat } from '../../common/value-format.js';

/** Serializes a non-NULL value of a fixed type. */
export type JsonSerializer = (value: any) => string;

/** A JSON string literal, escaped as Jackson escapes it. */
export function jsonQuote(text: string): string {
  return JSON.stringify(text);
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function isoDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const y = year >= 0 && year <= 9999 ? pad(year, 4) : year < 0 ? `-${pad(-year, 4)}` : `+${year}`;
  return `${y}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** Java's LocalTime.toString of milliseconds of the day: `13:37`, `13:37:42`, `13:37:42.001`. */
export function isoLocalTime(millisOfDay: number, alwaysSeconds = false, nanoOfMilli = 0): string {
  const hours = Math.floor(millisOfDay / 3_600_000);
  const minutes = Math.floor(millisOfDay / 60_000) % 60;
  const seconds = Math.floor(millisOfDay / 1000) % 60;
  const millis = millisOfDay % 1000;
  let text = `${pad(hours, 2)}:${pad(minutes, 2)}`;
  if (seconds > 0 || millis > 0 || nanoOfMilli > 0 || alwaysSeconds) text += `:${pad(seconds, 2)}`;
  // Java prints the fraction in groups of three digits: milliseconds, micro, or nanoseconds as needed.
  if (nanoOfMilli > 0) text += `.${pad(millis, 3)}${nanoOfMilli % 1000 === 0 ? pad(nanoOfMilli / 1000, 3) : pad(nanoOfMilli, 6)}`;
  else if (millis > 0) text += `.${pad(millis, 3)}`;
  return text;
}

/** Java's LocalDateTime.toString of epoch milliseconds (no zone), with the nanoseconds within the millisecond of a TIMESTAMP(p > 3). */
export function isoLocalDateTime(millis: number, nanoOfMilli = 0): string {
  return `${isoDate(floorDiv(millis, MILLIS_PER_DAY))}T${isoLocalTime(floorMod(millis, MILLIS_PER_DAY), false, nanoOfMilli)}`;
}

/** Java's Instant.toString of epoch milliseconds, with the nanoseconds within the millisecond of a TIMESTAMP_LTZ(p > 3). */
export function isoInstant(millis: number, nanoOfMilli = 0): string {
  return `${isoDate(floorDiv(millis, MILLIS_PER_DAY))}T${isoLocalTime(floorMod(millis, MILLIS_PER_DAY), true, nanoOfMilli)}Z`;
}

const compareKeys = (a: readonly [string, string], b: readonly [string, string]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** A JSON object of `[key, json]` entries, keys sorted (as Flink's JSON functions write them). */
export function jsonObjectOf(entries: [string, string][]): string {
  entries.sort(compareKeys);
  let text = '{';
  for (let i = 0; i < entries.length; i++) text += `${i === 0 ? '' : ','}${jsonQuote(entries[i]![0])}:${entries[i]![1]}`;
  return text + '}';
}

/** The serializer of non-NULL values of `type`. */
export function jsonSerializer(type: SqlType): JsonSerializer {
  switch (type.kind) {
    case 'BOOLEAN':
      return (v: boolean) => (v ? 'true' : 'false');
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return (v: number) => String(v);
    case 'FLOAT':
      return (v: number) => (Number.isFinite(v) ? formatFloat(v) : jsonQuote(formatFloat(v)));
    case 'DOUBLE':
      return (v: number) => (Number.isFinite(v) ? formatDouble(v) : jsonQuote(formatDouble(v)));
    case 'DECIMAL': {
      const scale = type.scale;
      return (v: bigint) => formatDecimal(v, scale);
    }
    case 'CHAR':
    case 'VARCHAR':
      return jsonQuote;
    case 'BINARY':
    case 'VARBINARY':
      return (v: Uint8Array) => jsonQuote(bytesToBase64(v));
    case 'DATE':
      return (v: number) => jsonQuote(isoDate(v));
    case 'TIME':
      return (v: number) => jsonQuote(isoLocalTime(v));
    case 'TIMESTAMP':
      if (isNanoTimestamp(type)) return (v: bigint) => jsonQuote(isoLocalDateTime(millisOfNanos(v), nanoOfMilliOf(v)));
      return (v: number) => jsonQuote(isoLocalDateTime(v));
    case 'TIMESTAMP_LTZ':
      if (isNanoTimestamp(type)) return (v: bigint) => jsonQuote(isoInstant(millisOfNanos(v), nanoOfMilliOf(v)));
      return (v: number) => jsonQuote(isoInstant(v));
    case 'ROW': {
      const fields = type.fields.map((f) => [f.name, jsonSerializer(f.type)] as const);
      return (v: readonly unknown[]) => jsonObjectOf(fields.map(([name, serialize], i) => [name, v[i] === null || v[i] === undefined ? 'null' : serialize(v[i])]));
    }
    case 'ARRAY': {
      const element = jsonSerializer(type.element);
      return (v: readonly unknown[]) => `[${v.map((e) => (e === null || e === undefined ? 'null' : element(e))).join(',')}]`;
    }
    case 'MAP': {
      const key = type.key.kind === 'CHAR' || type.key.kind === 'VARCHAR' ? (k: unknown) => k as string : (k: unknown) => stripQuotes(jsonSerializer(type.key)(k));
      const value = jsonSerializer(type.value);
      return (v: ReadonlyMap<unknown, unknown>) => jsonObjectOf([...v].map(([k, x]) => [k === null ? 'null' : key(k), x === null || x === undefined ? 'null' : value(x)]));
    }
    case 'NULL':
      return () => 'null';
  }
}

function stripQuotes(json: string): string {
  return json.startsWith('"') ? (JSON.parse(json) as string) : json;
}

// ---------------------------------------------------------------------------------------------
// Parsed JSON, as Jackson maps it for Flink's JSON functions: objects keep their keys in order
// (a repeated key keeps its first place and its last value), integers are exact (bigint), other
// numbers are doubles.
// ---------------------------------------------------------------------------------------------

/** A parsed JSON value. */
export type JsonValue = null | boolean | bigint | number | string | JsonValue[] | JsonObject;

/** A parsed JSON object. */
export class JsonObject {
  constructor(readonly entries: Map<string, JsonValue> = new Map()) {}
}

class JsonSyntaxError extends Error {}

/**
 * Parses JSON text (surrounding whitespace allowed); throws a JsonSyntaxError naming the offset.
 * `trailing`: text after the first value is ignored, as Jackson's default ObjectMapper (which
 * Flink's JSON_UNQUOTE validates with) ignores it.
 */
export function parseJson(text: string, trailing = false): JsonValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at offset ${i}`);
  };
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const value = (): JsonValue => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const object = new JsonObject();
      space();
      if (text[i] === '}') {
        i++;
        return object;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        space();
        if (text[i++] !== ':') fail("expected ':'");
        object.entries.set(key, value());
        space();
        const next = text[i++];
        if (next === '}') return object;
        if (next !== ',') fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const array: JsonValue[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return array;
      }
      for (;;) {
        array.push(value());
        space();
        const next = text[i++];
        if (next === ']') return array;
        if (next !== ',') fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    const number = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (number === null) return fail('unexpected character');
    i += number[0].length;
    return number[1] === undefined && number[2] === undefined ? BigInt(number[0]) : Number(number[0]);
  };
  const string = (): string => {
    const start = i;
    i++;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (c === '"') break;
      else if (c! < ' ') fail('control character in a string');
    }
    if (i >= text.length) fail('unterminated string');
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('invalid escape');
    }
  };
  const result = value();
  space();
  if (i < text.length && !trailing) fail('unexpected text after the value');
  return result;
}

/** Parses JSON text, or undefined when it is not JSON (`trailing`: see {@link parseJson}). */
export function tryParseJson(text: string, trailing = false): JsonValue | undefined {
  try {
    return parseJson(text, trailing);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
}

/** Compact JSON text of a parsed value, as Jackson writes it (doubles as Java prints them). */
export function writeJson(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return String(value);
    case 'number':
      return formatDouble(value);
    case 'string':
      return jsonQuote(value);
    default:
      if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
      return `{${[...value.entries].map(([k, v]) => `${jsonQuote(k)}:${writeJson(v)}`).join(',')}}`;
  }
}

/** The text of a scalar as Java's toString gives it (JSON_VALUE's STRING result). */
export function scalarText(value: boolean | bigint | number | string): string {
  return typeof value === 'number' ? formatDouble(value) : String(value);
}

const isScalar = (value: JsonValue): boolean => value === null || typeof value !== 'object';

// ---------------------------------------------------------------------------------------------
// SQL/JSON paths, as Flink's JSON functions read them (through Jayway JsonPath): an optional mode,
// `lax` (the default: a missing member or element is an empty result) or `strict` (it is an
// error), then `$` and steps: `.key`, `['key']`, `["key"]`, `[n]`, `[*]`, `.*`, `[a:b]`, `..key`.
// ---------------------------------------------------------------------------------------------

type Step =
  | { readonly kind: 'key'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'slice'; readonly from?: number; readonly to?: number }
  | { readonly kind: 'deep'; readonly name: string };

/** A compiled path. */
export interface JsonPath {
  readonly text: string;
  readonly strict: boolean;
  /** Whether the path may match several values (a wildcard, slice or deep scan): then its result is a list. */
  readonly definite: boolean;
  readonly steps: readonly Step[];
}

class JsonPathError extends Error {}

/** Compiles a path; throws a WeirError for a path that does not parse. */
export function compileJsonPath(text: string, allowMode = true): JsonPath {
  const compiled = tryCompileJsonPath(text, allowMode);
  if (compiled === undefined) throw new WeirError('INVALID_ARGUMENT', `invalid JSON path '${text}'`);
  return compiled;
}

const pathCache = new Map<string, JsonPath | undefined>();

/** A compiled path, or undefined when it does not parse (cached). */
export function tryCompileJsonPath(text: string, allowMode = true): JsonPath | undefined {
  const key = `${allowMode ? 'm' : 'p'}${text}`;
  if (pathCache.has(key)) return pathCache.get(key);
  let compiled: JsonPath | undefined;
  try {
    compiled = parsePath(text, allowMode);
  } catch (error) {
    if (!(error instanceof JsonPathError)) throw error;
  }
  if (pathCache.size >= 256) pathCache.clear();
  pathCache.set(key, compiled);
  return compiled;
}

function parsePath(text: string, allowMode: boolean): JsonPath {
  let rest = text.trim();
  let strict = false;
  const mode = /^(lax|strict)\s+/i.exec(rest);
  if (mode !== null) {
    if (!allowMode) throw new JsonPathError('mode');
    strict = mode[1]!.toLowerCase() === 'strict';
    rest = rest.slice(mode[0].length);
  }
  if (!rest.startsWith('$')) throw new JsonPathError('no $');
  let i = 1;
  const steps: Step[] = [];
  const name = (): string => {
    const match = /^[^.[\]\s]+/.exec(rest.slice(i));
    if (match === null) throw new JsonPathError('name');
    i += match[0].length;
    return match[0];
  };
  while (i < rest.length) {
    if (rest.startsWith('..', i)) {
      i += 2;
      steps.push({ kind: 'deep', name: name() });
    } else if (rest[i] === '.') {
      i++;
      if (rest[i] === '[') continue;
      if (rest[i] === '*') {
        i++;
        steps.push({ kind: 'wildcard' });
      } else steps.push({ kind: 'key', name: name() });
    } else if (rest[i] === '[') {
      const close = rest.indexOf(']', i);
      if (close < 0) throw new JsonPathError('bracket');
      const inner = rest.slice(i + 1, close).trim();
      i = close + 1;
      const quoted = /^(['"])(.*)\1$/s.exec(inner);
      if (quoted !== null) steps.push({ kind: 'key', name: quoted[2]! });
      else if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^-?\d*:-?\d*$/.test(inner)) {
        const [from, to] = inner.split(':');
        steps.push({ kind: 'slice', ...(from === '' ? {} : { from: Number(from) }), ...(to === '' ? {} : { to: Number(to) }) });
      } else throw new JsonPathError('bracket content');
    } else throw new JsonPathError('step');
  }
  return { text, strict, definite: steps.every((s) => s.kind === 'key' || s.kind === 'index'), steps };
}

/** The values `path` selects: one value (or `undefined` when absent) for a definite path, a list for another; throws a JsonPathError when a strict path finds nothing. */
function readPath(root: JsonValue, path: JsonPath): JsonValue | undefined {
  if (path.definite) {
    let current: JsonValue | undefined = root;
    for (const step of path.steps) {
      current = stepInto(current, step);
      if (current === undefined) {
        if (path.strict) throw new JsonPathError(`No results for path: ${canonicalPath(path.steps)}`);
        return undefined;
      }
    }
    return current;
  }
  let current: JsonValue[] = [root];
  for (const step of path.steps) current = current.flatMap((v) => select(v, step));
  return current;
}

/** A definite path as Jayway JsonPath prints it in its errors (Flink's messages): `$['a'][0]`. */
function canonicalPath(steps: readonly Step[]): string {
  return `$${steps.map((step) => (step.kind === 'index' ? `[${step.index}]` : step.kind === 'key' ? `['${step.name}']` : '')).join('')}`;
}

function stepInto(value: JsonValue | undefined, step: Step): JsonValue | undefined {
  if (step.kind === 'key') return value instanceof JsonObject ? value.entries.get(step.name) : undefined;
  if (step.kind === 'index' && Array.isArray(value)) return value[step.index < 0 ? value.length + step.index : step.index];
  return undefined;
}

function select(value: JsonValue, step: Step): JsonValue[] {
  switch (step.kind) {
    case 'key':
    case 'index': {
      const found = stepInto(value, step);
      return found === undefined ? [] : [found];
    }
    case 'wildcard':
      return Array.isArray(value) ? value : value instanceof JsonObject ? [...value.entries.values()] : [];
    case 'slice':
      return Array.isArray(value) ? value.slice(step.from, step.to) : [];
    case 'deep': {
      const found: JsonValue[] = [];
      const visit = (v: JsonValue): void => {
        if (v instanceof JsonObject) {
          if (v.entries.has(step.name)) found.push(v.entries.get(step.name)!);
          for (const child of v.entries.values()) visit(child);
        } else if (Array.isArray(v)) v.forEach(visit);
      };
      visit(value);
      return found;
    }
  }
}

/** What reading a JSON text at a path gave: the value, nothing (empty), or an error. */
export type JsonRead = { readonly kind: 'value'; readonly value: JsonValue } | { readonly kind: 'empty' } | { readonly kind: 'error'; readonly message: string };

/** Reads `json` at `path` (a compiled path, or null when the path text did not compile). */
export function readJson(json: string, path: JsonPath | null): JsonRead {
  if (path === null) return { kind: 'error', message: 'invalid JSON path' };
  const root = tryParseJson(json);
  if (root === undefined) return { kind: 'error', message: `invalid JSON: ${json.length > 40 ? json.slice(0, 40) + '...' : json}` };
  try {
    const value = readPath(root, path);
    return value === undefined ? { kind: 'empty' } : { kind: 'value', value };
  } catch (error) {
    if (error instanceof JsonPathError) return { kind: 'error', message: error.message };
    throw error;
  }
}

/** `json IS JSON [VALUE | SCALAR | ARRAY | OBJECT]`. */
export function isJson(json: string, type: 'VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT'): boolean {
  const value = tryParseJson(json);
  if (value === undefined) return false;
  switch (type) {
    case 'VALUE':
      return true;
    case 'SCALAR':
      return isScalar(value);
    case 'ARRAY':
      return Array.isArray(value);
    case 'OBJECT':
      return value instanceof JsonObject;
  }
}

/** JSON_EXISTS: whether `path` finds a (non-null) value; `onError` (TRUE, FALSE, UNKNOWN or ERROR) decides for invalid JSON or a strict path that fails. */
export function jsonExists(json: string, path: JsonPath | null, onError: string): boolean | null {
  const read = readJson(json, path);
  if (read.kind === 'error') {
    if (onError === 'ERROR') throw new WeirError('EXECUTION_ERROR', `JSON_EXISTS: ${read.message}`);
    return onError === 'TRUE' ? true : onError === 'FALSE' ? false : null;
  }
  if (read.kind === 'empty') return false;
  return Array.isArray(read.value) && path !== null && !path.definite ? read.value.length > 0 : read.value !== null;
}

/** JSON_VALUE's outcome before the ON EMPTY / ON ERROR clauses: a scalar, or why there is none. */
export function jsonValue(json: string, path: JsonPath | null): JsonRead {
  const read = readJson(json, path);
  if (read.kind !== 'value') return read;
  const value = read.value;
  if (value === null) return { kind: 'empty' };
  if (!isScalar(value)) {
    if (path?.strict === true) return { kind: 'error', message: `Strict jsonpath mode requires scalar value, and the actual value is: '${writeJson(value)}'` };
    return { kind: 'empty' };
  }
  return { kind: 'value', value };
}

/** JSON_QUERY's outcome before the ON EMPTY / ON ERROR clauses: the (wrapped) object or array, or why there is none. */
export function jsonQuery(json: string, path: JsonPath | null, wrapper: string): JsonRead {
  const read = readJson(json, path);
  if (read.kind !== 'value') return read;
  let value = read.value;
  if (value !== null) {
    if (wrapper === 'UNCONDITIONAL') value = [value];
    else if (wrapper === 'CONDITIONAL' && !Array.isArray(value)) value = [value];
  }
  if (value === null) return { kind: 'empty' };
  if (isScalar(value)) {
    if (path?.strict === true) return { kind: 'error', message: `Strict jsonpath mode requires array or object value, and the actual value is: '${writeJson(value)}'` };
    return { kind: 'empty' };
  }
  return { kind: 'value', value };
}

/** The value one path selects in a document, or undefined when it selects none or several (JSON_LENGTH, JSON_TYPE); the path has no mode. */
function selectOne(json: string, pathText: string | undefined): JsonValue | undefined {
  const root = tryParseJson(json);
  if (root === undefined) return undefined;
  if (pathText === undefined) return root;
  const path = tryCompileJsonPath(pathText, false);
  if (path === undefined) return undefined;
  const value = readPath(root, path);
  if (path.definite) return value;
  const list = value as JsonValue[];
  return list.length === 1 ? list[0] : undefined;
}

/** JSON_LENGTH: elements of an array, members of an object, 1 for a scalar; NULL for invalid JSON or a path that selects no single value. */
export function jsonLength(json: string, path?: string): number | null {
  const value = selectOne(json, path);
  if (value === undefined) return null;
  return Array.isArray(value) ? value.length : value instanceof JsonObject ? value.entries.size : 1;
}

/** JSON_TYPE: object, array, string, number, boolean or null; NULL for invalid JSON or a path that selects no single value. */
export function jsonType(json: string, path?: string): string | null {
  const value = selectOne(json, path);
  if (value === undefined) return null;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof JsonObject) return 'object';
  return typeof value === 'bigint' || typeof value === 'number' ? 'number' : typeof value;
}

/** JSON(text) inside JSON_OBJECT/JSON_ARRAY: the text as raw JSON, null for blank text; invalid JSON is an error. */
export function rawJson(text: string | null): string | null {
  if (text === null || text.trim() === '') return null;
  const value = tryParseJson(text);
  if (value === undefined) throw new WeirError('EXECUTION_ERROR', `Invalid JSON string in JSON(value) function: ${text}`);
  return writeJson(value);
}

/** JSON_QUOTE: the text as a JSON string literal, escaping as Flink does (`/` as `\/`, non-ASCII as `\uxxxx`). */
export function jsonQuoteText(s: string): string {
  let out = '"';
  for (const c of s) {
    for (let k = 0; k < c.length; k++) {
      const ch = c[k]!;
      const code = ch.charCodeAt(0);
      switch (ch) {
        case '"':
          out += '\\"';
          break;
        case '\\':
          out += '\\\\';
          break;
        case '/':
          out += '\\/';
          break;
        case '\b':
          out += '\\b';
          break;
        case '\f':
          out += '\\f';
          break;
        case '\n':
          out += '\\n';
          break;
        case '\r':
          out += '\\r';
          break;
        case '\t':
          out += '\\t';
          break;
        default:
          out += code > 127 ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
      }
    }
  }
  return out + '"';
}

/**
 * JSON_UNQUOTE as Flink's: text that does not start with a JSON value (Jackson's leniency: what
 * follows the first value is not checked) is returned as it is; text that does and is enclosed in
 * double quotes has its inside unescaped (\" \\ \/ \b \f \n \r \t \uXXXX), unless an escape there is
 * invalid, when it is returned as it is too; other JSON (arrays, objects, numbers) as it is.
 */
export function jsonUnquote(s: string): string {
  if (tryParseJson(s, true) === undefined) return s;
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s;
  return unescapeJsonText(s.slice(1, -1)) ?? s;
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The text with its JSON escapes resolved; undefined when one is invalid. */
function unescapeJsonText(text: string): string | undefined {
  let result = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\' || i + 1 >= text.length) {
      result += c;
      continue;
    }
    const next = text[++i]!;
    if (next === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
      result += String.fromCharCode(parseInt(hex, 16));
      i += 4;
      continue;
    }
    const escaped = JSON_ESCAPES[next];
    if (escaped === undefined) return undefined;
    result += escaped;
  }
  return result;
}

/**
 * JSON_VALUE converted to its RETURNING type by `convert` (a CAST from the scalar's text); a value
 * that does not convert is an error of the function, which its ON ERROR clause handles.
 */
export function jsonValueAs(json: string, path: JsonPath | null, convert: ((text: string) => unknown) | null): JsonRead | { readonly kind: 'converted'; readonly value: unknown } {
  const read = jsonValue(json, path);
  if (read.kind !== 'value') return read;
  const text = scalarText(read.value as boolean | bigint | number | string);
  if (convert === null) return { kind: 'converted', value: text };
  try {
    return { kind: 'converted', value: convert(text) };
  } catch (error) {
    if (error instanceof WeirError) return { kind: 'error', message: error.message };
    throw error;
  }
}

/** JSON_QUERY with its clauses applied: the JSON text (or, `asArray`, the elements' texts, strings unquoted), an empty array or object, NULL, or an error. */
export function jsonQueryResult(json: string, path: JsonPath | null, wrapper: string, onEmpty: string, onError: string, asArray: boolean): string | (string | null)[] | null {
  const read = jsonQuery(json, path, wrapper);
  const fallback = (mode: string, what: string): string | (string | null)[] | null => {
    if (mode === 'ERROR') throw new WeirError('EXECUTION_ERROR', what);
    if (mode === 'EMPTY ARRAY') return asArray ? [] : '[]';
    if (mode === 'EMPTY OBJECT') return asArray ? null : '{}';
    return null;
  };
  if (read.kind === 'empty') return fallback(onEmpty, 'Empty result of JSON_QUERY function is not allowed');
  if (read.kind === 'error') return fallback(onError, `JSON_QUERY: ${read.message}`);
  if (!asArray) return writeJson(read.value);
  if (!Array.isArray(read.value)) return fallback(onError, `JSON_QUERY: the value is not an array: ${writeJson(read.value)}`);
  return read.value.map((v) => (v === null ? null : typeof v === 'string' ? v : writeJson(v)));
}
