/** Durations written as Flink writes them in options and settings. */
import { WeirError } from './errors.js';

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1, milli: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

/** A duration in milliseconds written as Flink does (`500 ms`, `1 s`, `10min`, `2 h`; a bare number is milliseconds). */
export function parseDuration(text: string, key: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? '';
  const factor = unit === '' ? 1 : DURATION_UNITS[unit];
  if (match === null || factor === undefined) {
    throw new WeirError('INVALID_OPTION', `option '${key}' must be a duration such as '500 ms' or '1 s', got '${text}'`);
  }
  return Math.round(Number(match[1]) * factor);
}

