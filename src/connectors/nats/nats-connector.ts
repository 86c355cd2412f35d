/**
 * The `nats` connector: a source reading a NATS JetStream stream (optionally one subject filter
 * of it) as an insert-only table, one row per message in the table's `'format'`. Replayable: the
 * stream sequence is the offset kept in checkpoints.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { closestName, WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { createBadRecordPolicy } from '../formats/bad-record-policy.js';
import { FORMAT_OPTION_KEYS, FORMAT_OPTION_SPECS, readFormatOptions, type FormatOptions } from '../formats/format-options.js';
import { checkDecodable, createRecordDecoder, DECODABLE_FORMATS } from '../formats/record-decoder-factory.js';
import type { Connector } from '../api/connector.js';
import { isBounded, NATS_OPTION_KEYS, NATS_OPTIONS, parseNatsOptions, type NatsSourceConfig } from './nats-options.js';
import { NatsSourceReader } from './nats-source-reader.js';

const KNOWN_KEYS: readonly string[] = [...NATS_OPTION_KEYS, 'format', ...FORMAT_OPTION_KEYS];

/** What `'connector' = 'nats'` declares: an insert-only, replayable source, bounded when `scan.bounded.mode` says so. */
export const natsDescriptor: ConnectorDescriptor = {
  name: 'nats',
  description: 'Reads a NATS JetStream stream, one row per message (JSON or CSV); the stream sequence is the checkpointed offset.',
  options: [...NATS_OPTIONS, { key: 'format', required: true, description: 'The format of the messages.', values: DECODABLE_FORMATS }, ...FORMAT_OPTION_SPECS],
  source: {
    changelog: 'insert-only',
    traits: (options) => ({ bounded: isBounded(options), replayable: true }),
  },
  validate(options, schema) {
    parseNatsTable(options, schema);
  },
};

/** The `nats` connector as the engine registers it. */
export const natsConnector: Connector = {
  descriptor: natsDescriptor,
  source: {
    createReader: (spec) => {
      const { config, format } = parseNatsTable(new Map(Object.entries(spec.options)), spec.schema);
      return new NatsSourceReader(spec.table, config, {
        decoder: createRecordDecoder(spec.schema, format),
        policy: (warn) => createBadRecordPolicy({ connector: 'nats', table: spec.table, ignoreParseErrors: format.ignoreParseErrors, warn }),
      });
    },
  },
};

/** Reads and checks every option of a NATS table; throws INVALID_OPTION naming the option. */
export function parseNatsTable(options: ReadonlyMap<string, string>, schema: Schema): { config: NatsSourceConfig; format: FormatOptions } {
  for (const key of options.keys()) {
    if (key === 'connector' || KNOWN_KEYS.includes(key)) continue;
    const guess = closestName(key, KNOWN_KEYS);
    throw new WeirError('INVALID_OPTION', `nats does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
  }
  const config = parseNatsOptions(options);
  if (options.has('csv.allow-comments')) throw new WeirError('INVALID_OPTION', "nats option 'csv.allow-comments' applies to files only: every message is a record");
  const format = readFormatOptions('nats', options);
  checkDecodable('nats', format.format, schema);
  return { config, format };
}
