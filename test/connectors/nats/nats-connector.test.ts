/**
 * The `nats` connector's options and the errors a NATS source gives before it reads: unknown
 * options with "did you mean", startup and bounded modes, stream and subject names, server URLs
 * with credentials (never shown), and at open a server that cannot be reached, a server without
 * JetStream, a subject outside the stream; a job resuming after messages were removed warns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/common/schema.js';
import { MAX_VARCHAR_LENGTH } from '../../../src/common/sql-type.js';
import { natsDescriptor, parseNatsTable } from '../../../src/connectors/nats/nats-connector.js';
import { maskNatsUrl, parseNatsServers } from '../../../src/connectors/nats/nats-servers.js';
import { createTestStream, HAS_NATS_SERVER, natsOptions, openNatsReader, pollRows, startOwnNatsServer, type TestStream } from './nats-test-util.js';

const SCHEMA: Schema = [
  { name: 'id', type: { kind: 'BIGINT', nullable: true } },
  { name: 'name', type: { kind: 'VARCHAR', nullable: true, length: MAX_VARCHAR_LENGTH } },
];

const BASE = { connector: 'nats', url: 'nats://127.0.0.1:4222', stream: 'orders', format: 'json' };

function parse(options: Record<string, string>, schema: Schema = SCHEMA): ReturnType<typeof parseNatsTable> {
  return parseNatsTable(new Map(Object.entries({ ...BASE, ...options })), schema);
}

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('nats options', () => {
  it('defaults: every subject, from the earliest message, unbounded', () => {
    const { config, format } = parse({});
    expect(config).toMatchObject({ stream: 'orders', subject: undefined, startup: { mode: 'earliest' }, bound: { mode: 'unbounded' } });
    expect(config.servers.servers).toEqual(['nats://127.0.0.1:4222']);
    expect(format.format).toBe('json');
    expect(natsDescriptor.source!.traits(new Map(Object.entries(BASE)), SCHEMA)).toEqual({ bounded: false, replayable: true });
    expect(natsDescriptor.source!.traits(new Map(Object.entries({ ...BASE, 'scan.bounded.mode': 'latest' })), SCHEMA)).toEqual({ bounded: true, replayable: true });
  });

  it('startup and bounded sequences', () => {
    const { config } = parse({ 'scan.startup.mode': 'sequence', 'scan.startup.sequence': '42', 'scan.bounded.mode': 'sequence', 'scan.bounded.sequence': '99' });
    expect(config.startup).toEqual({ mode: 'sequence', sequence: 42 });
    expect(config.bound).toEqual({ mode: 'sequence', sequence: 99 });
  });

  it.each([
    [{ subjects: 'a.b' }, "nats does not support option 'subjects'; did you mean 'subject'?"],
    [{ 'scan.startup.mode': 'earliest-offset' }, "nats option 'scan.startup.mode' must be one of 'earliest', 'latest', 'sequence', got 'earliest-offset'"],
    [{ 'scan.startup.mode': 'sequence' }, "nats option 'scan.startup.mode' = 'sequence' needs option 'scan.startup.sequence'"],
    [{ 'scan.startup.mode': 'sequence', 'scan.startup.sequence': '0' }, "nats option 'scan.startup.sequence' must be a stream sequence (a positive integer), got '0'"],
    [{ 'scan.bounded.sequence': '10' }, "nats option 'scan.bounded.sequence' applies only to 'scan.bounded.mode' = 'sequence'"],
    [{ stream: 'orders.eu' }, "nats option 'stream' must be a stream name (no spaces, '.', '*', '>', '/' or '\\'), got 'orders.eu'"],
    [{ subject: 'orders.>.eu' }, "nats option 'subject' must be a subject such as 'orders.*' or 'orders.>' (dot-separated tokens, '>' only last), got 'orders.>.eu'"],
    [{ subject: 'orders..eu' }, "nats option 'subject' must be a subject such as 'orders.*' or 'orders.>' (dot-separated tokens, '>' only last), got 'orders..eu'"],
    [{ url: 'localhost:4222' }, "nats option 'url' must be a server URL such as nats://127.0.0.1:4222 (several separated by commas), got 'localhost:4222'"],
    [{ url: 'nats://a:4222,https://u:pw1234@b:4222' }, "nats option 'url' must be a server URL such as nats://127.0.0.1:4222 (several separated by commas), got 'https://u:***@b:4222'"],
    [{ format: 'avro' }, "nats cannot read format 'avro'; the formats it reads are 'json', 'csv'"],
    [{ format: 'csv', 'csv.allow-comments': 'true' }, "nats option 'csv.allow-comments' applies to files only: every message is a record"],
    [{ 'json.fail-on-missing-field': 'yes' }, "nats option 'json.fail-on-missing-field' must be 'true' or 'false', got 'yes'"],
  ])('%j is refused: %s', (options, message) => {
    expect(() => parse(options)).toThrow(message);
  });

  it('takes credentials out of the URLs and never shows them', () => {
    const token = parseNatsServers('nats://s3cr3t-token@127.0.0.1:4222, tls://other:4443');
    expect(token).toEqual({ servers: ['nats://127.0.0.1:4222', 'tls://other:4443'], token: 's3cr3t-token', display: 'nats://***@127.0.0.1:4222,tls://other:4443' });
    const user = parseNatsServers('nats://weir:p%40ss@host:4222');
    expect(user).toEqual({ servers: ['nats://host:4222'], user: 'weir', pass: 'p@ss', display: 'nats://weir:***@host:4222' });
    expect(maskNatsUrl('not a url://x:secret@y')).toBe('not a url://x:***@y');
  });
});

describe('nats source errors at open', () => {
  it('a server that cannot be reached: named, with the token masked', async () => {
    await expect(openNatsReader({ ...BASE, url: 'nats://tok3n-value@127.0.0.1:1' }, SCHEMA)).rejects.toThrow(
      "nats table 't' cannot connect to nats://***@127.0.0.1:1: connection refused",
    );
  });

  it('a subject outside the stream names the stream and its subjects', async () => {
    const s: TestStream = await createTestStream('errors');
    cleanup.push(() => s.delete());
    await expect(openNatsReader(natsOptions(s, { subject: 'elsewhere.>' }), SCHEMA)).rejects.toMatchObject({
      message: `nats table 't': subject 'elsewhere.>' is not within stream '${s.name}' at ${s.url}`,
      hint: `the stream's subjects: ${s.name}.>`,
    });
  });

  it.skipIf(!HAS_NATS_SERVER)('a server without JetStream', async () => {
    const server = await startOwnNatsServer({ jetstream: false });
    cleanup.push(() => server.destroy());
    await expect(openNatsReader({ ...BASE, url: server.url }, SCHEMA)).rejects.toThrow(
      `nats table 't' cannot use JetStream at ${server.url}: JetStream is not enabled there (nats-server -js)`,
    );
  });

  it('resuming after messages were removed from the stream warns and reads on', async () => {
    const s = await createTestStream('purged');
    cleanup.push(() => s.delete());
    await s.publish('a', Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: i + 1 })));
    const first = await openNatsReader(natsOptions(s), SCHEMA);
    await pollRows(first, 4);
    const offset = first.currentOffset();
    await first.close();
    await (await s.connection.jetstreamManager()).streams.purge(s.name);
    await s.publish('a', [JSON.stringify({ id: 11 })]);
    const warnings: string[] = [];
    const second = await openNatsReader(natsOptions(s), SCHEMA, offset, warnings);
    cleanup.push(() => second.close());
    expect((await pollRows(second, 1)).rows).toEqual([[11, null]]);
    expect(warnings).toEqual([`nats table 't' resumes stream '${s.name}' at sequence 5, but the stream now starts at 11: messages 5..10 were removed before they were read`]);
  });
});
