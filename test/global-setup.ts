/**
 * Once per test run: builds the CLI bundle (end-to-end tests run what users run) and starts a
 * throwaway PostgreSQL cluster with two-phase commit and logical replication enabled, whose URL
 * reaches the tests (and the weir processes they spawn) as WEIR_TEST_PG_URL.
 */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';

let cluster: PostgresCluster | undefined;

/** Vitest global setup; the returned function is the teardown. */
export default async function setup(): Promise<() => void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  cluster = await startPostgresCluster();
  process.env.WEIR_TEST_PG_URL = cluster.url;
  return () => cluster?.destroy();
}
