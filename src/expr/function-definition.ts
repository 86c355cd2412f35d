/**
 * The contracts of scalar and aggregate functions: how the binder resolves a call's types and how
 * the expression compiler turns a scalar call into JavaScript. Built-ins and user-defined
 * functions implement the same contracts.
 */
import type { SqlType } from '../common/sql-type.js';
import type { AggregateCodegen, AggregateContext } from './aggregates/aggregate-codegen.js';
import type { CallExpr } from './scalar-expr.js';

/** The outcome of resolving a call: the types to cast the arguments to, and the result type. */
export interface ResolvedSignature {
  readonly args: readonly SqlType[];
  readonly returns: SqlType;
}

/** What code generation gets for each argument. */
export interface ArgCode {
  /** A JS expression (usually a local variable) holding the argument's value. Never NULL for strict functions. */
  readonly code: string;
  readonly type: SqlType;
  /** Present when the argument is a constant, so that generators can precompute (regexes, patterns). */
  readonly constant?: { readonly value: unknown };
}

/**
 * The value of an argument that is a literal, when the caller knows it (`{ value: null }` for a
 * NULL literal); functions whose result type depends on a constant (ROUND's digits) read it.
 */
export interface LiteralArg {
  readonly value: unknown;
}

/** Services the expression compiler offers to code generators. */
export interface CodegenContext {
  /** Puts a value into the generated function's closure and returns the identifier that refers to it. */
  constant(value: unknown, hint?: string): string;
  /** The identifier of a helper from the runtime library (see expr/runtime-lib.ts), e.g. `lib('like')`. */
  lib(name: string): string;
  /** The resolved zone TIMESTAMP_LTZ values are computed in (`table.local-time-zone`): a constant of the compilation. */
  readonly timeZone: string;
  /**
   * A JS expression for the current watermark of the operator evaluating the expression, in epoch
   * milliseconds, `null` before its first watermark (CURRENT_WATERMARK). Only a Calc (projection
   * and filter) has one; elsewhere this throws an UNSUPPORTED WeirError.
   */
  currentWatermark(): string;
}

/** A scalar function or operator. */
export interface ScalarFunctionDefinition {
  readonly kind: 'scalar';
  /** Canonical upper-case name (operators use their symbol: `+`, `=`, `IS NULL`). */
  readonly name: string;
  /** One line for SHOW FUNCTIONS: signature and what it does. */
  readonly description: string;
  /** False for functions such as RAND() or NOW() whose result may differ between calls. */
  readonly deterministic: boolean;
  /**
   * `strict`: the result is NULL when any argument is NULL; the compiler emits those checks and
   * `generate` only sees non-NULL arguments. `custom`: `generate` handles NULLs itself
   * (three-valued AND/OR, COALESCE, IS NULL, CONCAT_WS, ...).
   */
  readonly nulls: 'strict' | 'custom';
  /**
   * Checks argument types and returns the signature to use; throws a WeirError (TYPE_MISMATCH)
   * naming the function otherwise. `literals[i]` is given for arguments that are literals, when
   * known (optional: without it, types that depend on a constant fall back to a general rule).
   */
  resolve(argTypes: readonly SqlType[], literals?: readonly (LiteralArg | undefined)[]): ResolvedSignature;
  /**
   * True when the result can be NULL although its type says NOT NULL, as Flink's DECIMAL arithmetic
   * gives NULL on overflow under a NOT NULL type: generated code then checks it. Absent means never.
   */
  yieldsNull?(argTypes: readonly SqlType[]): boolean;
  /** A JS expression computing the result from the arguments. May throw a WeirError at run time (overflow, bad input). */
  generate(ctx: CodegenContext, args: readonly ArgCode[], call: CallExpr): string;
  /**
   * Optional statement-level generation for functions that evaluate their arguments lazily or
   * conditionally (AND, OR, COALESCE, IF). When present the compiler uses it instead of
   * `generate`: nothing of an argument is computed until its `evaluate()` is called, so an
   * argument on a path not taken cannot fail. Returns a JS expression for the result (usually a
   * local declared by the generator).
   */
  generateStatements?(ctx: StatementContext, args: readonly LazyArg[], call: CallExpr): string;
}

/** What statement-level code generation gets in addition to {@link CodegenContext}. */
export interface StatementContext extends CodegenContext {
  /** A fresh local variable name; the generator declares it (`let t4 = ...;`). */
  local(): string;
  /** Appends a statement at the current position. */
  emit(statement: string): void;
  /** Emits `head {`, the statements `body` emits, and `}`; `head` is e.g. `if (t3 === null)` or `else`. */
  block(head: string, body: () => void): void;
}

/** An argument that is computed only when asked. */
export interface LazyArg {
  readonly type: SqlType;
  readonly constant?: { readonly value: unknown };
  /**
   * Emits the statements computing the argument at the current position and returns a cheap JS
   * expression (a local or a literal) for its value, which may be NULL. Call it at most once on
   * any path through the generated code.
   */
  evaluate(): string;
}

/**
 * An aggregate function: how the binder types a call, and the generator of its accumulator, which
 * the runtime's aggregate operators splice into their code. One definition serves both, so every
 * aggregate that binds also runs.
 */
export interface AggregateFunctionDefinition {
  readonly kind: 'aggregate';
  readonly name: string;
  readonly description: string;
  /**
   * Resolves argument and result types (COUNT(*) has no arguments); `literals[i]` is given for
   * arguments that are literals, so that a constant argument out of its range is refused when the
   * query is planned.
   */
  resolve(argTypes: readonly SqlType[], literals?: readonly (LiteralArg | undefined)[]): ResolvedSignature;
  /** The accumulator for a call with the types `resolve` gave; throws a WeirError for types it cannot handle. */
  accumulator(context: AggregateContext): AggregateCodegen;
}

/** Any function the registry knows. */
export type FunctionDefinition = ScalarFunctionDefinition | AggregateFunctionDefinition;
