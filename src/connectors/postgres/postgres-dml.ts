/**
 * The statements that write buffered changes: each column travels as one typed array parameter
 * and `unnest` turns the arrays back into rows, so a statement carries as many parameters as
 * the table has columns (far from the 65,535 limit) and thousands of rows:
 *
 *   INSERT INTO t (a, b) SELECT * FROM unnest($1::integer[], $2::text[])
 *     [ON CONFLICT (a) DO UPDATE SET b = EXCLUDED.b | ON CONFLICT (a, b) DO NOTHING]
 *   DELETE FROM t AS target USING unnest($1::integer[]) AS change (a) WHERE target.a = change.a
 *
 * A key column that may be NULL (a unique index NULLS NOT DISTINCT) is matched with IS NULL in a
 * statement of its own for the keys where it is NULL, so that every other match stays an indexed
 * equality. A multiset table (no key; a hidden column with each row's content hash) inserts
 * `copies` of each row, and deletes that many rows equal to it, found by hash and compared whole:
 *
 *   INSERT INTO t (a, b, _weir_row_hash) SELECT c.a, c.b, c.h FROM unnest($h::int8[], $n::int4[], $a, $b)
 *     AS c (h, n, a, b) CROSS JOIN LATERAL generate_series(1, c.n)
 *   DELETE FROM t WHERE ctid = ANY (ARRAY(SELECT m.ctid FROM (SELECT target.ctid, row_number() OVER
 *     (PARTITION BY c.i ORDER BY target.ctid) AS k, c.n FROM unnest(...) WITH ORDINALITY AS c (h, n, a, b, i)
 *     JOIN t AS target ON target._weir_row_hash = c.h AND target.a IS NOT DISTINCT FROM c.a AND ...) m WHERE m.k <= m.n))
 *
 * The number of rows a multiset DELETE removed is checked: fewer than asked means the table lacks
 * rows the view retracts (changed outside weir), which fails the write rather than going unnoticed.
 */
import { sql, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import type { Row } from '../../common/row.js';
import type { BufferedWrites } from './change-buffer.js';
import type { QualifiedTable } from './postgres-ddl.js';
import type { WeirDatabase } from './postgres-database.js';
import type { ValueEncoder } from './postgres-types.js';

/** Rows per statement: big enough that round trips do not matter, small enough to bound a statement's size. */
export const ROWS_PER_STATEMENT = 10_000;

/** How rows reach one table. */
export interface WriteTarget {
  readonly table: QualifiedTable;
  readonly columns: readonly string[];
  /** Per column, the element type of its array parameter (`arrayElementType` of postgres-types.ts). */
  readonly elementTypes: readonly string[];
  readonly encoders: readonly ValueEncoder[];
  /** Indexes of the primary key columns; empty for an append or multiset sink. */
  readonly keyIndexes: readonly number[];
  /** Per column: whether it may hold NULL (key columns that may are matched with IS NULL). */
  readonly nullable: readonly boolean[];
  /** The table holds a multiset: rows carry their content hash in a hidden column (see postgres-ddl.ts). */
  readonly multiset?: { readonly hashColumn: string };
}

/** A statement and, for a multiset DELETE, how many rows it must remove. */
export interface WriteStatement extends Compilable {
  readonly expectedRows?: number;
}

/** The statements that apply the writes, deletes first (a deleted key may free a value another row's unique index needs). */
export function writeStatements(db: Kysely<WeirDatabase>, target: WriteTarget, writes: BufferedWrites): WriteStatement[] {
  const statements: WriteStatement[] = [];
  const chunks = (count: number, make: (from: number, to: number) => WriteStatement): void => {
    for (let from = 0; from < count; from += ROWS_PER_STATEMENT) statements.push(make(from, Math.min(from + ROWS_PER_STATEMENT, count)));
  };
  const { multiset } = writes;
  if (target.multiset !== undefined && multiset !== undefined) {
    const hashColumn = target.multiset.hashColumn;
    chunks(writes.deletes.length, (from, to) => multisetDelete(db, target, hashColumn, writes.deletes, multiset.deleteCopies, multiset.deleteHashes, from, to));
    chunks(writes.rows.length, (from, to) => multisetInsert(db, target, hashColumn, writes.rows, multiset.rowCopies, multiset.rowHashes, from, to));
    return statements;
  }
  for (const group of byNullKeys(target, writes.deletes)) chunks(group.rows.length, (from, to) => deleteStatement(db, target, group.present, group.absent, group.rows, from, to));
  chunks(writes.rows.length, (from, to) => insertStatement(db, target, writes.rows, from, to));
  return statements;
}

function insertStatement(db: Kysely<WeirDatabase>, target: WriteTarget, rows: readonly Row[], from: number, to: number): Compilable {
  const all = target.columns.map((_name, i) => i);
  const insert = sql`INSERT INTO ${tableId(target)} (${identifiers(target.columns)}) SELECT * FROM unnest(${arrays(target, all, rows, from, to)})`;
  if (target.keyIndexes.length === 0) return compilable(db, insert);
  const keys = identifiers(target.keyIndexes.map((i) => target.columns[i]!));
  const others = target.columns.filter((_name, i) => !target.keyIndexes.includes(i));
  const action =
    others.length === 0 ? sql`DO NOTHING` : sql`DO UPDATE SET ${sql.join(others.map((name) => sql`${sql.id(name)} = EXCLUDED.${sql.id(name)}`))}`;
  return compilable(db, sql`${insert} ON CONFLICT (${keys}) ${action}`);
}

/** Deleted keys grouped by which of their nullable columns are NULL: `present` are matched by equality, `absent` by IS NULL. */
function byNullKeys(target: WriteTarget, rows: readonly Row[]): { present: number[]; absent: number[]; rows: Row[] }[] {
  const nullableKeys = target.keyIndexes.filter((i) => target.nullable[i]);
  if (nullableKeys.length === 0) return rows.length === 0 ? [] : [{ present: [...target.keyIndexes], absent: [], rows: [...rows] }];
  const groups = new Map<string, { present: number[]; absent: number[]; rows: Row[] }>();
  for (const row of rows) {
    const absent = nullableKeys.filter((i) => row[i] === null || row[i] === undefined);
    const mask = absent.join(',');
    let group = groups.get(mask);
    if (group === undefined) groups.set(mask, (group = { present: target.keyIndexes.filter((i) => !absent.includes(i)), absent, rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()];
}

function deleteStatement(db: Kysely<WeirDatabase>, target: WriteTarget, present: readonly number[], absent: readonly number[], rows: readonly Row[], from: number, to: number): Compilable {
  const isNull = absent.map((i) => sql`${sql.id('target', target.columns[i]!)} IS NULL`);
  if (present.length === 0) {
    // Only the key of all NULLs: at most one row.
    return compilable(db, sql`DELETE FROM ${tableId(target)} AS ${sql.id('target')} WHERE ${sql.join(isNull, sql` AND `)}`);
  }
  const keys = present.map((i) => target.columns[i]!);
  const matches = [...keys.map((name) => sql`${sql.id('target', name)} = ${sql.id('change', name)}`), ...isNull];
  return compilable(
    db,
    sql`DELETE FROM ${tableId(target)} AS ${sql.id('target')} USING unnest(${arrays(target, present, rows, from, to)}) AS ${sql.id('change')} (${identifiers(keys)}) WHERE ${sql.join(matches, sql` AND `)}`,
  );
}

/** `copies` of each row, with its content hash in the hidden column. */
function multisetInsert(db: Kysely<WeirDatabase>, target: WriteTarget, hashColumn: string, rows: readonly Row[], copies: readonly number[], hashes: readonly number[], from: number, to: number): WriteStatement {
  const all = target.columns.map((_name, i) => i);
  const names = target.columns.map((_name, i) => `c${i}`);
  const values = sql.join(names.map((name) => sql.id('c', name)));
  return compilable(
    db,
    sql`INSERT INTO ${tableId(target)} (${identifiers(target.columns)}, ${sql.id(hashColumn)}) SELECT ${values}, ${sql.id('c', 'h')} FROM unnest(${counts(hashes, copies, from, to)}, ${arrays(target, all, rows, from, to)}) AS ${sql.id('c')} (${sql.id('h')}, ${sql.id('n')}, ${identifiers(names)}) CROSS JOIN LATERAL generate_series(1, ${sql.id('c', 'n')})`,
  );
}

/** Removes `copies` rows equal to each row (found by the hash column, compared whole); expects exactly that many. */
function multisetDelete(db: Kysely<WeirDatabase>, target: WriteTarget, hashColumn: string, rows: readonly Row[], copies: readonly number[], hashes: readonly number[], from: number, to: number): WriteStatement {
  const all = target.columns.map((_name, i) => i);
  const names = target.columns.map((_name, i) => `c${i}`);
  const equal = target.columns.map((column, i) => sql`${sql.id('target', column)} IS NOT DISTINCT FROM ${sql.id('c', names[i]!)}`);
  const matches = sql.join([sql`${sql.id('target', hashColumn)} = ${sql.id('c', 'h')}`, ...equal], sql` AND `);
  const candidates = sql`SELECT ${sql.id('target', 'ctid')} AS ${sql.id('row')}, row_number() OVER (PARTITION BY ${sql.id('c', 'i')} ORDER BY ${sql.id('target', 'ctid')}) AS ${sql.id('k')}, ${sql.id('c', 'n')} FROM unnest(${counts(hashes, copies, from, to)}, ${arrays(target, all, rows, from, to)}) WITH ORDINALITY AS ${sql.id('c')} (${sql.id('h')}, ${sql.id('n')}, ${identifiers(names)}, ${sql.id('i')}) JOIN ${tableId(target)} AS ${sql.id('target')} ON ${matches}`;
  let expectedRows = 0;
  for (let r = from; r < to; r++) expectedRows += copies[r]!;
  const statement = compilable(db, sql`DELETE FROM ${tableId(target)} WHERE ctid = ANY (ARRAY(SELECT ${sql.id('m', 'row')} FROM (${candidates}) AS ${sql.id('m')} WHERE ${sql.id('m', 'k')} <= ${sql.id('m', 'n')}))`);
  return { ...statement, expectedRows };
}

/** The hash and copies arrays of rows `from` to `to`. */
function counts(hashes: readonly number[], copies: readonly number[], from: number, to: number): RawBuilder<unknown> {
  return sql`${sql.val(hashes.slice(from, to).map(String))}::int8[], ${sql.val(copies.slice(from, to))}::int4[]`;
}

function tableId(target: WriteTarget): RawBuilder<unknown> {
  return sql.id(target.table.schema, target.table.table);
}

/** One typed array parameter per column, holding the encoded values of rows `from` to `to`. */
function arrays(target: WriteTarget, indexes: readonly number[], rows: readonly Row[], from: number, to: number): RawBuilder<unknown> {
  return sql.join(
    indexes.map((index) => {
      const encode = target.encoders[index]!;
      const values = new Array<string | null>(to - from);
      for (let r = from; r < to; r++) values[r - from] = encode(rows[r]![index]);
      return sql`${sql.val(values)}::${sql.raw(`${target.elementTypes[index]!}[]`)}`;
    }),
  );
}

function identifiers(names: readonly string[]): RawBuilder<unknown> {
  return sql.join(names.map((name) => sql.id(name)));
}

function compilable(db: Kysely<WeirDatabase>, query: RawBuilder<unknown>): Compilable {
  return { compile: () => query.compile(db) };
}
