/**
 * The embedded PostgreSQL weir uses when no server is configured: PGlite (Postgres compiled to
 * WebAssembly) kept in a directory (`.weir/postgres` by default), started with
 * `max_prepared_transactions` so that two-phase commit works, and served over the wire protocol
 * on a loopback port, so that the postgres sink, recovery and the REPL reach it through exactly
 * the code they use for a real server.
 *
 * PGlite is one backend session. Its socket server multiplexes client connections onto it, and
 * while one connection has a transaction open, the others wait. Two consequences the sink
 * respects: it never keeps a transaction open across a checkpoint's commit (it writes only at the
 * barrier), and it resolves prepared transactions before it writes again (a row lock held by a
 * prepared transaction could otherwise never be released: there is no other backend to do it).
 *
 * One process owns a data directory at a time; its pid and URL are in `<dir>.pid`, so another
 * weir process in the same working directory connects to the owner instead of opening the files
 * twice. A lock left by a process that died is taken over.
 */
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { WeirError } from '../../common/errors.js';
import { isProcessAlive } from '../../common/process-liveness.js';

/** Where the embedded server keeps its files: `.weir/postgres` under the working directory, beside the checkpoints. */
export function defaultEmbeddedDirectory(): string {
  return resolve('.weir', 'postgres');
}

/** How the embedded server is named in messages: its directory relative to the working directory. */
export function describeEmbedded(dir: string): string {
  return `the embedded PostgreSQL in ${relative(process.cwd(), dir) || '.'}`;
}

/** Enough for the sinks of several jobs (each job run shares a few control connections and one per open transaction per database) and the REPL. */
const MAX_CONNECTIONS = 256;

/** Prepared transactions PGlite may hold at once. */
const MAX_PREPARED_TRANSACTIONS = 128;

/** A use of the embedded server; `release` when done (the last release of the owner stops it). */
export interface EmbeddedPostgresLease {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: no password, loopback only. */
  readonly url: string;
  release(): Promise<void>;
}

interface RunningServer {
  readonly url: string;
  refs: number;
  stop(): Promise<void>;
}

const running = new Map<string, Promise<RunningServer>>();

/**
 * Starts the embedded server of `dir` (an absolute path), or joins it when this process or
 * another live weir process already runs it.
 */
export async function acquireEmbeddedPostgres(dir: string): Promise<EmbeddedPostgresLease> {
  let starting = running.get(dir);
  if (starting === undefined) {
    const foreign = await claimOrFindOwner(dir);
    if (foreign !== undefined) return { url: foreign, release: async () => {} };
    starting = startServer(dir);
    running.set(dir, starting);
    starting.catch(() => {
      running.delete(dir);
      unlinkOwnLock(dir);
    });
  }
  const server = await starting;
  server.refs++;
  let released = false;
  return {
    url: server.url,
    release: async () => {
      if (released) return;
      released = true;
      if (--server.refs > 0) return;
      running.delete(dir);
      await server.stop();
    },
  };
}

/** How long to wait for another process that is starting the server to publish its URL. */
const OWNER_START_TIMEOUT_MS = 60_000;

/**
 * Takes the lock of `dir` for this process (undefined), or returns the URL of the live process
 * that holds it. A lock of a dead process is removed; creation with `wx` makes the race between
 * two starting processes safe.
 */
async function claimOrFindOwner(dir: string): Promise<string | undefined> {
  mkdirSync(dirname(dir), { recursive: true });
  const deadline = Date.now() + OWNER_START_TIMEOUT_MS;
  for (;;) {
    try {
      writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid }), { flag: 'wx' });
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const lock = readLock(dir);
    const beingWritten = lock === undefined && lockAgeMs(dir) < 5_000;
    if (beingWritten || (lock !== undefined && lock.pid !== process.pid && isProcessAlive(lock.pid))) {
      if (lock?.url !== undefined) return lock.url;
      if (Date.now() > deadline) {
        throw new WeirError('CONNECTOR_ERROR', `${describeEmbedded(dir)} is being started by process ${lock?.pid ?? '?'}, which has not finished within ${OWNER_START_TIMEOUT_MS / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      unlinkSync(lockPath(dir));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function unlinkOwnLock(dir: string): void {
  if (readLock(dir)?.pid === process.pid) unlinkSync(lockPath(dir));
}

async function startServer(dir: string): Promise<RunningServer> {
  const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
  let db;
  try {
    db = await PGlite.create({ dataDir: dir, startParams: [...PGlite.defaultStartParams, '-c', `max_prepared_transactions=${MAX_PREPARED_TRANSACTIONS}`] });
  } catch (error) {
    throw new WeirError('CONNECTOR_ERROR', `${describeEmbedded(dir)} did not start: ${(error as Error).message}`, { cause: error });
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: MAX_CONNECTIONS });
  await server.start();
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, url }));
  return {
    url,
    refs: 0,
    stop: async () => {
      await server.stop();
      await db.close();
      unlinkOwnLock(dir);
    },
  };
}

function lockPath(dir: string): string {
  return `${dir}.pid`;
}

function lockAgeMs(dir: string): number {
  try {
    return Date.now() - statSync(lockPath(dir)).mtimeMs;
  } catch {
    return Infinity;
  }
}

function readLock(dir: string): { pid: number; url: string | undefined } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath(dir), 'utf8')) as { pid?: unknown; url?: unknown };
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, url: typeof parsed.url === 'string' ? parsed.url : undefined } : undefined;
  } catch {
    return undefined;
  }
}

