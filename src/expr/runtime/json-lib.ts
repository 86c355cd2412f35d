/**
 * JSON for the JSON functions: SQL values serialized as Flink's JSON_STRING / JSON_OBJECT /
 * JSON_ARRAY serialize them (Jackson): strings quoted, numbers as Java prints them, TIMESTAMP as
 * `LocalDateTime.toString()` (`"1990-06-02T13:37:42.001"`), TIMESTAMP_LTZ as `Instant.toString()`
 * (`"...Z"`), ROW and MAP as objects with their keys sorted, ARRAY as arrays, NULL nested in a
 * ROW/ARRAY/MAP as `null`.
 */
import { formatDecimal } from '../../common/decimal.js';
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
export function isoLocalTime(millisOfDay: number, alwaysSeconds = false): string {
  const hours = Math.floor(millisOfDay / 3_600_000);
  const minutes = Math.floor(millisOfDay / 60_000) % 60;
  const seconds = Math.floor(millisOfDay / 1000) % 60;
  const millis = millisOfDay % 1000;
  let text = `${pad(hours, 2)}:${pad(minutes, 2)}`;
  if (seconds > 0 || millis > 0 || alwaysSeconds) text += `:${pad(seconds, 2)}`;
  if (millis > 0) text += `.${pad(millis, 3)}`;
  return text;
}

/** Java's LocalDateTime.toString of epoch milliseconds (no zone). */
export function isoLocalDateTime(millis: number): string {
  return `${isoDate(floorDiv(millis, MILLIS_PER_DAY))}T${isoLocalTime(floorMod(millis, MILLIS_PER_DAY))}`;
}

/** Java's Instant.toString of epoch milliseconds. */
export function isoInstant(millis: number): string {
  return `${isoDate(floorDiv(millis, MILLIS_PER_DAY))}T${isoLocalTime(floorMod(millis, MILLIS_PER_DAY), true)}Z`;
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
    case 'DATE':
      return (v: number) => jsonQuote(isoDate(v));
    case 'TIME':
      return (v: number) => jsonQuote(isoLocalTime(v));
    case 'TIMESTAMP':
      return (v: number) => jsonQuote(isoLocalDateTime(v));
    case 'TIMESTAMP_LTZ':
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
