/**
 * JSON for the JSON functions: SQL values serialized as Flink's JSON_STRING / JSON_OBJECT /
 * JSON_ARRAY serialize them (Jackson): strings quoted, numbers as Java prints them, TIMESTAMP as
 * `LocalDateTime.toString()` (`"1990-06-02T13:37:42.001"`), TIMESTAMP_LTZ as `Instant.toString()`
 * (`"...Z"`), ROW and MAP as objects with their keys sorted, ARRAY as arrays, NULL nested in a
 * ROW/ARRAY/MAP as `null`.
 */
import { isNanoTimestamp, millisOfNanos, nanoOfMilliOf } from '../../common/epoch-nanos.js';
import { bytesToBase64 } from '../../common/bytes.js';
import { fitsPrecision, formatDecimal, parseDecimal, pow10, rescaleDecimal } from '../../common/decimal.js';
import { INT64_MAX, INT64_MIN, normalizeInt64 } from '../../common/int64.js';
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
// Parsed JSON, as Jackson maps it for Flink's JSON functions (USE_BIG_DECIMAL_FOR_FLOATS): objects
// keep their keys in order (a repeated key keeps its first place and its last value), integers
// are exact (bigint), other numbers are exact decimals (JsonDecimal, Java's BigDecimal).
// ---------------------------------------------------------------------------------------------

/** A parsed JSON value. */
export type JsonValue = null | boolean | bigint | JsonDecimal | string | JsonValue[] | JsonObject;

/** A parsed JSON object. */
export class JsonObject {
  constructor(readonly entries: Map<string, JsonValue> = new Map()) {}
}

/** A JSON number with a fraction or an exponent, exactly: `unscaled × 10^-scale` (the scale may be negative), as Java's BigDecimal. */
export class JsonDecimal {
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
  ) {}

  /** Java's BigDecimal.toString: plain (`13.37`, `0.001`) or scientific (`1E+7`, `1.5E-8`). */
  toString(): string {
    const negative = this.unscaled < 0n;
    const digits = (negative ? -this.unscaled : this.unscaled).toString();
    const sign = negative ? '-' : '';
    if (this.scale === 0) return sign + digits;
    const adjusted = digits.length - 1 - this.scale;
    if (this.scale > 0 && adjusted >= -6) {
      const point = digits.length - this.scale;
      return sign + (point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`);
    }
    return `${sign}${digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits}E${adjusted > 0 ? '+' : ''}${adjusted}`;
  }
}

class JsonSyntaxError extends Error {}

/**
 * Parses JSON text (surrounding whitespace allowed); throws a JsonSyntaxError naming the line and
 * column as Jackson does (for an unclosed object or array, where it starts).
 * `trailing`: text after the first value is ignored, as Jackson's default ObjectMapper (which
 * Flink's JSON_UNQUOTE validates with) ignores it.
 */
export function parseJson(text: string, trailing = false): JsonValue {
  let i = 0;
  /** Where offset `at` is, as Jackson reports it: `line: 1, column: 3`. */
  const where = (at: number): string => {
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    return `line: ${line}, column: ${at - before.lastIndexOf('\n')}`;
  };
  const fail = (what: string, start?: { readonly kind: 'Object' | 'Array'; readonly at: number }): never => {
    if (start !== undefined && i >= text.length) throw new JsonSyntaxError(`Unexpected end-of-input: expected close marker for ${start.kind} (start marker at ${where(start.at)})`);
    throw new JsonSyntaxError(`${what} (${where(i)})`);
  };
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const value = (): JsonValue => {
    space();
    const c = text[i];
    if (c === '{') {
      const start = { kind: 'Object', at: i } as const;
      i++;
      const object = new JsonObject();
      space();
      if (text[i] === '}') {
        i++;
        return object;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key', start);
        const key = string();
        space();
        if (text[i++] !== ':') fail("expected ':'", start);
        object.entries.set(key, value());
        space();
        const next = text[i++];
        if (next === '}') return object;
        if (next !== ',') fail("expected ',' or '}'", start);
      }
    }
    if (c === '[') {
      const start = { kind: 'Array', at: i } as const;
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
        if (next !== ',') fail("expected ',' or ']'", start);
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    const number = /^(-?(?:0|[1-9]\d*))(?:\.(\d+))?(?:[eE]([+-]?\d+))?/.exec(text.slice(i));
    if (number === null) return fail('unexpected character');
    i += number[0].length;
    if (number[2] === undefined && number[3] === undefined) return BigInt(number[1]!);
    const fraction = number[2] ?? '';
    return new JsonDecimal(BigInt(number[1]! + fraction), fraction.length - Number(number[3] ?? 0));
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

const compareEntries = (a: readonly [string, JsonValue], b: readonly [string, JsonValue]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Compact JSON text of a parsed value, as Flink's JSON functions write it (Jackson, object keys sorted, decimals as BigDecimal prints them). */
export function writeJson(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return String(value);
    case 'string':
      return jsonQuote(value);
    default:
      if (value instanceof JsonDecimal) return value.toString();
      if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
      return `{${[...value.entries].sort(compareEntries).map(([k, v]) => `${jsonQuote(k)}:${writeJson(v)}`).join(',')}}`;
  }
}

/** The text of a scalar as Java's toString gives it (JSON_VALUE's STRING result). */
export function scalarText(value: boolean | bigint | JsonDecimal | string): string {
  return String(value);
}

/** A value as Java's toString prints the object Jackson made of it (`{a=1, b=[1, 2]}`), for Flink's error messages. */
function javaText(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(javaText).join(', ')}]`;
  if (value instanceof JsonObject) return `{${[...value.entries].map(([k, v]) => `${k}=${javaText(v)}`).join(', ')}}`;
  return String(value);
}

const isScalar = (value: JsonValue): boolean => value === null || typeof value !== 'object' || value instanceof JsonDecimal;

// ---------------------------------------------------------------------------------------------
// SQL/JSON paths, as Flink's JSON functions read them (through Jayway JsonPath): an optional mode,
// `strict` (the default: what the path does not find is an error) or `lax` (it is an empty
// result), then `$` and steps: `.key`, `['key']`, `["key"]`, `[n]`, `[*]`, `.*`, `[a:b]`, `..key`.
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

/**
 * A compiled path, or undefined when it does not parse (cached). Without `allowMode` (JSON_LENGTH,
 * JSON_TYPE) a mode prefix does not parse, and a path not starting with `$` is read from `$.`, as
 * Jayway JsonPath reads it.
 */
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
  let strict = true;
  const mode = /^(lax|strict)\s+/i.exec(rest);
  if (mode !== null) {
    if (!allowMode) throw new JsonPathError('mode');
    strict = mode[1]!.toLowerCase() === 'strict';
    rest = rest.slice(mode[0].length);
  }
  if (!allowMode && rest !== '' && !rest.startsWith('$')) rest = `$.${rest}`;
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

/** A path (or its first steps) as Jayway JsonPath prints it in its errors (Flink's messages): `$['a'][0]`. */
function canonicalPath(steps: readonly Step[]): string {
  const text = (step: Step): string => {
    switch (step.kind) {
      case 'key':
        return `['${step.name}']`;
      case 'index':
        return `[${step.index}]`;
      case 'wildcard':
        return '[*]';
      case 'slice':
        return `[${step.from ?? ''}:${step.to ?? ''}]`;
      case 'deep':
        return `..['${step.name}']`;
    }
  };
  return `$${steps.map(text).join('')}`;
}

const javaClassOf = (value: JsonValue): string =>
  value === null ? 'null' : typeof value === 'string' ? 'java.lang.String' : typeof value === 'boolean' ? 'java.lang.Boolean' : typeof value === 'bigint' ? 'java.lang.Integer' : value instanceof JsonDecimal ? 'java.math.BigDecimal' : Array.isArray(value) ? 'java.util.ArrayList' : 'java.util.LinkedHashMap';

/**
 * The values `path` selects, as Jayway JsonPath reads them: one value (undefined when there is
 * none) for a definite path, a list for another. A strict path throws a JsonPathError where Jayway
 * does without SUPPRESS_EXCEPTIONS: a definite path that finds nothing, a missing member that is
 * not the last step, or a step into the wrong kind of value, while every step before it is definite.
 */
function readPath(root: JsonValue, path: JsonPath): JsonValue | JsonValue[] | undefined {
  let current: JsonValue[] = [root];
  path.steps.forEach((step, n) => {
    const upstreamDefinite = path.strict && path.steps.slice(0, n).every((s) => s.kind === 'key' || s.kind === 'index');
    const leaf = n === path.steps.length - 1;
    const here = (): string => canonicalPath(path.steps.slice(0, n));
    current = current.flatMap((value) => {
      switch (step.kind) {
        case 'key': {
          if (!(value instanceof JsonObject)) {
            if (upstreamDefinite) throw new JsonPathError(`Expected to find an object with property ['${step.name}'] in path ${here()} but found '${javaClassOf(value)}'. This is not a json object according to the JsonProvider: 'com.jayway.jsonpath.spi.json.JacksonJsonProvider'.`);
            return [];
          }
          if (value.entries.has(step.name)) return [value.entries.get(step.name)!];
          if (!leaf && upstreamDefinite) throw new JsonPathError(`Missing property in path ${canonicalPath(path.steps.slice(0, n + 1))}`);
          return [];
        }
        case 'index':
        case 'slice': {
          if (!Array.isArray(value)) {
            if (upstreamDefinite) throw new JsonPathError(value === null ? `The path ${here()} is null` : `Filter: ${canonicalPath([step]).slice(1)} can only be applied to arrays. Current context is: ${javaText(value)}`);
            return [];
          }
          if (step.kind === 'slice') return value.slice(step.from, step.to);
          const found = value[step.index < 0 ? value.length + step.index : step.index];
          return found === undefined ? [] : [found];
        }
        case 'wildcard':
          return Array.isArray(value) ? value : value instanceof JsonObject ? [...value.entries.values()] : [];
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
    });
  });
  if (!path.definite) return current;
  if (current.length === 0) {
    if (path.strict) throw new JsonPathError(`No results for path: ${canonicalPath(path.steps)}`);
    return undefined;
  }
  return current[0];
}

/** What reading a JSON text at a path gave: the value, nothing (empty), or an error. */
export type JsonRead = { readonly kind: 'value'; readonly value: JsonValue } | { readonly kind: 'empty' } | { readonly kind: 'error'; readonly message: string };

/**
 * Reads `json` at `path` (a compiled path, or null when the path text did not compile), as Flink
 * does: invalid JSON is an error in strict mode and an empty result in lax mode; a JSON null (or
 * nothing) found is an error in strict mode and an empty result in lax mode; a document that is
 * the JSON null is an error.
 */
export function readJson(json: string, path: JsonPath | null): JsonRead {
  if (path === null) return { kind: 'error', message: 'invalid JSON path' };
  const root = tryParseJson(json);
  if (root === undefined) return path.strict ? { kind: 'error', message: `invalid JSON: ${json.length > 40 ? json.slice(0, 40) + '...' : json}` } : { kind: 'empty' };
  if (root === null) return { kind: 'error', message: 'json can not be null' };
  try {
    const value = readPath(root, path);
    if (value === undefined || value === null) return path.strict ? { kind: 'error', message: 'Strict jsonpath mode requires a non empty returned value, but is null' } : { kind: 'empty' };
    return { kind: 'value', value };
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

/** JSON_EXISTS: whether `path` reads a value (any list, even empty, for a path that is not definite); `onError` (TRUE, FALSE, UNKNOWN or ERROR) decides for an error. */
export function jsonExists(json: string, path: JsonPath | null, onError: string): boolean | null {
  const read = readJson(json, path);
  if (read.kind === 'error') {
    if (onError === 'ERROR') throw new WeirError('EXECUTION_ERROR', read.message);
    return onError === 'TRUE' ? true : onError === 'FALSE' ? false : null;
  }
  return read.kind === 'value';
}

/** JSON_VALUE's outcome before the ON EMPTY / ON ERROR clauses: a scalar, or why there is none. */
export function jsonValue(json: string, path: JsonPath | null): JsonRead {
  const read = readJson(json, path);
  if (read.kind !== 'value') return read;
  const value = read.value;
  if (!isScalar(value)) {
    if (path?.strict === true) return { kind: 'error', message: `Strict jsonpath mode requires scalar value, and the actual value is: ''${javaText(value)}''` };
    return { kind: 'empty' };
  }
  return { kind: 'value', value };
}

/** JSON_QUERY's outcome before the ON EMPTY / ON ERROR clauses: the (wrapped) object or array, or why there is none. */
export function jsonQuery(json: string, path: JsonPath | null, wrapper: string): JsonRead {
  const read = readJson(json, path);
  if (read.kind !== 'value') return read;
  let value = read.value;
  if (wrapper === 'UNCONDITIONAL') value = [value];
  else if (wrapper === 'CONDITIONAL' && !Array.isArray(value)) value = [value];
  if (isScalar(value)) {
    if (path?.strict === true) return { kind: 'error', message: `Strict jsonpath mode requires array or object value, and the actual value is: ''${javaText(value)}''` };
    return { kind: 'empty' };
  }
  return { kind: 'value', value };
}

/**
 * The value one path selects in a document, or undefined when it selects none or several, or the
 * JSON or the path is invalid (JSON_LENGTH, JSON_TYPE); the path has no mode, a missing member is
 * no value, and a document that is the JSON null has only the path `$`.
 */
function selectOne(json: string, pathText: string | undefined): JsonValue | undefined {
  const root = tryParseJson(json);
  if (root === undefined) return undefined;
  if (pathText === undefined) return root;
  if (root === null) return pathText === '$' ? null : undefined;
  const path = tryCompileJsonPath(pathText, false);
  if (path === undefined) return undefined;
  let value: JsonValue | JsonValue[] | undefined;
  try {
    value = readPath(root, path);
  } catch (error) {
    if (error instanceof JsonPathError) return undefined;
    throw error;
  }
  if (path.definite) return value as JsonValue | undefined;
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
  return typeof value === 'bigint' || value instanceof JsonDecimal ? 'number' : typeof value;
}

/** JSON(text) inside JSON_OBJECT/JSON_ARRAY: the text as raw JSON, null for blank text; invalid JSON is an error. */
export function rawJson(text: string | null): string | null {
  if (text === null || text.trim() === '') return null;
  let value: JsonValue;
  try {
    value = parseJson(text.trim());
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new WeirError('EXECUTION_ERROR', `Invalid JSON string in JSON(value) function: "${text}". Error: ${error.message}`);
  }
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

/** A JSON scalar other than null. */
export type JsonScalar = boolean | bigint | JsonDecimal | string;

/** The types Flink converts a JSON scalar to by its own rules (SqlJsonUtils.convertToType), not by a CAST of its text. */
export type JsonConversionKind = 'BOOLEAN' | 'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'DECIMAL';

const INTEGER_RANGES: Readonly<Record<'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT', readonly [bigint, bigint]>> = {
  TINYINT: [-128n, 127n],
  SMALLINT: [-32768n, 32767n],
  INT: [-2147483648n, 2147483647n],
  BIGINT: [INT64_MIN, INT64_MAX],
};

const JAVA_DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A string as Java's `new BigDecimal(text)` reads it, or undefined when it is not a number. */
function decimalOfText(text: string): JsonDecimal | undefined {
  if (!JAVA_DECIMAL.test(text)) return undefined;
  const [mantissa, exponent = '0'] = text.split(/[eE]/) as [string, string | undefined];
  const [whole, fraction = ''] = mantissa.replace(/^\+/, '').split('.') as [string, string | undefined];
  return new JsonDecimal(BigInt(`${whole === '' || whole === '-' ? `${whole}0` : whole}${fraction}`), fraction.length - Number(exponent));
}

class JsonConversionError extends Error {}

/**
 * Converts a JSON scalar to `kind` as Flink's JSON_VALUE / JSON_QUERY RETURNING do: a string is
 * read as a BOOLEAN (`true`/`t`/`yes`/`1`, `false`/`f`/`no`/`0`, any case) or as a decimal number;
 * a number is truncated toward zero to an integer type and must fit it, rounded HALF_UP to a
 * DECIMAL's scale and must fit its precision, and must be finite as a FLOAT or DOUBLE; a boolean
 * is only a BOOLEAN. Throws a JsonConversionError otherwise.
 */
export function convertJsonScalar(value: JsonScalar, kind: JsonConversionKind, precision = 0, scale = 0): unknown {
  if (typeof value === 'string') {
    if (kind === 'BOOLEAN') {
      const text = value.trim().toLowerCase();
      if (text === 'true' || text === 't' || text === 'yes' || text === '1') return true;
      if (text === 'false' || text === 'f' || text === 'no' || text === '0') return false;
      throw new JsonConversionError(`Cannot parse string '${value}' as BOOLEAN`);
    }
    const decimal = decimalOfText(value);
    if (decimal === undefined) throw new JsonConversionError(`Cannot parse string '${value}' as ${kind}`);
    return convertJsonScalar(decimal, kind, precision, scale);
  }
  if (typeof value === 'boolean') {
    if (kind === 'BOOLEAN') return value;
    throw new JsonConversionError(`Cannot convert java.lang.Boolean to ${kind}`);
  }
  const [unscaled, valueScale] = typeof value === 'bigint' ? [value, 0] : [value.unscaled, value.scale];
  switch (kind) {
    case 'BOOLEAN':
      throw new JsonConversionError(`Cannot convert ${typeof value === 'bigint' ? 'java.lang.Integer' : 'java.math.BigDecimal'} to BOOLEAN`);
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      const [min, max] = INTEGER_RANGES[kind];
      const outOfRange = (): never => {
        throw new JsonConversionError(`Value ${String(value)} is out of range for ${kind === 'INT' ? 'INTEGER' : kind}`);
      };
      if (valueScale < -20 && unscaled !== 0n) outOfRange();
      const integer = valueScale >= 0 ? unscaled / pow10(valueScale) : unscaled * pow10(-valueScale);
      if (integer < min || integer > max) outOfRange();
      return kind === 'BIGINT' ? normalizeInt64(integer) : Number(integer);
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const number = Number(`${unscaled}e${-valueScale}`);
      const result = kind === 'FLOAT' ? Math.fround(number) : number;
      if (!Number.isFinite(result)) throw new JsonConversionError(`Value ${String(value)} is out of range for ${kind}`);
      return result;
    }
    case 'DECIMAL': {
      const parsed = parseDecimal(String(value));
      const rescaled = parsed === undefined ? undefined : rescaleDecimal(parsed.unscaled, parsed.scale, scale);
      if (rescaled === undefined || !fitsPrecision(rescaled, precision)) throw new JsonConversionError(`Value ${String(value)} cannot be represented as DECIMAL(${precision}, ${scale})`);
      return rescaled;
    }
  }
}

/** How JSON_VALUE converts a scalar to its RETURNING type: Flink's own rules ({@link convertJsonScalar}), or a CAST of the scalar's text (`fromText`), or none (a string type). */
export type JsonValueConversion = { readonly kind: JsonConversionKind; readonly precision: number; readonly scale: number; readonly typeName: string } | ((text: string) => unknown) | null;

/**
 * JSON_VALUE converted to its RETURNING type; a value that does not convert is an error of the
 * function ("Cannot cast ..."), which its ON ERROR clause handles.
 */
export function jsonValueAs(json: string, path: JsonPath | null, conversion: JsonValueConversion): JsonRead | { readonly kind: 'converted'; readonly value: unknown } {
  const read = jsonValue(json, path);
  if (read.kind !== 'value') return read;
  const scalar = read.value as JsonScalar;
  if (conversion === null) return { kind: 'converted', value: scalarText(scalar) };
  try {
    if (typeof conversion === 'function') return { kind: 'converted', value: conversion(scalarText(scalar)) };
    return { kind: 'converted', value: convertJsonScalar(scalar, conversion.kind, conversion.precision, conversion.scale) };
  } catch (error) {
    if (error instanceof JsonConversionError) return { kind: 'error', message: `Cannot cast ${javaClassOf(scalar)} to ${conversion === null || typeof conversion === 'function' ? '' : conversion.typeName}: ${error.message}` };
    if (error instanceof WeirError) return { kind: 'error', message: error.message };
    throw error;
  }
}

/** What JSON_QUERY returns: JSON text (null), an ARRAY<STRING> of its elements' texts ('text'), or a typed ARRAY of its elements converted. */
export type JsonQueryReturning = null | 'text' | { readonly kind: JsonConversionKind; readonly precision: number; readonly scale: number; readonly nullable: boolean };

/**
 * JSON_QUERY with its clauses applied: the JSON text, or as an ARRAY its elements (a scalar's text
 * as Java prints it, an object or array as JSON text; or converted to the element type, where an
 * element that does not convert makes the whole an error of the ON ERROR clause), an empty array
 * or object, NULL, or an error.
 */
export function jsonQueryResult(json: string, path: JsonPath | null, wrapper: string, onEmpty: string, onError: string, returning: JsonQueryReturning): string | unknown[] | null {
  const read = jsonQuery(json, path, wrapper);
  const asArray = returning !== null;
  const fallback = (mode: string, what: string): string | unknown[] | null => {
    if (mode === 'ERROR') throw new WeirError('EXECUTION_ERROR', what);
    if (mode === 'EMPTY ARRAY') return asArray ? [] : '[]';
    if (mode === 'EMPTY OBJECT') return asArray ? null : '{}';
    return null;
  };
  if (read.kind === 'empty') return fallback(onEmpty, 'Empty result of JSON_QUERY function is not allowed');
  if (read.kind === 'error') return fallback(onError, read.message);
  if (returning === null) return writeJson(read.value);
  if (!Array.isArray(read.value)) return fallback(onError, `class java.util.LinkedHashMap cannot be cast to class java.util.List`);
  if (returning === 'text') return read.value.map((v) => (v === null ? null : isScalar(v) ? scalarText(v as JsonScalar) : writeJson(v)));
  try {
    return read.value.map((v) => {
      if (v === null) {
        if (!returning.nullable) throw new JsonConversionError('NULL element for an element type that is NOT NULL');
        return null;
      }
      if (!isScalar(v)) throw new JsonConversionError(`Cannot convert ${javaClassOf(v)} to ${returning.kind}`);
      return convertJsonScalar(v as JsonScalar, returning.kind, returning.precision, returning.scale);
    });
  } catch (error) {
    if (!(error instanceof JsonConversionError)) throw error;
    if (onError === 'ERROR') throw new WeirError('EXECUTION_ERROR', `Array element type mismatch in JSON_QUERY: ${error.message}`);
    return onError === 'EMPTY ARRAY' ? [] : null;
  }
}
