/**
 * Builders of group-aggregate specs for tests, typing results as Flink's binder does: COUNT is
 * BIGINT NOT NULL, SUM and AVG keep an integer or floating argument's type, SUM(DECIMAL(p, s)) is
 * DECIMAL(38, s), AVG(DECIMAL(p, s)) is DECIMAL(38, max(6, s)), MIN and MAX keep the argument's type.
 */
import { SqlTypes, type SqlType } from '../../../src/common/sql-type.js';
import type { AggregateCallSpec, GroupAggregateSpec } from '../../../src/dataflow/job-graph.js';

/** `fn(args)` over columns of the given types, optionally DISTINCT and/or FILTERed by a BOOLEAN column. */
export function aggCall(
  fn: 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX',
  args: readonly (readonly [column: number, type: SqlType])[],
  options: { readonly distinct?: boolean; readonly filter?: number } = {},
): AggregateCallSpec {
  const argTypes = args.map(([, type]) => type);
  return {
    function: fn,
    args: args.map(([column]) => column),
    distinct: options.distinct ?? false,
    filter: options.filter ?? null,
    type: resultType(fn, argTypes[0]),
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

function resultType(fn: string, arg: SqlType | undefined): SqlType {
  if (fn === 'COUNT' || arg === undefined) return SqlTypes.bigint(false);
  if (arg.kind === 'DECIMAL' && fn === 'SUM') return SqlTypes.decimal(38, arg.scale);
  if (arg.kind === 'DECIMAL' && fn === 'AVG') return SqlTypes.decimal(38, Math.max(6, arg.scale));
  return { ...arg, nullable: true } as SqlType;
}
