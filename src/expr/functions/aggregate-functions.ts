/**
 * The aggregate functions, each with its result type as Flink gives it and the generator of its
 * accumulator (see aggregates/): COUNT → BIGINT NOT NULL; SUM keeps the input type,
 * DECIMAL(p, s) → DECIMAL(38, s); AVG and the variance family keep integer and approximate types
 * (integers truncate), DECIMAL(p, s) → DECIMAL(38, max(6, s)); MIN, MAX, FIRST_VALUE, LAST_VALUE
 * keep the input type; LISTAGG → STRING; ARRAY_AGG → ARRAY of the input type; COLLECT → a
 * multiset, as MAP<x, INT NOT NULL>; JSON_ARRAYAGG/JSON_OBJECTAGG → VARCHAR(2000) NOT NULL (Calcite's type). All but COUNT,
 * COLLECT and the JSON aggregates are nullable: over no rows they are NULL. PERCENTILE → DOUBLE, or
 * ARRAY<DOUBLE> for an array of percentages.
 */
import { isNumericType, MAX_DECIMAL_PRECISION, SqlTypes, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import type { AggregateFactory } from '../aggregates/aggregate-codegen.js';
import { avgAggregate } from '../aggregates/avg-aggregate.js';
import { collectAggregate } from '../aggregates/collect-aggregate.js';
import { countAggregate } from '../aggregates/count-aggregate.js';
import { jsonArrayAggAggregate, jsonObjectAggAggregate } from '../aggregates/json-aggregates.js';
import { maxAggregate, minAggregate } from '../aggregates/min-max-aggregate.js';
import { checkLiteralPercentage, percentileAggregate } from '../aggregates/percentile-aggregate.js';
import { singleValueAggregate } from '../aggregates/single-value-aggregate.js';
import { sumAggregate } from '../aggregates/sum-aggregate.js';
import { arrayAggAggregate, arrayAggIgnoreNullsAggregate, firstValueAggregate, lastValueAggregate, listaggAggregate } from '../aggregates/value-aggregates.js';
import { varianceAggregate } from '../aggregates/variance-aggregate.js';
import type { AggregateFunctionDefinition, LiteralArg } from '../function-definition.js';
import { Arg, describeForm, matchForm, noMatchingSignature, type ArgFamily } from './define.js';

/** One accepted form of an aggregate function. */
interface AggregateForm {
  readonly args: readonly ArgFamily[];
  readonly optional?: number;
  readonly variadic?: boolean;
  readonly coerce?: (types: readonly SqlType[]) => readonly SqlType[] | undefined;
  readonly returns: (types: readonly SqlType[]) => SqlType;
  /** Refuses constant arguments out of range (a WeirError); `literals[i]` is the value of a literal argument. */
  readonly check?: (types: readonly SqlType[], literals: readonly (LiteralArg | undefined)[]) => void;
}

function defineAggregate(name: string, description: string, forms: readonly AggregateForm[], accumulator: AggregateFactory): AggregateFunctionDefinition {
  const described = forms.map((f) => describeForm(name, f));
  return {
    kind: 'aggregate',
    name,
    description,
    resolve(argTypes, literals = []) {
      const found = matchForm(forms, argTypes);
      if (found === undefined) throw noMatchingSignature(name, argTypes, described);
      found.signature.check?.(found.args, literals);
      return { args: found.args, returns: found.signature.returns(found.args) };
    },
    accumulator,
  };
}

const nullableInput = (types: readonly SqlType[]): SqlType => withNullable(withoutTimeAttribute(types[0]!), true);

const isOrderable = (type: SqlType): boolean => type.kind !== 'ROW' && type.kind !== 'ARRAY' && type.kind !== 'MAP' && type.kind !== 'NULL';

const orderable: AggregateForm = {
  args: [Arg.ANY],
  coerce: (types) => (isOrderable(types[0]!) ? types : undefined),
  returns: nullableInput,
};

/** Any argument but an untyped NULL. */
const anyTyped: AggregateForm['coerce'] = (types) => (types[0]!.kind === 'NULL' ? undefined : types);

function sumType(types: readonly SqlType[]): SqlType {
  const type = types[0]!;
  return type.kind === 'DECIMAL' ? SqlTypes.decimal(MAX_DECIMAL_PRECISION, type.scale) : withNullable(type, true);
}

/** Flink's type of AVG and of the variance family: the argument's, DECIMAL(p, s) → DECIMAL(38, max(6, s)). */
function avgType(types: readonly SqlType[]): SqlType {
  const type = types[0]!;
  return type.kind === 'DECIMAL' ? SqlTypes.decimal(MAX_DECIMAL_PRECISION, Math.max(6, type.scale)) : withNullable(type, true);
}

const variance = (name: string, kind: Parameters<typeof varianceAggregate>[0], what: string): AggregateFunctionDefinition =>
  defineAggregate(name, `${name}(x): the ${what} of the non-NULL values; NULL when there are none${kind.endsWith('SAMP') ? ' or only one' : ''}`, [{ args: [Arg.NUMERIC], returns: avgType }], varianceAggregate(kind));

const isNumericArray = (type: SqlType): boolean => type.kind === 'ARRAY' && isNumericType(type.element);

const STRING = (): SqlType => SqlTypes.string(true);

/** The aggregate functions. */
export const aggregateFunctions: readonly AggregateFunctionDefinition[] = [
  defineAggregate(
    'COUNT',
    'COUNT(*) or COUNT(x, ...): the number of rows, or of rows where the arguments are not NULL',
    [
      { args: [], returns: () => SqlTypes.bigint(false) },
      { args: [Arg.ANY], variadic: true, returns: () => SqlTypes.bigint(false) },
    ],
    countAggregate,
  ),
  defineAggregate('SUM', 'SUM(x): the sum of the non-NULL values (TINYINT, SMALLINT, INT and BIGINT sums wrap around as in Java); NULL when there are none', [{ args: [Arg.NUMERIC], returns: sumType }], sumAggregate),
  defineAggregate('AVG', 'AVG(x): the average of the non-NULL values (integers truncate); NULL when there are none', [{ args: [Arg.NUMERIC], returns: avgType }], avgAggregate),
  defineAggregate('MIN', 'MIN(x): the smallest non-NULL value', [orderable], minAggregate),
  defineAggregate('MAX', 'MAX(x): the largest non-NULL value', [orderable], maxAggregate),
  variance('VAR_POP', 'VAR_POP', 'population variance'),
  variance('VAR_SAMP', 'VAR_SAMP', 'sample variance'),
  variance('VARIANCE', 'VAR_SAMP', 'sample variance (VAR_SAMP)'),
  variance('STDDEV_POP', 'STDDEV_POP', 'population standard deviation'),
  variance('STDDEV_SAMP', 'STDDEV_SAMP', 'sample standard deviation'),
  variance('STDDEV', 'STDDEV_SAMP', 'sample standard deviation (STDDEV_SAMP)'),
  defineAggregate(
    'PERCENTILE',
    'PERCENTILE(x, p [, frequency]): the continuous percentile p (between 0 and 1, or an array of them) of the non-NULL values of x as DOUBLE, interpolating between the two nearest values; each row counts frequency times (rows with frequency <= 0 are skipped); NULL when there are no values',
    [
      { args: [Arg.NUMERIC, Arg.NUMERIC, Arg.INTEGER], optional: 1, returns: () => SqlTypes.double(true), check: (types, literals) => checkLiteralPercentage(types[1]!, literals[1]) },
      { args: [Arg.NUMERIC, Arg.ARRAY, Arg.INTEGER], optional: 1, coerce: (types) => (isNumericArray(types[1]!) ? types : undefined), returns: () => SqlTypes.array(SqlTypes.double(true), true) },
    ],
    percentileAggregate,
  ),
  defineAggregate(
    'SINGLE_VALUE',
    'SINGLE_VALUE(x[, name]): the value of the one row of the group, NULL when there is none, an error naming the subquery `name` when there are more (how scalar subqueries are planned)',
    [{ args: [Arg.ANY, Arg.STRING], optional: 1, coerce: anyTyped, returns: nullableInput }],
    singleValueAggregate,
  ),
  defineAggregate(
    'FIRST_VALUE',
    'FIRST_VALUE(x[, ignoreNulls]): the earliest value in arrival order, NULL included unless ignoreNulls is TRUE (a retraction removes the earliest equal value)',
    [{ args: [Arg.ANY, Arg.BOOLEAN], optional: 1, coerce: anyTyped, returns: nullableInput }],
    firstValueAggregate,
  ),
  defineAggregate(
    'LAST_VALUE',
    'LAST_VALUE(x[, ignoreNulls]): the latest value in arrival order, NULL included unless ignoreNulls is TRUE (a retraction removes the earliest equal value)',
    [{ args: [Arg.ANY, Arg.BOOLEAN], optional: 1, coerce: anyTyped, returns: nullableInput }],
    lastValueAggregate,
  ),
  defineAggregate(
    'LISTAGG',
    "LISTAGG(s[, separator]): the non-NULL values in arrival order joined by separator (default ','); NULL when there are none",
    [{ args: [Arg.STRING, Arg.STRING], optional: 1, returns: STRING }],
    listaggAggregate,
  ),
  defineAggregate(
    'ARRAY_AGG',
    'ARRAY_AGG(x [RESPECT NULLS]): the values, NULLs included, as an array in arrival order; NULL when there are no rows',
    [{ args: [Arg.ANY], coerce: anyTyped, returns: (types) => SqlTypes.array(withoutTimeAttribute(types[0]!), true) }],
    arrayAggAggregate,
  ),
  defineAggregate(
    'ARRAY_AGG_IGNORE_NULLS',
    'ARRAY_AGG(x IGNORE NULLS): the non-NULL values as an array in arrival order; NULL when there are none',
    // The elements keep the argument's type, nullable or not: Flink's ArrayAggFunction types its result ARRAY(argument type) with or without IGNORE NULLS.
    [{ args: [Arg.ANY], coerce: anyTyped, returns: (types) => SqlTypes.array(withoutTimeAttribute(types[0]!), true) }],
    arrayAggIgnoreNullsAggregate,
  ),
  defineAggregate(
    'COLLECT',
    'COLLECT(x): the multiset of the non-NULL values, as a MAP from value to its number of occurrences',
    [{ args: [Arg.ANY], coerce: anyTyped, returns: (types) => SqlTypes.map(withNullable(withoutTimeAttribute(types[0]!), false), SqlTypes.int(false), false) }],
    collectAggregate,
  ),
  ...[false, true].flatMap((nested) => {
    const suffix = nested ? '_NESTED' : '';
    const of = nested ? ' (the values written by JSON_OBJECT or JSON_ARRAY, nested as JSON)' : '';
    const args = nested ? [Arg.STRING] : [Arg.ANY];
    const json = (): SqlType => SqlTypes.varchar(2000, false);
    return [
      defineAggregate(`JSON_ARRAYAGG_ABSENT_ON_NULL${suffix}`, `JSON_ARRAYAGG(x [ABSENT ON NULL]): a JSON array of the non-NULL values in arrival order${of}`, [{ args, returns: json }], jsonArrayAggAggregate(false, nested)),
      defineAggregate(`JSON_ARRAYAGG_NULL_ON_NULL${suffix}`, `JSON_ARRAYAGG(x NULL ON NULL): a JSON array of the values in arrival order, NULL as null${of}`, [{ args, returns: json }], jsonArrayAggAggregate(true, nested)),
      defineAggregate(
        `JSON_OBJECTAGG_NULL_ON_NULL${suffix}`,
        `JSON_OBJECTAGG([KEY] k VALUE v [NULL ON NULL]): a JSON object of the key/value pairs (keys sorted; a repeated key is an error), NULL values as null${of}`,
        [{ args: [Arg.STRING, ...args], returns: json }],
        jsonObjectAggAggregate(true, nested),
      ),
      defineAggregate(
        `JSON_OBJECTAGG_ABSENT_ON_NULL${suffix}`,
        `JSON_OBJECTAGG([KEY] k VALUE v ABSENT ON NULL): a JSON object of the key/value pairs whose value is not NULL${of}`,
        [{ args: [Arg.STRING, ...args], returns: json }],
        jsonObjectAggAggregate(false, nested),
      ),
    ];
  }),
];
