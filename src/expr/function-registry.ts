/**
 * The functions a session knows: Flink's built-ins plus user-defined JS scalar functions.
 * Names are case-insensitive; lookups return the definition under its canonical upper-case name.
 */
import { isNanoTimestamp } from '../common/epoch-nanos.js';
import { int64FromBigInt, normalizeInt64 } from '../common/int64.js';
import { WeirError } from '../common/errors.js';
import type { Row } from '../common/row.js';
import type { Field } from '../common/schema.js';
import { formatType, withNullable, type SqlType } from '../common/sql-type.js';
import type { AggregateFunctionDefinition, FunctionDefinition, ScalarFunctionDefinition } from './function-definition.js';
import { aggregateFunctions } from './functions/aggregate-functions.js';
import { arithmeticFunctions } from './functions/arithmetic-functions.js';
import { collectionFunctions } from './functions/collection-functions.js';
import { comparisonFunctions } from './functions/comparison-functions.js';
import { conditionalFunctions } from './functions/conditional-functions.js';
import { binaryFunctions } from './functions/binary-functions.js';
import { catalogFunctions } from './functions/catalog-functions.js';
import { conversionFunctions } from './functions/conversion-functions.js';
import { noMatchingSignature } from './functions/define.js';
import { jsonFunctions } from './functions/json-functions.js';
import { logicalFunctions } from './functions/logical-functions.js';
import { mathFunctions } from './functions/math-functions.js';
import { STRING_ALIASES, stringFunctions } from './functions/string-functions.js';
import { TEMPORAL_ALIASES, temporalFunctions } from './functions/temporal-functions.js';
import { canCastImplicitly } from './type-coercion.js';

/** A user-defined scalar function written in JavaScript. */
export interface UserScalarFunction {
  /**
   * Called with non-NULL argument values (in the representation of sql-type.ts) and returning
   * the result in that representation; `undefined` counts as NULL (an error when `returnType` is
   * NOT NULL). The function is strict: any NULL argument makes the result NULL without a call.
   * A thrown error becomes an EXECUTION_ERROR naming the function.
   */
  readonly fn: (...args: any[]) => unknown;
  /** The argument types (arguments are cast to them implicitly), or 'any' (the default) to accept any arguments as they are. */
  readonly argTypes?: readonly SqlType[] | 'any';
  readonly returnType: SqlType;
  /** Default true; false keeps the optimizer from folding or deduplicating calls. */
  readonly deterministic?: boolean;
  /** One line for SHOW FUNCTIONS. */
  readonly description?: string;
}

/**
 * A user-defined table function written in JavaScript (Flink's TableFunction): called once per
 * input row of `LATERAL TABLE(f(...))`, it gives that row's rows.
 */
export interface UserTableFunction {
  /**
   * Called with the argument values (in the representation of sql-type.ts, NULL as `null`: unlike
   * a scalar UDF it is called for NULL arguments too) and returning an iterable (an array, a
   * generator) of rows — for a ROW result type each an array of the fields' values or an object
   * keyed by field names, else the one column's value — or null/undefined for no rows. It must be
   * deterministic: a retraction calls it again to find the rows to retract. A thrown error
   * becomes an EXECUTION_ERROR naming the function.
   */
  readonly fn: (...args: any[]) => Iterable<unknown> | null | undefined;
  /** The argument types (arguments are cast to them implicitly), or 'any' (the default) to accept any arguments as they are. */
  readonly argTypes?: readonly SqlType[] | 'any';
  /** The type of its rows: `ROW<a STRING, b INT>` gives the columns a and b; any other type one column `f0`. */
  readonly resultType: SqlType;
  /** One line for SHOW FUNCTIONS. */
  readonly description?: string;
}

/** A registered table function, as the binder and the runtime's Correlate use it. */
export interface TableFunctionDefinition {
  readonly name: string;
  readonly description: string;
  /** The columns of the rows it gives (every one nullable). */
  readonly columns: readonly Field[];
  /** The types its arguments are cast to, given theirs; throws when they do not fit. */
  resolveArgs(argTypes: readonly SqlType[]): readonly SqlType[];
  /** Its rows for one call, each checked against the columns. */
  rows(args: readonly unknown[]): Row[];
}

const BUILTIN_ALIASES: Readonly<Record<string, string>> = {
  ...STRING_ALIASES,
  ...TEMPORAL_ALIASES,
  '%': 'MOD',
  CEILING: 'CEIL',
  POW: 'POWER',
  DAY: 'DAYOFMONTH',
};

let builtins: ReadonlyMap<string, FunctionDefinition> | undefined;

function builtinMap(): ReadonlyMap<string, FunctionDefinition> {
  if (builtins !== undefined) return builtins;
  const map = new Map<string, FunctionDefinition>();
  const all: readonly FunctionDefinition[] = [
    ...logicalFunctions,
    ...comparisonFunctions,
    ...arithmeticFunctions,
    ...mathFunctions,
    ...stringFunctions,
    ...binaryFunctions,
    ...conditionalFunctions,
    ...conversionFunctions,
    ...temporalFunctions,
    ...collectionFunctions,
    ...jsonFunctions,
    ...catalogFunctions,
    ...aggregateFunctions,
  ];
  for (const definition of all) {
    if (map.has(definition.name)) throw new WeirError('INTERNAL_ERROR', `built-in function ${definition.name} is defined twice`);
    map.set(definition.name, definition);
  }
  for (const [alias, name] of Object.entries(BUILTIN_ALIASES)) map.set(alias, map.get(name)!);
  builtins = map;
  return map;
}

/**
 * The built-in aggregate function called `name` (case-insensitive), if any: the runtime's
 * aggregate operators take their accumulators from it (aggregates cannot be user-defined).
 */
export function builtinAggregate(name: string): AggregateFunctionDefinition | undefined {
  const definition = builtinMap().get(name.toUpperCase());
  return definition?.kind === 'aggregate' ? definition : undefined;
}

/** The function catalog. Built-ins are shared and immutable; user functions belong to one registry. */
export class FunctionRegistry {
  private readonly functions = new Map<string, FunctionDefinition>();
  private readonly userFunctions = new Set<string>();
  private readonly tableFunctions = new Map<string, TableFunctionDefinition>();

  /** A registry holding Flink's built-in functions. */
  static withBuiltins(): FunctionRegistry {
    const registry = new FunctionRegistry();
    for (const [name, definition] of builtinMap()) registry.functions.set(name, definition);
    return registry;
  }

  /** The definition registered under `name` (case-insensitive), if any. */
  lookup(name: string): FunctionDefinition | undefined {
    return this.functions.get(name.toUpperCase());
  }

  /** Every name a function can be called by (aliases included), sorted; for "did you mean". Planner-internal `$` functions are not listed. */
  names(): string[] {
    return [...this.functions.keys()].filter((name) => !name.startsWith('$')).sort();
  }

  /** The distinct scalar functions, sorted by name (SHOW FUNCTIONS). */
  scalars(): ScalarFunctionDefinition[] {
    return this.distinct().filter((d): d is ScalarFunctionDefinition => d.kind === 'scalar');
  }

  /** The distinct aggregate functions, sorted by name. */
  aggregates(): AggregateFunctionDefinition[] {
    return this.distinct().filter((d): d is AggregateFunctionDefinition => d.kind === 'aggregate');
  }

  /** True for functions added with {@link registerScalar}. */
  isUserDefined(name: string): boolean {
    return this.userFunctions.has(name.toUpperCase());
  }

  /**
   * Adds a user-defined JS scalar function (CREATE FUNCTION). Generated code calls `fn` through
   * the closure. A name already taken — a built-in or another user function — is an error.
   */
  registerScalar(name: string, spec: UserScalarFunction): ScalarFunctionDefinition {
    const canonical = name.toUpperCase();
    const existing = this.functions.get(canonical);
    if (existing !== undefined) {
      const what = this.userFunctions.has(canonical) ? 'a function' : 'a built-in function';
      throw new WeirError('DUPLICATE_OBJECT', `function '${name}' already exists: ${canonical} is ${what}`);
    }
    const definition = userScalar(canonical, spec);
    this.functions.set(canonical, definition);
    this.userFunctions.add(canonical);
    return definition;
  }

  /** The table function registered under `name` (case-insensitive), if any. */
  lookupTable(name: string): TableFunctionDefinition | undefined {
    return this.tableFunctions.get(name.toUpperCase());
  }

  /** The table functions, sorted by name. */
  tables(): TableFunctionDefinition[] {
    return [...this.tableFunctions.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Adds a user-defined JS table function (CREATE FUNCTION of a module exporting `kind: 'table'`).
   * A name already taken — a built-in, a scalar or another table function — is an error.
   */
  registerTable(name: string, spec: UserTableFunction): TableFunctionDefinition {
    const canonical = name.toUpperCase();
    if (this.functions.has(canonical) || this.tableFunctions.has(canonical)) {
      const what = this.userFunctions.has(canonical) ? 'a function' : 'a built-in function';
      throw new WeirError('DUPLICATE_OBJECT', `function '${name}' already exists: ${canonical} is ${what}`);
    }
    const definition = userTable(canonical, spec);
    this.tableFunctions.set(canonical, definition);
    this.userFunctions.add(canonical);
    return definition;
  }

  /** Removes a user-defined function (DROP FUNCTION); false when there is none of that name. Built-ins cannot be removed. */
  unregister(name: string): boolean {
    const canonical = name.toUpperCase();
    if (this.tableFunctions.delete(canonical)) return this.userFunctions.delete(canonical);
    if (!this.userFunctions.has(canonical)) {
      if (this.functions.has(canonical)) throw new WeirError('INVALID_ARGUMENT', `cannot drop built-in function ${canonical}`);
      return false;
    }
    this.userFunctions.delete(canonical);
    return this.functions.delete(canonical);
  }

  private distinct(): FunctionDefinition[] {
    return [...new Set(this.functions.values())].filter((d) => !d.name.startsWith('$')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** Checks a UDF's return value against its declared type and converts `undefined` to NULL. */
function resultChecker(name: string, type: SqlType): (value: unknown) => unknown {
  const expected = formatType(withNullable(type, true));
  const valid = representationCheck(type);
  return (value) => {
    if (value === undefined || value === null) {
      if (type.nullable) return null;
      throw new WeirError('EXECUTION_ERROR', `function ${name} returned NULL, but its result is declared ${expected} NOT NULL`);
    }
    if (!valid(value)) {
      const shown = typeof value === 'string' ? `'${value}'` : typeof value === 'bigint' ? `${value}n` : String(value);
      throw new WeirError('EXECUTION_ERROR', `function ${name} returned ${shown}, which is not a ${expected} value`);
    }
    // A BIGINT may come back as a bigint: kept in the normalized form (a number when it is safe).
    return typeof value === 'bigint' && type.kind === 'BIGINT' ? normalizeInt64(value) : value;
  };
}

function representationCheck(type: SqlType): (value: unknown) => boolean {
  switch (type.kind) {
    case 'BOOLEAN':
      return (v) => typeof v === 'boolean';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'DATE':
    case 'TIME':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return (v) => Number.isSafeInteger(v);
    case 'BIGINT':
      return (v) => Number.isSafeInteger(v) || (typeof v === 'bigint' && int64FromBigInt(v) !== undefined);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // Epoch milliseconds, or epoch nanos (a bigint) for a precision above 3.
      return isNanoTimestamp(type) ? (v) => typeof v === 'bigint' : (v) => Number.isSafeInteger(v);
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => typeof v === 'number';
    case 'DECIMAL':
      return (v) => typeof v === 'bigint';
    case 'CHAR':
    case 'VARCHAR':
      return (v) => typeof v === 'string';
    case 'BINARY':
    case 'VARBINARY':
      return (v) => v instanceof Uint8Array && v.length <= type.length;
    case 'ROW':
    case 'ARRAY':
      return Array.isArray;
    case 'MAP':
      return (v) => v instanceof Map;
    case 'NULL':
      return () => false;
  }
}

function userScalar(name: string, spec: UserScalarFunction): ScalarFunctionDefinition {
  const { fn, returnType } = spec;
  const declared = spec.argTypes === undefined || spec.argTypes === 'any' ? undefined : spec.argTypes;
  const checkResult = resultChecker(name, returnType);
  const invoke = (...args: unknown[]): unknown => {
    let result: unknown;
    try {
      result = fn(...args);
    } catch (error) {
      if (error instanceof WeirError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new WeirError('EXECUTION_ERROR', `function ${name} failed: ${message}`, { cause: error });
    }
    return checkResult(result);
  };
  return {
    kind: 'scalar',
    name,
    description: spec.description ?? `${name}: a user-defined function returning ${formatType(withNullable(returnType, true))}`,
    deterministic: spec.deterministic ?? true,
    nulls: 'strict',
    resolve(argTypes) {
      if (declared !== undefined) {
        const fits = argTypes.length === declared.length && argTypes.every((t, i) => canCastImplicitly(t, declared[i]!));
        if (!fits) throw noMatchingSignature(name, argTypes, [`${name}(${declared.map((t) => formatType(withNullable(t, true))).join(', ')})`]);
      }
      const args = declared === undefined ? argTypes : declared.map((t, i) => withNullable(t, argTypes[i]!.nullable));
      return { args, returns: withNullable(returnType, returnType.nullable || argTypes.some((t) => t.nullable)) };
    },
    generate(ctx, args) {
      return `${ctx.constant(invoke, `udf_${name.toLowerCase()}`)}(${args.map((a) => a.code).join(', ')})`;
    },
  };
}

/** The columns of a table function's rows: a ROW type's fields, or one column `f0` (Flink's name). */
function tableColumns(type: SqlType): Field[] {
  if (type.kind === 'ROW') return type.fields.map((f) => ({ name: f.name, type: withNullable(f.type, true) }));
  return [{ name: 'f0', type: withNullable(type, true) }];
}

function userTable(name: string, spec: UserTableFunction): TableFunctionDefinition {
  const columns = tableColumns(spec.resultType);
  const declared = spec.argTypes === undefined || spec.argTypes === 'any' ? undefined : spec.argTypes;
  const checks = columns.map((c) => representationCheck(c.type));
  const fieldNames = columns.map((c) => c.name);
  const single = spec.resultType.kind !== 'ROW';
  const fail = (message: string, cause?: unknown): never => {
    throw new WeirError('EXECUTION_ERROR', `table function ${name} ${message}`, cause === undefined ? {} : { cause });
  };
  const toRow = (value: unknown): Row => {
    let row: unknown[];
    if (single) row = [value ?? null];
    else if (Array.isArray(value)) row = value.map((v: unknown) => v ?? null);
    else if (value !== null && typeof value === 'object') row = fieldNames.map((f) => (value as Record<string, unknown>)[f] ?? null);
    else return fail(`gave ${String(value)} as a row; give an array of ${columns.length} values or an object with the fields ${fieldNames.join(', ')}`);
    if (row.length !== columns.length) fail(`gave a row of ${row.length} values, but its rows have ${columns.length} columns (${fieldNames.join(', ')})`);
    row.forEach((v, i) => {
      if (v !== null && !checks[i]!(v)) fail(`gave ${typeof v === 'string' ? `'${v}'` : String(v)} for column ${fieldNames[i]}, which is not a ${formatType(columns[i]!.type)} value`);
    });
    return row;
  };
  return {
    name,
    description: spec.description ?? `${name}: a user-defined table function of rows ${formatType(withNullable(spec.resultType, true))}`,
    columns,
    resolveArgs(argTypes) {
      if (declared === undefined) return argTypes;
      const fits = argTypes.length === declared.length && argTypes.every((t, i) => canCastImplicitly(t, declared[i]!));
      if (!fits) throw noMatchingSignature(name, argTypes, [`${name}(${declared.map((t) => formatType(withNullable(t, true))).join(', ')})`]);
      return declared.map((t, i) => withNullable(t, argTypes[i]!.nullable));
    },
    rows(args) {
      let result: Iterable<unknown> | null | undefined;
      const rows: Row[] = [];
      try {
        result = spec.fn(...args);
        if (result === null || result === undefined) return rows;
        if (typeof (result as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') fail(`returned ${String(result)}, which is not an iterable of rows`);
        for (const value of result) rows.push(toRow(value));
      } catch (error) {
        if (error instanceof WeirError) throw error;
        fail(`failed: ${error instanceof Error ? error.message : String(error)}`, error);
      }
      return rows;
    },
  };
}
