/**
 * The throwaway test clusters clean up after killed runs: a cluster whose starting process is gone
 * (its teardown never ran) is stopped and deleted when the next cluster starts, while a cluster
 * whose process lives on is left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgQuery } from './pg-query.js';
import { startPostgresCluster } from './postgres-cluster.js';

describe('test PostgreSQL clusters', () => {
  it('stop and delete the clusters of processes that died, and only those', async () => {
    const orphan = await startPostgresCluster();
    const living = await startPostgresCluster();
    try {
      const dead = spawnSync('true').pid!;
      writeFileSync(join(orphan.dataDir, 'weir-owner.pid'), String(dead));
      expect(await pgQuery(orphan.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      const next = await startPostgresCluster();
      next.destroy();
      expect(existsSync(orphan.dataDir)).toBe(false);
      await expect(pgQuery(orphan.url, 'SELECT 1 AS one')).rejects.toThrow();
      expect(await pgQuery(living.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      orphan.destroy();
      living.destroy();
    }
  });
});
