import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { ChangeBatch } from '../../src/common/row.js';
import { formatType, SqlTypes as T, type SqlType } from '../../src/common/sql-type.js';
import { ExprCompiler } from '../../src/expr/expr-compiler.js';
import type { AggregateFunctionDefinition, ScalarFunctionDefinition } from '../../src/expr/function-definition.js';
import { FunctionRegistry } from '../../src/expr/function-registry.js';
import { functionsWithFlinkSignatureTexts } from '../../src/expr/functions/flink-signature-texts.js';
import { runtimeLib } from '../../src/expr/runtime-lib.js';
import { Exprs } from '../../src/expr/scalar-expr.js';

const countChar = (s: string, c: string): number => s.split(c).length - 1;

describe('built-ins', () => {
  const registry = FunctionRegistry.withBuiltins();

  it('looks names up case-insensitively, aliases included', () => {
    expect(registry.lookup('upper')?.name).toBe('UPPER');
    expect(registry.lookup('Character_Length')?.name).toBe('CHAR_LENGTH');
    expect(registry.lookup('%')?.name).toBe('MOD');
    expect(registry.lookup('now')?.name).toBe('CURRENT_TIMESTAMP');
    expect(registry.lookup('no_such_function')).toBeUndefined();
  });

  it('lists names for suggestions and distinct functions for SHOW FUNCTIONS', () => {
    expect(registry.names()).toEqual(expect.arrayContaining(['SUBSTR', 'SUBSTRING', 'COUNT', 'IS NOT NULL']));
    const scalars = registry.scalars().map((f) => f.name);
    expect(scalars).toContain('REGEXP_EXTRACT');
    expect(scalars).not.toContain('SUBSTR');
    expect(scalars).toEqual([...scalars].sort());
    expect(registry.aggregates().map((f) => f.name)).toEqual(expect.arrayContaining(['AVG', 'COUNT', 'FIRST_VALUE', 'LAST_VALUE', 'LISTAGG', 'MAX', 'MIN', 'SUM', 'ARRAY_AGG', 'COLLECT', 'STDDEV_POP', 'VAR_SAMP']));
    for (const f of [...registry.scalars(), ...registry.aggregates()]) expect(f.description.length).toBeGreaterThan(5);
  });

  it("words signature errors in Flink's words only for registered functions", () => {
    const scalars = new Set(registry.scalars().map((f) => f.name));
    for (const name of functionsWithFlinkSignatureTexts()) expect(scalars, name).toContain(name);
  });

  it('references only existing runtime helpers (each family compiles)', () => {
    expect(Object.keys(runtimeLib).length).toBeGreaterThan(40);
    expect(Object.values(runtimeLib).every((v) => typeof v === 'function')).toBe(true);
  });
});

describe('aggregate types (Flink)', () => {
  const registry = FunctionRegistry.withBuiltins();
  const resolve = (name: string, ...types: SqlType[]): string => formatType((registry.lookup(name) as AggregateFunctionDefinition).resolve(types).returns);

  it('types COUNT, SUM, AVG, MIN, MAX', () => {
    expect(resolve('COUNT')).toBe('BIGINT NOT NULL');
    expect(resolve('COUNT', T.string())).toBe('BIGINT NOT NULL');
    expect(resolve('SUM', T.int(false))).toBe('INT');
    expect(resolve('SUM', T.bigint(false))).toBe('BIGINT');
    expect(resolve('SUM', T.decimal(10, 2, false))).toBe('DECIMAL(38, 2)');
    expect(resolve('SUM', T.double(false))).toBe('DOUBLE');
    expect(resolve('AVG', T.int(false))).toBe('INT');
    expect(resolve('AVG', T.decimal(10, 2, false))).toBe('DECIMAL(38, 6)');
    expect(resolve('AVG', T.decimal(20, 8, false))).toBe('DECIMAL(38, 8)');
    expect(resolve('MAX', T.timestamp(3, false))).toBe('TIMESTAMP(3)');
    expect(resolve('MIN', T.string(false))).toBe('STRING');
    expect(resolve('LISTAGG', T.string(false), T.char(1, false))).toBe('STRING');
    expect(() => resolve('SUM', T.string())).toThrow('Invalid function call:\nSUM(STRING)\nInvalid input arguments. Expected signatures are:\nSUM(NUMERIC)');
    expect(() => resolve('MAX', T.array(T.int()))).toThrow(WeirError);
  });
});

describe('user-defined functions', () => {
  it('calls a JS function from generated code (Nexmark q14 count_char)', () => {
    const registry = FunctionRegistry.withBuiltins();
    registry.registerScalar('count_char', { fn: countChar, argTypes: [T.string(), T.string()], returnType: T.bigint() });
    const definition = registry.lookup('COUNT_CHAR') as ScalarFunctionDefinition;
    expect(registry.isUserDefined('Count_Char')).toBe(true);
    const args = [Exprs.inputRef(0, T.string()), Exprs.literal('c', T.char(1, false))];
    const { returns } = definition.resolve(args.map((a) => a.type));
    expect(formatType(returns)).toBe('BIGINT');
    const compiler = new ExprCompiler(registry);
    const project = compiler.projection([Exprs.call('COUNT_CHAR', args, returns)]);
    expect(project(['abcabcc'])).toEqual([3]);
    expect(project([null])).toEqual([null]);
    expect(compiler.projectionSource([Exprs.call('COUNT_CHAR', args, returns)]).source).toContain('const k0_udf_count_char = $constants[0];');
  });

  it('casts arguments implicitly to the declared types and rejects others', () => {
    const registry = FunctionRegistry.withBuiltins();
    const definition = registry.registerScalar('twice', { fn: (x: number) => x * 2, argTypes: [T.bigint()], returnType: T.bigint() });
    expect(definition.resolve([T.int(false)]).args).toEqual([T.bigint(false)]);
    expect(() => definition.resolve([T.string()])).toThrow('Invalid function call:\nTWICE(STRING)\nInvalid input arguments. Expected signatures are:\nTWICE(BIGINT)');
    const any = registry.registerScalar('first', { fn: (x: unknown) => x, returnType: T.string() });
    expect(any.resolve([T.int(), T.date()]).args).toEqual([T.int(), T.date()]);
  });

  it('reports bad results and failures as execution errors naming the function', () => {
    const registry = FunctionRegistry.withBuiltins();
    registry.registerScalar('bad', { fn: () => 'x', returnType: T.bigint() });
    registry.registerScalar('boom', { fn: () => { throw new Error('kaput'); }, returnType: T.int() });
    registry.registerScalar('nothing', { fn: () => undefined, returnType: T.int() });
    registry.registerScalar('strict_nothing', { fn: () => undefined, returnType: T.int(false) });
    const compiler = new ExprCompiler(registry);
    const run = (name: string): unknown => compiler.scalar(Exprs.call(name, [], T.int()))([]);
    expect(() => run('BAD')).toThrowError(new WeirError('EXECUTION_ERROR', "function BAD returned 'x', which is not a BIGINT value"));
    expect(() => run('BOOM')).toThrowError(new WeirError('EXECUTION_ERROR', 'function BOOM failed: kaput'));
    expect(run('NOTHING')).toBe(null);
    expect(() => run('STRICT_NOTHING')).toThrow('function STRICT_NOTHING returned NULL, but its result is declared INT NOT NULL');
  });

  it('refuses to override a built-in or an existing function, and drops only user functions', () => {
    const registry = FunctionRegistry.withBuiltins();
    expect(() => registry.registerScalar('upper', { fn: String, returnType: T.string() })).toThrowError(
      new WeirError('DUPLICATE_OBJECT', "function 'upper' already exists: UPPER is a built-in function"),
    );
    registry.registerScalar('f', { fn: String, returnType: T.string() });
    expect(() => registry.registerScalar('F', { fn: String, returnType: T.string() })).toThrow('already exists: F is a function');
    expect(registry.unregister('f')).toBe(true);
    expect(registry.unregister('f')).toBe(false);
    expect(() => registry.unregister('upper')).toThrow('cannot drop built-in function UPPER');
    expect(FunctionRegistry.withBuiltins().lookup('F')).toBeUndefined();
  });

  it('runs inside calc like any function', () => {
    const registry = FunctionRegistry.withBuiltins();
    registry.registerScalar('count_char', { fn: countChar, argTypes: [T.string(), T.string()], returnType: T.bigint(false) });
    const compiler = new ExprCompiler(registry);
    const counted = Exprs.call('COUNT_CHAR', [Exprs.inputRef(0, T.string(false)), Exprs.literal('a', T.char(1, false))], T.bigint(false));
    const out = new ChangeBatch();
    compiler.calc(null, [counted])(ChangeBatch.of([[0, ['banana']], [3, ['xyz']]]), out);
    expect(out.rows).toEqual([[3], [0]]);
    expect(out.kinds).toEqual([0, 3]);
  });
});
