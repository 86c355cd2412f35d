/**
 * Constructors and accessors of structured values: ROW(...), ARRAY[...], MAP[...], ITEM (the
 * `a[i]` / `m[k]` subscript; arrays are 1-based, NULL out of range), CARDINALITY, ELEMENT, and
 * Flink's ARRAY_* and MAP_* functions and SPLIT (see runtime/collection-lib.ts). Elements are
 * compared as SQL values, NULL equal to NULL; element types meet at their common type.
 */
import { WeirError } from '../../common/errors.js';
import { isBinaryType, isStringType, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import { canCastImplicitly, leastRestrictive } from '../type-coercion.js';

/** Key types whose values are objects, which a Map would compare by identity. */
const OBJECT_KEYS: ReadonlySet<SqlType['kind']> = new Set(['BINARY', 'VARBINARY', 'ROW', 'ARRAY', 'MAP']);
import { allTo, Arg, booleanType, defineScalar, type Signature } from './define.js';

type ArrayType = Extract<SqlType, { kind: 'ARRAY' }>;
type MapType = Extract<SqlType, { kind: 'MAP' }>;
type RowType = Extract<SqlType, { kind: 'ROW' }>;

/** Calcite's type family of a type (NULL fits every family). */
function family(type: SqlType): string {
  switch (type.kind) {
    case 'CHAR':
    case 'VARCHAR':
      return 'CHARACTER';
    case 'BINARY':
    case 'VARBINARY':
      return 'BINARY';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'DECIMAL':
    case 'FLOAT':
    case 'DOUBLE':
      return 'NUMERIC';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return 'TIMESTAMP';
    default:
      return type.kind;
  }
}

const sameFamily = (a: SqlType, b: SqlType): boolean => a.kind === 'NULL' || b.kind === 'NULL' || family(a) === family(b);

/** The field `key` names (a field name, exact or else in any case, or a 1-based position) in a ROW; an error for another key. */
function rowField(row: RowType, key: unknown): { readonly field: RowType['fields'][number]; readonly index: number } {
  let index = -1;
  if (typeof key === 'string') {
    index = row.fields.findIndex((f) => f.name === key);
    if (index < 0) index = row.fields.findIndex((f) => f.name.toLowerCase() === key.toLowerCase());
  } else if (typeof key === 'number' || typeof key === 'bigint') index = Number(key) - 1;
  else throw new WeirError('TYPE_MISMATCH', 'a ROW field is accessed by a literal name or position');
  const field = row.fields[index];
  if (field === undefined) throw new WeirError('INVALID_ARGUMENT', `the ROW has no field ${typeof key === 'string' ? `'${key}'` : String(key)}`);
  return { field, index };
}

const elementOf = (type: SqlType): SqlType => (type as ArrayType).element;

/** The arrays converted to arrays of their common element type (each keeping its nullability); undefined when there is none. */
function commonArrays(types: readonly SqlType[]): SqlType[] | undefined {
  const element = leastRestrictive(types.map(elementOf));
  return element === undefined ? undefined : types.map((t) => SqlTypes.array(element, t.nullable));
}

const isOrderable = (type: SqlType): boolean => type.kind !== 'ROW' && type.kind !== 'ARRAY' && type.kind !== 'MAP';

/** A strict function of arrays computed by the runtime helper `helper` (extra literal arguments appended). */
function arrayHelper(ctx: CodegenContext, helper: string, args: readonly ArgCode[], extra = ''): string {
  return `${ctx.lib(helper)}(${args.map((a) => a.code).join(', ')}${extra})`;
}

/** `[array, needle]` with the needle converted to the array's element type (or both to their common type). */
function arrayAndElement(types: readonly SqlType[]): SqlType[] | undefined {
  const element = leastRestrictive([elementOf(types[0]!), types[1]!]);
  if (element === undefined) return undefined;
  return [SqlTypes.array(element, types[0]!.nullable), withNullable(element, types[1]!.nullable)];
}

/**
 * MAP_CONTAINS_KEY's map and key: the key cast to the map's key type when it can be implicitly
 * (Flink's MapKeyArgumentTypeStrategy); Flink's implicit casts ignore length and precision within
 * a type root (CHAR(3) to CHAR(1), DECIMAL(3, 2) to DECIMAL(2, 1)), where weir compares both at
 * their common type instead, so that no key is cut or rounded into a match.
 */
function mapAndKey([map, key]: readonly SqlType[]): SqlType[] | undefined {
  const mapKey = (map as MapType).key;
  const keyType = withNullable(mapKey, key!.nullable || mapKey.nullable);
  if (canCastImplicitly(key!, keyType)) return [map!, keyType];
  const sameRoot = (isStringType(key!) && isStringType(mapKey)) || (isBinaryType(key!) && isBinaryType(mapKey)) || key!.kind === mapKey.kind;
  const common = sameRoot ? leastRestrictive([mapKey, key!]) : undefined;
  if (common === undefined) return undefined;
  const m = map as MapType;
  return [SqlTypes.map(withNullable(common, mapKey.nullable), m.value, m.nullable), withNullable(common, key!.nullable || mapKey.nullable)];
}

/** A function of two or more arrays of a common element type, returning such an array: ARRAY_UNION, ARRAY_CONCAT, ... */
function setFunction(name: string, description: string, helper: string, variadic = false): ScalarFunctionDefinition {
  return defineScalar({
    name,
    description,
    signatures: [
      {
        args: [Arg.ARRAY, Arg.ARRAY],
        variadic,
        coerce: commonArrays,
        returns: (types) => SqlTypes.array(elementOf(types[0]!), false),
        generate: (ctx, args) => arrayHelper(ctx, helper, args),
      },
    ],
  });
}

const ARRAY_SIGNATURE = (returns: Signature['returns'], generate: Signature['generate']): Signature => ({ args: [Arg.ARRAY], returns, generate });

/** The collection functions. */
export const collectionFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'ROW',
    description: 'ROW(a, b, ...): a row of the values (fields EXPR$0, EXPR$1, ...)',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY],
        variadic: true,
        // An untyped NULL field (ROW(NULL)) has no type: Flink refuses it.
        coerce: (types) => (types.some((t) => t.kind === 'NULL') ? undefined : types),
        returns: (types) => SqlTypes.row(types.map((type, i) => ({ name: `EXPR$${i}`, type })), false),
        generate: (_ctx, args) => `[${args.map((a) => a.code).join(', ')}]`,
      },
    ],
  }),
  defineScalar({
    name: 'ARRAY',
    description: 'ARRAY[a, b, ...]: an array of the values, of their common type',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY],
        variadic: true,
        coerce: (types) => {
          const common = leastRestrictive(types);
          // ARRAY[NULL] has no element type: Flink refuses it.
          return common === undefined || common.kind === 'NULL' ? undefined : allTo(types, common);
        },
        returns: (types) => SqlTypes.array(withNullable(types[0]!, types.some((t) => t.nullable)), false),
        generate: (_ctx, args) => `[${args.map((a) => a.code).join(', ')}]`,
      },
    ],
  }),
  defineScalar({
    name: 'MAP',
    description: 'MAP[k1, v1, k2, v2, ...]: a map of the pairs',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY, Arg.ANY],
        variadic: true,
        coerce: (types) => {
          if (types.length % 2 !== 0) return undefined;
          const key = leastRestrictive(types.filter((_, i) => i % 2 === 0));
          const value = leastRestrictive(types.filter((_, i) => i % 2 === 1));
          if (key === undefined || value === undefined) return undefined;
          return types.map((t, i) => withNullable(i % 2 === 0 ? key : value, t.nullable));
        },
        returns: (types) => SqlTypes.map(types[0]!, withNullable(types[1]!, types.some((t, i) => i % 2 === 1 && t.nullable)), false),
        generate: (_ctx, args) => {
          const pairs = [];
          for (let i = 0; i < args.length; i += 2) pairs.push(`[${args[i]!.code}, ${args[i + 1]!.code}]`);
          return `new Map([${pairs.join(', ')}])`;
        },
      },
    ],
  }),
  defineScalar({
    name: 'ITEM',
    description: "ITEM(a, i) or a[i]: the i-th (1-based) array element, or the map value for key i (NULL when absent), or a ROW's field by literal name or position (row['f'])",
    signatures: [
      {
        args: [Arg.ARRAY, Arg.INTEGER],
        nullable: true,
        returns: (types, literals) => {
          // A literal index below 1 is refused when the query is planned, as Flink does.
          const index = literals[1]?.value;
          if ((typeof index === 'number' || typeof index === 'bigint') && index < 1) {
            throw new WeirError('INVALID_ARGUMENT', `Array element access needs an index starting at 1 but was ${String(index)}.`);
          }
          return withNullable((types[0] as ArrayType).element, true);
        },
        generate: (_ctx, [array, index]) => `${index!.code} >= 1 && ${index!.code} <= ${array!.code}.length ? ${array!.code}[${index!.code} - 1] : null`,
      },
      {
        // A ROW's field by a literal name (or 1-based position), as Calcite's ITEM on a ROW.
        args: [Arg.ROW, Arg.ANY],
        keepsNullable: true,
        returns: (types, literals) => rowField(types[0] as RowType, literals[1]?.value).field.type,
        generate: (_ctx, [row, key]) => `${row!.code}[${rowField(row!.type as RowType, key!.constant?.value).index}] ?? null`,
      },
      {
        args: [Arg.MAP, Arg.ANY],
        nullable: true,
        // A string key is looked up as it is (a cast to the key's CHAR(n) would cut or pad it).
        // The key must be of the map key's type family (Calcite's ITEM): MAP<STRING, INT>[12] is refused.
        coerce: (types) =>
          sameFamily(types[1]!, (types[0] as MapType).key)
            ? [types[0]!, isStringType(types[1]!) && isStringType((types[0] as MapType).key) ? types[1]! : withNullable((types[0] as MapType).key, types[1]!.nullable)]
            : undefined,
        returns: (types) => withNullable((types[0] as MapType).value, true),
        generate: (ctx, [map, key]) =>
          OBJECT_KEYS.has(key!.type.kind) ? `${ctx.lib('mapItemByValue')}(${map!.code}, ${key!.code})` : `${map!.code}.get(${key!.code}) ?? null`,
      },
    ],
  }),
  defineScalar({
    name: 'CARDINALITY',
    description: 'CARDINALITY(x): the number of elements of an array or entries of a map',
    signatures: [
      { args: [Arg.ARRAY], returns: SqlTypes.int(false), generate: (_ctx, [a]) => `${a!.code}.length` },
      { args: [Arg.MAP], returns: SqlTypes.int(false), generate: (_ctx, [m]) => `${m!.code}.size` },
    ],
  }),
  defineScalar({
    name: 'ELEMENT',
    description: 'ELEMENT(array): the sole element of the array; NULL when it is empty; an error when it has more than one',
    signatures: [{ args: [Arg.ARRAY], nullable: true, returns: (types) => elementOf(types[0]!), generate: (ctx, args) => arrayHelper(ctx, 'arrayElement', args) }],
  }),
  ...(['ARRAY_APPEND', 'ARRAY_PREPEND'] as const).map((name) =>
    defineScalar({
      name,
      description: `${name}(array, e): the array with e added at its ${name === 'ARRAY_APPEND' ? 'end' : 'beginning'} (NULL included); NULL when the array is`,
      nulls: 'custom',
      signatures: [
        {
          args: [Arg.ARRAY, Arg.ANY],
          coerce: arrayAndElement,
          returns: (types) => SqlTypes.array(withNullable(elementOf(types[0]!), elementOf(types[0]!).nullable || types[1]!.nullable), types[0]!.nullable),
          generate: (_ctx, [a, e]) => `${a!.code} === null ? null : ${name === 'ARRAY_APPEND' ? `[...${a!.code}, ${e!.code}]` : `[${e!.code}, ...${a!.code}]`}`,
        },
      ],
    }),
  ),
  defineScalar({
    name: 'ARRAY_CONTAINS',
    description: 'ARRAY_CONTAINS(array, e): whether an element equals e (a NULL e finds a NULL element); NULL when the array is',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.ANY],
        coerce: arrayAndElement,
        returns: (types) => booleanType(types[0]!.nullable),
        generate: (ctx, [a, e]) => `${a!.code} === null ? null : ${ctx.lib('arrayContains')}(${a!.code}, ${e!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'ARRAY_POSITION',
    description: 'ARRAY_POSITION(array, e): the 1-based position of the first element equal to e, 0 when none is',
    signatures: [{ args: [Arg.ARRAY, Arg.ANY], coerce: arrayAndElement, returns: SqlTypes.int(false), generate: (ctx, args) => arrayHelper(ctx, 'arrayPosition', args) }],
  }),
  defineScalar({
    name: 'ARRAY_REMOVE',
    description: 'ARRAY_REMOVE(array, e): the array without the elements equal to e (a NULL e removes NULLs); NULL when the array is',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.ANY],
        coerce: arrayAndElement,
        returns: (types) => types[0]!,
        generate: (ctx, [a, e]) => `${a!.code} === null ? null : ${ctx.lib('arrayRemove')}(${a!.code}, ${e!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'ARRAY_DISTINCT',
    description: 'ARRAY_DISTINCT(array): the first occurrence of each element, in order',
    signatures: [ARRAY_SIGNATURE((types) => types[0]!, (ctx, args) => arrayHelper(ctx, 'arrayDistinct', args))],
  }),
  defineScalar({
    name: 'ARRAY_REVERSE',
    description: 'ARRAY_REVERSE(array): the elements in reverse order',
    signatures: [ARRAY_SIGNATURE((types) => types[0]!, (_ctx, [a]) => `${a!.code}.slice().reverse()`)],
  }),
  defineScalar({
    name: 'ARRAY_SLICE',
    description: 'ARRAY_SLICE(array, start[, end]): the elements from start to end inclusive (1-based; negative offsets count from the end, 0 is the start; end defaults to the length)',
    signatures: [{ args: [Arg.ARRAY, Arg.INTEGER, Arg.INTEGER], optional: 1, returns: (types) => types[0]!, generate: (ctx, args) => arrayHelper(ctx, 'arraySlice', args) }],
  }),
  defineScalar({
    name: 'ARRAY_SORT',
    description: 'ARRAY_SORT(array[, ascending[, nullsFirst]]): the elements sorted, ascending with NULLs first by default, descending with NULLs last',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.BOOLEAN, Arg.BOOLEAN],
        optional: 2,
        coerce: (types) => (isOrderable(elementOf(types[0]!)) ? types : undefined),
        returns: (types) => types[0]!,
        generate: (ctx, args) => arrayHelper(ctx, 'arraySort', args),
      },
    ],
  }),
  setFunction('ARRAY_UNION', 'ARRAY_UNION(a, b): the distinct elements of both arrays, in order', 'arrayUnion'),
  defineScalar({
    name: 'ARRAY_CONCAT',
    description: 'ARRAY_CONCAT(a, ...): the elements of every array, in order; NULL when any array is',
    signatures: [
      {
        args: [Arg.ARRAY],
        variadic: true,
        coerce: commonArrays,
        returns: (types) => SqlTypes.array(elementOf(types[0]!), false),
        generate: (_ctx, args) => (args.length === 1 ? `${args[0]!.code}.slice()` : `${args[0]!.code}.concat(${args.slice(1).map((a) => a.code).join(', ')})`),
      },
    ],
  }),
  setFunction('ARRAY_EXCEPT', 'ARRAY_EXCEPT(a, b): the distinct elements of a that b has not, in order', 'arrayExcept'),
  setFunction('ARRAY_INTERSECT', 'ARRAY_INTERSECT(a, b): the distinct elements of a that b has too, in order', 'arrayIntersect'),
  ...(['ARRAY_MAX', 'ARRAY_MIN'] as const).map((name) =>
    defineScalar({
      name,
      description: `${name}(array): the ${name === 'ARRAY_MAX' ? 'largest' : 'smallest'} non-NULL element; NULL when there is none`,
      signatures: [
        {
          args: [Arg.ARRAY],
          nullable: true,
          coerce: (types) => (isOrderable(elementOf(types[0]!)) ? types : undefined),
          returns: (types) => withNullable(elementOf(types[0]!), true),
          generate: (ctx, args) => arrayHelper(ctx, 'arrayExtreme', args, `, ${name === 'ARRAY_MAX'}`),
        },
      ],
    }),
  ),
  defineScalar({
    name: 'ARRAY_JOIN',
    description: 'ARRAY_JOIN(array, delimiter[, nullReplacement]): the string elements joined by delimiter, NULL elements left out or replaced',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.STRING, Arg.STRING],
        optional: 1,
        coerce: (types) => (isStringType(elementOf(types[0]!)) ? types : undefined),
        returns: SqlTypes.string(false),
        generate: (ctx, args) => arrayHelper(ctx, 'arrayJoin', args),
      },
    ],
  }),
  defineScalar({
    name: 'SPLIT',
    description: 'SPLIT(s, delimiter): the pieces of s between delimiters (empty ones kept), each character for an empty delimiter',
    signatures: [{ args: [Arg.STRING, Arg.STRING], returns: SqlTypes.array(SqlTypes.string(false), false), generate: (ctx, args) => arrayHelper(ctx, 'split', args) }],
  }),
  defineScalar({
    name: 'MAP_KEYS',
    description: 'MAP_KEYS(map): the keys as an array',
    signatures: [{ args: [Arg.MAP], returns: (types) => SqlTypes.array((types[0] as MapType).key, false), generate: (_ctx, [m]) => `[...${m!.code}.keys()]` }],
  }),
  defineScalar({
    name: 'MAP_VALUES',
    description: 'MAP_VALUES(map): the values as an array',
    signatures: [{ args: [Arg.MAP], returns: (types) => SqlTypes.array((types[0] as MapType).value, false), generate: (_ctx, [m]) => `[...${m!.code}.values()]` }],
  }),
  defineScalar({
    name: 'MAP_ENTRIES',
    description: 'MAP_ENTRIES(map): the entries as an array of ROW(key, value)',
    signatures: [
      {
        args: [Arg.MAP],
        returns: (types) => {
          const map = types[0] as MapType;
          return SqlTypes.array(SqlTypes.row([{ name: 'key', type: map.key }, { name: 'value', type: map.value }], false), false);
        },
        generate: (ctx, args) => arrayHelper(ctx, 'mapEntries', args),
      },
    ],
  }),
  defineScalar({
    name: 'MAP_FROM_ARRAYS',
    description: 'MAP_FROM_ARRAYS(keys, values): a map of keys[i] to values[i]; arrays of different lengths are an error',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.ARRAY],
        returns: (types) => SqlTypes.map(elementOf(types[0]!), elementOf(types[1]!), false),
        generate: (ctx, args) => arrayHelper(ctx, 'mapFromArrays', args),
      },
    ],
  }),
  defineScalar({
    name: 'MAP_FROM_ENTRIES',
    description: 'MAP_FROM_ENTRIES(array of ROW(key, value)): a map of the entries, the last value of a repeated key winning; NULL when an entry is',
    signatures: [
      {
        args: [Arg.ARRAY],
        nullable: true,
        coerce: (types) => {
          const entry = elementOf(types[0]!);
          return entry.kind === 'ROW' && entry.fields.length === 2 ? types : undefined;
        },
        returns: (types) => {
          const [key, value] = (elementOf(types[0]!) as Extract<SqlType, { kind: 'ROW' }>).fields;
          return SqlTypes.map(key!.type, value!.type, false);
        },
        generate: (ctx, args) => arrayHelper(ctx, 'mapFromEntries', args),
      },
    ],
  }),
  defineScalar({
    name: 'MAP_CONTAINS_KEY',
    description: 'MAP_CONTAINS_KEY(map, key): whether the map has the key (a NULL key finds a NULL key); NULL when the map is',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.MAP, Arg.ANY],
        coerce: mapAndKey,
        returns: (types) => booleanType(types[0]!.nullable),
        generate: (ctx, [map, key]) => `${map!.code} === null ? null : ${ctx.lib('mapContainsKey')}(${map!.code}, ${key!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'MAP_UNION',
    description: "MAP_UNION(m1, ...): the entries of every map, a later map's value winning for a repeated key; NULL when any map is",
    signatures: [
      {
        args: [Arg.MAP],
        variadic: true,
        coerce: (types) => {
          const common = leastRestrictive(types);
          return common === undefined ? undefined : allTo(types, common);
        },
        returns: (types) => withNullable(types[0]!, false),
        generate: (ctx, args) => arrayHelper(ctx, 'mapUnion', args),
      },
    ],
  }),
];
