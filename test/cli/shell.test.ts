/**
 * `weir` without a command: statements piped on stdin or given with -f, results in --format
 * (ndjson when piped), LIMIT ending a streaming SELECT, no escape codes in pipes, the first error
 * stops the run; and the statement buffer the shell uses to tell a finished statement from one
 * that goes on.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatementBuffer } from '../../src/cli/statement-buffer.js';
import { WEIR, writeScript } from '../support/weir-cli.js';

function pipe(
  input: string,
  args: readonly string[] = [],
  cwd = mkdtempSync(join(tmpdir(), 'weir-shell-')),
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEIR, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('weir with statements on stdin', () => {
  it('prints one JSON object per row with column names as keys, NULL as null', async () => {
    const run = await pipe(`CREATE VIEW v AS SELECT * FROM (VALUES (1, 'a', CAST(2.50 AS DECIMAL(4, 2))), (2, CAST(NULL AS STRING), 0.10)) AS t(id, s, d);
      SELECT id, s, d FROM v;
      SHOW VIEWS;`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 1, s: 'a', d: '2.50' },
      { id: 2, s: null, d: '0.10' },
      { 'view name': 'v' },
    ]);
    expect(run.stderr).toContain('[INFO] Execute statement succeeded.');
  });

  it('prints every digit of a BIGINT beyond 2^53, in each format (a JSON string where a double would round it)', async () => {
    const sql = 'SELECT id, id - 1 AS prev FROM (VALUES (CAST(8821808526777993777 AS BIGINT)), (CAST(42 AS BIGINT))) AS t(id);';
    const ndjson = await pipe(sql);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: '8821808526777993777', prev: '8821808526777993776' },
      { id: 42, prev: 41 },
    ]);
    expect((await pipe(sql, ['--format', 'csv'])).stdout).toBe('id,prev\n8821808526777993777,8821808526777993776\n42,41\n');
    expect((await pipe(sql, ['--format', 'table'])).stdout).toContain('8821808526777993777');
  });

  it("prints binary strings as Flink's SQL client does, x'0aff', in each format", async () => {
    const sql = "SELECT id, b, ROW(b) AS r FROM (VALUES (1, x'0aff'), (2, x''), (3, CAST(NULL AS BYTES))) AS t(id, b);";
    const ndjson = await pipe(sql);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 1, b: "x'0aff'", r: { EXPR$0: "x'0aff'" } },
      { id: 2, b: "x''", r: { EXPR$0: "x''" } },
      { id: 3, b: null, r: { EXPR$0: null } },
    ]);
    // A table or CSV shows each value as Flink's SQL client prints it: a ROW as (…), binary strings in it too as x'…'.
    expect((await pipe(sql, ['--format', 'csv'])).stdout).toBe(`id,b,r\n1,x'0aff',(x'0aff')\n2,x'',(x'')\n3,,(NULL)\n`);
    const table = (await pipe(sql, ['--format', 'table'])).stdout;
    expect(table).toContain(`|  1 | x'0aff' | (x'0aff') |`);
    expect(table).toContain('|  3 |    NULL |    (NULL) |');
  });

  it('writes csv and tables on request', async () => {
    const sql = "SELECT k, n FROM (VALUES ('x,y', 1), ('z', CAST(NULL AS INT))) AS t(k, n);";
    expect((await pipe(sql, ['--format', 'csv'])).stdout).toBe('k,n\n"x,y",1\nz,\n');
    expect((await pipe(sql, ['--format', 'table'])).stdout).toBe(
      ['+-----+------+', '|   k |    n |', '+-----+------+', '| x,y |    1 |', '|   z | NULL |', '+-----+------+', '2 rows in set', ''].join('\n'),
    );
    const bad = await pipe(sql, ['--format', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown format 'xml'; use one of table, csv, json, ndjson");
  });

  it('stops at the first error with exit code 1 and the position', async () => {
    const run = await pipe("SELECT 1 AS a;\nSELECT nope FROM (VALUES (1)) AS t(x);\nSELECT 2 AS b;\n");
    expect(run.code).toBe(1);
    expect(run.stdout.trim()).toBe('{"a":1}');
    expect(run.stderr).toContain("ERROR: validation error: column 'nope' does not exist\nstdin:2:8: SELECT nope FROM (VALUES (1)) AS t(x);");
  });

  it('ends a SELECT over an unbounded source at its LIMIT', async () => {
    const run = await pipe(`CREATE TABLE s (k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'fields.k.min' = '1', 'fields.k.max' = '3');
      SELECT k FROM s LIMIT 4;
      SELECT k, COUNT(*) AS n FROM s GROUP BY k LIMIT 2;`);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(rows.slice(0, 4).every((r) => Object.keys(r).join() === 'k')).toBe(true);
    expect(rows.slice(4).map((r) => Object.keys(r).join())).toEqual(['k,n', 'k,n']);
  });

  it('writes no escape codes into pipes, even when colours are forced', async () => {
    const run = await pipe("SELECT 1 AS a;\nSET 'x' = 'y';\nSELEC 2;\n", [], undefined, { FORCE_COLOR: '3', TERM: 'xterm-256color' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ERROR: syntax error');
    expect(run.stdout + run.stderr).not.toContain('\u001b');
  });

  it('runs -f FILE after -i INIT', async () => {
    const init = writeScript("CREATE VIEW v AS SELECT * FROM (VALUES (7)) AS t(x);", 'init.sql');
    const file = writeScript('SELECT x * 6 AS answer FROM v;', 'main.sql');
    const run = await pipe('', ['-i', init, '-f', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('{"answer":42}\n');
  });
});

describe('statement buffer', () => {
  it('waits for the terminating semicolon, outside strings and comments', () => {
    const buffer = new StatementBuffer();
    expect(buffer.add('SELECT 1,')).toEqual({ kind: 'incomplete' });
    expect(buffer.add("  ';' AS semi -- a comment;")).toEqual({ kind: 'incomplete' });
    const ready = buffer.add('FROM (VALUES (1)) AS t(x);');
    expect(ready.kind).toBe('ready');
    expect(ready.kind === 'ready' && ready.statements).toHaveLength(1);
    expect(buffer.empty).toBe(true);
  });

  it('keeps a statement set open until END and reports real syntax errors at once', () => {
    const buffer = new StatementBuffer();
    expect(buffer.add('BEGIN STATEMENT SET;')).toEqual({ kind: 'incomplete' });
    expect(buffer.add('INSERT INTO a SELECT * FROM b;')).toEqual({ kind: 'incomplete' });
    expect(buffer.add('END;').kind).toBe('ready');
    const error = buffer.add('SELEC 1;');
    expect(error.kind).toBe('error');
  });
});
