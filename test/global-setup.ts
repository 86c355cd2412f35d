/**
 * Once per test run: builds the CLI bundle (end-to-end tests run what users run), starts a
 * throwaway PostgreSQL cluster with two-phase commit and logical replication enabled, whose URL
 * reaches the tests (and the weir processes they spawn) as WEIR_TEST_PG_URL, and points TMPDIR
 * at a directory of the run's own, deleted at teardown, so that the checkpoints, files and
 * catalogs tests write to temporary directories do not pile up in /tmp. A run killed before its
 * teardown leaves its directory, which the next run deletes.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../src/common/process-liveness.js';
import { startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';

const RUN_DIR_PREFIX = 'weir-test-run-';
const OWNER_FILE = 'owner.pid';

let cluster: PostgresCluster | undefined;

/** Vitest global setup; the returned function is the teardown. */
export default async function setup(): Promise<() => void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const systemTmp = tmpdir();
  deleteOrphanedRunDirs(systemTmp);
  const runDir = mkdtempSync(join(systemTmp, RUN_DIR_PREFIX));
  writeFileSync(join(runDir, OWNER_FILE), String(process.pid));
  // Traversable by the postgres OS user, which tests' own clusters and COPY files may run as.
  chmodSync(runDir, 0o755);
  process.env.WEIR_TEST_CLUSTER_TMPDIR = systemTmp;
  process.env.TMPDIR = runDir;
  cluster = await startPostgresCluster();
  process.env.WEIR_TEST_PG_URL = cluster.url;
  return () => {
    cluster?.destroy();
    rmSync(runDir, { recursive: true, force: true });
  };
}

/** Deletes the run directories of test runs whose process is gone. */
function deleteOrphanedRunDirs(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(RUN_DIR_PREFIX)) continue;
    let owner: number;
    try {
      owner = Number(readFileSync(join(parent, name, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (Number.isInteger(owner) && !isProcessAlive(owner)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}
