/** Helpers for datagen tests: build specs and drain readers. */
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import type { SqlType } from '../../../src/common/sql-type.js';
import { datagenConnector } from '../../../src/connectors/datagen/datagen-connector.js';
import type { SourceSpec } from '../../../src/dataflow/job-graph.js';
import type { PollStatus, SourceReader } from '../../../src/runtime/source-reader.js';

/** A schema from `[name, type]` pairs. */
export function schemaOf(...fields: [string, SqlType][]): Schema {
  return fields.map(([name, type]) => ({ name, type }));
}

/** A datagen source spec; unthrottled unless the options set a rate. */
export function datagenSpec(options: Record<string, string>, schema: Schema): SourceSpec {
  return { kind: 'source', table: 't', connector: 'datagen', options: { 'rows-per-second': '1000000000', ...options }, schema };
}

/** An opened reader for one subtask. */
export async function openReader(spec: SourceSpec, subtask = 0, parallelism = 1, offset?: number): Promise<SourceReader> {
  const reader = datagenConnector.source!.createReader(spec);
  if (offset !== undefined) reader.seek!(offset);
  await reader.open({ subtask, parallelism, warn: () => {} });
  return reader;
}

/** Polls until `limit` rows were read or the reader ended; returns the rows and the last status. */
export async function readRows(reader: SourceReader, limit = Infinity, batchSize = 97): Promise<{ rows: Row[]; status: PollStatus }> {
  const rows: Row[] = [];
  const batch = new ChangeBatch();
  let status: PollStatus = 'more';
  while (rows.length < limit && status !== 'end') {
    batch.clear();
    status = await reader.poll(batch, Math.min(batchSize, limit - rows.length));
    rows.push(...batch.rows);
  }
  return { rows, status };
}

/** All rows of a bounded spec, or the first `limit` rows. */
export async function generate(spec: SourceSpec, limit = Infinity): Promise<Row[]> {
  return (await readRows(await openReader(spec), limit)).rows;
}
