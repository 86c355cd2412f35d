/**
 * The contract between aggregate functions and the runtime's aggregate code generators. As Flink
 * generates an AggsHandleFunction, each aggregate contributes JavaScript source for its part of an
 * accumulator, and the runtime splices all parts into one function per operator, so that the
 * per-row path has no per-aggregate calls or closures. Every aggregate function definition in the
 * registry carries its generator (see AggregateFunctionDefinition.accumulator), so a function that
 * binds is a function that runs.
 *
 * An accumulator part is a run of slots in the key's state array: plain data only (numbers,
 * bigints, strings, booleans, null, arrays, Maps), because state is snapshotted with
 * v8.serialize.
 */
import { WeirError } from '../../common/errors.js';
import { formatType, type SqlType } from '../../common/sql-type.js';

/** Source snippets for one aggregate. */
export interface AggregateCodegen {
  /** How many accumulator slots it uses. */
  readonly slots: number;
  /**
   * True when rows whose arguments are NULL still reach `accumulate`/`retract` (ARRAY_AGG,
   * JSON_ARRAYAGG ... NULL ON NULL); by default a row with a NULL argument is skipped.
   */
  readonly acceptsNulls?: boolean;
  /** Statements that reset its slots to the empty accumulator. */
  init(slots: readonly string[]): string;
  /** Statements that add one row, whose argument values are held by the JS expressions `args`. */
  accumulate(slots: readonly string[], args: readonly string[]): string;
  /** Statements that remove a row previously added (same argument values). */
  retract(slots: readonly string[], args: readonly string[]): string;
  /**
   * Statements that add everything the accumulator in `from` (same layout, initialised, left
   * unchanged) holds to the one in `slots`, as if its rows had been accumulated there; windows
   * that merge (sessions) merge their accumulators this way.
   */
  merge(slots: readonly string[], from: readonly string[]): string;
  /** An expression for the current result (SQL NULL as `null`); a fresh value, never a slot's own array or Map. */
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

/** What an aggregate function is given to generate its part. */
export interface AggregateContext {
  /** The canonical name the call was bound to (for messages). */
  readonly name: string;
  /** The argument types, as the binder resolved them. */
  readonly argTypes: readonly SqlType[];
  /** The result type, as the binder resolved it. */
  readonly type: SqlType;
  readonly scope: SourceScope;
  /** Whether rows may be retracted; when false, cheaper accumulators that cannot retract are allowed. */
  readonly retractable: boolean;
}

/** Generates one aggregate function's part; throws a WeirError for argument types it does not support. */
export type AggregateFactory = (context: AggregateContext) => AggregateCodegen;

/**
 * A statement that fails with an INTERNAL_ERROR: the `retract` of accumulators that cannot
 * retract, used only where the planner promised an insert-only input.
 */
export function refuseRetraction(scope: SourceScope, name: string): string {
  const refuse = scope.bind(() => new WeirError('INTERNAL_ERROR', `${name} received a retraction, but its input was planned as insert-only`), `refuse_${name}`);
  return `throw ${refuse}();`;
}

/** The error for an aggregate call whose types a generator cannot handle. */
export function unsupportedAggregate(context: Pick<AggregateContext, 'name' | 'argTypes' | 'type'>): WeirError {
  const args = context.argTypes.map(formatType).join(', ');
  return new WeirError('UNSUPPORTED', `${context.name}(${args}) returning ${formatType(context.type)} is not supported`);
}
