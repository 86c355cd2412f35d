import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { builtinConnectors } from '../../../src/connectors/builtin-connectors.js';
import { FileSinkWriter } from '../../../src/connectors/filesystem/file-sink-writer.js';
import { filesystemConnector, filesystemDescriptor, parseFileSinkOptions, parseMemorySize } from '../../../src/connectors/filesystem/filesystem-connector.js';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.int()) },
];

const validate = (options: Record<string, string>, columns: Schema = schema): void =>
  filesystemDescriptor.validate!(new Map(Object.entries({ connector: 'filesystem', ...options })), columns, []);

describe('filesystem descriptor', () => {
  it('is a sink of any changelog and an insert-only replayable source, registered with the built-in connectors', () => {
    expect(filesystemDescriptor.sink?.accepts).toBe('all');
    expect(filesystemDescriptor.source?.changelog).toBe('insert-only');
    const traits = (options: Record<string, string>) => filesystemDescriptor.source!.traits(new Map(Object.entries(options)), schema);
    expect(traits({ path: '/in', format: 'json' })).toEqual({ bounded: true, replayable: true });
    expect(traits({ path: '/in', format: 'json', 'source.monitor-interval': '1 s' })).toEqual({ bounded: false, replayable: true });
    expect(builtinConnectors).toContain(filesystemConnector);
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

const hiddenFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('.'));

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
