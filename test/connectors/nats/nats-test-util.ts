/**
 * Helpers for the NATS source tests, against real servers: a stream of its own per test (unique
 * name, deleted afterwards) on the suite's NATS server with JetStream (127.0.0.1:4222, or
 * WEIR_TEST_NATS_URL), a `nats-server` of a test's own on a free port that can be stopped and
 * started again, and a poll loop over a reader.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import type { PollStatus, SourceReader } from '../../../src/runtime/source-reader.js';
import { natsConnector } from '../../../src/connectors/nats/nats-connector.js';

/** The suite's NATS server. */
export const NATS_URL = process.env.WEIR_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A stream of one test: subjects `<name>.>`. */
export interface TestStream {
  readonly name: string;
  readonly url: string;
  readonly connection: NatsConnection;
  /** Publishes each payload on `<name>.<suffix>`, in order; resolves with their stream sequences. */
  publish(suffix: string, payloads: readonly string[]): Promise<number[]>;
  /** Publishes many payloads without waiting for each acknowledgement; resolves once the stream holds them all. */
  publishMany(suffix: string, payloads: readonly string[]): Promise<void>;
  /** Deletes the stream and closes the connection. */
  delete(): Promise<void>;
}

/** Creates `weir_<tag>_<random>` on the server at `url`. */
export async function createTestStream(tag: string, url = NATS_URL): Promise<TestStream> {
  const name = `weir_${tag}_${randomBytes(4).toString('hex')}`;
  const connection = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const manager = await connection.jetstreamManager();
  await manager.streams.add({ name, subjects: [`${name}.>`] });
  const client = connection.jetstream();
  const encoder = new TextEncoder();
  return {
    name,
    url,
    connection,
    publish: async (suffix, payloads) => {
      const acks = await Promise.all(payloads.map((p) => client.publish(`${name}.${suffix}`, encoder.encode(p))));
      return acks.map((a) => a.seq);
    },
    publishMany: async (suffix, payloads) => {
      const before = (await manager.streams.info(name)).state.messages;
      for (const p of payloads) connection.publish(`${name}.${suffix}`, encoder.encode(p));
      await connection.flush();
      const deadline = Date.now() + 30_000;
      while ((await manager.streams.info(name)).state.messages < before + payloads.length) {
        if (Date.now() > deadline) throw new Error(`stream ${name} did not receive ${payloads.length} messages`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    delete: async () => {
      await manager.streams.delete(name).catch(() => undefined);
      await connection.close();
    },
  };
}

/** The options of a NATS table on `stream`, JSON unless `options` says otherwise. */
export function natsOptions(stream: TestStream, options: Record<string, string> = {}): Record<string, string> {
  return { connector: 'nats', url: stream.url, stream: stream.name, format: 'json', ...options };
}

/** An opened reader of a NATS table; `warnings` collects what it reported. */
export async function openNatsReader(
  options: Record<string, string>,
  schema: Schema,
  offset?: unknown,
  warnings: string[] = [],
): Promise<SourceReader> {
  const reader = natsConnector.source!.createReader({ kind: 'source', table: 't', connector: 'nats', options, schema });
  if (offset !== undefined) reader.seek!(offset);
  await reader.open({ subtask: 0, parallelism: 1, warn: (m) => warnings.push(m) });
  return reader;
}

/**
 * Polls until `count` rows were read, the reader ended, or `timeoutMs` passed (waiting 5 ms when
 * it is idle); returns the rows and the last status.
 */
export async function pollRows(reader: SourceReader, count: number, timeoutMs = 10_000, batchSize = 100): Promise<{ rows: Row[]; status: PollStatus }> {
  const rows: Row[] = [];
  const batch = new ChangeBatch();
  const deadline = Date.now() + timeoutMs;
  let status: PollStatus = 'more';
  while (rows.length < count && status !== 'end' && Date.now() < deadline) {
    batch.clear();
    status = await reader.poll(batch, Math.min(batchSize, count - rows.length));
    rows.push(...batch.rows);
    if (status === 'idle') await new Promise((r) => setTimeout(r, 5));
  }
  return { rows, status };
}

/** Polls until the reader ends; fails after `timeoutMs`. */
export async function pollToEnd(reader: SourceReader, timeoutMs = 10_000): Promise<Row[]> {
  const { rows, status } = await pollRows(reader, Infinity, timeoutMs);
  if (status !== 'end') throw new Error(`the reader did not end within ${timeoutMs} ms (read ${rows.length} rows)`);
  return rows;
}

/** True when a `nats-server` binary is on the PATH. */
export const HAS_NATS_SERVER = spawnSync('nats-server', ['--version']).status === 0;

/** A `nats-server -js` of one test, on a free port, with its store in a temporary folder. */
export interface OwnNatsServer {
  readonly url: string;
  /** Kills the server (SIGKILL) and waits until it is gone; the store stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its store. */
  destroy(): Promise<void>;
}

/** Starts a server of the test's own; with `jetstream` false, one without JetStream. */
export async function startOwnNatsServer(options: { jetstream?: boolean } = {}): Promise<OwnNatsServer> {
  const jetstream = options.jetstream ?? true;
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), 'weir-nats-'));
  let child: ChildProcess | undefined;
  const server: OwnNatsServer = {
    url: `nats://127.0.0.1:${port}`,
    start: async () => {
      child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), ...(jetstream ? ['-js', '-sd', store] : [])], { stdio: 'ignore' });
      await waitUntilReachable(server.url, jetstream);
    },
    stop: async () => {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
    destroy: async () => {
      await server.stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

async function waitUntilReachable(url: string, jetstream: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const connection = await connect({ servers: url, timeout: 500 });
      if (jetstream) await connection.jetstreamManager();
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
