/**
 * The helpers generated code may call, by name: `ctx.lib('substring')` in a code generator binds
 * `runtimeLib.substring` into the generated function's closure. Each helper is a plain function of
 * non-NULL values unless its comment says otherwise.
 */
import { bytesEqual } from '../common/bytes.js';
import { floorDiv, floorMod } from '../common/datetime.js';
import { compareDecimals } from '../common/decimal.js';
import { tryCast } from './cast.js';
import * as bytes from './runtime/bytes-lib.js';
import * as collections from './runtime/collection-lib.js';
import * as hashCodes from './runtime/hash-code-lib.js';
import * as json from './runtime/json-lib.js';
import * as nanos from './runtime/nanos-lib.js';
import * as numeric from './runtime/numeric-lib.js';
import * as printf from './runtime/printf.js';
import * as strings from './runtime/string-lib.js';
import * as temporal from './runtime/temporal-lib.js';

/** SQL equality of two non-NULL values of the same type, deep for ROW, ARRAY and MAP (NULL elements equal each other), by content for binary strings. */
export function valueEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesEqual(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      const y = b[i];
      if (x === null || y === null ? x !== y : !valueEquals(x, y)) return false;
    }
    return true;
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) {
      if (!b.has(key)) return false;
      const other = b.get(key);
      if (value === null || other === null ? value !== other : !valueEquals(value, other)) return false;
    }
    return true;
  }
  return false;
}

/** Three-valued AND of two evaluated values (the compiler's eager fallback; generated code is lazy). */
export function and3(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  return a === null || b === null ? null : true;
}

/** Three-valued OR of two evaluated values (eager fallback). */
export function or3(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true;
  return a === null || b === null ? null : false;
}

/** The first non-NULL value, or NULL (eager fallback of COALESCE). */
export function coalesce(...values: unknown[]): unknown {
  for (const value of values) if (value !== null) return value;
  return null;
}

/** GREATEST of non-NULL values of one orderable type. */
export function greatest(...values: unknown[]): unknown {
  let result = values[0] as number;
  for (let i = 1; i < values.length; i++) if ((values[i] as number) > result) result = values[i] as number;
  return result;
}

/** LEAST of non-NULL values of one orderable type. */
export function least(...values: unknown[]): unknown {
  let result = values[0] as number;
  for (let i = 1; i < values.length; i++) if ((values[i] as number) < result) result = values[i] as number;
  return result;
}

function merge(...modules: readonly Readonly<Record<string, unknown>>[]): Readonly<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function') continue;
      if (name in result) throw new Error(`runtime helper '${name}' is defined twice`);
      result[name] = value;
    }
  }
  return Object.freeze(result);
}

/** Every helper by name (only functions; names are unique across the helper modules). */
export const runtimeLib: Readonly<Record<string, unknown>> = merge(numeric, strings, temporal, nanos, printf, collections, json, bytes, hashCodes, {
  tryCast,
  valueEquals,
  and3,
  or3,
  coalesce,
  greatest,
  least,
  compareDecimals,
  floorDiv,
  floorMod,
});
