/**
 * `LIMIT n` on the outermost query of a streaming SELECT (without ORDER BY or OFFSET), which the
 * planner cannot bind: the query runs without it and its subscription ends after the n-th
 * inserted row. Any other LIMIT is left in place for the binder to accept or reject.
 */
import type { ParsedStatement, Query } from '../sql/parse/ast.js';

/** A query with its outer LIMIT taken off, and that limit. */
export interface OuterLimit {
  readonly statement: ParsedStatement;
  readonly limit: number;
}

/** Splits off an outer `LIMIT n` (a non-negative integer literal); undefined when there is none to take. */
export function splitOuterLimit(parsed: ParsedStatement): OuterLimit | undefined {
  if (parsed.statement.kind !== 'query') return undefined;
  const split = withoutLimit(parsed.statement.query);
  if (split === undefined) return undefined;
  return { statement: { ...parsed, statement: { ...parsed.statement, query: split.query } }, limit: split.limit };
}

function withoutLimit(query: Query): { query: Query; limit: number } | undefined {
  switch (query.kind) {
    case 'with': {
      const body = withoutLimit(query.body);
      return body === undefined ? undefined : { query: { ...query, body: body.query }, limit: body.limit };
    }
    case 'select':
    case 'set-operation': {
      if (query.orderBy.length > 0 || query.offset !== undefined) return undefined;
      const limit = query.limit;
      if (limit?.kind !== 'literal' || limit.type !== 'number' || !/^\d+$/.test(limit.text)) return undefined;
      return { query: { ...query, limit: undefined }, limit: Number(limit.text) };
    }
    case 'values':
      return undefined;
  }
}
