/**
 * Checks every materialized view of an .slt file against PostgreSQL itself. The weir writable
 * tables of the file are mirrored into Postgres tables of the same names and equivalent types in
 * the schema `slt_mirror` of the file's database (before each check, the contents of every table
 * changed since the last copy are copied from weir, so the mirror holds exactly what weir holds); weir's plain views become Postgres views
 * there. Each materialized view's query is a view of the mirror schema too, so that a view reading
 * another is recomputed from the mirrored tables. After each FLUSH, each live view's query runs in
 * Postgres as a batch query (search path `slt_mirror, public`), and its result must equal the
 * view's table as a multiset (EXCEPT ALL both ways).
 *
 * A view's Flink SQL is translated by {@link toPostgresSql}, a small explicit mapping (backtick
 * identifiers, type names); a view it cannot carry over takes a `# postgres: <sql>` line in the
 * file. A view whose Postgres query fails is a failure saying so, never a silent pass.
 */
import pg from 'pg';
import type { Engine } from '../../src/engine/engine.js';

/** The schema of the mirrors and of weir's plain views. */
export const MIRROR_SCHEMA = 'slt_mirror';

/** Flink type names Postgres spells otherwise (whole words, outside literals and quoted names). */
const TYPE_NAMES: readonly (readonly [RegExp, string])[] = [
  [/\bSTRING\b/gi, 'TEXT'],
  [/\bDOUBLE\b(?!\s+PRECISION)/gi, 'DOUBLE PRECISION'],
  [/\bTINYINT\b/gi, 'SMALLINT'],
  [/\bTIMESTAMP_LTZ\b/gi, 'TIMESTAMPTZ'],
  [/\bBYTES\b/gi, 'BYTEA'],
];

/**
 * Flink SQL as PostgreSQL spells it: backtick identifiers become double-quoted ones, the type
 * names of {@link TYPE_NAMES} are renamed and binary literals `x'0aff'` become `'\x0aff'::bytea`
 * (Postgres reads `x'..'` as a bit string); string literals, quoted names and comments stay as
 * they are. Nothing else is translated (functions, syntax): a query that needs more takes a
 * `# postgres:` line.
 */
export function toPostgresSql(flink: string): string {
  let out = '';
  let plain = '';
  const flush = (): void => {
    out += TYPE_NAMES.reduce((text, [pattern, name]) => text.replace(pattern, name), plain);
    plain = '';
  };
  for (let i = 0; i < flink.length; ) {
    const c = flink[i]!;
    if (c === "'" || c === '"' || c === '`') {
      let end = i + 1;
      while (end < flink.length && !(flink[end] === c && flink[end + 1] !== c)) end += flink[end] === c ? 2 : 1;
      const binary = c === "'" && /(?:^|[^A-Za-z0-9_$])[xX]$/.test(plain);
      if (binary) plain = plain.slice(0, -1);
      flush();
      const body = flink.slice(i + 1, end);
      if (binary) {
        out += `'\\x${body}'::bytea`;
        i = end + 1;
        continue;
      }
      out += c === '`' ? `"${body.replace(/``/g, '`').replace(/"/g, '""')}"` : flink.slice(i, end + 1);
      i = end + 1;
    } else if (c === '-' && flink[i + 1] === '-') {
      const end = flink.indexOf('\n', i);
      flush();
      out += end < 0 ? flink.slice(i) : flink.slice(i, end);
      i = end < 0 ? flink.length : end;
    } else {
      plain += c;
      i++;
    }
  }
  flush();
  return out;
}

/** The Postgres type holding a weir column of the type DESCRIBE prints, or undefined when none does. */
export function postgresType(describeType: string): string | undefined {
  const type = describeType.replace(/\s*\*(ROWTIME|PROCTIME)\*$/, '').replace(/\s+NOT NULL$/, '');
  let match: RegExpExecArray | null;
  if ((match = /^ARRAY<(.+)>$/.exec(type)) !== null) {
    const element = postgresType(match[1]!);
    return element === undefined || element.endsWith('[]') ? undefined : `${element}[]`;
  }
  if ((match = /^DECIMAL\((\d+), (\d+)\)$/.exec(type)) !== null) return `numeric(${match[1]}, ${match[2]})`;
  if ((match = /^TIMESTAMP\((\d)\)$/.exec(type)) !== null) return `timestamp(${Math.min(Number(match[1]), 6)})`;
  if ((match = /^TIMESTAMP_LTZ\((\d)\)$/.exec(type)) !== null) return `timestamptz(${Math.min(Number(match[1]), 6)})`;
  if ((match = /^TIME\((\d)\)$/.exec(type)) !== null) return `time(${Math.min(Number(match[1]), 6)})`;
  // CHAR(n) as text: weir holds the padded value, and Postgres's bpchar would compare it without the padding.
  if (/^(STRING|VARCHAR\(\d+\)|CHAR\(\d+\))$/.test(type)) return 'text';
  if (/^(BYTES|VARBINARY\(\d+\)|BINARY\(\d+\))$/.test(type)) return 'bytea';
  const simple: Readonly<Record<string, string>> = {
    BOOLEAN: 'boolean',
    TINYINT: 'smallint',
    SMALLINT: 'smallint',
    INT: 'integer',
    BIGINT: 'bigint',
    FLOAT: 'real',
    DOUBLE: 'double precision',
    DATE: 'date',
  };
  return simple[type];
}

/** A value from weir's API as Postgres text input for a column of `pgType`. */
function postgresText(value: unknown, pgType: string): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return pgType.startsWith('timestamptz') ? value.toISOString() : value.toISOString().replace('Z', '');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array && pgType === 'bytea') return `\\x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value) && pgType.endsWith('[]')) {
    // An array literal: every element quoted (NULL unquoted), as Postgres's array input reads it.
    const element = pgType.slice(0, -2);
    const quoted = value.map((v: unknown) => {
      const text = postgresText(v, element);
      return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    });
    return `{${quoted.join(',')}}`;
  }
  throw new Error(`cannot mirror the value ${JSON.stringify(value)} into a Postgres ${pgType} column`);
}

/** A quoted Postgres identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface MirroredTable {
  readonly line: number;
  readonly columns?: readonly { readonly name: string; readonly pgType: string }[];
  /** Why the table cannot be mirrored, when it cannot. */
  readonly unmirrorable?: string;
  /** Changed since it was last copied. */
  stale: boolean;
  /** Written by a running INSERT ... SELECT job, so it may change at any time: copied at every check. */
  fed: boolean;
}

interface CheckedView {
  /** The line of the statement that created it. */
  readonly line: number;
  /** The Postgres table weir writes it into. */
  readonly table: string;
  /** The query run in Postgres, and where it came from. */
  readonly query: string;
  readonly origin: 'translated' | '# postgres:';
  /** Whether the query is also a view of the mirror schema (which the check then reads). */
  readonly mirrored: boolean;
  columns?: readonly string[];
}

/** One row a check found on one side only. */
export interface ViewDifference {
  readonly side: 'missing from the view' | 'not in the query result';
  readonly row: string;
}

/** The mirror of one .slt file's tables and the checks of its views; see the module comment. */
export class PostgresOracle {
  private readonly tables = new Map<string, MirroredTable>();
  private readonly views = new Map<string, CheckedView>();
  /** Plain weir views Postgres refused, with why: named in failures of the views that read them. */
  private readonly refusedViews = new Map<string, string>();
  private readonly plainViews = new Set<string>();

  private constructor(private readonly client: pg.Client) {}

  /** Connects to the file's database and creates the mirror schema. */
  static async open(url: string): Promise<PostgresOracle> {
    const client = new pg.Client({ connectionString: url, application_name: 'weir slt oracle' });
    await client.connect();
    await client.query(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; CREATE SCHEMA ${MIRROR_SCHEMA}; SET search_path = ${MIRROR_SCHEMA}, public`);
    return new PostgresOracle(client);
  }

  /** Ends the oracle's connection. */
  async close(): Promise<void> {
    await this.client.end();
  }

  /** The names of the materialized views being checked. */
  viewNames(): string[] {
    return [...this.views.keys()];
  }

  /** Whether writable table `name` is known (mirrored, or noted as not mirrorable). */
  hasTable(name: string): boolean {
    return this.tables.has(name);
  }

  /** Whether plain view `name` is known (created in Postgres, or noted as refused). */
  hasView(name: string): boolean {
    return this.plainViews.has(name);
  }

  /** Runs SQL on the oracle's connection (tests use it to look at or disturb the database). */
  async query(sql: string): Promise<pg.QueryResult> {
    return this.client.query(sql);
  }

  /** A writable table was created in weir: its mirror, typed from weir's DESCRIBE. */
  async addTable(engine: Engine, name: string, line: number): Promise<void> {
    const [described] = await engine.execute(`DESCRIBE ${flinkIdent(name)}`);
    if (described?.kind !== 'rows') throw new Error(`DESCRIBE ${name} gave no rows`);
    const columns: { name: string; pgType: string }[] = [];
    let unmirrorable: string | undefined;
    for (const [column, type] of described.rows as readonly (readonly unknown[])[]) {
      const pgType = postgresType(String(type));
      if (pgType === undefined) unmirrorable ??= `its column '${String(column)}' has type ${String(type)}, which the Postgres mirror has no type for`;
      else columns.push({ name: String(column), pgType });
    }
    if (unmirrorable !== undefined) {
      this.tables.set(name, { line, unmirrorable, stale: true, fed: false });
      return;
    }
    await this.client.query(`CREATE TABLE ${MIRROR_SCHEMA}.${ident(name)} (${columns.map((c) => `${ident(c.name)} ${c.pgType}`).join(', ')})`);
    this.tables.set(name, { line, columns, stale: true, fed: false });
  }

  /**
   * A statement may have changed writable table `name` (an INSERT, UPDATE or DELETE, even a
   * failed one); with `fed`, a job keeps writing into it (INSERT ... SELECT). Tables that are not
   * mirrored are ignored.
   */
  changed(name: string, fed = false): void {
    const table = this.tables.get(name);
    if (table === undefined) return;
    table.stale = true;
    if (fed) table.fed = true;
  }

  /** A writable table was dropped in weir. */
  async dropTable(name: string): Promise<void> {
    if (this.tables.get(name)?.columns !== undefined) await this.client.query(`DROP TABLE ${MIRROR_SCHEMA}.${ident(name)} CASCADE`);
    this.tables.delete(name);
  }

  /** A plain weir view was created: the same view in Postgres, or a note of why Postgres refused it. */
  async addView(name: string, queryText: string): Promise<void> {
    const query = toPostgresSql(queryText);
    this.plainViews.add(name);
    try {
      await this.client.query(`CREATE VIEW ${MIRROR_SCHEMA}.${ident(name)} AS ${query}`);
      this.refusedViews.delete(name);
    } catch (error) {
      this.refusedViews.set(name, `Postgres refused weir's view '${name}' (${query}): ${messageOf(error)}`);
    }
  }

  /** A plain weir view was dropped: its Postgres view goes too. */
  async dropView(name: string): Promise<void> {
    this.plainViews.delete(name);
    if (!this.refusedViews.delete(name)) await this.client.query(`DROP VIEW IF EXISTS ${MIRROR_SCHEMA}.${ident(name)} CASCADE`);
  }

  /**
   * A materialized view was created (at `line`): from now on it is checked after every FLUSH. Its
   * query becomes a view of the mirror schema too (with the view's column names), so that views
   * reading it are checked against a batch recomputation from the mirrored tables — never against
   * weir's own tables — and nothing in Postgres depends on the tables weir drops.
   */
  async addMaterializedView(name: string, view: { line: number; table: string; queryText: string; postgres?: string; columns?: readonly string[] }): Promise<void> {
    const query = view.postgres ?? toPostgresSql(view.queryText);
    const columns = view.columns === undefined ? '' : ` (${view.columns.map(ident).join(', ')})`;
    let mirrored = true;
    try {
      await this.client.query(`CREATE VIEW ${MIRROR_SCHEMA}.${ident(name)}${columns} AS ${query}`);
    } catch {
      // Reported when the view is checked: running its query there fails with PostgreSQL's reason.
      mirrored = false;
    }
    this.views.set(name, { line: view.line, table: view.table, query, mirrored, origin: view.postgres === undefined ? 'translated' : '# postgres:' });
  }

  /** A materialized view was dropped: it is no longer checked, and its mirror view goes (with what reads it). */
  async dropMaterializedView(name: string): Promise<void> {
    if (this.views.get(name)?.mirrored === true) await this.client.query(`DROP VIEW IF EXISTS ${MIRROR_SCHEMA}.${ident(name)} CASCADE`);
    this.views.delete(name);
  }

  /** Forgets the views weir no longer has (dropped by a DROP ... CASCADE of what they read). */
  async forgetViewsExcept(materialized: ReadonlySet<string>, plain: ReadonlySet<string>): Promise<void> {
    for (const name of this.viewNames()) if (!materialized.has(name)) await this.dropMaterializedView(name);
    for (const name of [...this.plainViews]) if (!plain.has(name)) await this.dropView(name);
  }

  /**
   * Copies every mirrored table from weir (a batch query of each, through `read`), then compares
   * each live materialized view with its query run in Postgres. Throws one error describing every
   * view that differs (its name, the statement that created it, the rows on each side) or whose
   * query Postgres could not run; `after` says when the check ran (for the message).
   */
  async check(engine: Engine, read: (sql: string) => Promise<Record<string, unknown>[]>, after: string): Promise<void> {
    if (this.views.size === 0) return;
    try {
      await this.syncTables(read);
    } catch (error) {
      throw new Error(`after ${after}: ${messageOf(error)}`);
    }
    const failures: string[] = [];
    for (const [name, view] of this.views) {
      const failure = await this.compare(engine, name, view);
      if (failure !== undefined) failures.push(failure);
    }
    if (failures.length > 0) throw new Error(`after ${after}:\n${failures.join('\n')}`);
  }

  private async syncTables(read: (sql: string) => Promise<Record<string, unknown>[]>): Promise<void> {
    for (const [name, table] of this.tables) {
      if (table.columns === undefined || !(table.stale || table.fed)) continue;
      const columns = table.columns;
      const rows = await read(`SELECT ${columns.map((c) => flinkIdent(c.name)).join(', ')} FROM ${flinkIdent(name)}`);
      const target = `${MIRROR_SCHEMA}.${ident(name)}`;
      await this.client.query('BEGIN');
      try {
        await this.client.query(`TRUNCATE ${target}`);
        const batch = 500;
        for (let start = 0; start < rows.length; start += batch) {
          const chunk = rows.slice(start, start + batch);
          const params: (string | null)[] = [];
          const tuples = chunk.map((row) => {
            const cells = columns.map((c) => {
              params.push(postgresText(row[c.name], c.pgType));
              return `$${params.length}::${c.pgType}`;
            });
            return `(${cells.join(', ')})`;
          });
          await this.client.query(`INSERT INTO ${target} VALUES ${tuples.join(', ')}`, params);
        }
        await this.client.query('COMMIT');
        table.stale = false;
      } catch (error) {
        await this.client.query('ROLLBACK');
        throw new Error(`could not copy weir's table '${name}' into its Postgres mirror: ${messageOf(error)}`);
      }
    }
  }

  /** Undefined when the view equals its query; else what differs, or why it could not be checked. */
  private async compare(engine: Engine, name: string, view: CheckedView): Promise<string | undefined> {
    const where = `materialized view '${name}' (created at line ${view.line})`;
    try {
      view.columns ??= await viewColumns(engine, name);
    } catch (error) {
      return `${where} could not be checked: reading its columns through weir (SELECT * FROM ${name} WHERE 1 = 0) failed: ${messageOf(error)}`;
    }
    const actual = `SELECT ${view.columns.map(ident).join(', ')} FROM public.${ident(view.table)}`;
    const expected = view.mirrored ? `SELECT * FROM ${MIRROR_SCHEMA}.${ident(name)}` : view.query;
    // The row aliases are names no view column has: a column named like the alias would be shown instead of the row.
    const sql = `WITH expected AS (${expected}), actual AS (${actual})
      SELECT 'missing from the view' AS side, slt_expected_row::text AS row FROM (SELECT * FROM expected EXCEPT ALL SELECT * FROM actual) slt_expected_row
      UNION ALL
      SELECT 'not in the query result', slt_actual_row::text FROM (SELECT * FROM actual EXCEPT ALL SELECT * FROM expected) slt_actual_row
      ORDER BY 1, 2`;
    let differences: ViewDifference[];
    try {
      differences = (await this.client.query<{ side: ViewDifference['side']; row: string }>(sql)).rows;
    } catch (error) {
      const refused = [...this.refusedViews.values()];
      const unmirrorable = [...this.tables].filter(([, t]) => t.unmirrorable !== undefined).map(([table, t]) => `table '${table}' (line ${t.line}) is not mirrored: ${t.unmirrorable}`);
      return [
        `${where} could not be checked: PostgreSQL could not run its ${view.origin === 'translated' ? 'translated query' : "'# postgres:' query"}: ${messageOf(error)}`,
        `  query: ${view.query}`,
        ...(view.origin === 'translated' ? ["  give the view's PostgreSQL text in a '# postgres: <sql>' line right before the statement"] : []),
        ...[...refused, ...unmirrorable].map((note) => `  note: ${note}`),
      ].join('\n');
    }
    if (differences.length === 0) return undefined;
    const shown = differences.slice(0, 20).map((d) => `  ${d.side}: ${d.row}`);
    if (differences.length > 20) shown.push(`  ... and ${differences.length - 20} more`);
    return [`${where} differs from its query run by PostgreSQL (${view.origin === 'translated' ? 'translated:' : view.origin} ${view.query}):`, ...shown].join('\n');
  }
}

/** The columns of a materialized view as weir shows them (`SELECT *` through weir leaves out what it keeps hidden). */
async function viewColumns(engine: Engine, name: string): Promise<string[]> {
  // weir sends this query to Postgres as written, so the name is quoted as Postgres quotes it.
  const [result] = await engine.execute(`SELECT * FROM ${/^[a-z_][a-z0-9_]*$/.test(name) ? name : ident(name)} WHERE 1 = 0`);
  if (result?.kind !== 'rows') throw new Error(`reading materialized view '${name}' through weir gave ${result?.kind ?? 'nothing'}, not rows`);
  return result.schema.map((f) => f.name);
}

/** A Flink identifier, backtick-quoted. */
function flinkIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
