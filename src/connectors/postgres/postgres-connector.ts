/**
 * The `postgres` connector, as a sink: rows land in a PostgreSQL table exactly once with
 * checkpoints (two-phase commit, `'sink.semantic' = 'exactly-once'`, the default) or at least once
 * (plain commits). A table with a primary key takes updating queries as upserts by that key;
 * without one, only inserts. The target table is created when missing. As the table of a lookup
 * join: queried by key, with Flink JDBC's lookup cache and retry options.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { SinkSpec } from '../../dataflow/job-graph.js';
import { WeirError } from '../../common/errors.js';
import type { Connector } from '../api/connector.js';
import { LOOKUP_OPTION_SPECS, parseLookupOptions, type LookupOptions } from '../lookup/lookup-options.js';
import { checkIdentifierLength, DEFAULT_MAX_BUFFERED_ROWS, DEFAULT_PREPARED_WARN_AGE, DEFAULT_TRANSACTION_GROUP, NO_TRANSACTION_GROUP, parsePostgresSinkOptions, SINK_SEMANTICS } from './postgres-options.js';
import { postgresExternalTables } from './postgres-external-tables.js';
import { PostgresLookupFunction } from './postgres-lookup-function.js';
import { PostgresSinkWriter } from './postgres-sink-writer.js';

/** What `'connector' = 'postgres'` declares: an upsert sink. */
export const postgresDescriptor: ConnectorDescriptor = {
  name: 'postgres',
  description: 'Writes into a PostgreSQL table, exactly once with checkpoints (two-phase commit), upserting by the primary key when there is one.',
  options: [
    {
      key: 'url',
      description: 'The server, as postgres://user:password@host:5432/database. Default: DATABASE_URL, else the PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE variables.',
    },
    { key: 'table-name', description: "The target table, 'table' or 'schema.table' (names are taken as written; double-quote one that holds a dot). Default: the table's own name." },
    { key: 'sink.semantic', description: 'exactly-once: two-phase commit per checkpoint; at-least-once: plain commits (a replay duplicates appended rows).', values: SINK_SEMANTICS, default: 'exactly-once' },
    { key: 'sink.buffer-flush.max-rows', description: 'Buffered rows per subtask beyond which they are written into the open transaction before the checkpoint.', default: String(DEFAULT_MAX_BUFFERED_ROWS) },
    { key: 'sink.parallelism', description: 'Parallelism of the sink.' },
    {
      key: 'sink.transaction-group',
      description: `Exactly-once sinks of one job that write to the same database and name the same group commit each checkpoint in one transaction, so readers see their tables at the same checkpoint; '${NO_TRANSACTION_GROUP}' commits this sink alone.`,
      default: DEFAULT_TRANSACTION_GROUP,
    },
    {
      key: 'sink.prepared-transaction.warn-age',
      description: "An exactly-once sink warns at the start of its job about weir's prepared transactions in the cluster older than this (left by jobs that will not come back: they hold locks and block VACUUM; `weir doctor` lists and rolls them back); '0' never warns.",
      default: DEFAULT_PREPARED_WARN_AGE,
    },
    ...LOOKUP_OPTION_SPECS,
  ],
  sink: { accepts: 'upsert' },
  lookup: true,
  validate(options, schema) {
    parsePostgresSinkOptions(options);
    parsePostgresLookupOptions(options);
    for (const field of schema) checkIdentifierLength(field.name, `column name`);
  },
};

/** The `postgres` connector as the engine registers it. */
export const postgresConnector: Connector = {
  descriptor: postgresDescriptor,
  sink: { createWriter: (spec) => new PostgresSinkWriter(withJobKey(spec)) },
  lookup: {
    createLookup: (spec) => {
      const options = new Map(Object.entries(spec.options));
      return new PostgresLookupFunction(spec, parsePostgresSinkOptions(options), parsePostgresLookupOptions(options));
    },
  },
  tables: postgresExternalTables,
};

/**
 * The lookup options; as in Flink's JDBC connector the cache is on only when both
 * `'lookup.cache.max-rows'` and `'lookup.cache.ttl'` are given.
 */
function parsePostgresLookupOptions(options: ReadonlyMap<string, string>): LookupOptions {
  const parsed = parseLookupOptions(options, 0);
  if (options.has('lookup.cache.max-rows') !== options.has('lookup.cache.ttl')) {
    throw new WeirError('INVALID_OPTION', "postgres options 'lookup.cache.max-rows' and 'lookup.cache.ttl' enable the lookup cache together; give both or neither");
  }
  return parsed;
}

/** The engine names the job in `spec.jobKey`; gids and marker rows carry it as the `weir.job` option. */
function withJobKey(spec: SinkSpec): SinkSpec {
  if (spec.jobKey === undefined || spec.options['weir.job'] !== undefined) return spec;
  return { ...spec, options: { ...spec.options, 'weir.job': spec.jobKey } };
}
