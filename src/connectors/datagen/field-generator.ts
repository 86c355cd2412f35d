/**
 * Per-field value generators for datagen. Each generator is a closure chosen once per field
 * when the reader opens, mapping a global row index to a value: a pure function of
 * (seed, the field's position, row index), so rows can be regenerated from any offset and split
 * between subtasks. Hot paths use only 32-bit draws from {@link draw} and allocate nothing but
 * the value itself.
 */
import { isNanoTimestamp, nanosOfMillis } from '../../common/epoch-nanos.js';
import type { Row } from '../../common/row.js';
import { hexToBytes } from '../../common/bytes.js';
import { floorMod, MILLIS_PER_DAY, truncateMillis } from '../../common/datetime.js';
import { pow10 } from '../../common/decimal.js';
import { normalizeInt64 } from '../../common/int64.js';
import type { SqlType } from '../../common/sql-type.js';
import { draw, streamKey, unit53, type StreamKey } from './counter-random.js';
import type { DatagenConfig, FieldPlan, GenPlan } from './datagen-options.js';

/** Produces the value of one field for a global row index. */
export type FieldGenerator = (row: number) => unknown;

/** What every generator needs besides its plan. */
export interface GeneratorContext {
  readonly seed: number;
  /** The virtual "now" of row 0, in epoch milliseconds. */
  readonly baseTime: number;
  /** How far the virtual clock advances per row: 1000 / rows-per-second. */
  readonly msPerRow: number;
}

const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;

/** Stream purposes: the last step of a key path (negative, so they never collide with child indexes). */
const VALUE = -1;
const VALUE_2 = -2;
const VALUE_3 = -3;
const VALUE_4 = -4;
const NULLS = -5;
const LENGTH = -6;

/** The generator of whole rows for a datagen table: one freshly allocated array per row. */
export function createRowGenerator(config: DatagenConfig): (row: number) => Row {
  const context: GeneratorContext = { seed: config.seed, baseTime: config.baseTime, msPerRow: 1000 / config.rowsPerSecond };
  return tupleGenerator(config.fields.map((plan, index) => createFieldGenerator(plan, context, [index])));
}

/**
 * The generator of one field. `keyPath` identifies the field's random streams: its column index
 * followed by child indexes for nested fields and collection elements.
 */
export function createFieldGenerator(plan: FieldPlan, context: GeneratorContext, keyPath: readonly number[]): FieldGenerator {
  const key = (purpose: number): StreamKey => streamKey(context.seed, [...keyPath, purpose]);
  const value = valueGenerator(plan.gen, plan.type, context, keyPath, key);
  if (plan.nullRate <= 0) return value;
  const { k1, k2 } = key(NULLS);
  const threshold = plan.nullRate * TWO_POW_32;
  return (row) => (draw(k1, k2, row) < threshold ? null : value(row));
}

/**
 * A function that calls each part once and returns the results as an array. Generated as source
 * so that every part has its own (monomorphic) call site.
 */
export function tupleGenerator(parts: readonly FieldGenerator[]): (row: number) => unknown[] {
  const names = parts.map((_, index) => `g${index}`);
  const body = `return (row) => [${names.map((name) => `${name}(row)`).join(', ')}];`;
  return new Function(...names, body)(...parts) as (row: number) => unknown[];
}

function valueGenerator(
  gen: GenPlan,
  type: SqlType,
  context: GeneratorContext,
  keyPath: readonly number[],
  key: (purpose: number) => StreamKey,
): FieldGenerator {
  switch (gen.kind) {
    case 'sequence':
      return sequenceGenerator(gen.start, type);
    case 'boolean': {
      const { k1, k2 } = key(VALUE);
      return (row) => draw(k1, k2, row) >= 0x80000000;
    }
    case 'int64-sequence': {
      const start = gen.start;
      return (row) => normalizeInt64(start + BigInt(row));
    }
    case 'integer':
      return integerGenerator(gen.min, gen.max, key(VALUE), key(VALUE_2));
    case 'int64':
      return int64Generator(gen.min, gen.max, key(VALUE), key(VALUE_2));
    case 'float':
      return floatGenerator(gen.min, gen.max, type.kind === 'FLOAT', key(VALUE), key(VALUE_2));
    case 'decimal':
      return decimalGenerator(gen.min, gen.max, [key(VALUE), key(VALUE_2), key(VALUE_3), key(VALUE_4)]);
    case 'string':
      return stringGenerator(gen.length, gen.varLen, key(VALUE), key(VALUE_2), key(LENGTH));
    case 'bytes':
      return bytesGenerator(gen.length, gen.varLen, key(VALUE), key(VALUE_2), key(LENGTH));
    case 'timestamp': {
      const millis = timestampGenerator(gen.maxPast, timePrecision(type), context, key(VALUE), key(VALUE_2));
      // The virtual clock ticks in milliseconds; a TIMESTAMP(p > 3) takes them as epoch nanos.
      return isNanoTimestamp(type) ? (row) => nanosOfMillis(millis(row) as number) : millis;
    }
    case 'date': {
      const now = virtualClock(context);
      return (row) => Math.floor(now(row) / MILLIS_PER_DAY);
    }
    case 'time': {
      const now = virtualClock(context);
      const precision = timePrecision(type);
      return (row) => truncateMillis(floorMod(now(row), MILLIS_PER_DAY), precision);
    }
    case 'row':
      return tupleGenerator(gen.fields.map((field, index) => createFieldGenerator(field, context, [...keyPath, index])));
    case 'array': {
      const elements = range(gen.length).map((index) => createFieldGenerator(gen.element, context, [...keyPath, index]));
      const length = elements.length;
      return (row) => {
        const out = new Array<unknown>(length);
        for (let i = 0; i < length; i++) out[i] = elements[i]!(row);
        return out;
      };
    }
    case 'map': {
      const keys = range(gen.length).map((index) => createFieldGenerator(gen.key, context, [...keyPath, 2 * index]));
      const values = range(gen.length).map((index) => createFieldGenerator(gen.value, context, [...keyPath, 2 * index + 1]));
      const length = keys.length;
      return (row) => {
        const out = new Map<unknown, unknown>();
        for (let i = 0; i < length; i++) out.set(keys[i]!(row), values[i]!(row));
        return out;
      };
    }
  }
}

/** Sequence value of row i is `start + i`, in the type's representation. */
function sequenceGenerator(start: number, type: SqlType): FieldGenerator {
  switch (type.kind) {
    case 'FLOAT':
      return (row) => Math.fround(start + row);
    case 'DECIMAL': {
      const factor = pow10(type.scale);
      return (row) => BigInt(start + row) * factor;
    }
    case 'CHAR':
    case 'VARCHAR':
      return (row) => String(start + row);
    default:
      return (row) => start + row;
  }
}

/** Uniform integers in [min, max] (safe integers). */
function integerGenerator(min: number, max: number, a: StreamKey, b: StreamKey): (row: number) => number {
  const span = max - min + 1;
  const { k1, k2 } = a;
  if (span <= TWO_POW_32) {
    const scale = span / TWO_POW_32;
    return (row) => min + Math.floor(draw(k1, k2, row) * scale);
  }
  return (row) => {
    const value = min + Math.floor(unit53(a, b, row) * span);
    return value > max ? max : value;
  };
}

/**
 * Uniform BIGINTs in [min, max] for a range wider than the safe integers: 64 random bits scaled
 * to the span (exact for the whole long range, where the span is 2^64), in normalized form (a
 * number when the value is a safe integer).
 */
function int64Generator(min: bigint, max: bigint, a: StreamKey, b: StreamKey): FieldGenerator {
  const span = max - min + 1n;
  return (row) => {
    const bits = (BigInt(draw(a.k1, a.k2, row)) << 32n) | BigInt(draw(b.k1, b.k2, row));
    return normalizeInt64(min + ((bits * span) >> 64n));
  };
}

/** Uniform doubles in [min, max); FLOAT values are rounded to single precision. */
function floatGenerator(min: number, max: number, single: boolean, a: StreamKey, b: StreamKey): FieldGenerator {
  const span = max - min;
  const { k1, k2 } = a;
  if (single) {
    return Number.isFinite(span)
      ? (row) => Math.fround(min + (draw(k1, k2, row) / TWO_POW_32) * span)
      : (row) => {
          const u = draw(k1, k2, row) / TWO_POW_32;
          return Math.fround(min * (1 - u) + max * u);
        };
  }
  return Number.isFinite(span)
    ? (row) => min + unit53(a, b, row) * span
    : (row) => {
        const u = unit53(a, b, row);
        return min * (1 - u) + max * u;
      };
}

/** Uniform unscaled DECIMAL values in [min, max]; plain numbers while the range allows it. */
function decimalGenerator(min: bigint, max: bigint, keys: readonly [StreamKey, StreamKey, StreamKey, StreamKey]): FieldGenerator {
  const span = max - min + 1n;
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  if (min >= -safe && max <= safe && span <= BigInt(TWO_POW_53)) {
    const numbers = integerGenerator(Number(min), Number(max), keys[0], keys[1]);
    return (row) => BigInt(numbers(row));
  }
  const [a, b, c, d] = keys;
  return (row) => {
    const wide =
      (BigInt(draw(a.k1, a.k2, row)) << 96n) |
      (BigInt(draw(b.k1, b.k2, row)) << 64n) |
      (BigInt(draw(c.k1, c.k2, row)) << 32n) |
      BigInt(draw(d.k1, d.k2, row));
    return min + (wide % span);
  };
}

/** Timestamps in [now - maxPast, now] for the row's virtual "now", truncated to the type's precision. */
function timestampGenerator(maxPast: number, precision: number, context: GeneratorContext, a: StreamKey, b: StreamKey): FieldGenerator {
  const now = virtualClock(context);
  if (maxPast === 0) return (row) => truncateMillis(now(row), precision);
  const span = maxPast + 1;
  const { k1, k2 } = a;
  if (span <= TWO_POW_32) {
    const scale = span / TWO_POW_32;
    return (row) => truncateMillis(now(row) - Math.floor(draw(k1, k2, row) * scale), precision);
  }
  return (row) => truncateMillis(now(row) - Math.min(maxPast, Math.floor(unit53(a, b, row) * span)), precision);
}

function virtualClock(context: GeneratorContext): (row: number) => number {
  const { baseTime, msPerRow } = context;
  return (row) => baseTime + Math.floor(row * msPerRow);
}

function timePrecision(type: SqlType): number {
  return type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ' || type.kind === 'TIME' ? type.precision : 3;
}

function range(length: number): number[] {
  return Array.from({ length }, (_, index) => index);
}

const POOL_LENGTH = 1 << 20;
/** Strings at least this long are made of two slices of the pool, so that they practically never repeat. */
const SPLIT_LENGTH = 16;
let hexPool: string | undefined;

/** 1 Mi random lowercase hex digits; random strings are slices of it (one allocation, no copying). */
function randomHexPool(): string {
  if (hexPool === undefined) {
    const digits = Buffer.from('0123456789abcdef', 'latin1');
    const bytes = Buffer.allocUnsafe(POOL_LENGTH);
    const { k1, k2 } = streamKey(0x7e57, []);
    for (let i = 0; i < POOL_LENGTH; i += 8) {
      let word = draw(k1, k2, i >>> 3);
      for (let j = 0; j < 8; j++, word >>>= 4) bytes[i + j] = digits[word & 15]!;
    }
    hexPool = bytes.toString('latin1');
  }
  return hexPool;
}

/**
 * Random lowercase hex strings, as Flink's datagen makes them: exactly `length` characters, or
 * with `varLen` a uniformly random length in [1, length].
 */
/**
 * Random bytes, `length` of them or (with `varLen`) 1 to `length`: two hex digits of the string
 * generator a byte, so that a row's bytes are a pure function of the row, as its strings are.
 */
function bytesGenerator(length: number, varLen: boolean, a: StreamKey, b: StreamKey, lengths: StreamKey): FieldGenerator {
  const digits = stringGenerator(2 * length, false, a, b, lengths);
  if (!varLen || length === 0) return (row) => hexToBytes(digits(row) as string);
  const { k1, k2 } = lengths;
  const scale = length / TWO_POW_32;
  return (row) => hexToBytes((digits(row) as string).slice(0, 2 * (1 + Math.floor(draw(k1, k2, row) * scale))));
}

function stringGenerator(length: number, varLen: boolean, a: StreamKey, b: StreamKey, lengths: StreamKey): FieldGenerator {
  if (length === 0) return () => '';
  const pool = randomHexPool();
  const { k1: a1, k2: a2 } = a;
  const { k1: b1, k2: b2 } = b;
  const slice = (word: number, size: number): string => {
    const offset = Math.floor(word * ((POOL_LENGTH - size + 1) / TWO_POW_32));
    return pool.substring(offset, offset + size);
  };
  const piece = (row: number, size: number): string => {
    if (size < SPLIT_LENGTH) return slice(draw(a1, a2, row), size);
    const half = size >>> 1;
    return slice(draw(a1, a2, row), half) + slice(draw(b1, b2, row), size - half);
  };
  if (!varLen) return (row) => piece(row, length);
  const { k1: l1, k2: l2 } = lengths;
  const scale = length / TWO_POW_32;
  return (row) => piece(row, 1 + Math.floor(draw(l1, l2, row) * scale));
}
