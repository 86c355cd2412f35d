/**
 * Builders of group-aggregate specs for tests, typing results as the binder does: by the
 * registry's definition of the function (COUNT is BIGINT NOT NULL, SUM and AVG keep an integer or
 * floating argument's type, SUM(DECIMAL(p, s)) is DECIMAL(38, s), ...).
 */
import type { SqlType } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec, GroupAggregateSpec } from '../../../src/dataflow/job-graph.js';
import { builtinAggregate } from '../../../src/expr/function-registry.js';

/** `fn(args)` over columns of the given types, optionally DISTINCT and/or FILTERed by a BOOLEAN column. */
export function aggCall(
  fn: string,
  args: readonly (readonly [column: number, type: SqlType])[],
  options: { readonly distinct?: boolean; readonly filter?: number } = {},
): AggregateCallSpec {
  const argTypes = args.map(([, type]) => type);
  return {
    function: fn,
    args: args.map(([column]) => column),
    distinct: options.distinct ?? false,
    filter: options.filter ?? null,
    type: resultType(fn, argTypes),
    argTypes,
  };
}

/** A group-aggregate spec; by default over a retracting input and emitting -U. */
export function groupSpec(
  keys: readonly number[],
  aggregates: readonly AggregateCallSpec[],
  options: { readonly inputRetracts?: boolean; readonly emitUpdateBefore?: boolean } = {},
): GroupAggregateSpec {
  return {
    kind: 'group-aggregate',
    keys,
    aggregates,
    inputRetracts: options.inputRetracts ?? true,
    emitUpdateBefore: options.emitUpdateBefore ?? true,
  };
}

function resultType(fn: string, argTypes: readonly SqlType[]): SqlType {
  const definition = builtinAggregate(fn);
  if (definition === undefined) throw new Error(`no aggregate function ${fn}`);
  return definition.resolve(argTypes).returns;
}
