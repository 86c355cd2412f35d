/** Typed readers for connector options: each failure names the option and the bad value. */
import { parseDuration } from '../../common/duration.js';
import { WeirError } from '../../common/errors.js';

/** An integer option, or `fallback` when absent. */
export function optionInt(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string, fallback: number): number;
export function optionInt(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string, fallback?: undefined): number | undefined;
export function optionInt(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string, fallback?: number): number | undefined {
  const text = read(options, key);
  if (text === undefined) return fallback;
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isSafeInteger(value)) {
    throw new WeirError('INVALID_OPTION', `option '${key}' must be an integer, got '${text}'`);
  }
  return value;
}

/** A boolean option (`true`/`false`, any case), or `fallback` when absent. */
export function optionBool(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string, fallback: boolean): boolean {
  const text = read(options, key);
  if (text === undefined) return fallback;
  const lower = text.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new WeirError('INVALID_OPTION', `option '${key}' must be 'true' or 'false', got '${text}'`);
}

/** A duration option in milliseconds, or `fallback` when absent. */
export function optionDuration(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string, fallback?: number): number | undefined {
  const text = read(options, key);
  return text === undefined ? fallback : parseDuration(text, key);
}

function read(options: Readonly<Record<string, string>> | ReadonlyMap<string, string>, key: string): string | undefined {
  return options instanceof Map ? options.get(key) : (options as Readonly<Record<string, string>>)[key];
}
