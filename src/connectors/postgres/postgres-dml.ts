/**
 * The statements that write buffered changes: each column travels as one typed array parameter
 * and `unnest` turns the arrays back into rows, so a statement carries as many parameters as
 * the table has columns (far from the 65,535 limit) and thousands of rows:
 *
 *   INSERT INTO t (a, b) SELECT * FROM unnest($1::integer[], $2::text[])
 *     [ON CONFLICT (a) DO UPDATE SET b = EXCLUDED.b | ON CONFLICT (a, b) DO NOTHING]
 *   DELETE FROM t AS target USING unnest($1::integer[]) AS change (a) WHERE target.a = change.a
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
  /** Indexes of the primary key columns; empty for an append sink, whose rows are plain inserts. */
  readonly keyIndexes: readonly number[];
}

/** The statements that apply the writes, deletes first (a deleted key may free a value another row's unique index needs). */
export function writeStatements(db: Kysely<WeirDatabase>, target: WriteTarget, writes: BufferedWrites): Compilable[] {
  const statements: Compilable[] = [];
  for (let from = 0; from < writes.deletes.length; from += ROWS_PER_STATEMENT) {
    statements.push(deleteStatement(db, target, writes.deletes, from, Math.min(from + ROWS_PER_STATEMENT, writes.deletes.length)));
  }
  for (let from = 0; from < writes.rows.length; from += ROWS_PER_STATEMENT) {
    statements.push(insertStatement(db, target, writes.rows, from, Math.min(from + ROWS_PER_STATEMENT, writes.rows.length)));
  }
  return statements;
}

function insertStatement(db: Kysely<WeirDatabase>, target: WriteTarget, rows: readonly Row[], from: number, to: number): Compilable {
  const all = target.columns.map((_name, i) => i);
  const insert = sql`INSERT INTO ${sql.id(target.table.schema, target.table.table)} (${identifiers(target.columns)}) SELECT * FROM unnest(${arrays(target, all, rows, from, to)})`;
  if (target.keyIndexes.length === 0) return compilable(db, insert);
  const keys = identifiers(target.keyIndexes.map((i) => target.columns[i]!));
  const others = target.columns.filter((_name, i) => !target.keyIndexes.includes(i));
  const action =
    others.length === 0 ? sql`DO NOTHING` : sql`DO UPDATE SET ${sql.join(others.map((name) => sql`${sql.id(name)} = EXCLUDED.${sql.id(name)}`))}`;
  return compilable(db, sql`${insert} ON CONFLICT (${keys}) ${action}`);
}

function deleteStatement(db: Kysely<WeirDatabase>, target: WriteTarget, rows: readonly Row[], from: number, to: number): Compilable {
  const keys = target.keyIndexes.map((i) => target.columns[i]!);
  const matches = keys.map((name) => sql`${sql.id('target', name)} = ${sql.id('change', name)}`);
  return compilable(
    db,
    sql`DELETE FROM ${sql.id(target.table.schema, target.table.table)} AS ${sql.id('target')} USING unnest(${arrays(target, target.keyIndexes, rows, from, to)}) AS ${sql.id('change')} (${identifiers(keys)}) WHERE ${sql.join(matches, sql` AND `)}`,
  );
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
