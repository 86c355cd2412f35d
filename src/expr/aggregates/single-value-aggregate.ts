/**
 * SINGLE_VALUE(x[, subquery]): the value of the one row of its group, NULL when there is none, and
 * an EXECUTION_ERROR (Flink's message, naming `subquery`, a constant string argument, when given)
 * when there is more than one.
 * What a scalar subquery that can return several rows is planned with (bind-subquery.ts): grouped
 * by the correlation columns, so that each outer row reads one value. The accumulator is an
 * {@link OrderedBag} of the values, NULLs included, so that retracting a row leaves the right one;
 * the check runs when the result is read, after a batch's changes, not on each row.
 */
import { WeirError } from '../../common/errors.js';
import type { AggregateFactory } from './aggregate-codegen.js';
import { bagAdd, bagCreate, bagFirst, bagMerge, bagRemove, bagSize } from './ordered-bag.js';

/** Fails for a group of more than one row, with Flink's message, naming the subquery when there is one. */
function moreThanOneRow(subquery: unknown): never {
  const flink = 'SingleValueAggFunction received more than one element.';
  if (subquery === null) throw new WeirError('EXECUTION_ERROR', flink);
  throw new WeirError('EXECUTION_ERROR', `${flink} More than one row returned by ${String(subquery)}, a subquery used as an expression`, {
    hint: 'make the subquery return at most one row per outer row (an aggregate, a unique key in its WHERE, or LIMIT 1 when uncorrelated)',
  });
}

/** SINGLE_VALUE's accumulator: slots [bag of values, the subquery's name]. */
export const singleValueAggregate: AggregateFactory = ({ scope }) => {
  const create = scope.bind(bagCreate, 'bagCreate');
  const add = scope.bind(bagAdd, 'bagAdd');
  const remove = scope.bind(bagRemove, 'bagRemove');
  const merge = scope.bind(bagMerge, 'bagMerge');
  const size = scope.bind(bagSize, 'bagSize');
  const first = scope.bind(bagFirst, 'bagFirst');
  const fail = scope.bind(moreThanOneRow, 'moreThanOneRow');
  return {
    slots: 2,
    acceptsNulls: true,
    init: ([bag, name]) => `${bag} = ${create}(); ${name} = null;`,
    accumulate: ([bag, name], [v, text]) => `${add}(${bag}, ${v}); if (${text} !== undefined && ${text} !== null) ${name} = ${text};`,
    retract: ([bag], [v]) => `${remove}(${bag}, ${v});`,
    merge: ([bag, name], [other, otherName]) => `${merge}(${bag}, ${other}); if (${otherName} !== null) ${name} = ${otherName};`,
    result: ([bag, name]) => `(${size}(${bag}) > 1 ? ${fail}(${name}) : ${size}(${bag}) === 0 ? null : ${first}(${bag}))`,
  };
};
