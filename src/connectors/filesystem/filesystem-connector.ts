/**
 * The `filesystem` connector (Flink's), as a sink: JSON lines, CSV or Debezium JSON part files in
 * a directory, committed with the checkpoint protocol so that each record becomes visible exactly
 * once. It accepts any changelog because the planner cannot see the format; the writer refuses
 * updates at run time when the format is append-only (`json`, `csv`). As a source: the JSON lines
 * or CSV files of a file or directory, insert-only and replayable from byte offsets, bounded
 * unless `'source.monitor-interval'` asks it to watch for new files and lines.
 */
import type { ConnectorDescriptor } from '../../common/connector-descriptor.js';
import { closestName, WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import type { Connector } from '../api/connector.js';
import { FORMAT_OPTION_KEYS, FORMAT_OPTION_SPECS, readFormatOptions } from '../formats/format-options.js';
import { checkDecodable } from '../formats/record-decoder-factory.js';
import { isBoundedFileSource, parseFileSourceOptions } from './file-source-options.js';
import { FileSourceReader } from './file-source-reader.js';
import { FileSinkWriter, type FileSinkOptions } from './file-sink-writer.js';
import { checkFormatSupports, isRowFormatName, ROW_FORMATS, type RowFormatName } from './row-formats.js';

const KNOWN_OPTIONS = ['connector', 'path', 'format', 'source.monitor-interval', ...FORMAT_OPTION_KEYS, 'sink.rolling-policy.file-size', 'sink.parallelism'] as const;

/** Flink's memory units (powers of 1024), by every name MemorySize accepts. */
const MEMORY_UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, bytes: 1,
  k: 1024, kb: 1024, kibibytes: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mebibytes: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gibibytes: 1024 ** 3,
  t: 1024 ** 4, tb: 1024 ** 4, tebibytes: 1024 ** 4,
};

/** What `'connector' = 'filesystem'` declares: a sink of any changelog, and an insert-only, replayable source. */
export const filesystemDescriptor: ConnectorDescriptor = {
  name: 'filesystem',
  description: 'Reads JSON lines or CSV files; writes part files (JSON lines, CSV or Debezium JSON) into a directory, exactly once with checkpoints.',
  options: [
    { key: 'path', required: true, description: 'Source: a file, or a directory whose files are read in name order. Sink: the directory of the part files; created when missing.' },
    { key: 'format', required: true, description: "The format of the files ('debezium-json' is written, not read).", values: ROW_FORMATS },
    { key: 'source.monitor-interval', description: "List the path again at this interval ('1 s') for new files and appended lines; the source never ends. Bounded when absent." },
    ...FORMAT_OPTION_SPECS,
    { key: 'sink.rolling-policy.file-size', description: "Start a new part file once one reaches this size ('128MB', '1 kb', bytes when bare)." },
    { key: 'sink.parallelism', description: 'Parallelism of the sink.' },
  ],
  source: {
    changelog: 'insert-only',
    traits: (options) => ({ bounded: isBoundedFileSource(options), replayable: true }),
  },
  sink: { accepts: 'all' },
  validate(options, schema) {
    parseFileSinkOptions(options, schema);
    parseFileSourceOptions(options);
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
  sink: {
    createWriter: (spec) => new FileSinkWriter(spec.table, spec.schema, parseFileSinkOptions(new Map(Object.entries(spec.options)), spec.schema)),
  },
};

/** Reads and checks the sink's options; throws INVALID_OPTION naming the option. */
export function parseFileSinkOptions(options: ReadonlyMap<string, string>, schema: Schema): FileSinkOptions {
  rejectUnknownOptions(options);
  const path = options.get('path');
  if (path === undefined || path.trim() === '') throw new WeirError('INVALID_OPTION', "filesystem needs option 'path': the directory to write part files to");
  const format = parseFormat(options.get('format'));
  checkFormatSupports(format, schema);
  const { csv } = readFormatOptions('filesystem', options);
  const parallelism = options.get('sink.parallelism');
  if (parallelism !== undefined && !/^\s*[1-9]\d*\s*$/.test(parallelism)) {
    throw new WeirError('INVALID_OPTION', `filesystem option 'sink.parallelism' must be a positive integer, got '${parallelism}'`);
  }
  const rollText = options.get('sink.rolling-policy.file-size');
  return {
    path,
    format,
    fieldDelimiter: csv.fieldDelimiter,
    ...(csv.quoteCharacter === '"' ? {} : { quoteCharacter: csv.quoteCharacter }),
    ...(csv.nullLiteral === undefined ? {} : { nullLiteral: csv.nullLiteral }),
    ...(rollText === undefined ? {} : { rollSize: parseMemorySize(rollText, 'sink.rolling-policy.file-size') }),
  };
}

/** A size as Flink's MemorySize reads it (`128MB`, `64 kb`, `1024`): a positive whole number of bytes. */
export function parseMemorySize(text: string, key: string): number {
  const match = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const factor = match === null ? undefined : MEMORY_UNITS[match[2]!.toLowerCase()];
  const bytes = factor === undefined ? NaN : Number(match![1]) * factor;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new WeirError('INVALID_OPTION', `filesystem option '${key}' must be a positive size such as '128MB' or '64 kb', got '${text}'`);
  }
  return bytes;
}

function rejectUnknownOptions(options: ReadonlyMap<string, string>): void {
  for (const key of options.keys()) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(key)) continue;
    const guess = closestName(key, KNOWN_OPTIONS);
    throw new WeirError('INVALID_OPTION', `filesystem does not support option '${key}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`);
  }
}

function parseFormat(format: string | undefined): RowFormatName {
  if (format !== undefined && isRowFormatName(format)) return format;
  const formats = ROW_FORMATS.map((name) => `'${name}'`).join(', ');
  const problem = format === undefined ? "needs option 'format'" : `does not know format '${format}'`;
  throw new WeirError('INVALID_OPTION', `filesystem ${problem}; the formats are ${formats}`);
}
