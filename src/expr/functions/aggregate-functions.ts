/**
 * Aggregate function types as Flink gives them (the accumulators live in runtime/aggregates):
 * COUNT → BIGINT NOT NULL; SUM keeps the input type, DECIMAL(p, s) → DECIMAL(38, s); AVG keeps
 * integer and approximate types (integer AVG truncates), DECIMAL(p, s) → DECIMAL(38, max(6, s));
 * MIN, MAX, FIRST_VALUE, LAST_VALUE keep the input type; LISTAGG → STRING. All but COUNT are
 * nullable: over no rows they are NULL.
 */
import { MAX_DECIMAL_PRECISION, SqlTypes, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import type { AggregateFunctionDefinition } from '../function-definition.js';
import { Arg, describeForm, matchForm, noMatchingSignature, type ArgFamily } from './define.js';

interface AggregateForm {
  readonly args: readonly ArgFamily[];
  readonly optional?: number;
  readonly variadic?: boolean;
  readonly coerce?: (types: readonly SqlType[]) => readonly SqlType[] | undefined;
  readonly returns: (types: readonly SqlType[]) => SqlType;
}

function defineAggregate(name: string, description: string, forms: readonly AggregateForm[]): AggregateFunctionDefinition {
  const described = forms.map((f) => describeForm(name, f));
  return {
    kind: 'aggregate',
    name,
    description,
    resolve(argTypes) {
      const found = matchForm(forms, argTypes);
      if (found === undefined) throw noMatchingSignature(name, argTypes, described);
      return { args: found.args, returns: found.signature.returns(found.args) };
    },
  };
}

const nullableInput = (types: readonly SqlType[]): SqlType => withNullable(withoutTimeAttribute(types[0]!), true);

const isOrderable = (type: SqlType): boolean => type.kind !== 'ROW' && type.kind !== 'ARRAY' && type.kind !== 'MAP' && type.kind !== 'NULL';

const orderable: AggregateForm = {
  args: [Arg.ANY],
  coerce: (types) => (isOrderable(types[0]!) ? types : undefined),
  returns: nullableInput,
};

function sumType(types: readonly SqlType[]): SqlType {
  const type = types[0]!;
  return type.kind === 'DECIMAL' ? SqlTypes.decimal(MAX_DECIMAL_PRECISION, type.scale) : withNullable(type, true);
}

function avgType(types: readonly SqlType[]): SqlType {
  const type = types[0]!;
  return type.kind === 'DECIMAL' ? SqlTypes.decimal(MAX_DECIMAL_PRECISION, Math.max(6, type.scale)) : withNullable(type, true);
}

/** The aggregate functions. */
export const aggregateFunctions: readonly AggregateFunctionDefinition[] = [
  defineAggregate('COUNT', 'COUNT(*) or COUNT(x, ...): the number of rows, or of rows where the arguments are not NULL', [
    { args: [], returns: () => SqlTypes.bigint(false) },
    { args: [Arg.ANY], variadic: true, returns: () => SqlTypes.bigint(false) },
  ]),
  defineAggregate('SUM', 'SUM(x): the sum of the non-NULL values; NULL when there are none', [{ args: [Arg.NUMERIC], returns: sumType }]),
  defineAggregate('AVG', 'AVG(x): the average of the non-NULL values (integers truncate); NULL when there are none', [{ args: [Arg.NUMERIC], returns: avgType }]),
  defineAggregate('MIN', 'MIN(x): the smallest non-NULL value', [orderable]),
  defineAggregate('MAX', 'MAX(x): the largest non-NULL value', [orderable]),
  defineAggregate('FIRST_VALUE', 'FIRST_VALUE(x): the first non-NULL value in arrival order', [{ args: [Arg.ANY], returns: nullableInput }]),
  defineAggregate('LAST_VALUE', 'LAST_VALUE(x): the last non-NULL value in arrival order', [{ args: [Arg.ANY], returns: nullableInput }]),
  defineAggregate('LISTAGG', "LISTAGG(s[, separator]): the non-NULL values joined by separator (default ',')", [
    { args: [Arg.STRING, Arg.STRING], optional: 1, returns: () => SqlTypes.string(true) },
  ]),
];
