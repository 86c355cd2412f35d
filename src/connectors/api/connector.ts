/**
 * A connector as the engine registers it: its descriptor (options, boundedness, changelog kinds,
 * validated at DDL time) and the factories the runtime uses to read and write.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { SinkFactory } from '../../runtime/sink-writer.js';
import type { SourceFactory } from '../../runtime/source-reader.js';

/** One connector (`'connector' = descriptor.name`). */
export interface Connector {
  readonly descriptor: ConnectorDescriptor;
  readonly source?: SourceFactory;
  readonly sink?: SinkFactory;
}

