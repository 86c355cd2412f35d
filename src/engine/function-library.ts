/**
 * Where `CREATE FUNCTION name AS '<identifier>'` finds its implementation: weir's own
 * implementations of well-known UDF classes (Nexmark's `CountChar`, so the published q14 runs
 * unmodified, as Flink's Nexmark runner registers it), or a JavaScript module:
 * `CREATE FUNCTION f AS './udfs.mjs'` imports the module (relative to the working directory) and
 * takes its export named `f` (or its default export), an object `{ returns: 'BIGINT', args?:
 * ['STRING', ...], eval(...values) }` in the manner of Flink's ScalarFunction; with `kind: 'table'`
 * and `returns: 'ROW<word STRING, n INT>'`, a table function (Flink's TableFunction) whose `eval`
 * returns an iterable of rows, called by `LATERAL TABLE(f(...))`.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WeirError, type SourceSpan } from '../common/errors.js';
import { SqlTypes, type SqlType } from '../common/sql-type.js';
import type { UserScalarFunction, UserTableFunction } from '../expr/function-registry.js';
import { bindType } from '../sql/bind/bind-type.js';
import { parseType } from '../sql/parse/parser.js';

/** Implementations weir ships, by the class name Flink users know them by. */
const BUILTIN_IMPLEMENTATIONS: Readonly<Record<string, UserScalarFunction>> = {
  'com.github.nexmark.flink.udf.CountChar': {
    fn: (text: string, character: string) => {
      const wanted = character.charCodeAt(0);
      let count = 0;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === wanted) count++;
      return count;
    },
    argTypes: [SqlTypes.string(), SqlTypes.string()],
    returnType: SqlTypes.bigint(),
    description: 'count_char(s, c): how often the character c occurs in s (Nexmark q14)',
  },
};

/** The shape a JavaScript UDF module exports. */
interface ModuleFunction {
  /** `'table'` for a table function; scalar when absent. */
  readonly kind?: 'scalar' | 'table';
  readonly returns: string;
  readonly args?: readonly string[];
  readonly deterministic?: boolean;
  eval(...values: unknown[]): unknown;
}

/** A function CREATE FUNCTION registers: a scalar or a table function. */
export type LoadedFunction = { readonly kind: 'scalar'; readonly spec: UserScalarFunction } | { readonly kind: 'table'; readonly spec: UserTableFunction };

/** Resolves the implementation named in CREATE FUNCTION, or fails saying what would be accepted. */
export async function loadFunction(name: string, identifier: string, span: SourceSpan): Promise<LoadedFunction> {
  const builtin = BUILTIN_IMPLEMENTATIONS[identifier];
  if (builtin !== undefined) return { kind: 'scalar', spec: builtin };
  if (!/\.(m?js|cjs)$/.test(identifier)) {
    throw new WeirError('INVALID_ARGUMENT', `unknown function implementation '${identifier}'`, {
      span,
      hint: `name a JavaScript module ('./udfs.mjs') exporting '${name}', or one of: ${Object.keys(BUILTIN_IMPLEMENTATIONS).join(', ')}`,
    });
  }
  const path = isAbsolute(identifier) ? identifier : resolve(identifier);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new WeirError('INVALID_ARGUMENT', `cannot load function module ${path}: ${error instanceof Error ? error.message : String(error)}`, { span, cause: error });
  }
  const exported = (module[name] ?? module.default) as Partial<ModuleFunction> | undefined;
  if (exported === undefined || typeof exported.eval !== 'function' || typeof exported.returns !== 'string') {
    throw new WeirError('INVALID_ARGUMENT', `module ${path} must export '${name}' (or a default) as { returns: '<SQL type>', eval(...args) }`, { span });
  }
  const evaluate = exported.eval.bind(exported);
  if (exported.kind === 'table') {
    if (exported.deterministic === false) {
      throw new WeirError('INVALID_ARGUMENT', `table function '${name}' of ${path} is declared non-deterministic`, {
        span,
        hint: 'a table function must give the same rows for the same arguments: a retraction calls it again to find the rows to retract',
      });
    }
    const table: UserTableFunction = {
      fn: (...values: unknown[]) => evaluate(...values) as Iterable<unknown> | null | undefined,
      resultType: typeOf(exported.returns, span),
      ...(exported.args === undefined ? {} : { argTypes: exported.args.map((t) => typeOf(t, span)) }),
      description: `${name}: a table function from ${identifier}`,
    };
    return { kind: 'table', spec: table };
  }
  if (exported.kind !== undefined && exported.kind !== 'scalar') {
    throw new WeirError('INVALID_ARGUMENT', `module ${path} exports '${name}' with kind '${String(exported.kind)}'; expected 'scalar' or 'table'`, { span });
  }
  const scalar: UserScalarFunction = {
    fn: (...values: unknown[]) => evaluate(...values),
    returnType: typeOf(exported.returns, span),
    ...(exported.args === undefined ? {} : { argTypes: exported.args.map((t) => typeOf(t, span)) }),
    ...(exported.deterministic === undefined ? {} : { deterministic: exported.deterministic }),
    description: `${name}: from ${identifier}`,
  };
  return { kind: 'scalar', spec: scalar };
}

function typeOf(text: string, span: SourceSpan): SqlType {
  try {
    return bindType(parseType(text));
  } catch (error) {
    throw new WeirError('INVALID_ARGUMENT', `'${text}' is not a SQL type`, { span, cause: error });
  }
}
