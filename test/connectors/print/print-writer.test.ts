import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { printConnector, printDescriptor } from '../../../src/connectors/print/print-connector.js';
import { linePrefix, PrintWriter, type PrintStream } from '../../../src/connectors/print/print-writer.js';
import type { SinkSpec } from '../../../src/dataflow/job-graph.js';

const schema = [
  { name: 'id', type: SqlTypes.int() },
  { name: 'name', type: SqlTypes.string() },
  { name: 'amount', type: SqlTypes.decimal(5, 2) },
  { name: 'ts', type: SqlTypes.timestamp(3) },
  { name: 'ok', type: SqlTypes.boolean() },
];

const spec = (options: Record<string, string> = {}): SinkSpec => ({
  kind: 'sink',
  table: 'out',
  connector: 'print',
  options,
  schema,
  primaryKey: [],
});

/** A stream that records what is written; `full` makes write() report backpressure. */
class RecordingStream extends EventEmitter implements PrintStream {
  readonly chunks: string[] = [];
  full = false;

  get writableNeedDrain(): boolean {
    return this.full;
  }

  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return !this.full;
  }

  drain(): void {
    this.full = false;
    this.emit('drain');
  }
}

async function openWriter(stream: PrintStream, options: Record<string, string> = {}, subtask = 0, parallelism = 1): Promise<PrintWriter> {
  const writer = new PrintWriter(spec(options), stream);
  await writer.open({ subtask, parallelism, warn: () => {} });
  return writer;
}

const noon = Date.UTC(2020, 0, 1, 12);

describe('print writer', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("shows a TIMESTAMP_LTZ in the job's zone, and a TIMESTAMP as it is", async () => {
    const stream = new RecordingStream();
    const ltzSpec: SinkSpec = { ...spec(), schema: [{ name: 'at', type: SqlTypes.timestampLtz(3) }, { name: 'ts', type: SqlTypes.timestamp(3) }] };
    const writer = new PrintWriter(ltzSpec, stream);
    await writer.open({ subtask: 0, parallelism: 1, timeZone: 'America/New_York', warn: () => {} });
    writer.write(ChangeBatch.of([[RowKind.INSERT, [noon, noon]]]));
    const utc = new PrintWriter(ltzSpec, stream);
    await utc.open({ subtask: 0, parallelism: 1, warn: () => {} });
    utc.write(ChangeBatch.of([[RowKind.INSERT, [noon, noon]]]));
    expect(stream.chunks).toEqual(['+I[2020-01-01 07:00:00.000, 2020-01-01 12:00:00.000]\n', '+I[2020-01-01 12:00:00.000, 2020-01-01 12:00:00.000]\n']);
  });

  it('writes one line per change in Flink’s format, the whole batch at once', async () => {
    const stream = new RecordingStream();
    const writer = await openWriter(stream);
    const result = writer.write(
      ChangeBatch.of([
        [RowKind.INSERT, [1, 'abc', 1050n, noon, true]],
        [RowKind.UPDATE_BEFORE, [1, 'abc', 1050n, noon, true]],
        [RowKind.UPDATE_AFTER, [1, 'a b', -5n, noon + 1, false]],
        [RowKind.DELETE, [null, null, null, null, null]],
      ]),
    );
    expect(result).toBeUndefined();
    expect(stream.chunks).toEqual([
      '+I[1, abc, 10.50, 2020-01-01 12:00:00.000, TRUE]\n' +
        '-U[1, abc, 10.50, 2020-01-01 12:00:00.000, TRUE]\n' +
        '+U[1, a b, -0.05, 2020-01-01 12:00:00.001, FALSE]\n' +
        '-D[null, null, null, null, null]\n',
    ]);
  });

  it('writes nothing for an empty batch', async () => {
    const stream = new RecordingStream();
    (await openWriter(stream)).write(new ChangeBatch());
    expect(stream.chunks).toEqual([]);
  });

  it('prefixes lines as Flink does', async () => {
    const stream = new RecordingStream();
    const row = ChangeBatch.of([[RowKind.INSERT, [7, 'x', 0n, noon, true]]]);
    (await openWriter(stream, { 'print-identifier': 'sink' })).write(row);
    (await openWriter(stream, { 'print-identifier': 'sink' }, 2, 3)).write(row);
    (await openWriter(stream, {}, 0, 2)).write(row);
    expect(stream.chunks.map((line) => line.slice(0, line.indexOf('+I')))).toEqual(['sink> ', 'sink:3> ', '1> ']);
    expect(linePrefix('', 0, 1)).toBe('');
  });

  it('waits for drain when the stream is full', async () => {
    const stream = new RecordingStream();
    const writer = await openWriter(stream);
    stream.full = true;
    const pending = writer.write(ChangeBatch.of([[RowKind.INSERT, [1, 'a', 0n, noon, true]]]));
    expect(pending).toBeInstanceOf(Promise);
    let resolved = false;
    void pending!.then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(resolved).toBe(false);
    stream.drain();
    await pending;
    expect(resolved).toBe(true);
    expect(stream.listenerCount('drain') + stream.listenerCount('error') + stream.listenerCount('close')).toBe(0);
  });

  it('flushes by waiting until a real stream has drained', async () => {
    const written: string[] = [];
    const stream = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _encoding, callback) {
        setTimeout(() => {
          written.push(chunk.toString());
          callback();
        }, 20);
      },
    });
    const writer = await openWriter(stream);
    const pending = writer.write(ChangeBatch.of([[RowKind.INSERT, [1, 'a', 0n, noon, true]]]));
    expect(pending).toBeInstanceOf(Promise);
    await writer.flush();
    expect(written).toEqual(['+I[1, a, 0.00, 2020-01-01 12:00:00.000, TRUE]\n']);
    await pending;
    await writer.close();
  });

  it('fails the pending write when the stream fails', async () => {
    const stream = new RecordingStream();
    const writer = await openWriter(stream);
    stream.full = true;
    const pending = writer.write(ChangeBatch.of([[RowKind.INSERT, [1, 'a', 0n, noon, true]]]));
    stream.emit('error', new Error('EPIPE'));
    await expect(pending).rejects.toThrow('print sink: writing failed: EPIPE');
  });

  it('writes to stdout by default and to stderr with standard-error', async () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const row = ChangeBatch.of([[RowKind.INSERT, [1, 'a', 0n, noon, true]]]);
    const out = printConnector.sink!.createWriter(spec());
    await out.open({ subtask: 0, parallelism: 1, warn: () => {} });
    out.write(row);
    const err = printConnector.sink!.createWriter(spec({ 'standard-error': 'true' }));
    await err.open({ subtask: 0, parallelism: 1, warn: () => {} });
    err.write(row);
    expect(stdout).toHaveBeenCalledTimes(1);
    expect(stderr).toHaveBeenCalledTimes(1);
  });
});

describe('print descriptor', () => {
  it('is a sink for any changelog', () => {
    expect(printDescriptor.name).toBe('print');
    expect(printDescriptor.sink?.accepts).toBe('all');
    expect(printDescriptor.source).toBeUndefined();
  });

  it('validates its options', () => {
    const validate = (options: Record<string, string>) => () => printDescriptor.validate!(new Map(Object.entries(options)), schema, []);
    expect(validate({ connector: 'print', 'print-identifier': 'x', 'standard-error': 'False', 'sink.parallelism': '2' })).not.toThrow();
    expect(validate({ 'standard-error': 'yes' })).toThrow(new WeirError('INVALID_OPTION', "print option 'standard-error' must be 'true' or 'false', got 'yes'"));
    expect(validate({ 'sink.parallelism': '0' })).toThrow("print option 'sink.parallelism' must be a positive integer, got '0'");
    expect(validate({ 'print-identifer': 'x' })).toThrow("print does not support option 'print-identifer'; did you mean 'print-identifier'?");
  });
});
