/**
 * A throwaway PostgreSQL 15 cluster for tests: `initdb` of the machine's postgresql-15 into a
 * temporary directory (run as the `postgres` OS user when the tests run as root, since initdb
 * refuses root), started on a free port with the settings weir's tests need —
 * `max_prepared_transactions` for two-phase commit, `wal_level = logical` for CDC — and stopped
 * (and deleted) afterwards. The machine's own server is never touched, and fault tests may
 * restart or crash this one at will. Each cluster records the process that started it; a cluster
 * whose process died without stopping it (a killed test run) is stopped and deleted by the next
 * start, so that killed runs do not pile up servers.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../src/common/process-liveness.js';

const BIN = process.env.WEIR_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A running test cluster. */
export interface PostgresCluster {
  readonly dataDir: string;
  readonly port: number;
  /** A connection URL for the `postgres` superuser and database. */
  readonly url: string;
  /** A URL for another database of the cluster. */
  urlFor(database: string): string;
  /** Stops the server: `fast` waits for clients, `immediate` is a crash (recovery on next start). */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server and deletes its files. */
  destroy(): void;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function asPostgresUser(command: string, args: readonly string[]): void {
  const root = userInfo().uid === 0;
  const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, [...args]];
  execFileSync(file, argv as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Prefix of the clusters' data directories in the temporary directory. */
const DATA_DIR_PREFIX = 'weir-pg-';

/**
 * Where clusters live: the system's temporary directory even while a test run points TMPDIR at a
 * directory of its own (see global-setup.ts), so that a later run finds orphaned clusters, and
 * socket paths stay short.
 */
function clusterParent(): string {
  return process.env.WEIR_TEST_CLUSTER_TMPDIR ?? tmpdir();
}
/** File in a data directory naming the process that started the cluster. */
const OWNER_FILE = 'weir-owner.pid';

/** Stops and deletes the clusters whose starting process is gone (a test run killed before its teardown). */
function sweepOrphanedClusters(): void {
  for (const name of readdirSync(clusterParent())) {
    if (!name.startsWith(DATA_DIR_PREFIX)) continue;
    const dataDir = join(clusterParent(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dataDir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // still being created, or not ours
    }
    if (!Number.isInteger(owner) || isProcessAlive(owner)) continue;
    try {
      if (existsSync(join(dataDir, 'postmaster.pid'))) asPostgresUser(join(BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']);
    } catch {
      // The server was not running.
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Creates and starts a cluster. */
export async function startPostgresCluster(settings: Readonly<Record<string, string>> = {}): Promise<PostgresCluster> {
  if (!existsSync(join(BIN, 'initdb'))) throw new Error(`PostgreSQL 15 binaries not found in ${BIN} (set WEIR_TEST_PG_BIN)`);
  sweepOrphanedClusters();
  const dataDir = mkdtempSync(join(clusterParent(), DATA_DIR_PREFIX));
  if (userInfo().uid === 0) {
    const { uid, gid } = postgresIds();
    chownSync(dataDir, uid, gid);
  }
  asPostgresUser(join(BIN, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  writeFileSync(join(dataDir, OWNER_FILE), String(process.pid));
  const port = await freePort();
  const options = {
    port: String(port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dataDir,
    max_prepared_transactions: '64',
    max_connections: '100',
    wal_level: 'logical',
    max_wal_senders: '10',
    max_replication_slots: '10',
    fsync: 'off',
    ...settings,
  };
  const optionText = Object.entries(options).map(([k, v]) => `-c ${k}=${v}`).join(' ');
  const pgCtl = (...args: string[]): void => asPostgresUser(join(BIN, 'pg_ctl'), ['-D', dataDir, ...args]);
  const cluster: PostgresCluster = {
    dataDir,
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => pgCtl('-o', optionText, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', 'start'),
    stop: (mode = 'fast') => pgCtl('-m', mode, '-w', '-t', '60', 'stop'),
    destroy: () => {
      try {
        cluster.stop('immediate');
      } catch {
        // Already stopped.
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
