/**
 * Tab completion for the shell, as a pure function of the statement typed so far and a snapshot
 * of the catalog: inside `SET '` the setting keys; inside `WITH (` the option keys of the table's
 * connector (`<field>` filled in with the columns declared) or, after `'connector' =`, the
 * connector names and the allowed values of enumerated options; after FROM, JOIN, INTO, TABLE,
 * VIEW, DESCRIBE and UPDATE the relation names; after `name.` (a relation or its alias) its
 * columns; anywhere else keywords, function names and the columns of the relations the
 * statement mentions. Keywords and functions follow the case of the word typed.
 */
import type { CatalogSnapshot, RelationNames } from '../engine/catalog-snapshot.js';
import { SQL_KEYWORDS } from './sql-keywords.js';

/** Candidates and the text at the end of the input they complete: readline's completer result. */
export type Completion = [candidates: string[], word: string];

const KEYWORDS = new Set(SQL_KEYWORDS);
/** Keywords after which a relation name comes. */
const RELATION_KEYWORDS = new Set(['FROM', 'JOIN', 'INTO', 'TABLE', 'VIEW', 'DESCRIBE', 'DESC', 'UPDATE']);

/** The completions of `text` (everything typed before the cursor, earlier lines included). */
export function completeSql(text: string, names: CatalogSnapshot): Completion {
  const statement = currentStatement(text);
  if (statement === undefined) return [[], ''];
  if (statement.quoteStart !== undefined) {
    const word = statement.text.slice(statement.quoteStart + 1);
    return [completeFrom(word, quotedCandidates(statement.text.slice(0, statement.quoteStart), statement.text, names)), word];
  }
  const match = /(?:([A-Za-z_][\w$]*)\.)?([A-Za-z_][\w$]*)?$/.exec(statement.text)!;
  const word = match[2] ?? '';
  const before = statement.text.slice(0, match.index);
  if (match[1] !== undefined) {
    const database = `${match[1].toLowerCase()}.`;
    const tables = names.relations.filter((r) => r.name.toLowerCase().startsWith(database)).map((r) => r.name.slice(database.length));
    return [completeFrom(word, tables.length > 0 ? tables : relationAt(match[1], statement.text, names)?.columns ?? []), word];
  }
  const previous = /([A-Za-z_]+)\s*$/.exec(before)?.[1]?.toUpperCase();
  if (/\bCREATE\s+(?:TEMPORARY\s+)?(?:MATERIALIZED\s+)?(?:TABLE|VIEW|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?$/i.test(before)) return [[], word];
  if (previous !== undefined && RELATION_KEYWORDS.has(previous)) return [completeFrom(word, names.relations.map((r) => r.name)), word];
  const columns = mentioned(statement.text, names).flatMap((r) => r.columns);
  if (word === '') return [completeFrom(word, columns), word];
  const lower = word === word.toLowerCase();
  const words = [...SQL_KEYWORDS, ...names.functions].map((w) => (lower ? w.toLowerCase() : w));
  return [completeFrom(word, [...columns, ...words]), word];
}

/** The candidates starting with `word` (case-insensitively), without duplicates, sorted. */
export function completeFrom(word: string, candidates: readonly string[]): string[] {
  const prefix = word.toLowerCase();
  return [...new Set(candidates.filter((c) => c.toLowerCase().startsWith(prefix)))].sort((a, b) => a.localeCompare(b));
}

/** Candidates for a string literal opened at the end of `before`. */
function quotedCandidates(before: string, statement: string, names: CatalogSnapshot): string[] {
  if (/\b(?:SET|RESET)\s*$/i.test(before)) return [...names.settings];
  const withAt = [...before.matchAll(/\bWITH\s*\(/gi)].pop();
  if (withAt === undefined) return [];
  const options = before.slice(withAt.index + withAt[0].length).replace(/'(?:[^']|'')*'/g, (s) => s.replace(/[(),]/g, ' '));
  if (options.includes(')')) return [];
  const written = [...statement.slice(withAt.index).matchAll(/'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'/g)].map((m) => [m[1]!, m[2]!] as const);
  const connector = names.connectors.find((c) => c.name === written.find(([key]) => key === 'connector')?.[1]);
  const valueOf = /'((?:[^']|'')*)'\s*=\s*$/.exec(before)?.[1];
  if (valueOf !== undefined) {
    if (valueOf === 'connector') return names.connectors.map((c) => c.name);
    return [...(connector?.options.find((o) => o.key === valueOf || matchesPattern(o.key, valueOf))?.values ?? [])];
  }
  if (!/[(,]\s*$/.test(before)) return [];
  if (connector === undefined) return ['connector'];
  const columns = declaredColumns(statement);
  const keys = connector.options.flatMap((o) => (o.key.includes('<field>') ? columns.map((c) => o.key.replace('<field>', c)) : [o.key]));
  const taken = new Set(written.map(([key]) => key));
  return keys.filter((k) => !taken.has(k));
}

/** True when an option key with `<field>` stands for `key`. */
function matchesPattern(pattern: string, key: string): boolean {
  const [head, tail] = pattern.split('<field>');
  return tail !== undefined && key.startsWith(head!) && key.endsWith(tail) && key.length > head!.length + tail.length;
}

/** The column names of `CREATE TABLE name (col TYPE, ...)`: the first word of each entry that is not a constraint or watermark. */
function declaredColumns(statement: string): string[] {
  const open = /\bCREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w.`]+\s*\(/i.exec(statement);
  if (open === null) return [];
  const entries: string[] = [];
  let depth = 0;
  let entry = '';
  for (const char of statement.slice(open.index + open[0].length)) {
    if (char === '(' || char === '<') depth++;
    if ((char === ')' || char === '>') && depth-- === 0) break;
    if (char === ',' && depth === 0) {
      entries.push(entry);
      entry = '';
    } else entry += char;
  }
  entries.push(entry);
  return entries
    .map((e) => /^\s*`?([A-Za-z_][\w$]*)`?/.exec(e)?.[1])
    .filter((name): name is string => name !== undefined && !['PRIMARY', 'WATERMARK', 'CONSTRAINT', 'PERIOD'].includes(name.toUpperCase()));
}

/** The relations named in the statement. */
function mentioned(statement: string, names: CatalogSnapshot): RelationNames[] {
  const words = new Set([...statement.matchAll(/[A-Za-z_][\w$]*/g)].map((m) => m[0].toLowerCase()));
  return names.relations.filter((r) => words.has(r.name.toLowerCase()));
}

/** The relation a qualifier names: a relation itself, or one aliased `FROM relation [AS] alias`. */
function relationAt(qualifier: string, statement: string, names: CatalogSnapshot): RelationNames | undefined {
  const byName = (name: string): RelationNames | undefined => names.relations.find((r) => r.name.toLowerCase() === name.toLowerCase());
  for (const m of statement.matchAll(/\b(?:FROM|JOIN)\s+([A-Za-z_][\w$]*)\s+(?:AS\s+)?([A-Za-z_][\w$]*)/gi)) {
    if (m[2]!.toLowerCase() === qualifier.toLowerCase() && !KEYWORDS.has(m[2]!.toUpperCase())) return byName(m[1]!);
  }
  return byName(qualifier);
}

/** The last statement of the text (after its last `;`), and where a string literal still open at its end begins; undefined inside a comment. */
function currentStatement(text: string): { text: string; quoteStart?: number } | undefined {
  let start = 0;
  let quote: number | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote !== undefined) {
      if (char === "'") quote = undefined;
    } else if (char === "'") quote = i;
    else if (char === ';') start = i + 1;
    else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      if (end < 0) return undefined;
      i = end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return undefined;
      i = end + 1;
    }
  }
  return quote === undefined ? { text: text.slice(start) } : { text: text.slice(start), quoteStart: quote - start };
}
