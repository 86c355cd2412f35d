/**
 * MIN and MAX, one implementation parameterised by direction. Over an insert-only input the
 * accumulator is the extreme itself; over a retracting input it is an ordered multiset of the
 * values, so that retracting the current extreme reveals the next one in O(log n) instead of
 * recomputing the group from its history. Both accumulators order values as the multiset's
 * `precedes` does (NaN greatest, binary strings by unsigned bytes).
 */
import { WeirError } from '../../common/errors.js';
import { isBinaryType, isNumericType, isStringType, isTimestampType, type SqlType } from '../../common/sql-type.js';
import type { AggregateCodegen, AggregateContext, AggregateFactory } from './aggregate-codegen.js';
import { unsupportedAggregate } from './aggregate-codegen.js';
import { multisetAdd, multisetMax, multisetMerge, multisetMin, multisetRemove, precedes as precedesInOrder } from './ordered-multiset.js';

/** Which extreme an aggregate keeps. */
type Direction = 'MIN' | 'MAX';

/** MIN. */
export const minAggregate: AggregateFactory = (context) => extremeAggregate(context, 'MIN');

/** MAX. */
export const maxAggregate: AggregateFactory = (context) => extremeAggregate(context, 'MAX');

function extremeAggregate(context: AggregateContext, direction: Direction): AggregateCodegen {
  const { argTypes, scope, retractable } = context;
  if (argTypes.length !== 1 || !isOrdered(argTypes[0]!)) throw unsupportedAggregate(context);
  if (retractable) {
    const add = scope.bind(multisetAdd, 'multisetAdd');
    const remove = scope.bind(multisetRemove, 'multisetRemove');
    const extreme = scope.bind(direction === 'MIN' ? multisetMin : multisetMax, 'extreme');
    const mergeInto = scope.bind(multisetMerge, 'multisetMerge');
    return {
      slots: 1,
      init: ([set]) => `${set} = [];`,
      accumulate: ([set], [v]) => `${add}(${set}, ${v});`,
      retract: ([set], [v]) => `${remove}(${set}, ${v});`,
      merge: ([set], [other]) => `${mergeInto}(${set}, ${other});`,
      result: ([set]) => `${extreme}(${set})`,
    };
  }
  const floating = argTypes[0]!.kind === 'DOUBLE' || argTypes[0]!.kind === 'FLOAT';
  const order = floating || isBinaryType(argTypes[0]!) ? scope.bind(precedesInOrder, 'precedes') : null;
  const precedes = (a: string, b: string) => (order === null ? `${a} < ${b}` : `${order}(${a}, ${b})`);
  const better = (v: string, x: string) => (direction === 'MIN' ? precedes(v, x) : precedes(x, v));
  const refuse = scope.bind(() => notRetractable(direction), 'notRetractable');
  return {
    slots: 1,
    init: ([x]) => `${x} = null;`,
    accumulate: ([x], [v]) => `if (${x} === null || ${better(v!, x!)}) ${x} = ${v};`,
    retract: () => `throw ${refuse}();`,
    merge: ([x], [y]) => `if (${y} !== null && (${x} === null || ${better(y!, x!)})) ${x} = ${y};`,
    result: ([x]) => x!,
  };
}

function isOrdered(type: SqlType): boolean {
  switch (type.kind) {
    case 'BOOLEAN':
    case 'DATE':
    case 'TIME':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return true;
    default:
      return isNumericType(type) || isStringType(type) || isBinaryType(type) || isTimestampType(type);
  }
}

function notRetractable(direction: Direction): WeirError {
  return new WeirError('INTERNAL_ERROR', `${direction} received a retraction, but its input was planned as insert-only`);
}
