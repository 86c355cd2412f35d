/**
 * Writable tables: `CREATE TABLE t (...)` without a connector stores its rows in weir itself, as
 * a durable changelog under `.weir/tables/` (see table-log.ts). `INSERT INTO t VALUES ...` /
 * `INSERT INTO t SELECT ...`, `UPDATE` and `DELETE` change it; queries, views and materialized
 * views over it read the changelog from the start and follow it as it grows. The binder gives
 * such a table this connector; its log is `.weir/tables/<name>.log` unless `path` says otherwise.
 * `scan.bounded` (set by the session in batch runtime mode) makes a read stop at the log's length
 * when the job starts.
 */
import { resolve } from 'node:path';
import { WRITABLE_TABLE_CONNECTOR, type ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { Schema } from '../../common/schema.js';
import type { Connector } from '../api/connector.js';
import { TableContents } from './table-contents.js';
import { TableLog } from './table-log.js';
import { TableReaders } from './table-readers.js';
import { TableSinkWriter } from './table-sink-writer.js';
import { TableSourceReader } from './table-source-reader.js';

/** Where the log of the writable table `table` lives: `.weir/tables/<table>.log` under the working directory. */
export function writableTablePath(table: string): string {
  return resolve('.weir', 'tables', `${encodeURIComponent(table)}.log`);
}

/** What a writable table declares: a source of any changelog, and a sink of any changelog. */
export const writableTableDescriptor: ConnectorDescriptor = {
  name: WRITABLE_TABLE_CONNECTOR,
  description: 'A table stored by weir (declared without a connector): INSERT, UPDATE and DELETE change it, queries follow it.',
  options: [
    { key: 'path', description: 'The log file of the table. Default: .weir/tables/<table>.log under the working directory.' },
    { key: 'scan.bounded', description: 'Stop reading at the length of the log when the job starts (set in batch runtime mode).', values: ['true', 'false'], default: 'false' },
  ],
  source: {
    changelog: 'all',
    traits: (options) => ({ bounded: options.get('scan.bounded') === 'true', replayable: true }),
  },
  sink: { accepts: 'all' },
};

/** The log of a table spec (its `path` option). */
function logOf(options: Readonly<Record<string, string>>, table: string, schema: Schema): TableLog {
  return new TableLog(options['path'] ?? writableTablePath(table), table, schema);
}

/**
 * Writable tables as an engine registers them: each engine its own, so that its FLUSH waits for
 * the readers of its own jobs only.
 */
export function createWritableTableConnector(): Connector {
  const readers = new TableReaders();
  return {
    descriptor: writableTableDescriptor,
    source: {
      createReader: (spec) => new TableSourceReader(logOf(spec.options, spec.table, spec.schema), spec.options['scan.bounded'] === 'true', readers),
      caughtUp: (signal) => readers.caughtUp(signal),
      writtenMark: () => readers.writtenMark(),
    },
    sink: {
      createWriter: (spec) => {
        const log = logOf(spec.options, spec.table, spec.schema);
        const keyIndexes = spec.primaryKey.map((name) => spec.schema.findIndex((f) => f.name === name));
        return new TableSinkWriter(() => TableContents.of(log, keyIndexes));
      },
    },
  };
}
