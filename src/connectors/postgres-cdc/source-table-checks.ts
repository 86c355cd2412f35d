/**
 * What must hold before a table can be captured, checked on an ordinary session with messages
 * that say what is wrong and how to fix it: `wal_level = logical`, a role with REPLICATION, the
 * table existing and readable, a primary key equal to the one declared in weir, REPLICA IDENTITY
 * FULL (updates and deletes must carry the whole old row for a retract changelog) or, for an
 * upsert changelog, DEFAULT (deletes carry the primary key), and every weir column present with a
 * type it can be read as.
 */
import type pg from 'pg';
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { formatType } from '../../common/sql-type.js';
import { displayTable, type QualifiedTable } from '../postgres/postgres-ddl.js';
import type { TableName } from '../postgres/postgres-options.js';
import { columnReadable, type SourceColumn } from '../postgres/postgres-text-parser.js';
import type { CdcChangelogMode } from './postgres-cdc-options.js';

/** The captured table as the checks found it. */
export interface CapturedTable {
  readonly name: QualifiedTable;
  readonly oid: number;
  /** The PostgreSQL column each weir column reads, by weir position. */
  readonly columns: readonly CapturedColumn[];
  /** The weir positions of the primary key columns. */
  readonly keyIndexes: readonly number[];
}

/** A column of the table with its type's oid, which the change stream's relation messages name. */
export interface CapturedColumn extends SourceColumn {
  readonly typeOid: number;
}

/** What the checks compare against. */
export interface CaptureSpec {
  /** `postgres-cdc source 'orders'`, to start messages. */
  readonly label: string;
  /** The server as messages show it (password masked). */
  readonly display: string;
  readonly table: TableName;
  readonly schema: Schema;
  readonly primaryKey: readonly string[];
  /** `all` needs REPLICA IDENTITY FULL; `upsert` takes DEFAULT (the primary key) or FULL. */
  readonly changelogMode: CdcChangelogMode;
}

/** Runs every check; throws CONNECTOR_ERROR for the first that fails. */
export async function checkSourceTable(client: pg.Client, spec: CaptureSpec): Promise<CapturedTable> {
  const { label, display } = spec;
  const walLevel = (await client.query<{ wal_level: string }>('SHOW wal_level')).rows[0]!.wal_level;
  if (walLevel !== 'logical') {
    throw new WeirError('CONNECTOR_ERROR', `${label}: the server at ${display} has wal_level = ${walLevel}, but change data capture needs wal_level = logical`, {
      hint: 'set wal_level = logical in postgresql.conf (or ALTER SYSTEM SET wal_level = logical) and restart the server',
    });
  }
  const role = (await client.query<{ name: string; replication: boolean }>('SELECT current_user AS name, rolreplication OR rolsuper AS replication FROM pg_roles WHERE rolname = current_user')).rows[0];
  if (role !== undefined && !role.replication) {
    throw new WeirError('CONNECTOR_ERROR', `${label}: role '${role.name}' at ${display} may not use replication (it lacks the REPLICATION attribute)`, {
      hint: `ALTER ROLE ${role.name} WITH REPLICATION, or connect as a role that has it`,
    });
  }
  const schemaName = spec.table.schema ?? (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]?.schema;
  if (schemaName === null || schemaName === undefined) {
    throw new WeirError('CONNECTOR_ERROR', `${label}: no schema of the search path exists at ${display}; qualify 'table-name' as 'schema.table'`);
  }
  const name: QualifiedTable = { schema: schemaName, table: spec.table.table };
  const shown = displayTable(name);
  const relation = (
    await client.query<{ oid: number; relkind: string; relreplident: string; readable: boolean }>(
      `SELECT c.oid::int AS oid, c.relkind, c.relreplident, has_table_privilege(c.oid, 'SELECT') AS readable
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
      [name.schema, name.table],
    )
  ).rows[0];
  if (relation === undefined) throw new WeirError('CONNECTOR_ERROR', `${label}: table ${shown} does not exist at ${display}`);
  if (relation.relkind !== 'r') throw new WeirError('CONNECTOR_ERROR', `${label}: ${shown} at ${display} is not an ordinary table (relkind '${relation.relkind}'), so it cannot be captured`);
  if (!relation.readable) throw new WeirError('CONNECTOR_ERROR', `${label}: role '${role?.name ?? '?'}' may not read ${shown} at ${display}`, { hint: `GRANT SELECT ON ${shown} TO ${role?.name ?? 'the role'}` });

  const tableKey = (
    await client.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
         JOIN pg_attribute a ON a.attnum = k.attnum WHERE i.indrelid = $1 AND i.indisprimary AND a.attrelid = $1 ORDER BY k.position`,
      [relation.oid],
    )
  ).rows.map((r) => r.name);
  if (tableKey.length === 0) {
    throw new WeirError('CONNECTOR_ERROR', `${label}: table ${shown} has no primary key, so its changes cannot be keyed`, { hint: `ALTER TABLE ${shown} ADD PRIMARY KEY (...)` });
  }
  const declared = spec.primaryKey;
  if (declared.length !== tableKey.length || declared.some((column) => !tableKey.some((k) => sameName(k, column)))) {
    throw new WeirError('CONNECTOR_ERROR', `${label} declares PRIMARY KEY (${declared.join(', ')}), but the primary key of ${shown} is (${tableKey.join(', ')})`, {
      hint: `declare PRIMARY KEY (${tableKey.join(', ')}) NOT ENFORCED`,
    });
  }
  const identity = { d: 'DEFAULT', n: 'NOTHING', i: 'USING INDEX', f: 'FULL' }[relation.relreplident] ?? relation.relreplident;
  if (spec.changelogMode === 'upsert' && relation.relreplident !== 'f' && relation.relreplident !== 'd') {
    throw new WeirError('CONNECTOR_ERROR', `${label}: table ${shown} has REPLICA IDENTITY ${identity}, so its deletes do not carry the primary key an upsert changelog is keyed by`, {
      hint: `ALTER TABLE ${shown} REPLICA IDENTITY DEFAULT (the primary key) or FULL`,
    });
  }
  if (spec.changelogMode === 'all' && relation.relreplident !== 'f') {
    throw new WeirError('CONNECTOR_ERROR', `${label}: table ${shown} has REPLICA IDENTITY ${identity}, so its updates and deletes do not carry the old row a retract changelog needs`, {
      hint: `ALTER TABLE ${shown} REPLICA IDENTITY FULL, or read the table as an upsert changelog with 'changelog-mode' = 'upsert' (weir then keeps the last row of each key in state)`,
    });
  }

  const existing = (
    await client.query<{ name: string; base: string; typeOid: number; typmod: number; type: string }>(
      `SELECT a.attname AS name, t.typname AS base, a.atttypid::int AS "typeOid", a.atttypmod AS typmod, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [relation.oid],
    )
  ).rows;
  const columns = spec.schema.map((field) => {
    const column = existing.find((c) => c.name === field.name) ?? uniqueFolded(existing, field.name);
    if (column === undefined) throw new WeirError('CONNECTOR_ERROR', `${label}: column '${field.name}' does not exist in ${shown} (it has ${existing.map((c) => c.name).join(', ')})`);
    if (!columnReadable(column, field.type)) {
      throw new WeirError('CONNECTOR_ERROR', `${label}: column '${field.name}' of ${shown} is ${column.type}, which cannot be read as ${formatType({ ...field.type, nullable: true })} without loss`);
    }
    return { name: column.name, base: column.base, typeOid: column.typeOid, typmod: column.typmod };
  });
  const keyIndexes = tableKey.map((key) => columns.findIndex((c) => c.name === key));
  const missing = tableKey.filter((_, i) => keyIndexes[i]! < 0);
  if (missing.length > 0) throw new WeirError('CONNECTOR_ERROR', `${label}: primary key column(s) ${missing.join(', ')} of ${shown} are not columns of the weir table`);
  return { name, oid: relation.oid, columns, keyIndexes };
}

/** PostgreSQL folds unquoted names to lower case; weir keeps case, so a name matches case-insensitively when that is unambiguous. */
function uniqueFolded<C extends { name: string }>(columns: readonly C[], name: string): C | undefined {
  const matches = columns.filter((c) => sameName(c.name, name));
  return matches.length === 1 ? matches[0] : undefined;
}

function sameName(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}
