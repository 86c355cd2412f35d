/**
 * Every function the registry holds is called, through the whole engine, on typical, NULL and
 * edge arguments (function-arguments.ts): so no function can be registered without an
 * implementation that runs, or without arguments to test it with. Each call is first bound, to
 * check that it really calls the function it is listed under. Typical calls must succeed; NULL
 * calls must succeed and, for a strict function, give NULL; edge calls may fail, but only with a
 * user-facing error, never an internal one or a crash.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { createEngine } from '../../src/engine/engine.js';
import { bindQuery } from '../../src/sql/bind/bind-query.js';
import { BinderContext } from '../../src/sql/bind/binder-context.js';
import type { QueryStatement } from '../../src/sql/parse/ast.js';
import { parseStatement } from '../../src/sql/parse/parser.js';
import { AGGREGATE_CALLS, ROWTIME_TABLE_DDL, SCALAR_CALLS, type Calls } from './function-arguments.js';
import { AGGREGATE_ROWS } from './function-facts.js';
import { describeOutcome, evaluateExpressions, type Outcome } from './sql-expressions.js';

const engine = createEngine();
const registry = engine.session.functions;

/** The canonical names of the functions a bound query calls (scalar calls and aggregate calls). */
function calledFunctions(sql: string): Set<string> {
  const statement = parseStatement(sql) as QueryStatement;
  const plan = bindQuery(statement.query, new BinderContext(engine.session.catalog, registry));
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    const node = value as Record<string, unknown>;
    if (node.kind === 'call' && typeof node.name === 'string') names.add(node.name);
    if (typeof node.function === 'string' && Array.isArray(node.argTypes)) names.add(node.function);
    Object.values(node).forEach(visit);
  };
  visit(plan);
  return names;
}

const isUserFacing = (outcome: Outcome): boolean => !('error' in outcome) || (outcome.error instanceof WeirError && outcome.error.code !== 'INTERNAL_ERROR');

async function check(name: string, calls: Calls, strict: boolean, from: string): Promise<void> {
  for (const sql of [...calls.typical, ...calls.nulls, ...calls.edge]) {
    expect(calledFunctions(`SELECT ${sql} AS v ${from}`), `${sql} calls ${name}`).toContain(name);
  }
  const typical = await evaluateExpressions(engine, calls.typical, from);
  calls.typical.forEach((sql, i) => expect('error' in typical[i]!, `${sql} → ${describeOutcome(typical[i]!)}`).toBe(false));
  const nulls = await evaluateExpressions(engine, calls.nulls, from);
  calls.nulls.forEach((sql, i) => {
    const outcome = nulls[i]!;
    expect('error' in outcome, `${sql} → ${describeOutcome(outcome)}`).toBe(false);
    if (strict) expect(outcome, `${sql} of the strict ${name} → ${describeOutcome(outcome)}`).toMatchObject({ value: null });
  });
  const edge = await evaluateExpressions(engine, calls.edge, from);
  calls.edge.forEach((sql, i) => expect(isUserFacing(edge[i]!), `${sql} → ${describeOutcome(edge[i]!)}`).toBe(true));
}

describe('every registered function runs', () => {
  beforeAll(async () => {
    await engine.execute(ROWTIME_TABLE_DDL);
  });

  it('has calls for exactly the registered functions, NULL calls for those with arguments', () => {
    expect(Object.keys(SCALAR_CALLS).sort()).toEqual(registry.scalars().map((f) => f.name));
    expect(Object.keys(AGGREGATE_CALLS).sort()).toEqual(registry.aggregates().map((f) => f.name));
    const withoutArguments = Object.entries(SCALAR_CALLS).filter(([, c]) => c.nulls.length === 0).map(([name]) => name);
    // CURRENT_WATERMARK has an argument, but a rowtime attribute, never a NULL literal.
    expect(withoutArguments).toEqual(['CURRENT_DATABASE', 'CURRENT_DATE', 'CURRENT_ROW_TIMESTAMP', 'CURRENT_TIME', 'CURRENT_TIMESTAMP', 'CURRENT_WATERMARK', 'E', 'LOCALTIMESTAMP', 'PI', 'PROCTIME', 'UUID']);
  });

  it('SHOW FUNCTIONS lists exactly the registered names (aliases included), each of a function called here', async () => {
    const [result] = await engine.execute('SHOW FUNCTIONS');
    if (result?.kind !== 'rows') throw new Error('SHOW FUNCTIONS gave no rows');
    const shown = result.rows.map(([name]) => name as string);
    expect(shown).toEqual(registry.names());
    for (const name of shown) {
      const canonical = registry.lookup(name)!.name;
      expect(SCALAR_CALLS[canonical] ?? AGGREGATE_CALLS[canonical], `calls of ${name}`).toBeDefined();
    }
    expect(shown).toEqual(expect.arrayContaining(['FIRST_VALUE', 'LAST_VALUE', 'LISTAGG', 'JSON_VALUE', 'CEILING', 'SUBSTR']));
  });

  for (const definition of registry.scalars()) {
    it(`scalar ${definition.name}`, async () => {
      const calls = SCALAR_CALLS[definition.name];
      expect(calls, `calls of ${definition.name} in function-arguments.ts`).toBeDefined();
      await check(definition.name, calls!, definition.nulls === 'strict', calls!.from ?? '');
    });
  }

  for (const definition of registry.aggregates()) {
    it(`aggregate ${definition.name}`, async () => {
      const calls = AGGREGATE_CALLS[definition.name];
      expect(calls, `calls of ${definition.name} in function-arguments.ts`).toBeDefined();
      await check(definition.name, calls!, false, AGGREGATE_ROWS);
    });
  }
});
