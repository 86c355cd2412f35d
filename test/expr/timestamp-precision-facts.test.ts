/**
 * Runs the timestamp precision facts (timestamp-precision-facts.ts) through the whole engine, as
 * function-facts.test.ts runs Flink's function facts: every expression must print the value (and
 * have the type) the fact gives, or fail with its error. All mismatches are reported together.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { Fact } from './function-facts.js';
import { actualText, evaluateExpressions, expectedText } from './sql-expressions.js';
import { PRECISION_FACTS, ZONED_PRECISION_FACTS } from './timestamp-precision-facts.js';


async function check(facts: readonly Fact[], zone?: string): Promise<void> {
  const engine = createEngine();
  if (zone !== undefined) await engine.execute(`SET 'table.local-time-zone' = '${zone}'`);
  const outcomes = await evaluateExpressions(engine, facts.map(([sql]) => sql));
  const actual = facts.map((fact, i) => `${fact[0]} → ${actualText(fact, outcomes[i]!)}`);
  const expected = facts.map((fact) => `${fact[0]} → ${expectedText(fact)}`);
  expect(actual).toEqual(expected);
}

describe('TIMESTAMP(p) up to nanoseconds: facts', () => {
  it(`in UTC (${PRECISION_FACTS.length} facts)`, async () => {
    await check(PRECISION_FACTS);
  });
  for (const [zone, facts] of Object.entries(ZONED_PRECISION_FACTS)) {
    it(`in ${zone} (${facts.length} facts)`, async () => {
      await check(facts, zone);
    });
  }
});
