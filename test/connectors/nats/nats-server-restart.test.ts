/**
 * A NATS server that goes away while the source reads: a `nats-server -js` of the test's own, on a
 * free port, is killed (SIGKILL) and started again on the same store. The reader warns (with the
 * password in the URL masked), reconnects with backoff, recreates its consumer after the last
 * message it queued, and reads on: the rows are every message exactly once, in stream order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import type { SourceReader } from '../../../src/runtime/source-reader.js';
import {
  createTestStream,
  HAS_NATS_SERVER,
  natsOptions,
  openNatsReader,
  pollRows,
  startOwnNatsServer,
  type OwnNatsServer,
  type TestStream,
} from './nats-test-util.js';

const SCHEMA: Schema = [{ name: 'id', type: { kind: 'BIGINT', nullable: true } }];
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const payloads = (ids: readonly number[]): string[] => ids.map((id) => `{"id": ${id}}`);

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setup(): Promise<{ server: OwnNatsServer; stream: TestStream; reader: SourceReader; warnings: string[]; url: string }> {
  const server = await startOwnNatsServer();
  cleanup.push(() => server.destroy());
  const stream = await createTestStream('restart', server.url);
  cleanup.push(() => stream.delete());
  const warnings: string[] = [];
  const url = server.url.replace('nats://', 'nats://weir:s3cret-pw@');
  const reader = await openNatsReader(natsOptions(stream, { url }), SCHEMA, undefined, warnings);
  cleanup.push(() => reader.close());
  return { server, stream, reader, warnings, url };
}

/** Polls until `count` more rows arrived; fails with what it got after `timeoutMs`. */
async function read(reader: SourceReader, count: number, timeoutMs = 30_000): Promise<Row[]> {
  const { rows } = await pollRows(reader, count, timeoutMs);
  if (rows.length < count) throw new Error(`read ${rows.length} of ${count} rows within ${timeoutMs} ms`);
  return rows;
}

/** Publishes, retrying while the test's own connection has not reconnected yet. */
async function publishAfterRestart(stream: TestStream, ids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await stream.publish('a', payloads(ids.slice(0, 1)));
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stream.publishMany('a', payloads(ids.slice(1)));
}

describe.skipIf(!HAS_NATS_SERVER)('nats source across a server restart', () => {
  it('idle when the server dies: warns (URL masked), reconnects, and reads what is published afterwards', async () => {
    const { server, stream, reader, warnings } = await setup();
    await stream.publish('a', payloads(range(1, 300)));
    const before = await read(reader, 300);
    await server.stop();
    await server.start();
    await publishAfterRestart(stream, range(301, 600));
    const after = await read(reader, 300);
    expect([...before, ...after].map((r) => r[0])).toEqual(range(1, 600));
    const port = new URL(server.url).port;
    expect(warnings).toContain(`nats table 't' lost its connection to nats://weir:***@127.0.0.1:${port}; reconnecting`);
    expect(warnings).toContain(`nats table 't' reconnected to nats://weir:***@127.0.0.1:${port}`);
    expect(warnings.join('\n')).not.toContain('s3cret-pw');
  });

  it('killed in the middle of a backlog: every message once, in order', async () => {
    const { server, stream, reader, warnings } = await setup();
    const total = 40_000;
    await stream.publishMany('a', payloads(range(1, total)));
    const rows: Row[] = await read(reader, 3_000);
    await server.stop();
    rows.push(...(await pollRows(reader, total, 200)).rows);
    await server.start();
    rows.push(...(await read(reader, total - rows.length)));
    expect(rows.length).toBe(total);
    expect(rows.every((row, i) => row[0] === i + 1)).toBe(true);

    expect(warnings.some((w) => w.includes('reconnected'))).toBe(true);
  });
});
