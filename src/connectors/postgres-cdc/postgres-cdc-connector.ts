/**
 * The `postgres-cdc` connector: a PostgreSQL table as a changelog source — its rows at the start
 * (a consistent snapshot), then every committed change, through logical replication (pgoutput),
 * exactly once with checkpoints. Needs a declared primary key equal to the table's.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { WeirError } from '../../common/errors.js';
import { formatType } from '../../common/sql-type.js';
import type { Connector } from '../api/connector.js';
import { CDC_OPTIONS, parsePostgresCdcOptions } from './postgres-cdc-options.js';
import { PostgresCdcReader } from './postgres-cdc-reader.js';
import { cdcSupportsType } from '../postgres/postgres-text-parser.js';

/** What `'connector' = 'postgres-cdc'` declares: an unbounded, replayable source of all row kinds (an upsert changelog with `'changelog-mode' = 'upsert'`). */
export const postgresCdcDescriptor: ConnectorDescriptor = {
  name: 'postgres-cdc',
  description: 'Reads a PostgreSQL table and then its changes (logical replication), as +I/-U/+U/-D keyed by its primary key, exactly once with checkpoints.',
  options: CDC_OPTIONS,
  source: {
    changelog: 'all',
    traits: (options) => ({ bounded: false, replayable: true, ...(options.get('changelog-mode')?.trim().toLowerCase() === 'upsert' ? { changelog: 'upsert' as const } : {}) }),
  },
  validate(options, schema, primaryKey) {
    parsePostgresCdcOptions(options);
    if (primaryKey.length === 0) {
      throw new WeirError('INVALID_OPTION', "postgres-cdc needs the table's primary key: declare PRIMARY KEY (...) NOT ENFORCED, as the PostgreSQL table has it");
    }
    for (const field of schema) {
      if (!cdcSupportsType(field.type)) {
        throw new WeirError('INVALID_OPTION', `postgres-cdc cannot read column '${field.name}' as ${formatType({ ...field.type, nullable: true })}; declare it STRING to get its text`);
      }
    }
  },
};

/** The `postgres-cdc` connector as the engine registers it. */
export const postgresCdcConnector: Connector = {
  descriptor: postgresCdcDescriptor,
  source: { createReader: (spec) => new PostgresCdcReader(spec) },
};
