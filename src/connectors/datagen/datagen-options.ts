/**
 * The options of the `datagen` connector, parsed and checked against the table's schema into a
 * {@link DatagenConfig}: one plan per column saying how its values are generated. Every error is a
 * WeirError('INVALID_OPTION') that names the option (and the column), so that DDL fails early.
 */
import { closestName, WeirError } from '../../common/errors.js';
import { parseTimestamp } from '../../common/datetime.js';
import { fitsPrecision, formatDecimal, parseDecimal, pow10, rescaleDecimal } from '../../common/decimal.js';
import { parseDuration } from '../../common/duration.js';
import type { Schema } from '../../common/schema.js';
import { INT64_MAX, INT64_MIN } from '../../common/int64.js';
import { formatType, MAX_VARCHAR_LENGTH, type SqlType } from '../../common/sql-type.js';

/** Flink's default rate. */
export const DEFAULT_ROWS_PER_SECOND = 10000;
/** The seed used when the `seed` option is absent. */
export const DEFAULT_SEED = 0;
/** The `base-time` used when the option is absent: 2024-01-01 00:00:00 UTC. */
export const DEFAULT_BASE_TIME = Date.UTC(2024, 0, 1);
/** Flink's default length of random strings. */
export const DEFAULT_STRING_LENGTH = 100;
/** The default number of elements of random ARRAY and MAP values. */
export const DEFAULT_COLLECTION_LENGTH = 3;
/** The longest random string datagen generates (a VARCHAR(n) without `length` gets n characters, as in Flink). */
export const MAX_STRING_LENGTH = 1 << 20;
/** The most elements of a random ARRAY or MAP. */
export const MAX_COLLECTION_LENGTH = 1000;

/** How the values of one column (or nested field) are generated, before any NULLs are mixed in. */
export type GenPlan =
  | { readonly kind: 'sequence'; readonly start: number; readonly end: number }
  /** A BIGINT sequence whose bounds leave the safe-integer range (values are 64-bit BIGINTs). */
  | { readonly kind: 'int64-sequence'; readonly start: bigint; readonly end: bigint }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  /** Uniform BIGINTs over a range wider than the safe integers (Flink's default: the whole long range). */
  | { readonly kind: 'int64'; readonly min: bigint; readonly max: bigint }
  | { readonly kind: 'float'; readonly min: number; readonly max: number }
  | { readonly kind: 'decimal'; readonly min: bigint; readonly max: bigint }
  | { readonly kind: 'string'; readonly length: number; readonly varLen: boolean }
  /** Random bytes: `length` of them, or 1 to `length` with `varLen`. */
  | { readonly kind: 'bytes'; readonly length: number; readonly varLen: boolean }
  | { readonly kind: 'timestamp'; readonly maxPast: number }
  | { readonly kind: 'date' }
  | { readonly kind: 'time' }
  | { readonly kind: 'row'; readonly fields: readonly FieldPlan[] }
  | { readonly kind: 'array'; readonly length: number; readonly element: FieldPlan }
  | { readonly kind: 'map'; readonly length: number; readonly key: FieldPlan; readonly value: FieldPlan };

/** The plan of one column or nested field: its option path (`price`, `address.city`), type and generator. */
export interface FieldPlan {
  readonly name: string;
  readonly type: SqlType;
  /** Probability of NULL, in [0, 1]; 0 for NOT NULL types. */
  readonly nullRate: number;
  readonly gen: GenPlan;
}

/** A datagen table's options, validated against its schema. */
export interface DatagenConfig {
  /** Rows per second over all subtasks together (Flink's meaning). */
  readonly rowsPerSecond: number;
  /** How many rows the source produces over all subtasks; undefined when it is unbounded. */
  readonly totalRows: number | undefined;
  readonly seed: number;
  /**
   * The virtual "now" of row 0, in epoch milliseconds; row i's "now" is
   * `baseTime + i * 1000 / rowsPerSecond`, so random DATE/TIME/TIMESTAMP values advance with the
   * row index as they would with the wall clock, yet stay reproducible.
   */
  readonly baseTime: number;
  /** One plan per column of the schema, in order. */
  readonly fields: readonly FieldPlan[];
}

/** The per-field option suffixes datagen understands (`fields.<field>.<suffix>`). */
export const FIELD_OPTION_SUFFIXES = ['kind', 'null-rate', 'min', 'max', 'max-past', 'length', 'var-len', 'start', 'end'] as const;

type FieldOption = (typeof FIELD_OPTION_SUFFIXES)[number];

const TABLE_OPTIONS = ['connector', 'rows-per-second', 'number-of-rows', 'seed', 'base-time', 'scan.parallelism'] as const;

const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const isSafe = (value: bigint): boolean => value >= SAFE_MIN && value <= SAFE_MAX;

const FLOAT_MAX = 3.4028234663852886e38;
/** Java's Float.MIN_VALUE: the smallest positive FLOAT. */
const FLOAT_MIN_POSITIVE = 1.401298464324817e-45;

/** Parses and validates datagen options for a table with this (physical) schema. */
export function parseDatagenOptions(options: ReadonlyMap<string, string>, schema: Schema): DatagenConfig {
  const reader = new OptionReader(options);
  const rowsPerSecond = reader.integer('rows-per-second', 1) ?? DEFAULT_ROWS_PER_SECOND;
  const numberOfRows = reader.integer('number-of-rows', 0);
  const seed = reader.integer('seed', Number.MIN_SAFE_INTEGER) ?? DEFAULT_SEED;
  const baseTime = reader.timestamp('base-time') ?? DEFAULT_BASE_TIME;
  reader.integer('scan.parallelism', 1);
  reader.take('connector');

  const fields = schema.map((field) => planField(reader, field.name, field.type, false));
  const sequenceRows = sequenceLength(fields);
  reader.rejectUnconsumed(schema);

  const bounds = [numberOfRows, sequenceRows].filter((n): n is number => n !== undefined);
  const totalRows = bounds.length === 0 ? undefined : Math.min(...bounds);
  return { rowsPerSecond, totalRows, seed, baseTime, fields };
}

function planField(reader: OptionReader, name: string, type: SqlType, inCollection: boolean): FieldPlan {
  const key = (suffix: FieldOption): string => `fields.${name}.${suffix}`;
  const kindText = reader.take(key('kind'));
  const kind = kindText === undefined ? 'random' : kindText.trim().toLowerCase();
  if (kind !== 'random' && kind !== 'sequence') {
    throw invalid(`datagen option '${key('kind')}' must be 'random' or 'sequence', got '${kindText}'`);
  }
  const nullRate = reader.fraction(key('null-rate')) ?? 0;
  if (nullRate > 0 && !type.nullable) {
    throw invalid(`datagen option '${key('null-rate')}' must be 0 for NOT NULL field '${name}'`);
  }
  const gen = kind === 'sequence' ? planSequence(reader, name, type, inCollection) : planRandom(reader, name, type, inCollection);
  return { name, type, nullRate, gen };
}

function planSequence(reader: OptionReader, name: string, type: SqlType, inCollection: boolean): GenPlan {
  const key = (suffix: FieldOption): string => `fields.${name}.${suffix}`;
  const kindKey = key('kind');
  if (inCollection) throw invalid(`datagen option '${kindKey}' = 'sequence' is not supported inside ARRAY or MAP`);
  const range = sequenceRange(type);
  if (range === undefined) {
    throw invalid(`datagen option '${kindKey}' = 'sequence' is not supported for ${formatType(type)} field '${name}'; only numeric and string fields can be sequences`);
  }
  rejectPresent(reader, name, ['min', 'max', 'max-past', 'length', 'var-len'], `does not apply to sequence field '${name}'`);
  if (type.kind === 'BIGINT') return planInt64Sequence(reader, name);
  const bound = (suffix: 'start' | 'end'): number => {
    const value = reader.integer(key(suffix), Number.MIN_SAFE_INTEGER);
    if (value === undefined) throw invalid(`datagen option '${key(suffix)}' is required when '${kindKey}' is 'sequence'`);
    if (value < range[0] || value > range[1]) {
      throw invalid(`datagen option '${key(suffix)}' must be within the range of ${formatType(type)} [${range[0]}, ${range[1]}], got '${value}'`);
    }
    return value;
  };
  const start = bound('start');
  const end = bound('end');
  if (end < start) throw invalid(`datagen option '${key('end')}' (${end}) must not be less than '${key('start')}' (${start})`);
  if (end - start + 1 > Number.MAX_SAFE_INTEGER) throw invalid(`datagen sequence field '${name}' has more than 2^53 values`);
  if (type.kind === 'CHAR' || type.kind === 'VARCHAR') {
    const longest = Math.max(String(start).length, String(end).length);
    if (longest > type.length) throw invalid(`datagen sequence field '${name}' has values of ${longest} characters, longer than ${formatType(type)}`);
  }
  return { kind: 'sequence', start, end };
}

/** A BIGINT sequence: bounds anywhere in the 64-bit range, at most 2^53 values. */
function planInt64Sequence(reader: OptionReader, name: string): GenPlan {
  const key = (suffix: FieldOption): string => `fields.${name}.${suffix}`;
  const bound = (suffix: 'start' | 'end'): bigint => {
    const value = reader.int64(key(suffix));
    if (value === undefined) throw invalid(`datagen option '${key(suffix)}' is required when '${key('kind')}' is 'sequence'`);
    return value;
  };
  const start = bound('start');
  const end = bound('end');
  if (end < start) throw invalid(`datagen option '${key('end')}' (${end}) must not be less than '${key('start')}' (${start})`);
  if (end - start + 1n > SAFE_MAX) throw invalid(`datagen sequence field '${name}' has more than 2^53 values`);
  return isSafe(start) && isSafe(end) ? { kind: 'sequence', start: Number(start), end: Number(end) } : { kind: 'int64-sequence', start, end };
}

function sequenceRange(type: SqlType): readonly [number, number] | undefined {
  switch (type.kind) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return INTEGER_RANGES[type.kind];
    case 'FLOAT':
    case 'DOUBLE':
    case 'CHAR':
    case 'VARCHAR':
      return [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    case 'DECIMAL': {
      const limit = Math.min(Number.MAX_SAFE_INTEGER, 10 ** (type.precision - type.scale) - 1);
      return [-limit, limit];
    }
    default:
      return undefined;
  }
}

function planRandom(reader: OptionReader, name: string, type: SqlType, inCollection: boolean): GenPlan {
  const key = (suffix: FieldOption): string => `fields.${name}.${suffix}`;
  rejectPresent(reader, name, ['start', 'end'], `needs '${key('kind')}' = 'sequence'`);
  const notFor = `does not apply to ${formatType(type)} field '${name}'`;
  switch (type.kind) {
    case 'BOOLEAN':
    case 'DATE':
    case 'TIME':
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'length', 'var-len'], notFor);
      return { kind: type.kind === 'BOOLEAN' ? 'boolean' : type.kind === 'DATE' ? 'date' : 'time' };
    case 'BIGINT': {
      rejectPresent(reader, name, ['max-past', 'length', 'var-len'], notFor);
      const min = reader.int64(key('min')) ?? INT64_MIN;
      const max = reader.int64(key('max')) ?? INT64_MAX;
      if (min > max) throw orderError(name, String(min), String(max));
      return isSafe(min) && isSafe(max) ? { kind: 'integer', min: Number(min), max: Number(max) } : { kind: 'int64', min, max };
    }
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      rejectPresent(reader, name, ['max-past', 'length', 'var-len'], notFor);
      const [lowest, highest] = INTEGER_RANGES[type.kind]!;
      const inRange = (suffix: 'min' | 'max', fallback: number): number => {
        const value = reader.integer(key(suffix), Number.MIN_SAFE_INTEGER) ?? fallback;
        if (value < lowest || value > highest) {
          throw invalid(`datagen option '${key(suffix)}' must be within the range of ${type.kind} [${lowest}, ${highest}], got '${value}'`);
        }
        return value;
      };
      const min = inRange('min', lowest);
      const max = inRange('max', highest);
      if (min > max) throw orderError(name, String(min), String(max));
      return { kind: 'integer', min, max };
    }
    case 'FLOAT':
    case 'DOUBLE': {
      rejectPresent(reader, name, ['max-past', 'length', 'var-len'], notFor);
      const limit = type.kind === 'FLOAT' ? FLOAT_MAX : Number.MAX_VALUE;
      const inRange = (suffix: 'min' | 'max', fallback: number): number => {
        const value = reader.number(key(suffix)) ?? fallback;
        if (Math.abs(value) > limit) throw invalid(`datagen option '${key(suffix)}' must be within the range of ${type.kind}, got '${value}'`);
        return value;
      };
      // Flink's defaults are Java's MIN_VALUE and MAX_VALUE: the smallest positive value, so that
      // random FLOATs and DOUBLEs are positive unless a min says otherwise.
      const min = inRange('min', type.kind === 'FLOAT' ? FLOAT_MIN_POSITIVE : Number.MIN_VALUE);
      const max = inRange('max', limit);
      if (min > max) throw orderError(name, String(min), String(max));
      return { kind: 'float', min, max };
    }
    case 'DECIMAL': {
      rejectPresent(reader, name, ['max-past', 'length', 'var-len'], notFor);
      const limit = pow10(type.precision) - 1n;
      // Flink's default min is Double.MIN_VALUE (positive), so random DECIMALs are at least 0 by default.
      const min = reader.decimal(key('min'), type.precision, type.scale) ?? 0n;
      const max = reader.decimal(key('max'), type.precision, type.scale) ?? limit;
      if (min > max) throw orderError(name, formatDecimal(min, type.scale), formatDecimal(max, type.scale));
      return { kind: 'decimal', min, max };
    }
    case 'CHAR':
      rejectPresent(reader, name, ['length'], `does not apply to ${formatType(type)} field '${name}': its length is fixed by the type`);
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'var-len'], notFor);
      if (type.length > MAX_STRING_LENGTH) throw invalid(`datagen cannot generate ${formatType(type)} field '${name}': longer than ${MAX_STRING_LENGTH}`);
      return { kind: 'string', length: type.length, varLen: false };
    case 'VARCHAR': {
      rejectPresent(reader, name, ['min', 'max', 'max-past'], notFor);
      const length = reader.integer(key('length'), 0) ?? defaultLength(type.length);
      if (length > type.length) throw invalid(`datagen option '${key('length')}' (${length}) exceeds the length of ${formatType(type)} field '${name}'`);
      if (length > MAX_STRING_LENGTH) throw invalid(`datagen option '${key('length')}' must be at most ${MAX_STRING_LENGTH}, got '${length}'`);
      return { kind: 'string', length, varLen: reader.boolean(key('var-len')) ?? false };
    }
    case 'BINARY':
      rejectPresent(reader, name, ['length'], `does not apply to ${formatType(type)} field '${name}': its length is fixed by the type`);
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'var-len'], notFor);
      if (type.length > MAX_STRING_LENGTH / 2) throw invalid(`datagen cannot generate ${formatType(type)} field '${name}': longer than ${MAX_STRING_LENGTH / 2} bytes`);
      return { kind: 'bytes', length: type.length, varLen: false };
    case 'VARBINARY': {
      rejectPresent(reader, name, ['min', 'max', 'max-past'], notFor);
      const length = reader.integer(key('length'), 0) ?? defaultLength(type.length);
      if (length > type.length) throw invalid(`datagen option '${key('length')}' (${length}) exceeds the length of ${formatType(type)} field '${name}'`);
      if (length > MAX_STRING_LENGTH / 2) throw invalid(`datagen option '${key('length')}' must be at most ${MAX_STRING_LENGTH / 2} for bytes, got '${length}'`);
      return { kind: 'bytes', length, varLen: reader.boolean(key('var-len')) ?? false };
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      rejectPresent(reader, name, ['min', 'max', 'length', 'var-len'], notFor);
      return { kind: 'timestamp', maxPast: reader.duration(key('max-past')) ?? 0 };
    case 'ROW':
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'length', 'var-len'], notFor);
      return { kind: 'row', fields: type.fields.map((f) => planField(reader, `${name}.${f.name}`, f.type, inCollection)) };
    case 'ARRAY':
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'var-len'], notFor);
      return { kind: 'array', length: collectionLength(reader, key('length')), element: planField(reader, `${name}.element`, type.element, true) };
    case 'MAP':
      rejectPresent(reader, name, ['min', 'max', 'max-past', 'var-len'], notFor);
      return {
        kind: 'map',
        length: collectionLength(reader, key('length')),
        key: planField(reader, `${name}.key`, type.key, true),
        value: planField(reader, `${name}.value`, type.value, true),
      };
    default:
      throw invalid(`datagen cannot generate ${formatType(type)} field '${name}'`);
  }
}

/**
 * The length of random strings and bytes without a `length` option, as Flink: the type's own
 * length, except for STRING and BYTES (the longest VARCHAR/VARBINARY), which get 100.
 */
function defaultLength(typeLength: number): number {
  return typeLength === MAX_VARCHAR_LENGTH ? DEFAULT_STRING_LENGTH : typeLength;
}

function collectionLength(reader: OptionReader, key: string): number {
  const length = reader.integer(key, 0) ?? DEFAULT_COLLECTION_LENGTH;
  if (length > MAX_COLLECTION_LENGTH) throw invalid(`datagen option '${key}' must be at most ${MAX_COLLECTION_LENGTH}, got '${length}'`);
  return length;
}

function orderError(name: string, min: string, max: string): WeirError {
  return invalid(`datagen option 'fields.${name}.min' (${min}) must not be greater than 'fields.${name}.max' (${max})`);
}

function rejectPresent(reader: OptionReader, name: string, suffixes: readonly FieldOption[], reason: string): void {
  for (const suffix of suffixes) {
    const key = `fields.${name}.${suffix}`;
    if (reader.has(key)) throw invalid(`datagen option '${key}' ${reason}`);
  }
}

/** The common length of the sequence fields (top level and inside ROWs), or undefined when there are none. */
function sequenceLength(fields: readonly FieldPlan[]): number | undefined {
  let length: number | undefined;
  let first = '';
  const visit = (plan: FieldPlan): void => {
    if (plan.gen.kind === 'row') plan.gen.fields.forEach(visit);
    if (plan.gen.kind !== 'sequence' && plan.gen.kind !== 'int64-sequence') return;
    const count = plan.gen.kind === 'sequence' ? plan.gen.end - plan.gen.start + 1 : Number(plan.gen.end - plan.gen.start + 1n);
    if (length === undefined) {
      length = count;
      first = plan.name;
    } else if (count !== length) {
      throw invalid(`datagen sequence fields '${first}' (${length} values) and '${plan.name}' (${count} values) must have the same length`);
    }
  };
  fields.forEach(visit);
  return length;
}

function invalid(message: string): WeirError {
  return new WeirError('INVALID_OPTION', message);
}

/** Reads typed option values, remembering which keys were read so that the rest can be rejected. */
class OptionReader {
  readonly #options: ReadonlyMap<string, string>;
  readonly #consumed = new Set<string>();

  constructor(options: ReadonlyMap<string, string>) {
    this.#options = options;
  }

  has(key: string): boolean {
    return this.#options.has(key);
  }

  take(key: string): string | undefined {
    this.#consumed.add(key);
    return this.#options.get(key);
  }

  integer(key: string, lowest: number): number | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const value = Number(text.trim());
    if (!/^\s*[+-]?\d+\s*$/.test(text) || !Number.isSafeInteger(value)) throw invalid(`datagen option '${key}' must be an integer, got '${text}'`);
    if (value < lowest) {
      const what = lowest === 1 ? 'a positive integer' : lowest === 0 ? 'a non-negative integer' : `an integer of at least ${lowest}`;
      throw invalid(`datagen option '${key}' must be ${what}, got '${text}'`);
    }
    return value;
  }

  /** A BIGINT option: any integer within the 64-bit range, exactly. */
  int64(key: string): bigint | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    if (!/^\s*[+-]?\d+\s*$/.test(text)) throw invalid(`datagen option '${key}' must be an integer, got '${text}'`);
    const value = BigInt(text.trim());
    if (value < INT64_MIN || value > INT64_MAX) throw invalid(`datagen option '${key}' must be within the range of BIGINT [${INT64_MIN}, ${INT64_MAX}], got '${text}'`);
    return value;
  }

  number(key: string): number | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(value)) throw invalid(`datagen option '${key}' must be a number, got '${text}'`);
    return value;
  }

  fraction(key: string): number | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const value = Number(text.trim());
    if (text.trim() === '' || !(value >= 0 && value <= 1)) throw invalid(`datagen option '${key}' must be a number between 0 and 1, got '${text}'`);
    return value;
  }

  boolean(key: string): boolean | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const lower = text.trim().toLowerCase();
    if (lower !== 'true' && lower !== 'false') throw invalid(`datagen option '${key}' must be 'true' or 'false', got '${text}'`);
    return lower === 'true';
  }

  duration(key: string): number | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    try {
      return parseDuration(text, key);
    } catch {
      throw invalid(`datagen option '${key}' must be a duration such as '10 s' or '5 min', got '${text}'`);
    }
  }

  /** A decimal literal as the unscaled value for DECIMAL(precision, scale); exact, never rounded. */
  decimal(key: string, precision: number, scale: number): bigint | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const parsed = parseDecimal(text.trim());
    if (parsed === undefined) throw invalid(`datagen option '${key}' must be a number, got '${text}'`);
    const unscaled = rescaleDecimal(parsed.unscaled, parsed.scale, scale);
    if (rescaleDecimal(unscaled, scale, parsed.scale) !== parsed.unscaled) {
      throw invalid(`datagen option '${key}' has more fractional digits than DECIMAL(${precision}, ${scale}) holds, got '${text}'`);
    }
    if (!fitsPrecision(unscaled, precision)) throw invalid(`datagen option '${key}' must be within the range of DECIMAL(${precision}, ${scale}), got '${text}'`);
    return unscaled;
  }

  /** `yyyy-MM-dd[ HH:mm[:ss[.fff]]]` (or with `T`), read as UTC, in epoch milliseconds. */
  timestamp(key: string): number | undefined {
    const text = this.take(key);
    if (text === undefined) return undefined;
    const value = parseTimestamp(text);
    if (value === undefined) throw invalid(`datagen option '${key}' must be a timestamp such as '2024-01-01 00:00:00', got '${text}'`);
    return value;
  }

  /** Throws for the first option no one read: an unknown column, an unknown suffix or an unknown table option. */
  rejectUnconsumed(schema: Schema): void {
    for (const key of this.#options.keys()) {
      if (this.#consumed.has(key)) continue;
      if (!key.startsWith('fields.')) {
        const guess = closestName(key, TABLE_OPTIONS);
        throw invalid(`datagen does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
      }
      const suffix = FIELD_OPTION_SUFFIXES.find((s) => key.endsWith(`.${s}`));
      if (suffix === undefined) {
        throw invalid(`datagen option '${key}' is not a field option; expected 'fields.<field>.<${FIELD_OPTION_SUFFIXES.join('|')}>'`);
      }
      const field = key.slice('fields.'.length, key.length - suffix.length - 1);
      const columns = schema.map((f) => f.name);
      const guess = closestName(field, columns);
      throw invalid(`datagen option '${key}' refers to no field '${field}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
    }
  }
}
