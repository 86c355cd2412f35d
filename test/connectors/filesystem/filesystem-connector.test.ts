import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { createBuiltinConnectors } from '../../../src/connectors/builtin-connectors.js';
import { FileSinkWriter } from '../../../src/connectors/filesystem/file-sink-writer.js';
import { parseFileSinkOptions, parseMemorySize } from '../../../src/connectors/filesystem/file-sink-options.js';
import { filesystemConnector, filesystemDescriptor } from '../../../src/connectors/filesystem/filesystem-connector.js';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.int()) },
];

/** Flink's default rolling policy: 30 min rollover and inactivity intervals, checked every minute. */
const FLINK_ROLLING = { rolloverMs: 1_800_000, inactivityMs: 1_800_000, checkMs: 60_000 };

const validate = (options: Record<string, string>, columns: Schema = schema): void =>
  filesystemDescriptor.validate!(new Map(Object.entries({ connector: 'filesystem', ...options })), columns, []);

describe('filesystem descriptor', () => {
  it('is a sink of any changelog and an insert-only replayable source, registered with the built-in connectors', () => {
    expect(filesystemDescriptor.sink?.accepts).toBe('all');
    expect(filesystemDescriptor.source?.changelog).toBe('insert-only');
    const traits = (options: Record<string, string>) => filesystemDescriptor.source!.traits(new Map(Object.entries(options)), schema);
    expect(traits({ path: '/in', format: 'json' })).toEqual({ bounded: true, replayable: true });
    expect(traits({ path: '/in', format: 'json', 'source.monitor-interval': '1 s' })).toEqual({ bounded: false, replayable: true });
    expect(createBuiltinConnectors()).toContain(filesystemConnector);
  });

  it('checks the source options and the error policy at DDL time', () => {
    const ints: Schema = [{ name: 'id', type: SqlTypes.int() }];
    expect(() => validate({ path: '/in', format: 'json', 'source.monitor-interval': '1 s' })).not.toThrow();
    expect(() => validate({ path: '/in', format: 'json', 'source.monitor-interval': 'soon' })).toThrow(
      "option 'source.monitor-interval' must be a duration such as '500 ms' or '1 s', got 'soon'",
    );
    expect(() => validate({ path: '/in', format: 'json', 'source.monitor-interval': '0 s' })).toThrow(
      "filesystem option 'source.monitor-interval' must be a positive duration such as '1 s', got '0 s'",
    );
    expect(() => validate({ path: '/in', format: 'json', 'source.monitor-intervall': '1 s' })).toThrow(
      "filesystem does not support option 'source.monitor-intervall'; did you mean 'source.monitor-interval'?",
    );
    expect(() => validate({ path: '/in', format: 'csv', 'format.fail-on-error': 'true', 'csv.ignore-parse-errors': 'true' }, ints)).toThrow(
      "filesystem options 'csv.ignore-parse-errors' = 'true' and 'format.fail-on-error' = 'true' contradict each other",
    );
    expect(() => validate({ path: '/in', format: 'json', 'csv.allow-comments': 'true' })).toThrow(
      "filesystem option 'csv.allow-comments' applies only to 'format' = 'csv', not 'json'",
    );
  });

  it('rejects unknown options at CREATE TABLE with a suggestion', async () => {
    const engine = createEngine({ onWarning: () => {} });
    await expect(
      engine.execute("CREATE TABLE t (id INT) WITH ('connector' = 'filesystem', 'path' = '/in', 'format' = 'json', 'json.ignore-parse-error' = 'true')"),
    ).rejects.toThrow("unknown option 'json.ignore-parse-error' for connector 'filesystem'");
  });

  it('writes CSV with the quote character and null literal the source reads', () => {
    const ints: Schema = [{ name: 'id', type: SqlTypes.int() }];
    expect(parseFileSinkOptions(new Map([['path', '/p'], ['format', 'csv'], ['csv.quote-character', "'"], ['csv.null-literal', 'N/A']]), ints)).toEqual({
      path: '/p',
      format: 'csv',
      fieldDelimiter: ',',
      quoteCharacter: "'",
      nullLiteral: 'N/A',
      rolling: FLINK_ROLLING,
    });
  });

  it('needs a path and a known format, listing the formats', () => {
    expect(() => validate({ format: 'json' })).toThrow("filesystem needs option 'path': the directory to write part files to");
    expect(() => validate({ path: '  ', format: 'json' })).toThrow("filesystem needs option 'path'");
    expect(() => validate({ path: '/tmp/x' })).toThrow("filesystem needs option 'format'; the formats are 'json', 'csv', 'debezium-json'");
    expect(() => validate({ path: '/tmp/x', format: 'avro' })).toThrow("filesystem does not know format 'avro'; the formats are 'json', 'csv', 'debezium-json'");
    expect(() => validate({ path: '/tmp/x', format: 'json' })).not.toThrow();
    expect(() => validate({ path: '/tmp/x', format: 'debezium-json' })).not.toThrow();
  });

  it('refuses unknown options with a suggestion', () => {
    expect(() => validate({ path: '/tmp/x', format: 'json', 'sink.rolling-policy.filesize': '1MB' })).toThrow(
      "filesystem does not support option 'sink.rolling-policy.filesize'; did you mean 'sink.rolling-policy.file-size'?",
    );
  });

  it('checks the CSV delimiter and that the format can write the schema', () => {
    const ints: Schema = [{ name: 'id', type: SqlTypes.int() }];
    expect(() => validate({ path: '/tmp/x', format: 'csv' })).toThrow("format 'csv' cannot write column 'm' of type MAP<STRING, INT>");
    expect(() => validate({ path: '/tmp/x', format: 'json', 'csv.field-delimiter': ';' })).toThrow(
      "filesystem option 'csv.field-delimiter' applies only to 'format' = 'csv', not 'json'",
    );
    expect(() => validate({ path: '/tmp/x', format: 'csv', 'csv.field-delimiter': ';;' }, ints)).toThrow(
      "filesystem option 'csv.field-delimiter' must be one character other than a quote or line break, got ';;'",
    );
    expect(() => validate({ path: '/tmp/x', format: 'csv', 'csv.field-delimiter': '"' }, ints)).toThrow("got '\"'");
    expect(parseFileSinkOptions(new Map([['path', '/p'], ['format', 'csv'], ['csv.field-delimiter', '\\t']]), ints)).toEqual({
      path: '/p',
      format: 'csv',
      fieldDelimiter: '\t',
      rolling: FLINK_ROLLING,
    });
  });

  it('reads the rolling size as Flink’s MemorySize does', () => {
    expect(parseMemorySize('128MB', 'k')).toBe(128 * 1024 * 1024);
    expect(parseMemorySize(' 64 kb ', 'k')).toBe(65536);
    expect(parseMemorySize('1g', 'k')).toBe(1024 ** 3);
    expect(parseMemorySize('4096', 'k')).toBe(4096);
    expect(parseMemorySize('10 bytes', 'k')).toBe(10);
    for (const bad of ['0', '1.5MB', '12 parsecs', '-1', 'MB']) {
      expect(() => parseMemorySize(bad, 'sink.rolling-policy.file-size')).toThrow(
        `filesystem option 'sink.rolling-policy.file-size' must be a positive size such as '128MB' or '64 kb', got '${bad}'`,
      );
    }
    expect(parseFileSinkOptions(new Map([['path', '/p'], ['format', 'json'], ['sink.rolling-policy.file-size', '2 kb']]), schema).rollSize).toBe(2048);
  });

  it('creates transactional writers from a sink spec', () => {
    const writer = filesystemConnector.sink!.createWriter({
      kind: 'sink',
      table: 'out',
      connector: 'filesystem',
      options: { connector: 'filesystem', path: '/tmp/x', format: 'json' },
      schema,
      primaryKey: [],
    });
    expect(writer).toBeInstanceOf(FileSinkWriter);
  });
});

describe('filesystem sink options for partitions, partition commit and rolling', () => {
  const columns: Schema = [
    { name: 'id', type: SqlTypes.bigint() },
    { name: 'dt', type: SqlTypes.string() },
    { name: 'hm', type: SqlTypes.string() },
  ];
  const q10: Record<string, string> = {
    connector: 'filesystem',
    path: 'file:///data/output/1/bid/',
    format: 'csv',
    'sink.partition-commit.trigger': 'partition-time',
    'sink.partition-commit.delay': '1 min',
    'sink.partition-commit.policy.kind': 'success-file',
    'partition.time-extractor.timestamp-pattern': '$dt $hm:00',
    'sink.rolling-policy.rollover-interval': '1min',
    'sink.rolling-policy.check-interval': '1min',
  };
  const parse = (options: Record<string, string>, keys: readonly string[] = ['dt', 'hm']) => parseFileSinkOptions(new Map(Object.entries(options)), columns, keys);
  const check = (options: Record<string, string>, keys: readonly string[] = ['dt', 'hm']): void =>
    filesystemDescriptor.validate!(new Map(Object.entries(options)), columns, [], keys);

  it("reads q10's options as Flink does: a file URI, the partition-time trigger, a one-minute delay and rolling", () => {
    expect(parse(q10)).toEqual({
      path: '/data/output/1/bid/',
      format: 'csv',
      fieldDelimiter: ',',
      rolling: { rolloverMs: 60_000, inactivityMs: 1_800_000, checkMs: 60_000 },
      partitionKeys: ['dt', 'hm'],
      partitionCommit: { trigger: 'partition-time', delayMs: 60_000, successFileName: '_SUCCESS', timestampPattern: '$dt $hm:00' },
    });
    expect(() => check(q10)).not.toThrow();
  });

  it('commits partitions by process time with no delay by default, and not at all without a policy', () => {
    const { 'sink.partition-commit.trigger': _t, 'sink.partition-commit.delay': _d, 'partition.time-extractor.timestamp-pattern': _p, ...rest } = q10;
    expect(parse(rest).partitionCommit).toEqual({ trigger: 'process-time', delayMs: 0, successFileName: '_SUCCESS' });
    const { 'sink.partition-commit.policy.kind': _k, ...none } = q10;
    expect(parse(none).partitionCommit).toBeUndefined();
    expect(parse({ ...q10, 'sink.partition-commit.success-file.name': '_DONE', 'partition.default-name': 'none' })).toMatchObject({
      partitionCommit: { successFileName: '_DONE' },
      defaultPartitionName: 'none',
    });
  });

  it('names the option and the fix for every policy it cannot run', () => {
    expect(() => check({ ...q10, 'sink.partition-commit.policy.kind': 'metastore,success-file' })).toThrow(
      "filesystem option 'sink.partition-commit.policy.kind' cannot be 'metastore': there is no metastore; use 'success-file'",
    );
    expect(() => check({ ...q10, 'sink.partition-commit.policy.kind': 'custom' })).toThrow(
      "filesystem option 'sink.partition-commit.policy.kind' cannot be 'custom': weir loads no commit policy classes; use 'success-file'",
    );
    expect(() => check({ ...q10, 'sink.partition-commit.policy.kind': 'succes-file' })).toThrow(
      "filesystem option 'sink.partition-commit.policy.kind' does not know 'succes-file'; did you mean 'success-file'?",
    );
    expect(() => check({ ...q10, 'sink.partition-commit.policy.kind': '' })).toThrow(
      "filesystem option 'sink.partition-commit.policy.kind' does not know ''; use 'success-file'",
    );
    expect(() => check(q10, [])).toThrow("filesystem option 'sink.partition-commit.policy.kind' needs a partitioned table: declare PARTITIONED BY (...)");
  });

  it('checks the trigger, the delay, the pattern and the success file name', () => {
    expect(() => check({ ...q10, 'sink.partition-commit.trigger': 'partition_time' })).toThrow(
      "filesystem option 'sink.partition-commit.trigger' must be 'process-time' or 'partition-time', got 'partition_time'; did you mean 'partition-time'?",
    );
    expect(() => check({ ...q10, 'sink.partition-commit.delay': 'a minute' })).toThrow(
      "option 'sink.partition-commit.delay' must be a duration such as '500 ms' or '1 s', got 'a minute'",
    );
    expect(() => check({ ...q10, 'partition.time-extractor.timestamp-pattern': '$dt $hh:00' })).toThrow(
      "filesystem option 'partition.time-extractor.timestamp-pattern' refers to '$hh', which is not a partition column; did you mean '$hm'?",
    );
    expect(() => check({ ...q10, 'partition.time-extractor.timestamp-pattern': '$day' })).toThrow(
      "filesystem option 'partition.time-extractor.timestamp-pattern' refers to '$day', which is not a partition column; they are $dt, $hm",
    );
    expect(() => check({ ...q10, 'sink.partition-commit.success-file.name': 'a/b' })).toThrow(
      "filesystem option 'sink.partition-commit.success-file.name' must be a file name, got 'a/b'",
    );
    expect(() => check({ ...q10, 'partition.default-name': ' ' })).toThrow("filesystem option 'partition.default-name' must not be blank");
    expect(() => check({ ...q10, 'sink.partition-commit.trigger.kind': 'x' })).toThrow(
      "filesystem does not support option 'sink.partition-commit.trigger.kind'; did you mean 'sink.partition-commit.trigger'?",
    );
  });

  it('checks the rolling intervals', () => {
    expect(() => check({ ...q10, 'sink.rolling-policy.rollover-interval': '0 s' })).toThrow(
      "filesystem option 'sink.rolling-policy.rollover-interval' must be a positive duration such as '1 min', got '0 s'",
    );
    expect(() => check({ ...q10, 'sink.rolling-policy.inactivity-interval': 'never' })).toThrow(
      "option 'sink.rolling-policy.inactivity-interval' must be a duration such as '500 ms' or '1 s', got 'never'",
    );
    expect(parse({ ...q10, 'sink.rolling-policy.inactivity-interval': '5 s', 'sink.rolling-policy.check-interval': '500 ms' }).rolling).toEqual({
      rolloverMs: 60_000,
      inactivityMs: 5000,
      checkMs: 500,
    });
  });

  it('accepts a local path or a file URI, nothing else', () => {
    expect(() => check({ ...q10, path: 'hdfs://namenode/out' })).toThrow("filesystem option 'path' must be a local path or a file:// URI, got 'hdfs://namenode/out'");
    expect(() => check({ ...q10, path: 'file://remote-host/out' })).toThrow("filesystem option 'path' is not a valid file URI: 'file://remote-host/out'");
    expect(parse({ ...q10, path: 'file:/data/out' }).path).toBe('/data/out');
  });

  it('checks the PARTITIONED BY columns', () => {
    expect(() => check(q10, ['dt', 'hour'])).toThrow("PARTITIONED BY column 'hour' is not a column of the table; the columns are id, dt, hm");
    expect(() => check(q10, ['dt', 'hn'])).toThrow("PARTITIONED BY column 'hn' is not a column of the table; did you mean 'hm'?");
    expect(() => check(q10, ['dt', 'dt'])).toThrow("PARTITIONED BY names column 'dt' twice");
    expect(() => check(q10, ['id', 'dt', 'hm'])).toThrow('PARTITIONED BY names every column, which leaves none to write into the files');
    const nested: Schema = [...columns, { name: 'tags', type: SqlTypes.array(SqlTypes.string()) }];
    expect(() => filesystemDescriptor.validate!(new Map(Object.entries({ ...q10, format: 'json' })), nested, [], ['tags'])).toThrow(
      "PARTITIONED BY column 'tags' has type ARRAY<STRING>; a partition value must be a scalar",
    );
  });

  it('are checked at CREATE TABLE', async () => {
    const engine = createEngine({ onWarning: () => {} });
    await expect(
      engine.execute("CREATE TABLE t (id BIGINT, dt STRING) PARTITIONED BY (day) WITH ('connector' = 'filesystem', 'path' = '/out', 'format' = 'csv')"),
    ).rejects.toThrow("PARTITIONED BY column 'day' is not a column of the table; the columns are id, dt");
    await expect(
      engine.execute("CREATE TABLE t (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = '/out', 'format' = 'csv')"),
    ).resolves.toHaveLength(1);
  });
});

async function start(sql: string): Promise<JobHandle> {
  const results = await createEngine({ onWarning: () => {} }).execute(sql);
  const last = results[results.length - 1] as StatementResult;
  if (last.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(last)}`);
  return last.job;
}

function committedRecords(dir: string): unknown[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter((text) => text !== '')
    .map((text) => JSON.parse(text) as unknown);
}

/** Hidden part files left in `dir` (the sink's marks of committed checkpoints aside). */
const hiddenFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('.') && !name.startsWith('.weir-committed-'));

function script(dir: string, rows: number, options: { checkpoints?: string; sink?: string; query?: string; rate?: number } = {}): string {
  return `SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
    ${options.checkpoints === undefined ? '' : `SET 'execution.checkpointing.interval' = '${options.checkpoints}';`}
    SET 'pipeline.name' = 'to_files';
    CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${options.rate ?? 1000000}',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${rows}');
    CREATE TABLE out_files (${options.sink ?? 'id BIGINT'}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
    ${options.query ?? 'INSERT INTO out_files SELECT id FROM src;'}`;
}

const ids = (records: unknown[]): number[] => records.map((record) => (record as { id: number }).id).sort((a, b) => a - b);
const oneTo = (n: number): number[] => Array.from({ length: n }, (_unused, i) => i + 1);

const jobDirs: string[] = [];

function jobDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-fs-job-'));
  jobDirs.push(dir);
  return dir;
}

describe('filesystem sink in a job', () => {
  afterEach(() => {
    for (const dir of jobDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('makes every row visible at the end of a job without checkpoints', async () => {
    const dir = jobDir();
    const job = await start(script(dir, 5000));
    expect(await job.result()).toBe('FINISHED');
    expect(ids(committedRecords(join(dir, 'out')))).toEqual(oneTo(5000));
    expect(hiddenFiles(join(dir, 'out'))).toEqual([]);
  });

  it('writes every row exactly once across a stop with savepoint and a resume', async () => {
    const dir = jobDir();
    const rows = 20_000;
    const first = await start(script(dir, rows, { checkpoints: '50 ms', rate: 20000 }));
    while (first.lastCheckpoint === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.stopWithSavepoint();
    const partial = ids(committedRecords(join(dir, 'out')));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(rows);

    const second = await start(script(dir, rows, { checkpoints: '50 ms', rate: 20000 }));
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');
    expect(ids(committedRecords(join(dir, 'out')))).toEqual(oneTo(rows));
    expect(hiddenFiles(join(dir, 'out'))).toEqual([]);
  });

  it('fails an updating query into an append-only format with the precise error', async () => {
    const dir = jobDir();
    const query = 'INSERT INTO out_files SELECT id % 3, COUNT(*) FROM src GROUP BY id % 3;';
    const job = await start(script(dir, 400, { sink: 'k BIGINT, n BIGINT', query, rate: 2000 }));
    expect(await job.result()).toBe('FAILED');
    expect(String(job.error)).toMatch(
      /filesystem sink 'out_files' with format 'json' received an update \(-U\); use 'format' = 'debezium-json' for updating queries/,
    );
  });
});
