/**
 * The optimizer's discipline: rules run pass after pass to a fixpoint within
 * `table.optimizer.max-passes`; a rule that never converges is reported (and fails planning in the
 * test suite); a rule that changes a node's schema is an INTERNAL_ERROR naming it and both schemas;
 * the analyzer's rewrites (Top-N ranges) cannot be switched off; a setting naming no rule is refused.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { createEngine } from '../../../src/engine/engine.js';
import { FunctionRegistry } from '../../../src/expr/function-registry.js';
import { Exprs } from '../../../src/expr/scalar-expr.js';
import { LogicalFilter, LogicalProject, LogicalValues, type LogicalNode } from '../../../src/plan/logical/logical-node.js';
import { ANALYZER_RULES, DEFAULT_RULES, optimizePlan, type RewriteRule } from '../../../src/plan/optimize/optimizer.js';
import { optimizeLogical } from '../../../src/plan/planner.js';

const functions = FunctionRegistry.withBuiltins();
const context = { functions };
const values = LogicalValues.create({ rows: [[1, 'x']], columns: [{ name: 'a', type: SqlTypes.int(false) }, { name: 'b', type: SqlTypes.string() }] });
const isPositive = Exprs.call('>', [Exprs.inputRef(0, SqlTypes.int(false)), Exprs.literal(0, SqlTypes.int(false))], SqlTypes.boolean(false));
const filtered = LogicalFilter.create({ input: values, condition: isPositive });

/** Rebuilds every filter as a new object: never reaches a fixpoint (and keeps the schema). */
const neverConverges: RewriteRule = {
  name: 'rebuild-filter',
  rewrite: (node) => (node.kind === 'filter' ? LogicalFilter.create({ input: node.input, condition: node.condition }) : node),
};

/** Drops the last column of a filter's input: a bug, since the filter's schema changes. */
const dropsAColumn: RewriteRule = {
  name: 'drop-last-column',
  rewrite: (node) => {
    if (node.kind !== 'filter') return node;
    const kept = node.input.schema.slice(0, -1);
    const input = LogicalProject.create({ input: node.input, exprs: kept.map((f, i) => Exprs.inputRef(i, f.type)), names: kept.map((f) => f.name) });
    return LogicalFilter.create({ input, condition: node.condition });
  },
};

/** Adds `AND TRUE` to a filter once; the next pass finds nothing to do. */
const addsTrueOnce: RewriteRule = {
  name: 'add-true-once',
  rewrite: (node: LogicalNode) => {
    if (node.kind !== 'filter' || (node.condition.kind === 'call' && node.condition.name === 'AND')) return node;
    return LogicalFilter.create({ input: node.input, condition: Exprs.call('AND', [node.condition, Exprs.literal(true, SqlTypes.boolean(false))], SqlTypes.boolean(false)) });
  },
};

describe('optimizer passes', () => {
  it('repeats passes until one changes nothing', () => {
    const result = optimizePlan(filtered, context, {}, [addsTrueOnce]);
    expect(result.converged).toBe(true);
    // Pass 1 rewrites, pass 2 finds the fixpoint.
    expect(result.passes).toBe(2);
    expect(result.plan.kind === 'filter' && result.plan.condition.kind === 'call' && result.plan.condition.name).toBe('AND');
  });

  it('stops at the pass limit with the last plan, saying which rule still changed it', () => {
    const result = optimizePlan(filtered, context, { maxPasses: 5 }, [neverConverges]);
    expect(result.converged).toBe(false);
    expect(result.passes).toBe(5);
    expect(result.changedInLastPass).toEqual(['rebuild-filter']);
    expect(result.plan).not.toBe(filtered);
    expect(result.plan.schema).toEqual(filtered.schema);
  });

  it('reports a rule that changes a schema as INTERNAL_ERROR naming the rule and both schemas', () => {
    let error: unknown;
    try {
      optimizePlan(filtered, context, {}, [dropsAColumn]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INTERNAL_ERROR');
    expect((error as WeirError).message).toBe(
      "optimizer rule 'drop-last-column' changed the schema of a filter node from [a INT NOT NULL, b STRING] to [a INT NOT NULL] (as a filter node)",
    );
  });

  it('skips disabled rules but never the analyzer', () => {
    const disabled = optimizePlan(filtered, context, { disabled: new Set(['add-true-once']) }, [addsTrueOnce]);
    expect(disabled.plan).toBe(filtered);
    expect(ANALYZER_RULES.map((r) => r.name)).toEqual(['subquery-to-semi-join', 'scalar-subquery-to-join', 'push-limit-into-rank']);
    for (const rule of ANALYZER_RULES) expect(DEFAULT_RULES.map((r) => r.name)).not.toContain(rule.name);
  });
});

describe('optimizer settings', () => {
  const ddl = `CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')`;
  const topN = `EXPLAIN SELECT auction, price FROM (SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids) WHERE rn <= CAST(2 AS BIGINT)`;

  it('refuses a rule that does not exist, naming the rules there are', async () => {
    const engine = createEngine();
    await expect(engine.execute("SET 'table.optimizer.push-filter-into-joins.enabled' = 'false'")).rejects.toThrow(
      `'table.optimizer.push-filter-into-joins.enabled': there is no optimizer rule 'push-filter-into-joins'; the rules are ${DEFAULT_RULES.map((r) => r.name).join(', ')}`,
    );
    await expect(engine.execute("SET 'table.optimizer.push-filter-into-join.enabled' = 'no'")).rejects.toThrow("must be one of 'true', 'false'");
    await engine.close();
  });

  it('refuses to switch off an analyzer rewrite, and plans Top-N with every optimizer rule off', async () => {
    const engine = createEngine();
    await expect(engine.execute("SET 'table.optimizer.push-limit-into-rank.enabled' = 'false'")).rejects.toThrow("'push-limit-into-rank' is a rewrite every plan needs and cannot be switched off");
    await engine.execute("SET 'table.optimizer.push-limit-into-rank.enabled' = 'true'");
    for (const rule of DEFAULT_RULES) await engine.execute(`SET 'table.optimizer.${rule.name}.enabled' = 'false'`);
    await engine.execute(ddl);
    const [result] = await engine.execute(topN);
    expect(result?.kind === 'text' ? result.text : '').toContain('Rank(rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=2]');
    await engine.close();
  });

  it('validates table.optimizer.max-passes; a limit short of the fixpoint fails in the test suite', async () => {
    const engine = createEngine();
    await expect(engine.execute("SET 'table.optimizer.max-passes' = '0'")).rejects.toThrow("'table.optimizer.max-passes' must be a positive integer, got '0'");
    await engine.execute(ddl);
    // One pass that changes the plan cannot tell that it reached the fixpoint.
    await engine.execute("SET 'table.optimizer.max-passes' = '1'");
    await expect(engine.execute('EXPLAIN SELECT auction FROM bids WHERE TRUE')).rejects.toThrow('the optimizer did not reach a fixpoint in 1 passes; rules still changing the plan: remove-always-true-filter');
    await engine.execute("SET 'table.optimizer.max-passes' = '2'");
    const [result] = await engine.execute('EXPLAIN SELECT auction FROM bids WHERE TRUE');
    expect(result?.kind === 'text' ? result.text : '').not.toContain('where=');
    await engine.close();
  });

  it('uses the last plan when the limit is reached outside the test suite', () => {
    const always = LogicalFilter.create({ input: values, condition: Exprs.literal(true, SqlTypes.boolean(false)) });
    const options = { parallelism: 1, functions, maxPasses: 1, requireFixpoint: false };
    expect(optimizeLogical(always, options)).toBe(values);
    expect(() => optimizeLogical(always, { ...options, requireFixpoint: true })).toThrow('did not reach a fixpoint in 1 passes');
  });
});
