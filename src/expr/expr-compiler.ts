/**
 * Compiles typed scalar expressions to JavaScript, as Flink generates Java: one function of
 * straight-line statements per operator, instantiated with `new Function`, so the per-record path
 * is monomorphic and allocates nothing beyond output rows.
 *
 * Code generation is statement-based: each sub-expression is computed into a local
 * (`const t3 = c2 === null ? null : ...;`), NULL checks are skipped for NOT NULL types, CASE and
 * lazy functions (AND, OR, COALESCE, IF) compute an operand only on the path that needs it, and
 * a deterministic sub-expression computed on a dominating path is reused rather than recomputed.
 * Constants (precompiled patterns, converters, UDFs) and runtime helpers are bound in the closure.
 * Naming is deterministic: the same expression always yields the same source.
 */
import { WeirError } from '../common/errors.js';
import { UTC_ZONE } from '../common/time-zone.js';
import type { ChangeBatch, Row } from '../common/row.js';
import { formatType, sameType, withNullable, type SqlType } from '../common/sql-type.js';
import { castConverter, castMayYieldNull, generateCast } from './cast.js';
import type { ArgCode, LazyArg, ResolvedSignature, ScalarFunctionDefinition, StatementContext } from './function-definition.js';
import type { FunctionRegistry, TableFunctionDefinition } from './function-registry.js';
import { runtimeLib } from './runtime-lib.js';
import type { CallExpr, CaseWhenExpr, ScalarExpr } from './scalar-expr.js';

/** The source of a generated function and the values bound into its closure. */
export interface GeneratedSource {
  /** The body of a factory taking `$lib` and `$constants` and returning the compiled function. */
  readonly source: string;
  readonly constants: readonly unknown[];
}

/** A computed value: a cheap JS expression (a local or a literal) and what is known about it. */
interface Value {
  readonly code: string;
  readonly type: SqlType;
  /** True when the value cannot be NULL, so no check is emitted. */
  readonly nonNull: boolean;
  readonly constant?: { readonly value: unknown };
}

const nullValue = (type: SqlType): Value => ({ code: 'null', type, nonNull: false, constant: { value: null } });

/** Accumulates the statements of one generated function and the closure it needs. */
class SourceBuilder implements StatementContext {
  /** @param watermark the parameter of the generated function holding the operator's current watermark, when it has one */
  constructor(
    readonly timeZone: string,
    private readonly watermark?: string,
  ) {}

  private readonly lines: string[] = [];
  private depth = 1;
  private locals = 0;
  private readonly constantValues: unknown[] = [];
  private readonly constantNames: string[] = [];
  private readonly helpers: string[] = [];
  private readonly scopes: Map<string, Value>[] = [new Map()];

  constant(value: unknown, hint?: string): string {
    const existing = this.constantValues.indexOf(value);
    if (existing >= 0) return this.constantNames[existing]!;
    const suffix = hint === undefined ? '' : `_${hint.replace(/[^A-Za-z0-9_]/g, '_')}`;
    const name = `k${this.constantValues.length}${suffix}`;
    this.constantValues.push(value);
    this.constantNames.push(name);
    return name;
  }

  lib(name: string): string {
    if (typeof runtimeLib[name] !== 'function') throw new WeirError('INTERNAL_ERROR', `unknown runtime helper '${name}'`);
    if (!this.helpers.includes(name)) this.helpers.push(name);
    return `$${name}`;
  }

  local(): string {
    return `t${this.locals++}`;
  }

  currentWatermark(): string {
    if (this.watermark === undefined) throw new WeirError('UNSUPPORTED', 'CURRENT_WATERMARK can only be computed in a projection or a filter (the SELECT list or WHERE), not in a join condition or an operator\'s arguments');
    // -Infinity before the first watermark; +Infinity (the end of input) is followed by no row.
    return `(Number.isFinite(${this.watermark}) ? ${this.watermark} : null)`;
  }

  emit(statement: string): void {
    this.lines.push('  '.repeat(this.depth) + statement);
  }

  block(head: string, body: () => void): void {
    const previous = this.lines[this.lines.length - 1];
    if ((head === 'else' || head.startsWith('else ')) && previous === `${'  '.repeat(this.depth)}}`) {
      this.lines[this.lines.length - 1] = `${previous} ${head} {`;
    } else {
      this.emit(`${head} {`);
    }
    this.depth++;
    this.scopes.push(new Map());
    try {
      body();
    } finally {
      this.scopes.pop();
      this.depth--;
    }
    this.emit('}');
  }

  /** A value computed earlier on every path to the current position. */
  recall(key: string): Value | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const value = this.scopes[i]!.get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  remember(key: string, value: Value): void {
    this.scopes[this.scopes.length - 1]!.set(key, value);
  }

  build(name: string, params: string): GeneratedSource {
    const header = this.constantValues.map((value, i) => `const ${this.constantNames[i]} = $constants[${i}];${describeConstant(value)}`);
    for (const helper of this.helpers) header.push(`const $${helper} = $lib.${helper};`);
    const source = ['"use strict";', ...header, `return function ${name}(${params}) {`, ...this.lines, '};'].join('\n');
    return { source, constants: this.constantValues };
  }
}

function describeConstant(value: unknown): string {
  if (value instanceof RegExp) return ` // ${String(value)}`;
  if (value instanceof Set) return ` // Set of ${value.size}`;
  if (typeof value === 'function' && value.name !== '') return ` // ${value.name}`;
  return '';
}

/** A JS literal for a primitive value, or undefined when it must be bound as a constant. */
function literalCode(value: unknown): string | undefined {
  switch (typeof value) {
    case 'boolean':
      return String(value);
    case 'number':
      if (Object.is(value, -0)) return '(-0)';
      return value < 0 ? `(${value})` : String(value);
    case 'bigint':
      return value < 0n ? `(${value}n)` : `${value}n`;
    case 'string':
      return JSON.stringify(value);
    default:
      return undefined;
  }
}

/** A stable key of a literal value for reuse of sub-expressions; undefined for values that are not primitives. */
function literalKey(value: unknown): string | undefined {
  if (value === null) return 'null';
  return literalCode(value);
}

/** Generates the code of expressions into a {@link SourceBuilder}. */
class ExprCodegen {
  private readonly keys = new WeakMap<ScalarExpr, string | null>();

  constructor(
    private readonly registry: FunctionRegistry,
    private readonly out: SourceBuilder,
    private readonly input: (index: number) => string,
  ) {}

  generate(expr: ScalarExpr): Value {
    if (expr.kind === 'literal') return this.literal(expr.value, expr.type);
    const key = this.key(expr);
    if (key !== null) {
      const known = this.out.recall(key);
      if (known !== undefined) return known;
    }
    const value = this.compute(expr);
    if (key !== null) this.out.remember(key, value);
    return value;
  }

  private compute(expr: Exclude<ScalarExpr, { kind: 'literal' }>): Value {
    switch (expr.kind) {
      case 'input-ref': {
        const name = `c${expr.index}`;
        this.out.emit(`const ${name} = ${this.input(expr.index)};`);
        return { code: name, type: expr.type, nonNull: !expr.type.nullable };
      }
      case 'field': {
        const row = this.generate(expr.expr);
        const local = this.out.local();
        this.out.emit(`const ${local} = ${row.nonNull ? '' : `${row.code} === null ? null : `}${row.code}[${expr.index}];`);
        return { code: local, type: expr.type, nonNull: !expr.type.nullable && row.nonNull };
      }
      case 'cast':
        return this.cast(this.generate(expr.expr), expr.type, expr.try);
      case 'case':
        return this.caseWhen(expr);
      case 'call':
        return this.call(expr);
    }
  }

  private literal(value: unknown, type: SqlType): Value {
    if (value === null || value === undefined) return nullValue(type);
    const code = literalCode(value) ?? this.out.constant(value, 'literal');
    return { code, type, nonNull: true, constant: { value } };
  }

  /** Converts a value to `to`: no code when the representation is the same, folded when the value is a constant. */
  private cast(value: Value, to: SqlType, tryCast: boolean): Value {
    if (value.type.kind === 'NULL' || value.constant?.value === null) return nullValue(to);
    if (value.constant !== undefined) {
      const folded = foldCast(value.constant.value, value.type, to, this.out.timeZone);
      if (folded !== undefined) return this.literal(folded.value, to);
    }
    const converted = generateCast(this.out, value.code, value.type, to, tryCast);
    if (converted === value.code) return { ...value, type: to };
    const local = this.out.local();
    this.out.emit(`const ${local} = ${value.nonNull ? '' : `${value.code} === null ? null : `}${converted};`);
    return { code: local, type: to, nonNull: value.nonNull && !tryCast && !castMayYieldNull(value.type, to) };
  }

  /** The value converted to `target` (keeping its nullability) when a signature asks for another type. */
  private coerce(value: Value, target: SqlType): Value {
    if (sameType(value.type, target, { ignoreNullability: true })) return value;
    return this.cast(value, withNullable(target, value.type.nullable), false);
  }

  private caseWhen(expr: CaseWhenExpr): Value {
    const result = this.out.local();
    this.out.emit(`let ${result};`);
    let nonNull = true;
    const assign = (branch: ScalarExpr): void => {
      const value = this.coerce(this.generate(branch), expr.type);
      nonNull &&= value.nonNull;
      this.out.emit(`${result} = ${value.code};`);
    };
    const from = (i: number): void => {
      if (i === expr.whens.length) return assign(expr.else);
      const { when, then } = expr.whens[i]!;
      const test = this.generate(when);
      if (test.constant !== undefined) return test.constant.value === true ? assign(then) : from(i + 1);
      this.out.block(`if (${truthTest(test)})`, () => assign(then));
      this.out.block('else', () => from(i + 1));
    };
    from(0);
    return { code: result, type: expr.type, nonNull };
  }

  private call(expr: CallExpr): Value {
    const definition = this.scalarDefinition(expr.name);
    const literals = expr.args.map((arg) => (arg.kind === 'literal' ? { value: arg.value } : undefined));
    const signature: ResolvedSignature = definition.resolve(
      expr.args.map((arg) => arg.type),
      literals,
    );
    const call: CallExpr = sameType(signature.returns, expr.type, { ignoreNullability: true }) ? expr : { ...expr, type: signature.returns };
    const target = (i: number): SqlType => signature.args[i] ?? expr.args[i]!.type;
    let result: Value;
    if (definition.generateStatements !== undefined) {
      const lazy = expr.args.map(
        (arg, i): LazyArg => ({
          type: withNullable(target(i), arg.type.nullable),
          ...(arg.kind === 'literal' ? { constant: { value: arg.value } } : {}),
          evaluate: () => this.coerce(this.generate(arg), target(i)).code,
        }),
      );
      const code = definition.generateStatements(this.out, lazy, call);
      result = { code, type: call.type, nonNull: !call.type.nullable };
    } else {
      const args = expr.args.map((arg, i) => this.coerce(this.generate(arg), target(i)));
      const strict = definition.nulls === 'strict';
      if (strict && args.some((a) => a.constant?.value === null)) return nullValue(expr.type);
      const code = definition.generate(this.out, args.map(argCode), call);
      const guards = strict ? args.filter((a) => !a.nonNull).map((a) => `${a.code} === null`) : [];
      const local = this.out.local();
      this.out.emit(`const ${local} = ${guards.length > 0 ? `${guards.join(' || ')} ? null : ` : ''}${code};`);
      const yieldsNull = definition.yieldsNull?.(args.map((a) => a.type)) === true;
      result = { code: local, type: call.type, nonNull: !call.type.nullable && !yieldsNull };
    }
    return call === expr ? result : this.cast(result, expr.type, false);
  }

  private scalarDefinition(name: string): ScalarFunctionDefinition {
    const definition = this.registry.lookup(name);
    if (definition === undefined) throw new WeirError('UNKNOWN_FUNCTION', `function '${name}' does not exist`);
    if (definition.kind !== 'scalar') throw new WeirError('INVALID_ARGUMENT', `aggregate function ${definition.name} cannot be used as a scalar expression`);
    return definition;
  }

  /** A key identifying what the expression computes, or null when it must not be reused (non-deterministic, or holding a non-primitive literal). */
  private key(expr: ScalarExpr): string | null {
    const known = this.keys.get(expr);
    if (known !== undefined) return known;
    const key = this.computeKey(expr);
    this.keys.set(expr, key);
    return key;
  }

  private computeKey(expr: ScalarExpr): string | null {
    const keys = (exprs: readonly ScalarExpr[]): string | null => {
      const parts = exprs.map((e) => this.key(e));
      return parts.includes(null) ? null : parts.join(', ');
    };
    switch (expr.kind) {
      case 'input-ref':
        return `$${expr.index}`;
      case 'literal': {
        const value = literalKey(expr.value);
        return value === undefined ? null : `${value}::${formatType(expr.type)}`;
      }
      case 'field': {
        const inner = this.key(expr.expr);
        return inner === null ? null : `(${inner}).${expr.index}`;
      }
      case 'cast': {
        const inner = this.key(expr.expr);
        return inner === null ? null : `${expr.try ? 'TRY_CAST' : 'CAST'}(${inner} AS ${formatType(expr.type)})`;
      }
      case 'call': {
        if (this.registry.lookup(expr.name)?.kind === 'scalar' && !(this.registry.lookup(expr.name) as ScalarFunctionDefinition).deterministic) return null;
        const args = keys(expr.args);
        return args === null ? null : `${expr.name.toUpperCase()}(${args})::${formatType(expr.type)}`;
      }
      case 'case': {
        const parts = keys([...expr.whens.flatMap((w) => [w.when, w.then]), expr.else]);
        return parts === null ? null : `CASE(${parts})::${formatType(expr.type)}`;
      }
    }
  }
}

function argCode(value: Value): ArgCode {
  return value.constant === undefined ? { code: value.code, type: value.type } : { code: value.code, type: value.type, constant: value.constant };
}

/** The test of a BOOLEAN value being TRUE. */
function truthTest(value: Value): string {
  return value.nonNull ? value.code : `${value.code} === true`;
}

/** A constant converted at compile time; undefined when the conversion fails (it then fails at run time, if ever reached). */
function foldCast(value: unknown, from: SqlType, to: SqlType, timeZone: string): { value: unknown } | undefined {
  try {
    const converter = castConverter(from, to, timeZone);
    return { value: converter === undefined ? value : converter(value) };
  } catch (error) {
    if (error instanceof WeirError && error.code !== 'TYPE_MISMATCH') return undefined;
    throw error;
  }
}

function instantiate<T>(generated: GeneratedSource): T {
  let factory: (lib: unknown, constants: readonly unknown[]) => T;
  try {
    factory = new Function('$lib', '$constants', generated.source) as typeof factory;
  } catch (error) {
    throw new WeirError('INTERNAL_ERROR', `generated code does not compile: ${(error as Error).message}\n${generated.source}`, { cause: error });
  }
  return factory(runtimeLib, generated.constants);
}

/**
 * Turns expressions into JS functions. Compile-time problems (unknown function, argument types
 * no signature accepts, a CAST that is not allowed) throw WeirErrors; at run time the functions
 * throw WeirErrors with code ARITHMETIC_OVERFLOW or EXECUTION_ERROR naming the operation and the
 * offending value. Each call compiles a fresh function, to be instantiated once per operator.
 */
export class ExprCompiler {
  /** The zone TIMESTAMP_LTZ values are computed in (`table.local-time-zone`, resolved); UTC unless given. */
  readonly timeZone: string;

  constructor(
    private readonly registry: FunctionRegistry,
    options: { readonly timeZone?: string } = {},
  ) {
    this.timeZone = options.timeZone ?? UTC_ZONE;
  }

  /** A compiler of the same functions computing in `timeZone` (a job graph's zone). */
  withTimeZone(timeZone: string): ExprCompiler {
    return timeZone === this.timeZone ? this : new ExprCompiler(this.registry, { timeZone });
  }

  /** The table function registered as `name` (a Correlate calls it); throws when there is none. */
  tableFunction(name: string): TableFunctionDefinition {
    const definition = this.registry.lookupTable(name);
    if (definition === undefined) throw new WeirError('EXECUTION_ERROR', `table function ${name} is not registered in this session (was it dropped?)`);
    return definition;
  }

  /** The value of `expr` for a row (NULL as `null`). */
  scalar(expr: ScalarExpr): (row: Row) => unknown {
    return instantiate(this.scalarSource(expr));
  }

  /** True exactly when `expr` is TRUE for the row (NULL and FALSE give false). */
  predicate(expr: ScalarExpr): (row: Row) => boolean {
    return instantiate(this.predicateSource(expr));
  }

  /** A fresh output row of the expressions' values for each call. */
  projection(exprs: readonly ScalarExpr[]): (row: Row) => Row {
    return instantiate(this.projectionSource(exprs));
  }

  /**
   * The loop of a stateless operator: replaces the records of `output` with, for every record of
   * `input` whose condition is TRUE (every record when `condition` is null), the same kind with
   * the projected row (the input row itself when `projection` is null). `output`'s arrays are
   * overwritten in place, so that their capacity carries over from batch to batch (emptying them
   * first would make every batch grow them again).
   */
  calc(condition: ScalarExpr | null, projection: readonly ScalarExpr[] | null): (input: ChangeBatch, output: ChangeBatch, watermark?: number) => void {
    return instantiate(this.calcSource(condition, projection));
  }

  /** The largest number `expr` gives over `rows` (NULL and non-numbers ignored), -Infinity when none: a watermark's advance over a batch. */
  maxOf(expr: ScalarExpr): (rows: readonly Row[]) => number {
    return instantiate(this.maxOfSource(expr));
  }

  /**
   * A watermark assigner fused with a Calc, in one pass over the batch: the loop of {@link calc},
   * returning what {@link maxOf} gives for `watermark` over every input record (those the
   * condition drops included). Sub-expressions both compute are computed once per record.
   */
  calcMaxOf(condition: ScalarExpr | null, projection: readonly ScalarExpr[] | null, watermark: ScalarExpr): (input: ChangeBatch, output: ChangeBatch, current?: number) => number {
    return instantiate(this.calcSource(condition, projection, watermark));
  }

  /** A predicate over a pair of rows: input references below `leftArity` read `left`, the others `right` (join conditions). */
  joinPredicate(expr: ScalarExpr, leftArity: number): (left: Row, right: Row) => boolean {
    return instantiate(this.joinPredicateSource(expr, leftArity));
  }

  /** A projection over a pair of rows, input references split as in {@link joinPredicate}. */
  joinProjection(exprs: readonly ScalarExpr[], leftArity: number): (left: Row, right: Row) => Row {
    return instantiate(this.joinProjectionSource(exprs, leftArity));
  }

  /** The generated source of {@link scalar}. */
  scalarSource(expr: ScalarExpr): GeneratedSource {
    return this.single('scalar', 'row', rowInput, (gen, out) => out.emit(`return ${gen.generate(expr).code};`));
  }

  /** The generated source of {@link predicate}. */
  predicateSource(expr: ScalarExpr): GeneratedSource {
    return this.single('predicate', 'row', rowInput, (gen, out) => out.emit(`return ${truthTest(gen.generate(expr))};`));
  }

  /** The generated source of {@link projection}. */
  projectionSource(exprs: readonly ScalarExpr[]): GeneratedSource {
    return this.single('projection', 'row', rowInput, (gen, out) => out.emit(`return [${exprs.map((e) => gen.generate(e).code).join(', ')}];`));
  }

  /** The generated source of {@link maxOf}. */
  maxOfSource(expr: ScalarExpr): GeneratedSource {
    const out = new SourceBuilder(this.timeZone);
    const gen = new ExprCodegen(this.registry, out, rowInput);
    out.emit('let max = -Infinity;');
    out.block('for (let i = 0, n = rows.length; i < n; i++)', () => {
      out.emit('const row = rows[i];');
      emitMax(gen, out, expr);
    });
    out.emit('return max;');
    return out.build('maxOf', 'rows');
  }

  /** The generated source of {@link joinPredicate}. */
  joinPredicateSource(expr: ScalarExpr, leftArity: number): GeneratedSource {
    return this.single('joinPredicate', 'left, right', pairInput(leftArity), (gen, out) => out.emit(`return ${truthTest(gen.generate(expr))};`));
  }

  /** The generated source of {@link joinProjection}. */
  joinProjectionSource(exprs: readonly ScalarExpr[], leftArity: number): GeneratedSource {
    return this.single('joinProjection', 'left, right', pairInput(leftArity), (gen, out) => out.emit(`return [${exprs.map((e) => gen.generate(e).code).join(', ')}];`));
  }

  /**
   * The generated source of {@link calc}, or with `watermark` of {@link calcMaxOf}. Its third
   * parameter is the operator's current watermark (what CURRENT_WATERMARK gives; none before the
   * first watermark, or when it is not passed).
   */
  calcSource(condition: ScalarExpr | null, projection: readonly ScalarExpr[] | null, watermark: ScalarExpr | null = null): GeneratedSource {
    const out = new SourceBuilder(this.timeZone, 'currentWatermark');
    const gen = new ExprCodegen(this.registry, out, rowInput);
    out.emit('const kinds = input.kinds;');
    out.emit('const rows = input.rows;');
    out.emit('const outKinds = output.kinds;');
    out.emit('const outRows = output.rows;');
    out.emit('let size = 0;');
    if (watermark !== null) out.emit('let max = -Infinity;');
    out.block('for (let i = 0, n = rows.length; i < n; i++)', () => {
      out.emit('const row = rows[i];');
      if (watermark !== null) emitMax(gen, out, watermark);
      const emitRecord = (): void => {
        const row = projection === null ? 'row' : `[${projection.map((e) => gen.generate(e).code).join(', ')}]`;
        out.emit('outKinds[size] = kinds[i];');
        out.emit(`outRows[size++] = ${row};`);
      };
      if (condition === null) return emitRecord();
      const test = gen.generate(condition);
      if (test.constant !== undefined) {
        if (test.constant.value === true) emitRecord();
        return;
      }
      out.block(`if (${truthTest(test)})`, emitRecord);
    });
    out.emit('outKinds.length = size;');
    out.emit('outRows.length = size;');
    if (watermark !== null) out.emit('return max;');
    return out.build(watermark === null ? 'calc' : 'calcMaxOf', 'input, output, currentWatermark');
  }

  private single(name: string, params: string, input: (index: number) => string, body: (gen: ExprCodegen, out: SourceBuilder) => void): GeneratedSource {
    const out = new SourceBuilder(this.timeZone);
    body(new ExprCodegen(this.registry, out, input), out);
    return out.build(name, params);
  }
}

const rowInput = (index: number): string => `row[${index}]`;

/** Raises `max` to the value of `expr` for `row` when that is a larger number. */
function emitMax(gen: ExprCodegen, out: SourceBuilder, expr: ScalarExpr): void {
  out.emit(`const value = ${gen.generate(expr).code};`);
  out.emit("if (typeof value === 'number' && value > max) max = value;");
}

const pairInput =
  (leftArity: number) =>
  (index: number): string =>
    index < leftArity ? `left[${index}]` : `right[${index - leftArity}]`;
