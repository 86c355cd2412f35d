/**
 * Constructors and accessors of structured values: ROW(...), ARRAY[...], MAP[...], ITEM (the
 * `a[i]` / `m[k]` subscript; arrays are 1-based, NULL out of range) and CARDINALITY.
 */
import { SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import type { ScalarFunctionDefinition } from '../function-definition.js';
import { leastRestrictive } from '../type-coercion.js';
import { allTo, Arg, defineScalar } from './define.js';

type ArrayType = Extract<SqlType, { kind: 'ARRAY' }>;
type MapType = Extract<SqlType, { kind: 'MAP' }>;

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
          return common === undefined ? undefined : allTo(types, common);
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
    description: 'ITEM(a, i) or a[i]: the i-th (1-based) array element, or the map value for key i; NULL when absent',
    signatures: [
      {
        args: [Arg.ARRAY, Arg.INTEGER],
        nullable: true,
        returns: (types) => withNullable((types[0] as ArrayType).element, true),
        generate: (_ctx, [array, index]) => `${index!.code} >= 1 && ${index!.code} <= ${array!.code}.length ? ${array!.code}[${index!.code} - 1] : null`,
      },
      {
        args: [Arg.MAP, Arg.ANY],
        nullable: true,
        coerce: (types) => [types[0]!, withNullable((types[0] as MapType).key, types[1]!.nullable)],
        returns: (types) => withNullable((types[0] as MapType).value, true),
        generate: (_ctx, [map, key]) => `${map!.code}.get(${key!.code}) ?? null`,
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
];
