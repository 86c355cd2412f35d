/**
 * A `collect` sink for in-process tests: changes written to a table with `'connector' = 'collect'`
 * are appended, as `[kind, row]`, to `collected(table)`. With `'transactional' = 'true'` it takes
 * part in the checkpoint protocol like a real two-phase-commit sink: changes are only appended
 * when their checkpoint completes, the prepared changes travel in the checkpoint, and `recover`
 * commits the restored ones exactly once — so a job stopped and resumed from a checkpoint must
 * leave exactly the changelog of an uninterrupted run.
 */
import type { Connector } from '../../src/connectors/api/connector.js';
import { ROW_KIND_SHORT, type RowKindShort } from '../../src/common/row-kind.js';
import type { ChangeBatch, Row } from '../../src/common/row.js';
import type { PreparedTransaction, SinkWriter, TransactionalSinkWriter } from '../../src/runtime/sink-writer.js';

type Change = [RowKindShort, Row];

const tables = new Map<string, Change[]>();
const committedTransactions = new Set<string>();

/** The changes written (or, for transactional tables, committed) so far to a collect table. */
export function collected(table: string): Change[] {
  return tables.get(table) ?? [];
}

/** Forgets every collected change. */
export function resetCollected(): void {
  tables.clear();
  committedTransactions.clear();
}

function append(table: string, changes: readonly Change[]): void {
  const list = tables.get(table) ?? [];
  for (const change of changes) list.push(change);
  tables.set(table, list);
}

function changesOf(batch: ChangeBatch): Change[] {
  const changes: Change[] = [];
  for (let i = 0; i < batch.size; i++) changes.push([ROW_KIND_SHORT[batch.kinds[i]!], batch.rows[i]!]);
  return changes;
}

class CollectWriter implements SinkWriter {
  constructor(protected readonly table: string) {}
  async open(): Promise<void> {}
  write(batch: ChangeBatch): void {
    append(this.table, changesOf(batch));
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

class TransactionalCollectWriter extends CollectWriter implements TransactionalSinkWriter {
  private buffer: Change[] = [];
  private subtask = 0;

  override async open(context?: { subtask: number }): Promise<void> {
    this.subtask = context?.subtask ?? 0;
  }

  override write(batch: ChangeBatch): void {
    for (const change of changesOf(batch)) this.buffer.push(change);
  }

  async prepareCommit(checkpointId: number): Promise<PreparedTransaction> {
    const changes = this.buffer;
    this.buffer = [];
    return { checkpointId, data: { id: `${this.table}/${this.subtask}/${checkpointId}`, changes } };
  }

  async commit(transactions: readonly PreparedTransaction[]): Promise<void> {
    for (const transaction of transactions) {
      const { id, changes } = transaction.data as { id: string; changes: Change[] };
      if (committedTransactions.has(id)) continue;
      committedTransactions.add(id);
      append(this.table, changes);
    }
  }

  async recover(pending: readonly PreparedTransaction[]): Promise<void> {
    await this.commit(pending);
  }

  override async flush(): Promise<void> {
    append(this.table, this.buffer);
    this.buffer = [];
  }
}

/** The connector to pass to `createEngine({ connectors: [collectConnector] })`. */
export const collectConnector: Connector = {
  descriptor: {
    name: 'collect',
    description: 'Collects changes in memory (tests).',
    options: [{ key: 'transactional', description: 'commit with checkpoints', values: ['true', 'false'] }],
    sink: { accepts: 'all' },
  },
  sink: {
    createWriter: (spec) => (spec.options.transactional === 'true' ? new TransactionalCollectWriter(spec.table) : new CollectWriter(spec.table)),
  },
};
