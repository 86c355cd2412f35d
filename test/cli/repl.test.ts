/**
 * The interactive shell, driven through a pseudo-terminal (util-linux `script`): multi-line
 * statements, streaming results in each result mode, LIMIT ending a streaming SELECT, Tab
 * completion, colours, .mode, errors that do not end the session, Ctrl-C stopping a running
 * query, .quit.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WEIR } from '../support/weir-cli.js';

/** What the shell shows when it waits for input: its prompt or its continuation prompt. */
const PROMPT = /(weir|\.\.\.)> $/;

/**
 * Text to type, after the screen shows `waitFor` (by default a prompt) since the previous input.
 * Readline completes on a Tab only at the end of what arrives at once, so a Tab ends its input.
 */
type Input = string | readonly [text: string, waitFor: RegExp];

/**
 * Types `inputs` into the shell, each once the terminal shows what it waits for (so a loaded
 * machine does not make input arrive early), and returns what the terminal showed, without
 * escape codes (`screen`) and as written (`raw`).
 */
function session(inputs: readonly Input[], home = mkdtempSync(join(tmpdir(), 'weir-home-')), env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; screen: string; raw: string }> {
  return new Promise((resolve, reject) => {
    // CI makes Node report a colourless terminal; the shell under test decides from TERM and NO_COLOR alone.
    const { CI: _ci, ...inherited } = process.env;
    const child = spawn('script', ['-qfec', `${process.execPath} ${WEIR}`, '/dev/null'], { cwd: home, env: { ...inherited, HOME: home, ...env } });
    let raw = '';
    let sentAt = 0;
    let next = 0;
    const screen = (): string => raw.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      raw += d;
      const input = inputs[next];
      if (input === undefined) return;
      const [text, waitFor] = typeof input === 'string' ? [input, PROMPT] : input;
      if (!waitFor.test(screen().slice(sentAt))) return;
      next++;
      sentAt = screen().length;
      child.stdin.write(text);
    });
    child.on('error', reject);
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, raw, screen: screen() });
    });
  });
}

describe.skipIf(!existsSync('/usr/bin/script'))('interactive shell', () => {
  it('runs multi-line statements, keeps going after an error, keeps history, and quits', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weir-home-'));
    const { code, screen } = await session([
      "SELECT 1 AS a,\r",
      " 'x' AS b;\r",
      'SELEC 3;\r',
      '.mode csv\r',
      'SELECT 2 AS c;\r',
      '.quit\r',
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
      "CREATE TABLE s (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\r",
      'SELECT x FROM s;\r',
      ['\u0003', /\| \+I \|/],
      'SELECT 42 AS answer;\r',
      '.quit\r',
    ]);
    expect(code).toBe(0);
    expect(screen).toMatch(/Received a total of \d+ rows?/);
    expect(screen).toMatch(/\| \+I \|\s+42 \|/);
  });

  it('Ctrl-C on a half-typed line drops it, and the lines of the statement before it: the next line starts afresh', async () => {
    const { code, screen } = await session([
      'SELECT 7 AS seven,\r',
      ['SELECT 1', /\.\.\.> $/],
      ['\u0003', /SELECT 1$/],
      'SELECT 2 AS two;\r',
      '.quit\r',
    ]);
    expect(code).toBe(0);
    expect(screen).toContain('^C');
    expect(screen).not.toContain('ERROR');
    expect(screen).toMatch(/\| op \|\s+two \|/);
    expect(screen).toMatch(/\| \+I \|\s+2 \|/);
  });

  it('shows a SELECT in each result mode, ends it at its LIMIT, and completes names with Tab', async () => {
    const { code, screen } = await session([
      "CREATE TABLE s (x BIGINT, k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '50', 'fields.k.min' = '1', 'fields.k.max' = '3');\r",
      'SEL\t',
      [' k FR\t', /SELECT$/],
      [' s LIMIT 3;\r', /FROM$/],
      "SET 'sql-client.execution.result-mode' = 'changelog';\r",
      'SELECT k, x FROM s WHERE k > 0 LIMIT 2;\r',
      "SET 'sql-client.execution.result-mode' = 'table';\r",
      'SELECT k, COUNT(*) AS n FROM s GROUP BY k;\r',
      ['\u0003', /3 rows after/],
      '.quit\r',
    ]);
    expect(code).toBe(0);
    expect(screen).toContain('SELECT k FROM s LIMIT 3;');
    expect(screen).toMatch(/(\| \+I \|\s+[123] \|\r?\n){3}\+-/);
    expect(screen).toMatch(/Received a total of 3 rows \(\d+\.\d\d seconds\)/);
    expect(screen).toMatch(/^ op\s+k\s+x\r?$/m);
    expect(screen).toMatch(/^ \+I\s+[123]\s+-?\d+\r?$/m);
    expect(screen).toMatch(/Received a total of 2 rows/);
    expect(screen).toMatch(/rows? after \d+ changes?/);
    expect(screen).toMatch(/\| k \|\s+n \|(\r?\n.*){5}\r?\n3 rows in set \(\d+\.\d\d seconds\)/);
  });

  it('colours errors, [INFO] and the prompt on a terminal with colours, unless NO_COLOR is set', async () => {
    const inputs = ['SELEC 1;\r', "SET 'a' = 'b';\r", '.quit\r'];
    const colored = await session(inputs, undefined, { TERM: 'xterm-256color', NO_COLOR: undefined, FORCE_COLOR: undefined });
    expect(colored.raw).toContain('\u001b[31mERROR: syntax error');
    expect(colored.raw).toContain('\u001b[2m[INFO] Session property has been set.\u001b[22m');
    expect(colored.raw).toContain('\u001b[1mweir> \u001b[22m');
    const plain = await session(inputs, undefined, { TERM: 'xterm-256color', NO_COLOR: '1' });
    expect(plain.screen).toContain('ERROR: syntax error');
    expect(plain.raw).not.toMatch(/\u001b\[(31|2|1)m/);
  });
});
