/**
 * The `datagen` connector: a deterministic, replayable source of random or sequential rows with
 * Flink's options, plus weir's `seed` and `base-time`. The same options always produce the same
 * rows, whatever the parallelism and however often the source is restarted from an offset.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import type { Connector } from '../api/connector.js';
import {
  DEFAULT_COLLECTION_LENGTH,
  DEFAULT_ROWS_PER_SECOND,
  DEFAULT_SEED,
  DEFAULT_STRING_LENGTH,
  parseDatagenOptions,
} from './datagen-options.js';
import { DatagenReader } from './datagen-reader.js';

/** What `'connector' = 'datagen'` declares: an insert-only, replayable source, bounded when rows are limited or a field is a sequence. */
export const datagenDescriptor: ConnectorDescriptor = {
  name: 'datagen',
  description: 'Generates random or sequential rows, reproducibly from a seed.',
  options: [
    { key: 'rows-per-second', description: 'Rows per second over all subtasks.', default: String(DEFAULT_ROWS_PER_SECOND) },
    { key: 'number-of-rows', description: 'Total number of rows; the source is unbounded when absent (unless a field is a sequence).' },
    { key: 'seed', description: 'Seed of the generator: the same seed and options give the same rows.', default: String(DEFAULT_SEED) },
    {
      key: 'base-time',
      description: "The virtual 'now' of the first row (UTC, 'YYYY-MM-DD HH:MM:SS'); it advances by 1/rows-per-second per row.",
      default: '2024-01-01 00:00:00',
    },
    { key: 'scan.parallelism', description: 'Parallelism of the source.' },
    { key: 'fields.<field>.kind', description: 'Generator of the field.', values: ['random', 'sequence'], default: 'random' },
    { key: 'fields.<field>.min', description: 'Smallest random value of a numeric field.', default: "the type's minimum" },
    { key: 'fields.<field>.max', description: 'Largest random value of a numeric field.', default: "the type's maximum" },
    { key: 'fields.<field>.max-past', description: "How far before the row's virtual 'now' a random TIMESTAMP may be.", default: '0' },
    { key: 'fields.<field>.length', description: 'Length of a random VARCHAR or VARBINARY (in bytes), or number of elements of an ARRAY or MAP.', default: `${DEFAULT_STRING_LENGTH} (strings, bytes), ${DEFAULT_COLLECTION_LENGTH} (collections)` },
    { key: 'fields.<field>.var-len', description: 'Whether a random VARCHAR or VARBINARY has a random length in [1, length].', default: 'false' },
    { key: 'fields.<field>.start', description: 'First value of a sequence field (inclusive).' },
    { key: 'fields.<field>.end', description: 'Last value of a sequence field (inclusive).' },
    { key: 'fields.<field>.null-rate', description: 'Probability that the field is NULL.', default: '0' },
  ],
  source: {
    changelog: 'insert-only',
    traits: (options, schema) => ({ bounded: parseDatagenOptions(options, schema).totalRows !== undefined, replayable: true }),
  },
  validate(options, schema) {
    parseDatagenOptions(options, schema);
  },
};

/** The `datagen` connector as the engine registers it. */
export const datagenConnector: Connector = {
  descriptor: datagenDescriptor,
  source: {
    createReader: (spec) => new DatagenReader(parseDatagenOptions(new Map(Object.entries(spec.options)), spec.schema)),
  },
};
