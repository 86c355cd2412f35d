/**
 * Evaluates SQL expressions through the whole engine — parse, bind, plan, compile, run — as
 * `SELECT CAST((e) AS STRING), TYPEOF((e))` queries, many expressions per query; when a query
 * fails, its expressions are evaluated one by one, so that each failure is attributed to its own
 * expression.
 */
import { WeirError } from '../../src/common/errors.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Fact } from './function-facts.js';

/** What an expression gave: its value printed as CAST(... AS STRING) does (`null` for SQL NULL) and its type, or the error. */
export type Outcome = { readonly value: string | null; readonly type: string } | { readonly error: Error };

const BATCH = 40;

/** The outcome of every expression, in order; `from` (a FROM clause) gives aggregates rows to aggregate. */
export async function evaluateExpressions(engine: Engine, expressions: readonly string[], from = ''): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let start = 0; start < expressions.length; start += BATCH) {
    const batch = expressions.slice(start, start + BATCH);
    try {
      outcomes.push(...(await run(engine, batch, from)));
    } catch {
      for (const expression of batch) {
        try {
          outcomes.push(...(await run(engine, [expression], from)));
        } catch (error) {
          outcomes.push({ error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
    }
  }
  return outcomes;
}

async function run(engine: Engine, expressions: readonly string[], from: string): Promise<Outcome[]> {
  const select = expressions.map((e, i) => `CAST((${e}) AS STRING) AS v${i}, TYPEOF((${e})) AS t${i}`).join(', ');
  const rows = await engine.query(`SELECT ${select} ${from}`);
  if (rows.length !== 1) throw new WeirError('INTERNAL_ERROR', `expected one row, got ${rows.length}`);
  const row = rows[0]!;
  return expressions.map((_, i) => ({ value: row[`v${i}`] as string | null, type: row[`t${i}`] as string }));
}

/** A one-line description of an outcome, for assertion messages. */
export function describeOutcome(outcome: Outcome): string {
  if ('error' in outcome) return `error ${outcome.error instanceof WeirError ? outcome.error.code : outcome.error.name}: ${outcome.error.message}`;
  return `${outcome.value === null ? 'NULL' : JSON.stringify(outcome.value)} : ${outcome.type}`;
}

/** A fact's expected outcome as one line of text (its printed value and type, or the error it expects). */
export function expectedText(fact: Fact): string {
  const [, expected, type] = fact;
  if (expected !== null && typeof expected === 'object') return `error containing ${JSON.stringify(expected.error)}`;
  const value = expected === null ? 'NULL' : JSON.stringify(expected);
  return type === undefined ? value : `${value} : ${type}`;
}

/** What an expression did, as {@link expectedText} writes the fact: equal lines when the fact holds. */
export function actualText(fact: Fact, outcome: Outcome): string {
  const [, expected, type] = fact;
  if (expected !== null && typeof expected === 'object') {
    if ('error' in outcome && outcome.error.message.includes(expected.error)) return expectedText(fact);
    return describeOutcome(outcome);
  }
  if ('error' in outcome) return describeOutcome(outcome);
  const value = outcome.value === null ? 'NULL' : JSON.stringify(outcome.value);
  return type === undefined ? value : `${value} : ${outcome.type}`;
}
