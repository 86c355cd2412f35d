/**
 * Runs the function facts (function-facts.ts, written from Flink's documentation) through the
 * whole engine, category by category: every expression must give the printed value (and, where
 * the fact says, the type) Flink gives, or fail with the error Flink raises. All mismatches of a
 * category are reported together.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { AGGREGATE_FACTS, AGGREGATE_ROWS, FACTS, ZONED_FACTS, type Fact } from './function-facts.js';
import { actualText, evaluateExpressions, expectedText } from './sql-expressions.js';


describe('Flink function facts', () => {
  const engine = createEngine();
  const categories: [string, readonly Fact[], string][] = [...Object.entries(FACTS).map(([c, f]): [string, readonly Fact[], string] => [c, f, '']), ['aggregate', AGGREGATE_FACTS, AGGREGATE_ROWS]];
  for (const [category, facts, from] of categories) {
    it(`${category} (${facts.length} facts)`, async () => {
      expect(facts.length).toBeGreaterThan(0);
      const outcomes = await evaluateExpressions(engine, facts.map(([sql]) => sql), from);
      const actual = facts.map((fact, i) => `${fact[0]} → ${actualText(fact, outcomes[i]!)}`);
      const expected = facts.map((fact) => `${fact[0]} → ${expectedText(fact)}`);
      expect(actual).toEqual(expected);
    });
  }
});

describe('Flink function facts in a session time zone', () => {
  for (const [zone, facts] of Object.entries(ZONED_FACTS)) {
    it(`${zone} (${facts.length} facts)`, async () => {
      const engine = createEngine();
      await engine.execute(`SET 'table.local-time-zone' = '${zone}'`);
      const outcomes = await evaluateExpressions(engine, facts.map(([sql]) => sql));
      const actual = facts.map((fact, i) => `${fact[0]} → ${actualText(fact, outcomes[i]!)}`);
      const expected = facts.map((fact) => `${fact[0]} → ${expectedText(fact)}`);
      expect(actual).toEqual(expected);
    });
  }
});
