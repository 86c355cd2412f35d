/**
 * Flink's BufferingSink pattern as a test connector (`'connector' = 'buffering'`): rows are
 * buffered and "sent" (appended to `sent(table)`) in groups of `threshold`; the rows still in the
 * buffer are operator state, so a restart from a checkpoint loses none of them.
 */
import type { Connector } from '../../src/connectors/api/connector.js';
import type { ChangeBatch, Row } from '../../src/common/row.js';
import type { SinkWriter } from '../../src/runtime/sink-writer.js';

const sentRows = new Map<string, Row[]>();

/** The rows sent so far by a buffering table. */
export function sent(table: string): Row[] {
  return sentRows.get(table) ?? [];
}

/** Forgets every sent row. */
export function resetSent(): void {
  sentRows.clear();
}

class BufferingWriter implements SinkWriter {
  private buffer: Row[] = [];

  constructor(
    private readonly table: string,
    private readonly threshold: number,
  ) {}

  initializeState(states: readonly unknown[]): void {
    for (const state of states) this.buffer.push(...(state as Row[]));
  }

  snapshotState(): Row[] {
    return [...this.buffer];
  }

  async open(): Promise<void> {}

  write(batch: ChangeBatch): void {
    for (const row of batch.rows) {
      this.buffer.push(row);
      if (this.buffer.length >= this.threshold) this.send();
    }
  }

  async flush(): Promise<void> {
    this.send();
  }

  async close(): Promise<void> {}

  private send(): void {
    const list = sentRows.get(this.table) ?? [];
    list.push(...this.buffer);
    sentRows.set(this.table, list);
    this.buffer = [];
  }
}

/** The connector to register in tests. */
export const bufferingConnector: Connector = {
  descriptor: {
    name: 'buffering',
    description: 'Buffers rows in operator state and sends them in groups (tests).',
    options: [{ key: 'threshold', required: true, description: 'rows per send' }],
    sink: { accepts: 'insert-only' },
  },
  sink: { createWriter: (spec) => new BufferingWriter(spec.table, Number(spec.options.threshold)) },
};
