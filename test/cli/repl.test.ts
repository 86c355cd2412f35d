/**
 * The interactive shell, driven through a pseudo-terminal (util-linux `script`): multi-line
 * statements, streaming results, .mode, errors that do not end the session, Ctrl-C stopping a
 * running query, .quit.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WEIR } from '../support/weir-cli.js';

/** Types `inputs` into the shell (each after its delay) and returns what the terminal showed. */
function session(inputs: readonly [delayMs: number, text: string][], home = mkdtempSync(join(tmpdir(), 'weir-home-'))): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${WEIR}`, '/dev/null'], { cwd: home, env: { ...process.env, HOME: home } });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen: screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '') }));
    let at = 0;
    for (const [delay, text] of inputs) {
      at += delay;
      setTimeout(() => child.stdin.write(text), at);
    }
    setTimeout(() => child.kill('SIGKILL'), at + 15_000);
  });
}

describe.skipIf(!existsSync('/usr/bin/script'))('interactive shell', () => {
  it('runs multi-line statements, keeps going after an error, keeps history, and quits', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weir-home-'));
    const { code, screen } = await session([
      [500, "SELECT 1 AS a,\r"],
      [100, " 'x' AS b;\r"],
      [800, 'SELEC 3;\r'],
      [300, '.mode csv\r'],
      [100, 'SELECT 2 AS c;\r'],
      [800, '.quit\r'],
    ], home);
    expect(code).toBe(0);
    expect(readFileSync(join(home, '.weir_history'), 'utf8')).toContain("SELECT 1 AS a,  'x' AS b;");
    expect(screen).toContain('...>');
    expect(screen).toMatch(/\| op \|\s+a \|\s+b \|/);
    expect(screen).toMatch(/\| \+I \|\s+1 \|\s+x \|/);
    expect(screen).toContain('Received a total of 1 row');
    expect(screen).toContain('ERROR: syntax error at or near "SELEC"');
    expect(screen).toMatch(/c\r?\n2/);
  });

  it('Ctrl-C stops a streaming query and returns to the prompt', async () => {
    const { code, screen } = await session([
      [500, "CREATE TABLE s (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\r"],
      [300, 'SELECT x FROM s;\r'],
      [1200, '\u0003'],
      [500, 'SELECT 42 AS answer;\r'],
      [800, '.quit\r'],
    ]);
    expect(code).toBe(0);
    expect(screen).toMatch(/Received a total of \d+ rows/);
    expect(screen).toMatch(/\| \+I \|\s+42 \|/);
  });
});
