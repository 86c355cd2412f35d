/**
 * The contract between the group-aggregate code generator and the aggregate families. As Flink
 * generates an AggsHandleFunction, each aggregate contributes JavaScript source for its part of
 * the per-key accumulator, and the generator splices all parts into one function per operator, so
 * that the per-row path has no per-aggregate calls or closures.
 *
 * An accumulator part is a run of slots in the key's state array: plain data only (numbers,
 * bigints, strings, booleans, null, arrays, Maps), because state is snapshotted with
 * v8.serialize.
 */
import { WeirError } from '../../common/errors.js';
import { formatType } from '../../common/sql-type.js';
import type { AggregateCallSpec } from '../../dataflow/job-graph.js';

/** Source snippets for one aggregate over non-NULL input values. */
export interface AggregateCodegen {
  /** How many accumulator slots it uses. */
  readonly slots: number;
  /** Statements that reset its slots to the empty accumulator. */
  init(slots: readonly string[]): string;
  /** Statements that add the value held by the JS expression `value` (never null). */
  accumulate(slots: readonly string[], value: string): string;
  /** Statements that remove a value previously added. */
  retract(slots: readonly string[], value: string): string;
  /**
   * Statements that add everything the accumulator in `from` (same layout, initialised, left
   * unchanged) holds to the one in `slots`, as if its values had been accumulated there; windows
   * that merge (sessions) merge their accumulators this way.
   */
  merge(slots: readonly string[], from: readonly string[]): string;
  /** An expression for the current result (SQL NULL as `null`). */
  result(slots: readonly string[]): string;
}

/**
 * Runtime values that generated source refers to, bound to identifiers. Identifiers are unique
 * within the scope, so that several aggregates can bind helpers without clashing.
 */
export class SourceScope {
  private readonly names: string[] = [];
  private readonly values: unknown[] = [];
  private locals = 0;

  /** An identifier that denotes `value` in the generated source (the same one for the same value). */
  bind(value: unknown, hint: string): string {
    const existing = this.values.indexOf(value);
    if (existing >= 0) return this.names[existing]!;
    const name = `${hint.replace(/[^A-Za-z0-9_]/g, '_')}$${this.names.length}`;
    this.names.push(name);
    this.values.push(value);
    return name;
  }

  /** A fresh identifier for a local variable of generated code. */
  local(hint: string): string {
    return `${hint}_${this.locals++}`;
  }

  /**
   * Evaluates `body` (a function body) with the bound identifiers, plus `extra`, as its
   * parameters, and returns what it returns.
   */
  instantiate<T>(body: string, extra: Readonly<Record<string, unknown>> = {}): T {
    const names = [...this.names, ...Object.keys(extra)];
    const values = [...this.values, ...Object.values(extra)];
    return new Function(...names, body)(...values) as T;
  }
}

/** What an aggregate family is given to generate its part. */
export interface AggregateContext {
  readonly call: AggregateCallSpec;
  readonly scope: SourceScope;
  /** Whether values may be retracted; when false, cheaper accumulators that cannot retract are allowed. */
  readonly retractable: boolean;
}

/** Generates one aggregate function's part; throws a WeirError for argument types it does not support. */
export type AggregateFactory = (context: AggregateContext) => AggregateCodegen;

/** The error for an aggregate call whose types a family cannot handle. */
export function unsupportedAggregate(call: AggregateCallSpec): WeirError {
  const args = call.argTypes.map(formatType).join(', ');
  return new WeirError('UNSUPPORTED', `${call.function}(${args}) returning ${formatType(call.type)} is not supported`);
}
