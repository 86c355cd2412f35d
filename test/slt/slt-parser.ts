/**
 * Parses sqllogictest files (the format of sqlite's, DuckDB's and RisingWave's suites) into
 * records. A record starts with a header line and ends at a blank line:
 *
 * - `statement ok` / `statement error [regex]`, then the SQL;
 * - `query <types> [nosort|rowsort|valuesort]`, then the SQL, `----` and the expected rows, one
 *   row per line, values separated by whitespace (`NULL` for NULL, `(empty)` for ''); `query error
 *   [regex]` expects the query to fail;
 * - `halt` ends the file there.
 *
 * Lines starting with `#` are comments, except `# postgres: <sql>` (several lines join), which
 * gives the PostgreSQL text of the materialized view the next statement creates (see
 * postgres-oracle.ts). `skipif <engine>` / `onlyif <engine>` lines before a header decide
 * whether the record runs on the engine named `weir`. Anything else is an error naming the line.
 */

/** The engine name `skipif` and `onlyif` lines are compared with. */
export const ENGINE_NAME = 'weir';

/** How a query's rows are ordered before they are compared. */
export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

/** One column type letter of a query: Integer, Text, Real, Boolean. */
export type ColumnType = 'I' | 'T' | 'R' | 'B';

/** What a statement or query must give. */
export type Expectation =
  | { readonly kind: 'ok' }
  /** Fails, with a message matching `pattern` when there is one. */
  | { readonly kind: 'error'; readonly pattern?: RegExp };

/** One record of a file, with the (1-based) line of its header. */
export type SltRecord =
  | {
      readonly kind: 'statement';
      readonly line: number;
      readonly sql: string;
      readonly expect: Expectation;
      /** The `# postgres:` text given for the materialized view this statement creates. */
      readonly postgres?: string;
    }
  | {
      readonly kind: 'query';
      readonly line: number;
      readonly sql: string;
      /** Undefined for `query error`. */
      readonly types?: readonly ColumnType[];
      readonly sort: SortMode;
      readonly expect: Expectation;
      /** The expected rows, as written (whitespace runs collapsed to one space). */
      readonly rows: readonly string[];
    }
  | { readonly kind: 'halt'; readonly line: number };

/** A malformed file: the message names the file and the line. */
export class SltSyntaxError extends Error {
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = 'SltSyntaxError';
  }
}

const SORT_MODES: readonly SortMode[] = ['nosort', 'rowsort', 'valuesort'];
const COLUMN_TYPES = /^[ITRB]+$/;
const POSTGRES_DIRECTIVE = /^#\s*postgres:\s?(.*)$/;

/** Collapses whitespace runs to one space and trims: how rows and values are compared. */
export function normalizeWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** The records of `text`; records under a `skipif weir` or a foreign `onlyif` are left out. */
export function parseSlt(text: string, file: string): SltRecord[] {
  const lines = text.split(/\r?\n/);
  const records: SltRecord[] = [];
  let index = 0;
  let postgres: string[] = [];
  let postgresLine = 0;
  let skip = false;
  const fail = (line: number, message: string): never => {
    throw new SltSyntaxError(file, line, message);
  };

  /** The lines from `index` up to a blank line (or `----` when `stopAtDashes`), advancing `index`. */
  const block = (stopAtDashes: boolean): string[] => {
    const taken: string[] = [];
    while (index < lines.length && lines[index]!.trim() !== '' && !(stopAtDashes && lines[index]!.trim() === '----')) taken.push(lines[index++]!);
    return taken;
  };

  while (index < lines.length) {
    const raw = lines[index]!;
    const line = index + 1;
    const trimmed = raw.trim();
    index++;
    if (trimmed === '') {
      if (postgres.length > 0) fail(postgresLine, "a '# postgres:' line must come right before the statement it belongs to");
      continue;
    }
    if (trimmed.startsWith('#')) {
      const directive = POSTGRES_DIRECTIVE.exec(trimmed);
      if (directive !== null) {
        if (postgres.length === 0) postgresLine = line;
        postgres.push(directive[1]!);
      }
      continue;
    }
    const words = trimmed.split(/\s+/);
    const [head, second] = words;
    if (head === 'skipif' || head === 'onlyif') {
      if (second === undefined || words.length > 2) fail(line, `'${head}' takes one engine name`);
      if ((head === 'skipif') === (second === ENGINE_NAME)) skip = true;
      continue;
    }
    if (head === 'halt') {
      if (words.length > 1) fail(line, "'halt' takes nothing after it");
      if (!skip) {
        records.push({ kind: 'halt', line });
        return records;
      }
      skip = false;
      continue;
    }
    const pending = postgres.length > 0 ? postgres.join('\n') : undefined;
    postgres = [];
    if (head === 'statement') {
      const expect = expectation(words.slice(1), trimmed, line, fail);
      const sql = block(true);
      if (index < lines.length && lines[index]!.trim() === '----') fail(index + 1, "a statement has no '----' section; give the expected error as a regex after 'statement error'");
      if (sql.length === 0) fail(line, 'the statement has no SQL');
      if (!skip) records.push({ kind: 'statement', line, sql: sql.join('\n'), expect, ...(pending === undefined ? {} : { postgres: pending }) });
    } else if (head === 'query') {
      if (pending !== undefined) fail(postgresLine, "a '# postgres:' line belongs before a statement that creates a materialized view, not before a query");
      let record: SltRecord;
      if (second === 'error') {
        const expect = expectation(words.slice(1), trimmed, line, fail);
        const sql = block(true);
        if (index < lines.length && lines[index]!.trim() === '----') fail(index + 1, "'query error' has no '----' section; give the expected error as a regex after it");
        record = { kind: 'query', line, sql: sql.join('\n'), sort: 'nosort', expect, rows: [] };
      } else {
        if (second === undefined || !COLUMN_TYPES.test(second)) fail(line, `'query' needs column types (letters I, T, R, B), got '${second ?? ''}'`);
        const sort = (words[2] ?? 'nosort') as SortMode;
        if (!SORT_MODES.includes(sort)) fail(line, `unknown sort mode '${words[2]}' (nosort, rowsort or valuesort)`);
        if (words.length > 3) fail(line, `unexpected '${words.slice(3).join(' ')}' after the sort mode (labels and hashes are not supported)`);
        const sql = block(true);
        let rows: string[] = [];
        if (index < lines.length && lines[index]!.trim() === '----') {
          index++;
          rows = block(false).map(normalizeWhitespace);
        }
        record = { kind: 'query', line, sql: sql.join('\n'), types: [...second!] as ColumnType[], sort, expect: { kind: 'ok' }, rows };
      }
      if (record.sql.trim() === '') fail(line, 'the query has no SQL');
      if (!skip) records.push(record);
    } else {
      fail(line, `expected 'statement', 'query', 'halt', 'skipif', 'onlyif' or a '#' comment, got '${head}'`);
    }
    skip = false;
  }
  if (postgres.length > 0) fail(postgresLine, "a '# postgres:' line must come right before the statement it belongs to");
  return records;
}

/** `ok`, or `error [regex]` (the rest of the header line after `error`). */
function expectation(words: readonly string[], header: string, line: number, fail: (line: number, message: string) => never): Expectation {
  const [kind] = words;
  if (kind === 'ok' && words.length === 1) return { kind: 'ok' };
  if (kind !== 'error') return fail(line, `expected 'ok' or 'error [regex]' after '${header.split(/\s+/)[0]}', got '${words.join(' ')}'`);
  const pattern = header.replace(/^\S+\s+error\s*/, '');
  if (pattern === '') return { kind: 'error' };
  try {
    return { kind: 'error', pattern: new RegExp(pattern) };
  } catch (error) {
    return fail(line, `invalid error regex /${pattern}/: ${error instanceof Error ? error.message : String(error)}`);
  }
}
