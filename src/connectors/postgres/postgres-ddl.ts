/**
 * The target table: created from the sink's schema and primary key when it does not exist,
 * checked when it does (every column present and able to hold its type, columns the sink does not
 * write nullable or defaulted, a unique key on the primary key for upserts). Identifiers are
 * always quoted, so names keep their case and may hold any character.
 *
 * Setup runs in one transaction under an advisory lock, so that the subtasks of a sink (and other
 * sinks) starting together do not race on CREATE.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { ensureCommitLog } from './commit-log.js';
import type { WeirDatabase } from './postgres-database.js';
import { columnHolds, describeType, MAX_POSTGRES_TIME_PRECISION, postgresType, type ExistingColumn } from './postgres-types.js';

/** A table by schema and name, both as PostgreSQL stores them. */
export interface QualifiedTable {
  readonly schema: string;
  readonly table: string;
}

/** What the sink writes: its columns and primary key (empty for an append or multiset sink). */
export interface TargetSpec {
  /** The weir sink table, for messages. */
  readonly sink: string;
  readonly target: QualifiedTable;
  readonly schema: Schema;
  readonly primaryKey: readonly string[];
  /** The table holds a multiset: a hidden column {@link MULTISET_HASH_COLUMN}, indexed, holds each row's content hash. */
  readonly multiset?: boolean;
}

/**
 * The hidden column of a multiset table (a materialized view of a query without a unique key):
 * each row's content hash, indexed, by which a retraction finds a row equal to it. Reads through
 * weir leave it out.
 */
export const MULTISET_HASH_COLUMN = '_weir_row_hash';

const SETUP_LOCK = 'weir postgres sink setup';

/** Creates or checks the bookkeeping table and the target table; throws CONNECTOR_ERROR naming the column at fault. */
export async function prepareTarget(db: Kysely<WeirDatabase>, spec: TargetSpec): Promise<void> {
  checkKeyPrecision(spec);
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${SETUP_LOCK}))`.execute(trx);
    await ensureCommitLog(trx);
    const kind = await relationKind(trx, spec.target);
    if (kind === undefined) {
      await createTable(trx, spec);
    } else if (kind !== 'r' && kind !== 'p') {
      throw new WeirError('CONNECTOR_ERROR', `postgres sink '${spec.sink}': ${displayTable(spec.target)} is not a table (relkind '${kind}')`);
    }
    const columns = await readColumns(trx, spec.target);
    checkColumns(spec, columns);
    if (spec.primaryKey.length > 0) await checkUniqueKey(trx, spec);
    if (spec.multiset === true && !columns.some((c) => c.name === MULTISET_HASH_COLUMN)) {
      throw new WeirError('CONNECTOR_ERROR', `postgres sink '${spec.sink}': table ${displayTable(spec.target)} has no column "${MULTISET_HASH_COLUMN}", which a view without a unique key keeps its rows' hashes in`, {
        hint: 'drop the table so that weir creates it',
      });
    }
  });
}

/**
 * PostgreSQL keeps timestamps to the microsecond, and the sink writes a TIMESTAMP(7..9) truncated
 * to it: in the primary key, two keys less than a microsecond apart would be one row of the
 * table (an upsert of one overwriting the other, a delete of one deleting both). Refused, naming
 * the column and the CAST that makes the key what the table can hold.
 */
function checkKeyPrecision(spec: TargetSpec): void {
  for (const name of spec.primaryKey) {
    const type = spec.schema.find((f) => f.name === name)?.type;
    if (type === undefined || (type.kind !== 'TIMESTAMP' && type.kind !== 'TIMESTAMP_LTZ') || type.precision <= MAX_POSTGRES_TIME_PRECISION) continue;
    throw new WeirError(
      'CONNECTOR_ERROR',
      `postgres sink '${spec.sink}': key column "${name}" is ${describeType(type)}, and PostgreSQL keeps timestamps to the microsecond: keys less than a microsecond apart would be one row`,
      { hint: `key the sink by CAST(${name} AS ${type.kind}(${MAX_POSTGRES_TIME_PRECISION})), or by another column` },
    );
  }
}

/** The schema unqualified names resolve to (the first existing schema on the search path). */
export async function currentSchema(db: Kysely<WeirDatabase>, sink: string): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema === null || schema === undefined) {
    throw new WeirError('CONNECTOR_ERROR', `postgres sink '${sink}': no schema of the search path exists; qualify 'table-name' as 'schema.table'`);
  }
  return schema;
}

/** `schema.table`, each part quoted only when PostgreSQL would need it. */
export function displayTable(table: QualifiedTable): string {
  return `${displayIdentifier(table.schema)}.${displayIdentifier(table.table)}`;
}

function displayIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

async function relationKind(trx: Transaction<WeirDatabase>, target: QualifiedTable): Promise<string | undefined> {
  const { rows } = await sql<{ relkind: string }>`
    SELECT c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ${target.schema} AND c.relname = ${target.table}`.execute(trx);
  return rows[0]?.relkind;
}

/**
 * A new table: a primary key on the key columns when none of them may be NULL, else (from
 * PostgreSQL 15) a unique constraint NULLS NOT DISTINCT, which upserts by that key with a NULL key
 * one key, as in a GROUP BY (an older server gets the primary key, and a NULL key fails there as a
 * NOT NULL violation); a multiset table gets its hidden hash column and an index on it.
 */
async function createTable(trx: Transaction<WeirDatabase>, spec: TargetSpec): Promise<void> {
  const { schema, table } = spec.target;
  const columns = spec.schema.map((field) => sql`${sql.id(field.name)} ${sql.raw(postgresType(field.type))}${sql.raw(field.type.nullable ? '' : ' NOT NULL')}`);
  const keyColumns = sql.join(spec.primaryKey.map((name) => sql.id(name)));
  const nullableKey = spec.primaryKey.some((name) => spec.schema.find((f) => f.name === name)?.type.nullable !== false) && (await serverVersion(trx)) >= 150000;
  const key = spec.primaryKey.length === 0 ? [] : nullableKey ? [sql`UNIQUE NULLS NOT DISTINCT (${keyColumns})`] : [sql`PRIMARY KEY (${keyColumns})`];
  const hash = spec.multiset === true ? [sql`${sql.id(MULTISET_HASH_COLUMN)} bigint NOT NULL`] : [];
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(trx);
  await sql`CREATE TABLE ${sql.id(schema, table)} (${sql.join([...columns, ...hash, ...key])})`.execute(trx);
  if (spec.multiset === true) await sql`CREATE INDEX ON ${sql.id(schema, table)} (${sql.id(MULTISET_HASH_COLUMN)})`.execute(trx);
}

async function serverVersion(trx: Transaction<WeirDatabase>): Promise<number> {
  const { rows } = await sql<{ server_version_num: string }>`SHOW server_version_num`.execute(trx);
  return Number(rows[0]?.server_version_num ?? 0);
}

async function readColumns(trx: Transaction<WeirDatabase>, target: QualifiedTable): Promise<ExistingColumn[]> {
  const { rows } = await sql<{ name: string; type: string; base: string; typmod: number; not_null: boolean; has_default: boolean }>`
    SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typname AS base, a.atttypmod AS typmod,
           a.attnotnull AS not_null, (a.atthasdef OR a.attidentity <> '') AS has_default
    FROM pg_catalog.pg_attribute a
    JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
    WHERE n.nspname = ${target.schema} AND c.relname = ${target.table} AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attnum`.execute(trx);
  return rows.map((r) => ({ name: r.name, type: r.type, base: r.base, typmod: r.typmod, notNull: r.not_null, hasDefault: r.has_default }));
}

/** Throws at the first column of the sink that the table lacks or that cannot hold its type, or at a NOT NULL column the sink leaves out. */
function checkColumns(spec: TargetSpec, existing: readonly ExistingColumn[]): void {
  const byName = new Map(existing.map((column) => [column.name, column]));
  const table = displayTable(spec.target);
  for (const field of spec.schema) {
    const column = byName.get(field.name);
    if (column === undefined) {
      throw new WeirError('CONNECTOR_ERROR', `postgres sink '${spec.sink}': table ${table} has no column "${field.name}" (${describeType(field.type)})`, {
        hint: `add the column, or drop the table so that weir creates it`,
      });
    }
    if (!columnHolds(column, field.type)) {
      throw new WeirError('CONNECTOR_ERROR', `postgres sink '${spec.sink}': column "${field.name}" of ${table} is ${column.type}, which cannot hold ${describeType(field.type)}`, {
        hint: `change the column to ${postgresType(field.type)}, or drop the table so that weir creates it`,
      });
    }
  }
  const written = new Set([...spec.schema.map((field) => field.name), ...(spec.multiset === true ? [MULTISET_HASH_COLUMN] : [])]);
  for (const column of existing) {
    if (!written.has(column.name) && column.notNull && !column.hasDefault) {
      throw new WeirError('CONNECTOR_ERROR', `postgres sink '${spec.sink}': column "${column.name}" of ${table} is NOT NULL without a default, and the sink does not write it`);
    }
  }
}

async function checkUniqueKey(trx: Transaction<WeirDatabase>, spec: TargetSpec): Promise<void> {
  const { rows } = await sql<{ columns: string[] }>`
    SELECT array_agg(a.attname::text ORDER BY a.attname) AS columns
    FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
    WHERE n.nspname = ${spec.target.schema} AND c.relname = ${spec.target.table}
      AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
    GROUP BY i.indexrelid`.execute(trx);
  const wanted = [...spec.primaryKey].sort().join('\u0000');
  if (rows.some((row) => [...row.columns].sort().join('\u0000') === wanted)) return;
  const key = spec.primaryKey.map((name) => `"${name}"`).join(', ');
  throw new WeirError(
    'CONNECTOR_ERROR',
    `postgres sink '${spec.sink}': table ${displayTable(spec.target)} has no primary key or unique index on (${key}), which upserts by the sink's primary key need`,
    { hint: `add PRIMARY KEY (${key}) to the table, or drop it so that weir creates it` },
  );
}
