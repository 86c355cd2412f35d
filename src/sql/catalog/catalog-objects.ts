/**
 * What the catalog stores: tables (with computed columns and watermarks, bound at DDL time) and
 * views (kept as syntax and expanded where they are used, as Flink does).
 */
import type { ConnectorDescriptor, ConnectorTraits } from '../../common/connector-descriptor.js';
import type { Schema } from '../../common/schema.js';
import type { SqlType } from '../../common/sql-type.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import type { Query } from '../parse/ast.js';

/** A column of a table: physical (read from the connector) or computed from physical ones. */
export type TableColumn =
  | { readonly kind: 'physical'; readonly name: string; readonly type: SqlType }
  | {
      readonly kind: 'computed';
      readonly name: string;
      readonly type: SqlType;
      /** Over the physical columns, in physical order. */
      readonly expr: ScalarExpr;
      /** The expression as written, for SHOW CREATE TABLE. */
      readonly text: string;
    };

/** `WATERMARK FOR column AS expr`, bound over the table's columns (physical then computed). */
export interface TableWatermark {
  readonly column: string;
  readonly expr: ScalarExpr;
  readonly text: string;
}

/** A table created by CREATE TABLE. */
export interface CatalogTable {
  readonly kind: 'table';
  readonly name: string;
  readonly temporary: boolean;
  readonly columns: readonly TableColumn[];
  readonly watermark?: TableWatermark;
  readonly primaryKey: readonly string[];
  readonly partitionedBy: readonly string[];
  readonly options: ReadonlyMap<string, string>;
  readonly connector: ConnectorDescriptor;
  /** Source traits for these options; undefined when the connector cannot be read. */
  readonly traits?: ConnectorTraits;
  readonly comment?: string;
  /** The statement that created it, as written. */
  readonly ddl: string;
}

/** A view created by CREATE VIEW: the query as written, with the schema it had when created. */
export interface CatalogView {
  readonly kind: 'view';
  readonly name: string;
  readonly temporary: boolean;
  readonly query: Query;
  readonly queryText: string;
  readonly columnNames?: readonly string[];
  readonly schema: Schema;
  readonly ddl: string;
}

/**
 * A materialized view: a query kept equal to a Postgres table by a job that runs while weir runs.
 * Its primary key is inferred from the query (GROUP BY keys, a source's primary key, a join of
 * keyed inputs); a query without one makes a multiset table.
 */
export interface CatalogMaterializedView {
  readonly kind: 'materialized-view';
  readonly name: string;
  readonly queryText: string;
  readonly schema: Schema;
  readonly primaryKey: readonly string[];
  /** Its table holds a multiset (the query has no key): a hidden column identifies rows; reads through weir leave it out. */
  readonly multiset: boolean;
  /** The options of its Postgres sink (`url` masked when printed). */
  readonly options: ReadonlyMap<string, string>;
  readonly ddl: string;
  /** The key of the job that maintains it: its checkpoints and the commits of its sink. */
  readonly jobKey: string;
  /** Names this view's part of that job; a view created again gets a new one, so it never resumes an older view's state. */
  readonly instance: string;
  /** DROP leaves the table in Postgres (`'keep-table-on-drop' = 'true'`). */
  readonly keepTableOnDrop: boolean;
}

/** Anything FROM can name. */
export type CatalogRelation = CatalogTable | CatalogView;

/** The physical columns of a table, in order: what its connector reads and writes. */
export function physicalSchema(table: CatalogTable): Schema {
  return table.columns.filter((c) => c.kind === 'physical').map((c) => ({ name: c.name, type: c.type }));
}

/** All columns of a table, physical and computed, in declaration order. */
export function fullSchema(table: CatalogTable): Schema {
  return table.columns.map((c) => ({ name: c.name, type: c.type }));
}
