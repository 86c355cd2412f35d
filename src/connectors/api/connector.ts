/**
 * A connector as the engine registers it: its descriptor (options, boundedness, changelog kinds,
 * validated at DDL time) and the factories the runtime uses to read and write.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { Row } from '../../common/row.js';
import type { Schema } from '../../common/schema.js';
import type { LookupFactory } from '../../runtime/lookup-source.js';
import type { SinkFactory } from '../../runtime/sink-writer.js';
import type { SourceFactory } from '../../runtime/source-reader.js';

/** One connector (`'connector' = descriptor.name`). */
export interface Connector {
  readonly descriptor: ConnectorDescriptor;
  readonly source?: SourceFactory;
  readonly sink?: SinkFactory;
  /** Present when the connector's tables can be looked up by key (the table side of a lookup join); `descriptor.lookup` says so too. */
  readonly lookup?: LookupFactory;
  /** Present when the tables a sink writes live in a database weir can query and drop (materialized views). */
  readonly tables?: ExternalTables;
}

/** A finite result read from an external database, typed for weir. */
export interface ExternalResult {
  readonly schema: Schema;
  readonly rows: readonly Row[];
}

/** The tables of a sink connector outside any job: reading them and dropping them. */
export interface ExternalTables {
  /**
   * Runs one read-only SQL statement, as written, on the database of the table with `options`
   * (the sink's own server resolution). Columns of types weir does not know arrive as text.
   */
  query(options: Readonly<Record<string, string>>, sql: string): Promise<ExternalResult>;
  /**
   * Drops the table named by `options` (default name `table`) and forgets the commits of job
   * `jobKey`'s sink `table` into it, so that a new sink of the same name starts afresh;
   * transactions that sink left prepared are rolled back first. Idempotent.
   */
  drop(options: Readonly<Record<string, string>>, table: string, jobKey: string): Promise<void>;
}

