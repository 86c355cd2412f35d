/**
 * The filesystem connector's options as a sink reads them (Flink's names and defaults): the path,
 * the format and its CSV settings, the rolling policy (`sink.rolling-policy.*`), and for a table
 * with `PARTITIONED BY` the partition directories (`partition.default-name`) and partition commit
 * (`sink.partition-commit.*`, `partition.time-extractor.timestamp-pattern`).
 */
import type { OptionSpec } from '../../common/connector-descriptor.js';
import { parseDuration } from '../../common/duration.js';
import { closestName, WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { readFormatOptions } from '../formats/format-options.js';
import { localPath } from './local-path.js';
import { PARTITION_COMMIT_TRIGGERS, type PartitionCommitOptions } from './partition-committer.js';
import { checkPartitionKeys, DEFAULT_PARTITION_NAME, partitionLayout } from './partition-paths.js';
import { partitionTimeExtractor, TIMESTAMP_PATTERN_OPTION } from './partition-time-extractor.js';
import { checkFormatSupports, isRowFormatName, ROW_FORMATS, type RowFormatName } from './row-formats.js';

/** The sink's options, parsed and validated. */
export interface FileSinkOptions {
  /** The directory the part files (or partition directories) go to; created when missing. */
  readonly path: string;
  readonly format: RowFormatName;
  /** The CSV field delimiter (one character). */
  readonly fieldDelimiter: string;
  /** The CSV quote character, when not `"`. */
  readonly quoteCharacter?: string;
  /** What CSV writes for NULL, when not an empty field. */
  readonly nullLiteral?: string;
  /** Bytes after which a new part file is started; absent for one part file per checkpoint. */
  readonly rollSize?: number;
  /** Rolling by processing time; absent for none. */
  readonly rolling?: RollingIntervals;
  /** The `PARTITIONED BY` columns; absent or empty when the table is not partitioned. */
  readonly partitionKeys?: readonly string[];
  /** The directory value of a NULL or blank partition value (`__DEFAULT_PARTITION__` when absent). */
  readonly defaultPartitionName?: string;
  /** Present when partitions are committed (`'sink.partition-commit.policy.kind'` is set). */
  readonly partitionCommit?: PartitionCommitOptions;
}

/** Flink's time-based rolling of row-format part files, in milliseconds. */
export interface RollingIntervals {
  /** A part file open this long is rolled. */
  readonly rolloverMs: number;
  /** A part file that received no record for this long is rolled. */
  readonly inactivityMs: number;
  /** How often the two conditions above are checked. */
  readonly checkMs: number;
}

/** The option keys only the sink reads. */
export const SINK_OPTION_KEYS = [
  'sink.rolling-policy.file-size',
  'sink.rolling-policy.rollover-interval',
  'sink.rolling-policy.inactivity-interval',
  'sink.rolling-policy.check-interval',
  'sink.parallelism',
  'partition.default-name',
  'sink.partition-commit.trigger',
  'sink.partition-commit.delay',
  'sink.partition-commit.policy.kind',
  'sink.partition-commit.success-file.name',
  TIMESTAMP_PATTERN_OPTION,
] as const;

/** The descriptor entries of {@link SINK_OPTION_KEYS}, in the same order. */
export const SINK_OPTION_SPECS: readonly OptionSpec[] = [
  { key: 'sink.rolling-policy.file-size', description: "Start a new part file once one reaches this size ('128MB', '1 kb', bytes when bare)." },
  { key: 'sink.rolling-policy.rollover-interval', description: 'Start a new part file once one has been open this long (files roll at every checkpoint in any case).', default: '30 min' },
  { key: 'sink.rolling-policy.inactivity-interval', description: 'Start a new part file once one has received no record for this long.', default: '30 min' },
  { key: 'sink.rolling-policy.check-interval', description: 'How often the rollover and inactivity intervals are checked.', default: '1 min' },
  { key: 'sink.parallelism', description: 'Parallelism of the sink.' },
  { key: 'partition.default-name', description: 'The partition directory value of a NULL or blank partition column.', default: DEFAULT_PARTITION_NAME },
  { key: 'sink.partition-commit.trigger', description: "When a partition is committed: 'process-time' (delay after its creation) or 'partition-time' (the watermark passes its time plus delay).", values: PARTITION_COMMIT_TRIGGERS, default: 'process-time' },
  { key: 'sink.partition-commit.delay', description: "How long after its creation (process-time) or its partition time (partition-time) a partition is committed ('1 min').", default: '0 s' },
  { key: 'sink.partition-commit.policy.kind', description: "How a partition is committed: 'success-file' writes an empty success file into its directory. Without it, partitions are not committed." },
  { key: 'sink.partition-commit.success-file.name', description: 'The name of the success file.', default: '_SUCCESS' },
  { key: TIMESTAMP_PATTERN_OPTION, description: "The partition time for 'partition-time': partition columns as $name ('$dt $hm:00'); the first partition value when absent." },
];

/** The commit policies Flink knows, and why weir has only one of them. */
const POLICIES: Readonly<Record<string, string | undefined>> = {
  'success-file': undefined,
  metastore: 'there is no metastore',
  custom: 'weir loads no commit policy classes',
};

/** Flink's memory units (powers of 1024), by every name MemorySize accepts. */
const MEMORY_UNITS: Readonly<Record<string, number>> = {
  '': 1, b: 1, bytes: 1,
  k: 1024, kb: 1024, kibibytes: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mebibytes: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gibibytes: 1024 ** 3,
  t: 1024 ** 4, tb: 1024 ** 4, tebibytes: 1024 ** 4,
};

/**
 * Reads and checks the sink's options for a table of `schema` partitioned by `partitionKeys`;
 * throws INVALID_OPTION naming the option (or INVALID_ARGUMENT / UNKNOWN_COLUMN for `PARTITIONED BY`).
 */
export function parseFileSinkOptions(options: ReadonlyMap<string, string>, schema: Schema, partitionKeys: readonly string[] = []): FileSinkOptions {
  const pathText = options.get('path');
  if (pathText === undefined || pathText.trim() === '') throw new WeirError('INVALID_OPTION', "filesystem needs option 'path': the directory to write part files to");
  const path = localPath(pathText);
  const format = parseFormat(options.get('format'));
  checkPartitionKeys(schema, partitionKeys);
  checkFormatSupports(format, partitionLayout(schema, partitionKeys).dataSchema);
  const { csv } = readFormatOptions('filesystem', options);
  const parallelism = options.get('sink.parallelism');
  if (parallelism !== undefined && !/^\s*[1-9]\d*\s*$/.test(parallelism)) {
    throw new WeirError('INVALID_OPTION', `filesystem option 'sink.parallelism' must be a positive integer, got '${parallelism}'`);
  }
  const rollText = options.get('sink.rolling-policy.file-size');
  const defaultPartitionName = options.get('partition.default-name');
  if (defaultPartitionName !== undefined && defaultPartitionName.trim() === '') {
    throw new WeirError('INVALID_OPTION', "filesystem option 'partition.default-name' must not be blank");
  }
  const partitionCommit = parsePartitionCommit(options, partitionKeys);
  return {
    path,
    format,
    fieldDelimiter: csv.fieldDelimiter,
    ...(csv.quoteCharacter === '"' ? {} : { quoteCharacter: csv.quoteCharacter }),
    ...(csv.nullLiteral === undefined ? {} : { nullLiteral: csv.nullLiteral }),
    ...(rollText === undefined ? {} : { rollSize: parseMemorySize(rollText, 'sink.rolling-policy.file-size') }),
    rolling: {
      rolloverMs: positiveDuration(options, 'sink.rolling-policy.rollover-interval', '30 min'),
      inactivityMs: positiveDuration(options, 'sink.rolling-policy.inactivity-interval', '30 min'),
      checkMs: positiveDuration(options, 'sink.rolling-policy.check-interval', '1 min'),
    },
    ...(partitionKeys.length === 0 ? {} : { partitionKeys }),
    ...(defaultPartitionName === undefined ? {} : { defaultPartitionName }),
    ...(partitionCommit === undefined ? {} : { partitionCommit }),
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

function parsePartitionCommit(options: ReadonlyMap<string, string>, partitionKeys: readonly string[]): PartitionCommitOptions | undefined {
  const trigger = options.get('sink.partition-commit.trigger') ?? 'process-time';
  if (!(PARTITION_COMMIT_TRIGGERS as readonly string[]).includes(trigger)) {
    const guess = closestName(trigger, PARTITION_COMMIT_TRIGGERS);
    throw new WeirError(
      'INVALID_OPTION',
      `filesystem option 'sink.partition-commit.trigger' must be 'process-time' or 'partition-time', got '${trigger}'${guess === undefined ? '' : `; did you mean '${guess}'?`}`,
    );
  }
  const delayMs = parseDuration(options.get('sink.partition-commit.delay') ?? '0 s', 'sink.partition-commit.delay');
  const kinds = options.get('sink.partition-commit.policy.kind');
  if (kinds !== undefined) {
    for (const kind of kinds.split(',').map((k) => k.trim())) checkPolicy(kind);
    if (partitionKeys.length === 0) {
      throw new WeirError('INVALID_OPTION', "filesystem option 'sink.partition-commit.policy.kind' needs a partitioned table: declare PARTITIONED BY (...)");
    }
  }
  const pattern = options.get(TIMESTAMP_PATTERN_OPTION);
  if (pattern !== undefined) partitionTimeExtractor(pattern, partitionKeys);
  const successFileName = options.get('sink.partition-commit.success-file.name') ?? '_SUCCESS';
  if (successFileName.trim() === '' || /[/\\]/.test(successFileName) || successFileName === '.' || successFileName === '..') {
    throw new WeirError('INVALID_OPTION', `filesystem option 'sink.partition-commit.success-file.name' must be a file name, got '${successFileName}'`);
  }
  if (kinds === undefined) return undefined;
  return { trigger: trigger as PartitionCommitOptions['trigger'], delayMs, successFileName, ...(pattern === undefined ? {} : { timestampPattern: pattern }) };
}

function checkPolicy(kind: string): void {
  const names = Object.keys(POLICIES);
  if (!names.includes(kind)) {
    const guess = closestName(kind, names);
    throw new WeirError(
      'INVALID_OPTION',
      `filesystem option 'sink.partition-commit.policy.kind' does not know '${kind}'${guess === undefined ? "; use 'success-file'" : `; did you mean '${guess}'?`}`,
    );
  }
  const missing = POLICIES[kind];
  if (missing !== undefined) {
    throw new WeirError('INVALID_OPTION', `filesystem option 'sink.partition-commit.policy.kind' cannot be '${kind}': ${missing}; use 'success-file'`);
  }
}

function positiveDuration(options: ReadonlyMap<string, string>, key: string, fallback: string): number {
  const text = options.get(key) ?? fallback;
  const ms = parseDuration(text, key);
  if (ms <= 0) throw new WeirError('INVALID_OPTION', `filesystem option '${key}' must be a positive duration such as '1 min', got '${text}'`);
  return ms;
}

function parseFormat(format: string | undefined): RowFormatName {
  if (format !== undefined && isRowFormatName(format)) return format;
  const formats = ROW_FORMATS.map((name) => `'${name}'`).join(', ');
  const problem = format === undefined ? "needs option 'format'" : `does not know format '${format}'`;
  throw new WeirError('INVALID_OPTION', `filesystem ${problem}; the formats are ${formats}`);
}
