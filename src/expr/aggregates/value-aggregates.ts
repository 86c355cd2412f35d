/**
 * Aggregates over the values of a group in arrival order: FIRST_VALUE, LAST_VALUE, LISTAGG and
 * ARRAY_AGG (and, through {@link listAggregate}, JSON_ARRAYAGG). Over an insert-only input the
 * accumulator is the answer so far (the first value, the joined text, the array); over a
 * retracting input it is an {@link OrderedBag}, so that retracting a value removes its earliest
 * remaining occurrence, as Flink's retracting versions do, in O(log n).
 */
import { refuseRetraction, type AggregateCodegen, type AggregateContext, type AggregateFactory } from './aggregate-codegen.js';
import { bagAdd, bagCreate, bagFirst, bagLast, bagMerge, bagRemove, bagSize, bagValues } from './ordered-bag.js';

/** FIRST_VALUE(x[, ignoreNulls]): the earliest value present, NULL included unless `ignoreNulls` is TRUE. */
export const firstValueAggregate: AggregateFactory = (context) => endValue(context, 'first');

/** LAST_VALUE(x[, ignoreNulls]): the latest value present, NULL included unless `ignoreNulls` is TRUE. */
export const lastValueAggregate: AggregateFactory = (context) => endValue(context, 'last');

/**
 * FIRST_VALUE and LAST_VALUE as Flink's current ones (FirstLastValueAggregationFunctionITCase): a NULL value counts as a value, unless the
 * optional second argument is TRUE, when rows whose value is NULL are skipped (the behaviour of
 * Flink's earlier versions, its LegacyFirstValueAggFunction).
 */
function endValue({ scope, retractable, argTypes }: AggregateContext, end: 'first' | 'last'): AggregateCodegen {
  const skipped = (args: readonly string[]): string => (argTypes.length > 1 ? `(${args[1]} === true && ${args[0]} === null)` : 'false');
  if (retractable) {
    const bag = bagAggregate(scope, (b) => `${scope.bind(end === 'first' ? bagFirst : bagLast, `bag_${end}`)}(${b})`, true);
    return {
      ...bag,
      accumulate: (slots, args) => `if (!${skipped(args)}) { ${bag.accumulate(slots, args)} }`,
      retract: (slots, args) => `if (!${skipped(args)}) { ${bag.retract(slots, args)} }`,
    };
  }
  return {
    slots: 2,
    acceptsNulls: true,
    init: ([x, seen]) => `${x} = null; ${seen} = false;`,
    accumulate: ([x, seen], args) => `if (!${skipped(args)}${end === 'first' ? ` && !${seen}` : ''}) { ${x} = ${args[0]}; ${seen} = true; }`,
    retract: () => refuseRetraction(scope, end === 'first' ? 'FIRST_VALUE' : 'LAST_VALUE'),
    merge: ([x, seen], [y, ySeen]) => `if (${ySeen}${end === 'first' ? ` && !${seen}` : ''}) { ${x} = ${y}; ${seen} = true; }`,
    result: ([x]) => x!,
  };
}

/** An accumulator holding an {@link OrderedBag} of the first argument's values, whose result is `result` of the bag. */
function bagAggregate(scope: AggregateContext['scope'], result: (bag: string) => string, acceptsNulls = false): AggregateCodegen {
  const create = scope.bind(bagCreate, 'bagCreate');
  const add = scope.bind(bagAdd, 'bagAdd');
  const remove = scope.bind(bagRemove, 'bagRemove');
  const merge = scope.bind(bagMerge, 'bagMerge');
  return {
    slots: 1,
    ...(acceptsNulls ? { acceptsNulls } : {}),
    init: ([bag]) => `${bag} = ${create}();`,
    accumulate: ([bag], [v]) => `${add}(${bag}, ${v});`,
    retract: ([bag], [v]) => `${remove}(${bag}, ${v});`,
    merge: ([bag], [other]) => `${merge}(${bag}, ${other});`,
    result: ([bag]) => result(bag!),
  };
}

/**
 * LISTAGG(s[, separator]): the non-NULL values joined by the separator (',' by default); NULL
 * when there are none. The separator is a literal in Flink; the latest row's is kept.
 */
export const listaggAggregate: AggregateFactory = ({ scope, retractable, argTypes }) => {
  const separator = (args: readonly string[]): string => (argTypes.length > 1 ? args[1]! : '","');
  if (retractable) {
    const values = scope.bind(bagValues, 'bagValues');
    const size = scope.bind(bagSize, 'bagSize');
    const bag = bagAggregate(scope, () => '');
    return {
      slots: 2,
      init: ([b, sep]) => `${bag.init([b!])} ${sep} = ",";`,
      accumulate: ([b, sep], args) => `${bag.accumulate([b!], args)} ${sep} = ${separator(args)};`,
      retract: ([b], args) => bag.retract([b!], args),
      merge: ([b, sep], [other, otherSep]) => `${bag.merge([b!], [other!])} ${sep} = ${otherSep};`,
      result: ([b, sep]) => `(${size}(${b}) === 0 ? null : ${values}(${b}).join(${sep}))`,
    };
  }
  return {
    slots: 2,
    init: ([text, sep]) => `${text} = null; ${sep} = ",";`,
    accumulate: ([text, sep], args) => `${sep} = ${separator(args)}; ${text} = ${text} === null ? ${args[0]} : ${text} + ${sep} + ${args[0]};`,
    retract: () => refuseRetraction(scope, 'LISTAGG'),
    merge: ([text, sep], [other]) => `if (${other} !== null) ${text} = ${text} === null ? ${other} : ${text} + ${sep} + ${other};`,
    result: ([text]) => text!,
  };
};

/**
 * A list of the (converted) values in arrival order, NULL when there are none: ARRAY_AGG with
 * `convert` the identity and `finish` none, JSON_ARRAYAGG with both. `acceptsNulls` keeps NULL
 * values (ARRAY_AGG RESPECT NULLS, JSON_ARRAYAGG NULL ON NULL); `empty` is the result over no
 * values.
 */
export function listAggregate(
  { scope, retractable }: AggregateContext,
  options: { readonly acceptsNulls: boolean; readonly convert?: (value: string) => string; readonly finish?: (array: string) => string; readonly empty?: string },
): AggregateCodegen {
  const convert = options.convert ?? ((v: string) => v);
  const finish = options.finish ?? ((a: string) => a);
  const empty = options.empty ?? 'null';
  const acceptsNulls = options.acceptsNulls ? { acceptsNulls: true } : {};
  if (retractable) {
    const values = scope.bind(bagValues, 'bagValues');
    const size = scope.bind(bagSize, 'bagSize');
    const bag = bagAggregate(scope, (b) => `(${size}(${b}) === 0 ? ${empty} : ${finish(`${values}(${b})`)})`, options.acceptsNulls);
    return { ...bag, accumulate: ([b], [v]) => bag.accumulate([b!], [convert(v!)]), retract: ([b], [v]) => bag.retract([b!], [convert(v!)]) };
  }
  return {
    slots: 1,
    ...acceptsNulls,
    init: ([list]) => `${list} = [];`,
    accumulate: ([list], [v]) => `${list}.push(${convert(v!)});`,
    retract: () => refuseRetraction(scope, 'the list aggregate'),
    merge: ([list], [other]) => `for (let i = 0; i < ${other}.length; i++) ${list}.push(${other}[i]);`,
    result: ([list]) => `(${list}.length === 0 ? ${empty} : ${finish(`${list}.slice()`)})`,
  };
}

/** ARRAY_AGG(x): the values, NULLs included, as an array in arrival order; NULL over no rows. */
export const arrayAggAggregate: AggregateFactory = (context) => listAggregate(context, { acceptsNulls: true });

/** ARRAY_AGG(x IGNORE NULLS): the non-NULL values as an array in arrival order. */
export const arrayAggIgnoreNullsAggregate: AggregateFactory = (context) => listAggregate(context, { acceptsNulls: false });
