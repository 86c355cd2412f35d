/**
 * PERCENTILE(x, p [, frequency]) as Flink 2.0 computes it: the continuous percentile of the
 * non-NULL values of x read as DOUBLE (linear interpolation between the two nearest values), for
 * one percentage (DOUBLE result) or an array of them (ARRAY<DOUBLE>). A row counts `frequency`
 * times (rows with a NULL, zero or negative frequency are skipped). Percentages must lie in
 * [0, 1]; they are taken from the first row accumulated, as Flink's accumulator does.
 *
 * The accumulator is `[percentages, values]`: the percentages (null until the first row) and an
 * ordered multiset of the values with their counts, so a retraction is O(log n) and the result one
 * walk over the distinct values — nothing is recomputed from history. For n values in total, the
 * percentage p sits at position `p * (n - 1) + 1` (1-based) of the sorted values; between two
 * positions the result is interpolated.
 */
import { decimalToNumber } from '../../common/decimal.js';
import { WeirError } from '../../common/errors.js';
import { isIntegerType, isNumericType, type SqlType } from '../../common/sql-type.js';
import { formatDouble } from '../../common/value-format.js';
import { unsupportedAggregate, type AggregateFactory } from './aggregate-codegen.js';
import { emptyMultiset, multisetAdd, multisetMerge, multisetRemove, type OrderedMultiset } from './ordered-multiset.js';

/** The percentiles at `percentages` of the values of `set`; null when it holds no value. */
export function percentilesOf(set: OrderedMultiset, percentages: readonly number[]): number[] | null {
  let total = 0;
  for (const chunk of set) for (let i = 1; i < chunk.length; i += 2) total += chunk[i] as number;
  if (total <= 0) return null;
  const order = percentages.map((_, index) => index).sort((a, b) => percentages[a]! - percentages[b]!);
  const results = new Array<number>(percentages.length);
  // A cursor over the distinct values in ascending order, with the number of values up to the current one.
  let c = 0;
  let i = 0;
  let upTo = set[0]![1] as number;
  const current = (): number => set[c]![i] as number;
  const next = (): number => {
    const chunk = set[c]!;
    return (i + 2 < chunk.length ? chunk[i + 2] : set[c + 1]![0]) as number;
  };
  const advance = (): void => {
    i += 2;
    if (i >= set[c]!.length) {
      c++;
      i = 0;
    }
    upTo += set[c]![i + 1] as number;
  };
  for (const index of order) {
    const position = percentages[index]! * (total - 1) + 1;
    const lower = Math.floor(position);
    const higher = Math.ceil(position);
    while (upTo < lower) advance();
    results[index] = upTo >= higher ? current() : (higher - position) * current() + (position - lower) * next();
  }
  return results;
}

/** The percentages of a call, checked to lie in [0, 1] (a NULL percentage is refused too). */
export function checkedPercentages(values: readonly unknown[]): number[] {
  return values.map((value) => {
    const p = value as number | null;
    if (p === null || !(p >= 0 && p <= 1)) throw new WeirError('INVALID_ARGUMENT', `Percentage of PERCENTILE should be between [0.0, 1.0], but was '${p === null ? 'null' : formatDouble(p)}'.`);
    return p;
  });
}

/** A JS expression converting the value `code` of a numeric `type` to a double. */
function doubleCode(type: SqlType, code: string, bind: (value: unknown, hint: string) => string): string {
  if (type.kind === 'DECIMAL') return `${bind(decimalToNumber, 'decimalToNumber')}(${code}, ${type.scale})`;
  if (type.kind === 'BIGINT') return `Number(${code})`;
  return code;
}

/** PERCENTILE. */
export const percentileAggregate: AggregateFactory = (context) => {
  const { argTypes, scope } = context;
  const [value, percentage, frequency] = argTypes;
  const element = percentage?.kind === 'ARRAY' ? percentage.element : percentage;
  if (value === undefined || !isNumericType(value) || element === undefined || !isNumericType(element) || (frequency !== undefined && !isIntegerType(frequency))) {
    throw unsupportedAggregate(context);
  }
  const bind = scope.bind.bind(scope);
  const many = percentage!.kind === 'ARRAY';
  const percentagesOf = many
    ? (p: string) => `${bind(checkedPercentages, 'checkedPercentages')}(${p}.map((e) => e === null ? null : ${doubleCode(element, 'e', bind)}))`
    : (p: string) => `${bind(checkedPercentages, 'checkedPercentages')}([${doubleCode(element, p, bind)}])`;
  const add = bind(multisetAdd, 'multisetAdd');
  const remove = bind(multisetRemove, 'multisetRemove');
  const times = (f: string | undefined) => (frequency === undefined ? '1' : `Number(${f})`);
  const skip = (f: string | undefined) => (frequency === undefined ? '' : `if (${times(f)} > 0) `);
  const percentiles = bind(percentilesOf, 'percentilesOf');
  return {
    slots: 2,
    init: ([ps, set]) => `${ps} = null; ${set} = ${bind(emptyMultiset, 'emptyMultiset')}();`,
    accumulate: ([ps, set], [x, p, f]) => `if (${ps} === null) ${ps} = ${percentagesOf(p!)}; ${skip(f)}${add}(${set}, ${doubleCode(value, x!, bind)}, ${times(f)});`,
    retract: ([, set], [x, , f]) => `${skip(f)}${remove}(${set}, ${doubleCode(value, x!, bind)}, ${times(f)});`,
    merge: ([ps, set], [ops, other]) => `if (${ps} === null && ${ops} !== null) ${ps} = [...${ops}]; ${bind(multisetMerge, 'multisetMerge')}(${set}, ${other});`,
    result: ([ps, set]) => {
      const all = `(${ps} === null || ${ps}.length === 0 ? null : ${percentiles}(${set}, ${ps}))`;
      return many ? all : `(${ps} === null ? null : (${percentiles}(${set}, ${ps})?.[0] ?? null))`;
    },
  };
};

/**
 * Refuses, when the query is planned, a literal percentage out of [0, 1] with Flink's message (its
 * type inference lists the signatures); other percentages are checked when the first row is
 * accumulated ("Percentage of PERCENTILE should be between [0.0, 1.0], but was '3.0'.").
 */
export function checkLiteralPercentage(type: SqlType, literal: { readonly value: unknown } | undefined): void {
  if (literal === undefined || literal.value === null) return;
  const { value } = literal;
  const p = typeof value === 'bigint' ? (type.kind === 'DECIMAL' ? decimalToNumber(value, type.scale) : Number(value)) : (value as number);
  if (typeof p === 'number' && !(p >= 0 && p <= 1)) {
    throw new WeirError(
      'TYPE_MISMATCH',
      'Invalid input arguments. Expected signatures are:\n' +
        'PERCENTILE(expr <NUMERIC>, percentage [<NUMERIC NOT NULL> | ARRAY<NUMERIC NOT NULL> NOT NULL])\n' +
        'PERCENTILE(expr <NUMERIC>, percentage [<NUMERIC NOT NULL> | ARRAY<NUMERIC NOT NULL> NOT NULL], frequency <INTEGER_NUMERIC>)',
    );
  }
}
