/**
 * The catalog persists in `.weir/catalog.json`, and `weir serve` runs its materialized views: a
 * view created by `weir -f` (killed with SIGKILL while the view runs) is served by a later process,
 * stopped gracefully with SIGTERM (a final checkpoint, nothing left prepared), served again from
 * there to the end of its bounded source, and its table then equals the batch answer; a later
 * `weir -f` reads it through the catalog. The catalog file keeps each object's first DDL, forgets
 * dropped ones, and is readable by its owner only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { runWeir, WEIR } from '../support/weir-cli.js';

const ROWS = 30_000;

/** Runs `weir <args>` in `cwd`; sends `signal` once `when` holds (polled every 100 ms), when given. */
function weir(args: readonly string[], cwd: string, stop?: { signal: NodeJS.Signals; when: () => Promise<boolean> }): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEIR, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let ended = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const poll = async (): Promise<void> => {
      while (!ended && stop !== undefined) {
        if (await stop.when().catch(() => false)) {
          child.kill(stop.signal);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    void poll();
    const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      ended = true;
      clearTimeout(timeout);
      resolve({ code, stderr });
    });
  });
}

describe('weir serve', () => {
  it('serves the catalog\'s materialized views, stops them gracefully and resumes them exactly once', async () => {
    const url = await freshDatabase('weir_serve');
    const cwd = mkdtempSync(join(tmpdir(), 'weir-serve-'));
    writeFileSync(
      join(cwd, 'setup.sql'),
      `SET 'execution.checkpointing.interval' = '200 ms';
       CREATE TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '6000',
         'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
       CREATE MATERIALIZED VIEW buckets WITH ('url' = '${url}') AS
         SELECT id % 10 AS bucket, COUNT(*) AS n, SUM(id) AS total FROM numbers GROUP BY id % 10;`,
    );
    const committed = async (): Promise<number> => Number((await pgQuery<{ n: string | null }>(url, 'SELECT sum(n) AS n FROM buckets'))[0]?.n ?? 0);
    const setup = await weir(['-f', 'setup.sql'], cwd, { signal: 'SIGKILL', when: async () => (await committed()) > 0 });
    expect(setup.code, setup.stderr).toBeNull();
    const stored = JSON.parse(readFileSync(join(cwd, '.weir', 'catalog.json'), 'utf8')) as { objects: { kind: string; name: string }[] };
    expect(stored.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['table numbers', 'materialized-view buckets']);

    const before = await committed();
    const first = await weir(['serve'], cwd, { signal: 'SIGTERM', when: async () => (await committed()) > before });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('Restored 2 objects from .weir/catalog.json; materialized view running: buckets.');
    expect(first.stderr).toContain('SIGTERM received: stopping 1 materialized view(s) with a final checkpoint');
    expect(await pgQuery(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()')).toEqual([]);
    expect(await committed()).toBeGreaterThan(before);
    expect(await committed()).toBeLessThan(ROWS);

    const second = await weir(['serve'], cwd);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('Every materialized view has finished: their sources ended.');
    const batch = `SELECT id % 10 AS bucket, count(*) AS n, sum(id) AS total FROM generate_series(1, ${ROWS}) AS id GROUP BY id % 10`;
    expect(await pgQuery(url, `(${batch}) EXCEPT ALL (SELECT bucket, n, total FROM buckets)`)).toEqual([]);
    expect(await pgQuery(url, `(SELECT bucket, n, total FROM buckets) EXCEPT ALL (${batch})`)).toEqual([]);

    writeFileSync(join(cwd, 'read.sql'), 'SELECT sum(n) AS n FROM buckets;');
    const read = await runWeir(['-f', 'read.sql'], { cwd });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim()).toBe(`{"n":"${ROWS}"}`);
  }, 120_000);
});

describe('the catalog file', () => {
  it('keeps the first DDL of an object created again with IF NOT EXISTS, and forgets a dropped one', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'weir-catalog-'));
    writeFileSync(
      join(cwd, 'ddl.sql'),
      `CREATE TABLE a (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
       CREATE TABLE IF NOT EXISTS a (y STRING) WITH ('connector' = 'datagen');
       CREATE VIEW v AS SELECT x FROM a;
       CREATE TABLE b (z INT);
       DROP VIEW v;`,
    );
    const run = await runWeir(['-f', 'ddl.sql'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(cwd, '.weir', 'catalog.json'), 'utf8')) as { objects: { kind: string; name: string; ddl: string }[] };
    expect(stored.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['table a', 'table b']);
    expect(stored.objects[0]!.ddl).toContain('(x INT)');
    // DDL may hold connection URLs with passwords: only the owner may read the file.
    expect(statSync(join(cwd, '.weir', 'catalog.json')).mode & 0o777).toBe(0o600);
    writeFileSync(join(cwd, 'show.sql'), 'SHOW TABLES;');
    const shown = await runWeir(['-f', 'show.sql'], { cwd });
    expect(shown.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ 'table name': 'a' }, { 'table name': 'b' }]);
  });
});
