/**
 * The `blackhole` connector (Flink's): a sink that accepts any changelog and discards it. Used to
 * measure a query's throughput without the cost of a real sink.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { WeirError } from '../../common/errors.js';
import type { ChangeBatch } from '../../common/row.js';
import type { SinkContext, SinkWriter } from '../../runtime/sink-writer.js';
import type { Connector } from '../api/connector.js';

/** What `'connector' = 'blackhole'` declares: no options, any changelog. */
export const blackholeDescriptor: ConnectorDescriptor = {
  name: 'blackhole',
  description: 'Discards every change (for benchmarks).',
  options: [],
  sink: { accepts: 'all' },
  validate(options) {
    for (const key of options.keys()) {
      if (key !== 'connector') throw new WeirError('INVALID_OPTION', `blackhole does not support option '${key}'`);
    }
  },
};

/** Discards what it is given, counting the records. */
export class BlackholeWriter implements SinkWriter {
  #recordCount = 0;

  /** The number of records written to this writer so far. */
  get recordCount(): number {
    return this.#recordCount;
  }

  async open(_context: SinkContext): Promise<void> {}

  write(batch: ChangeBatch): void {
    this.#recordCount += batch.size;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

/** The `blackhole` connector as the engine registers it. */
export const blackholeConnector: Connector = {
  descriptor: blackholeDescriptor,
  sink: { createWriter: () => new BlackholeWriter() },
};
