/**
 * A `collect` sink for in-process tests: every change written to a table with
 * `'connector' = 'collect'` is appended, as `[kind, row]`, to `collected(table)`.
 */
import type { Connector } from '../../src/connectors/api/connector.js';
import { ROW_KIND_SHORT, type RowKindShort } from '../../src/common/row-kind.js';
import type { Row } from '../../src/common/row.js';

const tables = new Map<string, [RowKindShort, Row][]>();

/** The changes written so far to a collect table (by table name). */
export function collected(table: string): [RowKindShort, Row][] {
  return tables.get(table) ?? [];
}

/** Forgets every collected change. */
export function resetCollected(): void {
  tables.clear();
}

/** The connector to pass to `createEngine({ connectors: [collectConnector] })`. */
export const collectConnector: Connector = {
  descriptor: { name: 'collect', description: 'Collects changes in memory (tests).', options: [], sink: { accepts: 'all' } },
  sink: {
    createWriter: (spec) => ({
      open: async () => {},
      write: (batch) => {
        const list = tables.get(spec.table) ?? [];
        for (let i = 0; i < batch.size; i++) list.push([ROW_KIND_SHORT[batch.kinds[i]!], batch.rows[i]!]);
        tables.set(spec.table, list);
      },
      flush: async () => {},
      close: async () => {},
    }),
  },
};
