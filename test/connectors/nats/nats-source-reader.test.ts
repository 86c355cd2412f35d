/**
 * The NATS source reader against the real NATS server with JetStream: every message once, in
 * stream order; the offset is the stream sequence and a reader that seeks to it continues exactly
 * after it; startup modes (earliest, latest, sequence); bounded reads that end at the stream's end
 * as of the first start (kept in the offset) or at a given sequence, also when the last messages
 * are on other subjects; subject filters with wildcards; far more messages than the reader
 * buffers; bad records (fail with subject, stream sequence and reason, or set aside).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { MAX_VARCHAR_LENGTH } from '../../../src/common/sql-type.js';
import { createBadRecordPolicy, deadLetterPath } from '../../../src/connectors/formats/bad-record-policy.js';
import { createRecordDecoder } from '../../../src/connectors/formats/record-decoder-factory.js';
import { parseNatsTable } from '../../../src/connectors/nats/nats-connector.js';
import { NatsSourceReader } from '../../../src/connectors/nats/nats-source-reader.js';
import type { SourceReader } from '../../../src/runtime/source-reader.js';
import { createTestStream, natsOptions, openNatsReader, pollRows, pollToEnd, type TestStream } from './nats-test-util.js';

const SCHEMA: Schema = [
  { name: 'id', type: { kind: 'BIGINT', nullable: true } },
  { name: 'name', type: { kind: 'VARCHAR', nullable: true, length: MAX_VARCHAR_LENGTH } },
];

const json = (id: number): string => JSON.stringify({ id, name: `n${id}` });
const rowsOf = (ids: readonly number[]): unknown[][] => ids.map((id) => [id, `n${id}`]);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let streams: TestStream[] = [];
let readers: SourceReader[] = [];

async function stream(): Promise<TestStream> {
  const s = await createTestStream('reader');
  streams.push(s);
  return s;
}

async function open(options: Record<string, string>, offset?: unknown, warnings?: string[]): Promise<SourceReader> {
  const reader = await openNatsReader(options, SCHEMA, offset, warnings);
  readers.push(reader);
  return reader;
}

afterEach(async () => {
  for (const reader of readers) await reader.close();
  for (const s of streams) await s.delete();
  readers = [];
  streams = [];
});

describe('nats source reader', () => {
  it('reads every message in stream order and ends at the last sequence as of the start', async () => {
    const s = await stream();
    await s.publish('a', range(1, 25).map(json));
    const reader = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    expect(await pollToEnd(reader)).toEqual(rowsOf(range(1, 25)));
    expect(reader.currentOffset()).toEqual({ sequence: 25, end: 25 });
  });

  it('resumes right after the offset: the two halves are the whole stream, nothing twice', async () => {
    const s = await stream();
    await s.publish('a', range(1, 40).map(json));
    const first = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    const { rows: head } = await pollRows(first, 13);
    const offset = JSON.parse(JSON.stringify(first.currentOffset()));
    expect(offset).toEqual({ sequence: 13, end: 40 });
    await first.close();

    await s.publish('a', range(41, 50).map(json));
    const second = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }), offset);
    const tail = await pollToEnd(second);
    expect([...head, ...tail]).toEqual(rowsOf(range(1, 40)));
  });

  it('an unbounded reader is idle at the end of the stream and goes on when messages arrive', async () => {
    const s = await stream();
    await s.publish('a', range(1, 5).map(json));
    const reader = await open(natsOptions(s));
    expect((await pollRows(reader, 5)).rows).toEqual(rowsOf(range(1, 5)));
    const batch = new ChangeBatch();
    expect(await reader.poll(batch, 10)).toBe('idle');
    expect(batch.size).toBe(0);
    await s.publish('a', range(6, 8).map(json));
    expect((await pollRows(reader, 3)).rows).toEqual(rowsOf(range(6, 8)));
    expect(reader.currentOffset()).toEqual({ sequence: 8 });
  });

  it("'latest' starts after the stream's last message; 'sequence' at a given one, bounded by another", async () => {
    const s = await stream();
    await s.publish('a', range(1, 10).map(json));
    const latest = await open(natsOptions(s, { 'scan.startup.mode': 'latest' }));
    expect(latest.currentOffset()).toEqual({ sequence: 10 });
    await s.publish('a', range(11, 12).map(json));
    expect((await pollRows(latest, 2)).rows).toEqual(rowsOf([11, 12]));

    const between = await open(natsOptions(s, { 'scan.startup.mode': 'sequence', 'scan.startup.sequence': '4', 'scan.bounded.mode': 'sequence', 'scan.bounded.sequence': '7' }));
    expect(await pollToEnd(between)).toEqual(rowsOf(range(4, 7)));
    expect(between.currentOffset()).toEqual({ sequence: 7, end: 7 });
  });

  it('a bounded read keeps the end it found at the first start when it resumes', async () => {
    const s = await stream();
    await s.publish('a', range(1, 6).map(json));
    const first = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    await pollRows(first, 2);
    const offset = first.currentOffset();
    await first.close();
    await s.publish('a', range(7, 9).map(json));
    const second = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }), offset);
    expect(await pollToEnd(second)).toEqual(rowsOf(range(3, 6)));
  });

  it('filters by subject with wildcards, and a bounded read ends although the last messages are on other subjects', async () => {
    const s = await stream();
    await s.publish('eu.orders', [json(1), json(2)]);
    await s.publish('us.orders', [json(3)]);
    await s.publish('eu.refunds', [json(4)]);
    await s.publish('eu.orders.late', [json(5)]);
    await s.publish('us.orders', [json(6), json(7)]);
    const orders = await open(natsOptions(s, { subject: `${s.name}.*.orders`, 'scan.bounded.mode': 'latest' }));
    expect(await pollToEnd(orders)).toEqual(rowsOf([1, 2, 3, 6, 7]));
    const eu = await open(natsOptions(s, { subject: `${s.name}.eu.>`, 'scan.bounded.mode': 'latest' }));
    expect(await pollToEnd(eu)).toEqual(rowsOf([1, 2, 4, 5]));
    expect(eu.currentOffset()).toEqual({ sequence: 5, end: 7 });
  });

  it('a bounded read with no matching message ends at once', async () => {
    const s = await stream();
    await s.publish('a', [json(1)]);
    const none = await open(natsOptions(s, { subject: `${s.name}.b`, 'scan.bounded.mode': 'latest' }));
    expect(await pollToEnd(none, 2_000)).toEqual([]);
    const empty = await open(natsOptions(s, { 'scan.startup.mode': 'latest', 'scan.bounded.mode': 'latest' }));
    expect(await pollToEnd(empty, 2_000)).toEqual([]);
    expect(empty.currentOffset()).toEqual({ sequence: 1, end: 1 });
  });

  it('reads far more messages than it buffers, each once and in order', async () => {
    const s = await stream();
    const total = 30_000;
    await s.publishMany('bulk', range(1, total).map(json));
    const reader = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    const rows = await pollToEnd(reader, 30_000);
    expect(rows.length).toBe(total);
    expect(rows.every((row, i) => row[0] === i + 1)).toBe(true);
  });

  it('fails on a bad record naming the subject, the stream sequence and the reason', async () => {
    const s = await stream();
    await s.publish('in', [json(1), '{"id": "x1", "name": "n"}', json(3)]);
    const reader = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    await expect(pollToEnd(reader)).rejects.toThrow(
      `nats source 't': subject '${s.name}.in' of stream '${s.name}', stream sequence 2: column 'id': 'x1' is not a valid BIGINT`,
    );
    expect(reader.currentOffset()).toEqual({ sequence: 2, end: 3 });
  });

  it('a message that is not UTF-8 is a bad record too', async () => {
    const s = await stream();
    await s.connection.jetstream().publish(`${s.name}.in`, new Uint8Array([0x7b, 0xff, 0x7d]));
    const reader = await open(natsOptions(s, { 'scan.bounded.mode': 'latest' }));
    await expect(pollToEnd(reader)).rejects.toThrow(`nats source 't': subject '${s.name}.in' of stream '${s.name}', stream sequence 1: the message is not valid UTF-8`);
  });

  it("with 'format.ignore-parse-errors' sets bad records aside in the dead-letter file and goes on", async () => {
    const s = await stream();
    await s.publish('in', [json(1), 'not json\n', json(3), 'id,name']);
    const options = natsOptions(s, { 'scan.bounded.mode': 'latest', 'format.ignore-parse-errors': 'true' });
    const { config, format } = parseNatsTable(new Map(Object.entries(options)), SCHEMA);
    const dir = mkdtempSync(join(tmpdir(), 'weir-nats-dead-'));
    const reader = new NatsSourceReader('t', config, {
      decoder: createRecordDecoder(SCHEMA, format),
      policy: (warn) => createBadRecordPolicy({ connector: 'nats', table: 't', ignoreParseErrors: true, warn, deadLetterDir: dir }),
    });
    readers.push(reader);
    const warnings: string[] = [];
    await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
    expect(await pollToEnd(reader)).toEqual(rowsOf([1, 3]));
    expect(reader.currentOffset()).toEqual({ sequence: 4, end: 4 });
    const dead = readFileSync(deadLetterPath('t', dir), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(dead.map((d) => [d.source, d.position, d.record])).toEqual([
      [`subject '${s.name}.in' of stream '${s.name}'`, 'stream sequence 2', 'not json'],
      [`subject '${s.name}.in' of stream '${s.name}'`, 'stream sequence 4', 'id,name'],
    ]);
    expect(warnings).toHaveLength(2);
    expect(reader.rejectedRecords()).toBe(2);
  });

  it('fails when the stream is deleted while it reads', async () => {
    const s = await stream();
    await s.publish('a', range(1, 3).map(json));
    const reader = await open(natsOptions(s));
    expect((await pollRows(reader, 3)).rows).toHaveLength(3);
    await (await s.connection.jetstreamManager()).streams.delete(s.name);
    await expect(pollRows(reader, 1, 20_000)).rejects.toThrow(`nats table 't': stream '${s.name}' no longer exists at ${s.url} (reading at sequence 4)`);
  });
});
