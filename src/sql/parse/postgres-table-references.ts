/**
 * The tables a statement reads, as PostgreSQL would parse it (node-sql-parser's PostgreSQL
 * dialect). The session uses it to route a SELECT that reads only materialized views to the
 * Postgres database holding them, unchanged.
 */
import nodeSqlParser from 'node-sql-parser';

const parser = new nodeSqlParser.Parser();
const DIALECT = { database: 'PostgresQL' } as const;

/** A table a statement reads: its name and, when qualified, its schema. */
export interface TableReference {
  readonly schema: string | undefined;
  readonly table: string;
}

/**
 * The tables one SELECT reads (names bound by its WITH clause excluded), or undefined when the
 * text is not a single PostgreSQL SELECT — Flink-only syntax, several statements, or another kind.
 */
export function postgresTablesRead(text: string): TableReference[] | undefined {
  let ast: unknown;
  let list: string[];
  try {
    ast = parser.astify(text, DIALECT);
    list = parser.tableList(text, DIALECT);
  } catch {
    return undefined;
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  if (statements.length !== 1 || (statements[0] as { type?: unknown }).type !== 'select') return undefined;
  const withNames = new Set(withClauseNames(statements[0]));
  const references: TableReference[] = [];
  for (const entry of list) {
    const [kind, schema, table] = entry.split('::');
    if (kind !== 'select' || table === undefined) return undefined;
    if (schema === 'null' && withNames.has(table)) continue;
    references.push({ schema: schema === 'null' ? undefined : schema, table });
  }
  return references;
}

function withClauseNames(select: unknown): string[] {
  const clauses = (select as { with?: { name?: { value?: unknown } | string }[] | null }).with ?? [];
  return clauses.map((clause) => (typeof clause.name === 'string' ? clause.name : String(clause.name?.value ?? '')));
}
