/**
 * End to end through the built CLI: `weir run` of scripts with VALUES, views, aggregations over
 * aggregations and print sinks; the applied changelog must equal the expected final table.
 */
import { describe, expect, it } from 'vitest';
import { applyChangelog, linesWithIdentifier } from '../support/changelog.js';
import { ROOT, runWeir, writeScript } from '../support/weir-cli.js';

describe('weir run', () => {
  it('runs VALUES → view with GROUP BY → aggregate over it → print sinks, and exits 0', async () => {
    const script = writeScript(`
      -- sales per region, and how many regions reach each sales count
      CREATE VIEW sales AS
        SELECT * FROM (VALUES
          ('north', 10), ('south', 5), ('north', 7), ('east', 1),
          ('south', 3), ('north', 2), ('west', 4), ('east', 9)
        ) AS t(region, amount);
      CREATE VIEW per_region AS
        SELECT region, COUNT(*) AS cnt, SUM(amount) AS total FROM sales GROUP BY region;
      CREATE TABLE region_totals (region STRING, cnt BIGINT, total INT)
        WITH ('connector' = 'print', 'print-identifier' = 'regions');
      CREATE TABLE count_histogram (cnt BIGINT, regions BIGINT, max_total INT)
        WITH ('connector' = 'print', 'print-identifier' = 'histogram');
      INSERT INTO region_totals SELECT region, cnt, total FROM per_region;
      INSERT INTO count_histogram SELECT cnt, COUNT(*), MAX(total) FROM per_region GROUP BY cnt;
    `);
    const run = await runWeir(['run', script]);
    expect(run.stderr).not.toContain('ERROR');
    expect(run.code).toBe(0);
    expect(applyChangelog(linesWithIdentifier(run.stdout, 'regions'))).toEqual(['east, 2, 10', 'north, 3, 19', 'south, 2, 8', 'west, 1, 4']);
    expect(applyChangelog(linesWithIdentifier(run.stdout, 'histogram'))).toEqual(['1, 1, 4', '2, 2, 10', '3, 1, 19']);
  });

  it('prints a bare SELECT as a changelog and handles retractions through a second aggregation', async () => {
    const script = writeScript(`
      SELECT total, COUNT(*) AS keys FROM (
        SELECT k, SUM(v) AS total FROM (VALUES (1, 5), (2, 5), (1, 1), (3, 6)) AS t(k, v) GROUP BY k
      ) GROUP BY total;
    `);
    const run = await runWeir(['run', script]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => /^[+-][IUD]\[/.test(l));
    expect(applyChangelog(lines)).toEqual(['5, 1', '6, 2']);
  });

  it('fails with the position and a suggestion for an unknown column, exit code 1', async () => {
    const script = writeScript(`CREATE TABLE t (price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');\nSELECT prise FROM t;\n`);
    const run = await runWeir(['run', script]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ERROR: validation error: column 'prise' does not exist");
    expect(run.stderr).toContain(`${script}:2:8: SELECT prise FROM t;`);
    expect(run.stderr).toContain("HINT: did you mean 'price'?");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('fails with line, column and a caret for a syntax error', async () => {
    const script = writeScript('CREATE TABLE t (a INT) WITH (\'connector\' = \'datagen\');\nSELEC a FROM t;\n');
    const run = await runWeir(['run', script]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^ERROR: syntax error at or near "SELEC"/);
    expect(lines[1]).toBe(`${script}:2:1: SELEC a FROM t;`);
    expect(lines[2]).toBe(' '.repeat(`${script}:2:1: `.length) + '^');
  });

  it('reports a failing job and exits non-zero', async () => {
    const script = writeScript(`
      CREATE TABLE out_t (v BIGINT) WITH ('connector' = 'print');
      INSERT INTO out_t SELECT 10 / v FROM (VALUES (CAST(0 AS BIGINT))) AS t(v);
    `);
    const run = await runWeir(['run', script]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[ERROR] Job');
    expect(run.stderr).toContain('division by zero in 10 / 0');
  });

  it('prints --help with the commands and --version', async () => {
    const help = await runWeir(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('run [options] <file>');
    expect(help.stdout).toContain('demo');
    const version = await runWeir(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('names a missing script file', async () => {
    const run = await runWeir(['run', '/nonexistent/job.sql']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot read '/nonexistent/job.sql': ENOENT");
  });
});

describe('the package', () => {
  it("imports as 'weir' from a Node program", async () => {
    const { spawnSync } = await import('node:child_process');
    const script = "import { createEngine } from 'weir'; const rows = await createEngine().query(\"SELECT UPPER(s) AS s FROM (VALUES ('a')) AS t(s)\"); console.log(JSON.stringify(rows));";
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('[{"s":"A"}]');
  });
});
