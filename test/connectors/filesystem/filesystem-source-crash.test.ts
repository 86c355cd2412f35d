/**
 * Exactly once from a file into PostgreSQL under SIGKILL: `weir run` reads a large CSV file
 * through GROUP BY into the postgres exactly-once sink with checkpoints every 100 ms, is killed
 * twice while the sink table holds a partial answer (so each restart resumes mid-file from a byte
 * offset), and after the final run the table equals the same query computed by PostgreSQL over
 * the same file loaded with COPY by the server (EXCEPT ALL both ways empty), with no prepared transaction left.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { runChild } from '../../support/crash-harness.js';
import { WEIR } from '../../support/weir-cli.js';

const ROWS = 1_500_000;
const KEYS = 1000;

/** The rows as CSV: id, k, v (DECIMAL(10, 2), every 17th empty = NULL), a note quoted when it holds a comma. */
function csv(): string {
  const lines: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const v = i % 17 === 0 ? '' : `${(i * 31) % 10_000}.${String(i % 100).padStart(2, '0')}`;
    const note = i % 3 === 0 ? `"a, ""b"" ${i}"` : `n${i % 1000}`;
    lines.push(`${i},${(i * 7) % KEYS},${v},${note}`);
  }
  return `${lines.join('\n')}\n`;
}

const QUERY = 'SELECT k, COUNT(*) AS n, SUM(v) AS total, MAX(id) AS hi, COUNT(note) AS notes FROM src GROUP BY k';

describe('filesystem source → postgres, killed mid-file', () => {
  let db: TestDatabase;
  let dir: string;
  let script: string;

  beforeAll(async () => {
    db = await createTestDatabase('fs_crash');
    dir = mkdtempSync(join(tmpdir(), 'weir-fs-crash-'));
    const file = join(dir, 'orders.csv');
    writeFileSync(file, csv());
    chmodSync(dir, 0o755);
    await db.rows('CREATE TABLE raw (id bigint, k int, v numeric(10, 2), note text)');
    await db.rows(`COPY raw FROM '${file}' WITH (FORMAT csv)`);
    script = join(dir, 'job.sql');
    writeFileSync(
      script,
      `SET 'state.checkpoints.dir' = '${dir}/checkpoints';
       SET 'execution.checkpointing.interval' = '100 ms';
       SET 'pipeline.name' = 'fs-crash';
       CREATE TABLE src (id BIGINT, k INT, v DECIMAL(10, 2), note STRING)
         WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'csv');
       CREATE TABLE agg (k INT, n BIGINT, total DECIMAL(38, 2), hi BIGINT, notes BIGINT, PRIMARY KEY (k) NOT ENFORCED)
         WITH ('connector' = 'postgres', 'url' = '${db.url}', 'table-name' = 'agg', 'sink.semantic' = 'exactly-once');
       INSERT INTO agg ${QUERY};`,
    );
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Rows the sink has committed so far (0 before its table exists). */
  async function committed(): Promise<number> {
    try {
      const [row] = await db.rows<{ n: string | null }>('SELECT sum(n) AS n FROM agg');
      return Number(row?.n ?? 0);
    } catch (error) {
      if ((error as { code?: string }).code === '42P01') return 0;
      throw error;
    }
  }

  /** Runs `weir run` and SIGKILLs it once the sink holds more than `above` and fewer than all rows; resolves with what it committed then. */
  function runAndKill(above: number): Promise<{ stderr: string; killedAt: number }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [WEIR, 'run', script], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      let killedAt = -1;
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      let asking = false;
      const watch = setInterval(() => {
        if (asking || killedAt >= 0) return;
        asking = true;
        committed().then(
          (n) => {
            asking = false;
            if (n > above && n < ROWS) {
              killedAt = n;
              child.kill('SIGKILL');
            }
          },
          (error: unknown) => {
            child.kill('SIGKILL');
            reject(error);
          },
        );
      }, 15);
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        clearInterval(watch);
        if (signal !== 'SIGKILL') reject(new Error(`weir run was not killed mid-file (signal ${signal}); stderr:\n${stderr}`));
        else resolve({ stderr, killedAt });
      });
    });
  }

  it('ends equal to PostgreSQL’s answer over the same file, nothing left prepared', async () => {
    const first = await runAndKill(0);
    const second = await runAndKill(first.killedAt);
    expect(second.stderr).toMatch(/resumed from checkpoint \d+/);
    expect(second.killedAt).toBeGreaterThan(first.killedAt);
    const last = await runChild(script, { cwd: dir, timeoutMs: 120_000 });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toMatch(/resumed from checkpoint \d+/);

    const batch = QUERY.replace('FROM src', 'FROM raw');
    const sink = 'SELECT k, n, total, hi, notes FROM agg';
    expect(await db.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect(await committed()).toBe(ROWS);
    expect(await db.preparedGids()).toEqual([]);
  }, 180_000);
});
