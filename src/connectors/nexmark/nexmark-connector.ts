/**
 * The `nexmark` connector: the Nexmark benchmark's event source with Flink's options and table
 * layout (`event_type`, `person`, `auction`, `bid`), deterministic in values (GENERATOR.md §9), so
 * that a replay from a checkpoint reproduces identical rows.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { Connector } from '../api/connector.js';
import { isBounded, NEXMARK_OPTIONS, parseNexmarkOptions } from './nexmark-options.js';
import { NexmarkReader } from './nexmark-reader.js';
import { checkNexmarkSchema } from './nexmark-schema.js';

/** What `'connector' = 'nexmark'` declares: an insert-only, replayable source, bounded by `events.num` or `stop-at` unless `keep-alive`. */
export const nexmarkDescriptor: ConnectorDescriptor = {
  name: 'nexmark',
  description: 'Generates the Nexmark benchmark events (persons, auctions, bids), reproducibly from a seed.',
  options: NEXMARK_OPTIONS.map((o) => ({ key: o.key, description: o.description, default: o.default })),
  source: {
    changelog: 'insert-only',
    traits: (options) => ({ bounded: isBounded(parseNexmarkOptions(options)), replayable: true }),
  },
  validate(options, schema) {
    parseNexmarkOptions(options);
    checkNexmarkSchema(schema);
  },
};

/** The `nexmark` connector as the engine registers it. */
export const nexmarkConnector: Connector = {
  descriptor: nexmarkDescriptor,
  source: {
    createReader: (spec) => {
      checkNexmarkSchema(spec.schema);
      return new NexmarkReader(parseNexmarkOptions(new Map(Object.entries(spec.options))));
    },
  },
};
