/**
 * Turns the generated parser's list of expectations at the point of a syntax error (often dozens
 * of entries) into at most three human-readable tokens, best first, and spots misspelt keywords.
 */
import { closestName } from '../../common/errors.js';
import type { Expectation } from './generated/flink-sql-parser.js';

/** How many expected tokens a syntax error lists at most. */
const MAX_EXPECTED = 3;

/** Tokens that begin a scalar expression; listed together as "expression". */
const EXPRESSION_STARTERS = new Set([
  'identifier', 'number', 'string', '(', '-', '+', 'NOT', 'TRUE', 'FALSE', 'NULL', 'DATE', 'TIME',
  'TIMESTAMP', 'INTERVAL', 'CASE', 'CAST', 'TRY_CAST', 'EXISTS', 'EXTRACT', 'TRIM', 'SUBSTRING',
  'POSITION', 'FLOOR', 'CEIL', 'CEILING', 'CURRENT_TIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME',
  'LOCALTIMESTAMP', 'LOCALTIME', 'ARRAY', 'MAP', 'ROW', 'LEFT', 'RIGHT', 'OVERLAY', 'TIMESTAMPADD', 'TIMESTAMPDIFF',
  'JSON_VALUE', 'JSON_QUERY', 'JSON_EXISTS', 'JSON_OBJECT', 'JSON_ARRAY', 'JSON_OBJECTAGG', 'JSON_ARRAYAGG', 'ARRAY_AGG',
]);

/** Keywords that begin a data type; listed together as "type". */
const TYPE_STARTERS = new Set([
  'ROW', 'ARRAY', 'MAP', 'INTERVAL', 'TIMESTAMP_LTZ', 'TIMESTAMP', 'TIME', 'DECIMAL', 'DEC', 'NUMERIC',
  'CHARACTER', 'CHAR', 'VARCHAR', 'BINARY', 'VARBINARY', 'BOOLEAN', 'TINYINT', 'SMALLINT', 'INTEGER',
  'INT', 'BIGINT', 'FLOAT', 'REAL', 'DOUBLE', 'STRING', 'BYTES', 'DATE',
]);

/** Tokens that would only continue what is already complete: operators and postfixes. */
const CONTINUATIONS = new Set([
  '(', '.', '[', '*', '/', '%', '+', '-', '||', '=', '<>', '!=', '<', '<=', '>', '>=', 'AND', 'OR',
  'IS', 'NOT', 'IN', 'BETWEEN', 'LIKE', 'SIMILAR', 'OVERLAPS', 'JSON',
]);

/** Optional modifiers of what is already complete. */
const MODIFIERS = new Set(['AS', 'alias', 'FOR', 'ASC', 'DESC', 'NULLS', 'FILTER', 'OVER', 'ESCAPE', 'ALL', 'DISTINCT', 'NOT NULL']);

const CLOSERS = new Set([')', ']', 'END']);

const END_OF_STATEMENT = new Set([';', 'end of input']);

/** Listed before other tokens of the same tier, in this order. */
const PREFERRED = ['expression', 'identifier', ',', 'SELECT', 'INSERT', 'CREATE', 'FROM', 'WHERE', 'JOIN', 'ON', 'BY', 'THEN', '('];

/** The expectations as human-readable tokens, without duplicates, whitespace or character classes. */
export function describeExpected(expectations: readonly Expectation[]): string[] {
  return unique(expectations.flatMap(describe));
}

/**
 * The expected tokens worth showing, best first: closing brackets and the tokens the statement
 * needs, before optional modifiers, operators and the end of the statement (each shown only when
 * nothing better was expected).
 */
export function rankExpected(expected: readonly string[]): string[] {
  const candidates = collapse(collapse(expected, EXPRESSION_STARTERS, 'expression', ['identifier', 'number']), TYPE_STARTERS, 'type', ['BIGINT', 'VARCHAR']);
  const tiers = new Map(candidates.map((token) => [token, tier(token, candidates)]));
  const group = (token: string): number => Math.max(tiers.get(token)!, 1);
  const bestGroup = Math.min(...candidates.map(group));
  return candidates
    .filter((token) => group(token) === bestGroup)
    .sort((a, b) => tiers.get(a)! - tiers.get(b)! || preference(a) - preference(b))
    .slice(0, MAX_EXPECTED);
}

/** The expected keyword that `found` most likely misspells, if any (`FROMM` → `FROM`). */
export function misspeltKeyword(expected: readonly string[], found: string | undefined): string | undefined {
  if (found === undefined || found.length < 3 || !/^[A-Za-z_]+$/.test(found)) return undefined;
  return closestName(found, expected.filter(isKeyword));
}

function describe(expectation: Expectation): string[] {
  switch (expectation.type) {
    case 'literal':
      return [expectation.text];
    case 'other':
      return expectation.description === 'whitespace' ? [] : [expectation.description];
    case 'end':
      return ['end of input'];
    case 'class':
    case 'any':
      return [];
  }
}

function isKeyword(token: string): boolean {
  return /^[A-Z_]+$/.test(token);
}

function unique(tokens: readonly string[]): string[] {
  return [...new Set(tokens)];
}

/** Replaces the members of `group` by `name` (where the first was) when all of `markers` occur. */
function collapse(tokens: readonly string[], group: ReadonlySet<string>, name: string, markers: readonly string[]): string[] {
  if (!markers.every((marker) => tokens.includes(marker))) return [...tokens];
  const first = tokens.findIndex((token) => group.has(token));
  const rest = tokens.filter((token) => !group.has(token));
  rest.splice(first, 0, name);
  return unique(rest);
}

/**
 * Closing brackets (0), then what the statement needs (1), modifiers, continuations, the end;
 * tokens are shown from the best group only: tiers 0 and 1 together, then each other tier.
 * `(` opens a call (a continuation) only where a qualified name could go on with `.`, and `>`
 * closes a type (`ARRAY<INT>`) unless other comparisons are expected too.
 */
function tier(token: string, expected: readonly string[]): number {
  if (CLOSERS.has(token) || (token === '>' && !expected.includes('='))) return 0;
  if (token === '(' && !expected.includes('.')) return 1;
  if (MODIFIERS.has(token)) return 2;
  if (CONTINUATIONS.has(token)) return 3;
  if (END_OF_STATEMENT.has(token)) return 4;
  return 1;
}

function preference(token: string): number {
  const index = PREFERRED.indexOf(token);
  return index < 0 ? PREFERRED.length : index;
}
