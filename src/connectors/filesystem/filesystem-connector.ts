/**
 * The `filesystem` connector (Flink's), as a sink: JSON lines, CSV or Debezium JSON part files in
 * a directory (in Hive-style partition directories for a table with `PARTITIONED BY`, whose
 * partitions are committed with a success file), committed with the checkpoint protocol so that
 * each record becomes visible exactly once. It accepts any changelog because the planner cannot see the format; the writer refuses
 * updates at run time when the format is append-only (`json`, `csv`). As a source: the JSON lines
 * or CSV files of a file or directory, insert-only and replayable from byte offsets, bounded
 * unless `'source.monitor-interval'` asks it to watch for new files and lines. As the table of a
 * lookup join: loaded into memory, and loaded again after `'lookup.cache.ttl'`.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { closestName, WeirError } from '../../common/errors.js';
import type { Connector } from '../api/connector.js';
import { FORMAT_OPTION_KEYS, FORMAT_OPTION_SPECS } from '../formats/format-options.js';
import { checkDecodable } from '../formats/record-decoder-factory.js';
import { parseFileSinkOptions, SINK_OPTION_KEYS, SINK_OPTION_SPECS } from './file-sink-options.js';
import { parseLookupOptions } from '../lookup/lookup-options.js';
import { FILE_LOOKUP_DEFAULT_TTL_MS, FileLookupFunction } from './file-lookup-function.js';
import { FileSinkWriter } from './file-sink-writer.js';
import { isBoundedFileSource, parseFileSourceOptions } from './file-source-options.js';
import { FileSourceReader } from './file-source-reader.js';
import { ROW_FORMATS } from './row-formats.js';

const KNOWN_OPTIONS = ['connector', 'path', 'format', 'source.monitor-interval', 'lookup.cache.ttl', ...FORMAT_OPTION_KEYS, ...SINK_OPTION_KEYS] as const;

/** What `'connector' = 'filesystem'` declares: a sink of any changelog, and an insert-only, replayable source. */
export const filesystemDescriptor: ConnectorDescriptor = {
  name: 'filesystem',
  description: 'Reads JSON lines or CSV files; writes part files (JSON lines, CSV or Debezium JSON) into a directory, or Hive-style partition directories, exactly once with checkpoints.',
  options: [
    { key: 'path', required: true, description: 'Source: a file, or a directory whose files are read in name order. Sink: the directory of the part files; created when missing. A local path or a file:// URI.' },
    { key: 'format', required: true, description: "The format of the files ('debezium-json' is written, not read).", values: ROW_FORMATS },
    { key: 'source.monitor-interval', description: "List the path again at this interval ('1 s') for new files and appended lines; the source never ends. Bounded when absent." },
    ...FORMAT_OPTION_SPECS,
    ...SINK_OPTION_SPECS,
    { key: 'lookup.cache.ttl', description: 'Lookup joins: how long the table, loaded into memory, is used before it is read again.', default: '60 min' },
  ],
  source: {
    changelog: 'insert-only',
    traits: (options) => ({ bounded: isBoundedFileSource(options), replayable: true }),
  },
  sink: { accepts: 'all' },
  lookup: true,
  validate(options, schema, _primaryKey, partitionedBy = []) {
    rejectUnknownOptions(options);
    parseFileSinkOptions(options, schema, partitionedBy);
    parseFileSourceOptions(options);
    parseLookupOptions(options, FILE_LOOKUP_DEFAULT_TTL_MS);
  },
};

/** The `filesystem` connector as the engine registers it. */
export const filesystemConnector: Connector = {
  descriptor: filesystemDescriptor,
  source: {
    createReader: (spec) => {
      const options = parseFileSourceOptions(new Map(Object.entries(spec.options)));
      checkDecodable(`filesystem source '${spec.table}'`, options.format.format, spec.schema);
      return new FileSourceReader(spec.table, spec.schema, options);
    },
  },
  lookup: {
    createLookup: (spec) => {
      const options = new Map(Object.entries(spec.options));
      const source = parseFileSourceOptions(options);
      checkDecodable(`filesystem lookup table '${spec.table}'`, source.format.format, spec.schema);
      return new FileLookupFunction(spec.table, spec.schema, spec.keys, source, parseLookupOptions(options, FILE_LOOKUP_DEFAULT_TTL_MS).cacheTtlMs);
    },
  },
  sink: {
    createWriter: (spec) => new FileSinkWriter(spec.table, spec.schema, parseFileSinkOptions(new Map(Object.entries(spec.options)), spec.schema, spec.partitionedBy)),
  },
};

function rejectUnknownOptions(options: ReadonlyMap<string, string>): void {
  for (const key of options.keys()) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(key)) continue;
    const guess = closestName(key, KNOWN_OPTIONS);
    throw new WeirError('INVALID_OPTION', `filesystem does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
  }
}
