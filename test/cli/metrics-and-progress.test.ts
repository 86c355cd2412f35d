/**
 * `weir run --metrics-port`: a Prometheus scrape of the endpoint while a job runs (counters of the
 * job's operators present and growing); and the progress line: on stderr only, forced with
 * `--progress` into a pipe, shown and cleared on a pseudo-terminal (weir run and the shell), absent
 * from pipes by default.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWeir, WEIR, writeScript } from '../support/weir-cli.js';

/** One sample of the text format: name, labels and value. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses Prometheus text exposition lines (comments skipped). */
function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe('weir run --metrics-port', () => {
  it('serves the job’s counters in Prometheus text format, growing between scrapes', async () => {
    const script = writeScript(`
      CREATE TABLE src (id BIGINT, k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000', 'fields.k.min' = '0', 'fields.k.max' = '9');
      CREATE TABLE out (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT k, COUNT(*) FROM src GROUP BY k;`);
    const child = spawn(process.execPath, [WEIR, 'run', script, '--metrics-port', '0'], { cwd: mkdtempSync(join(tmpdir(), 'weir-metrics-')), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no metrics address on stderr: ${stderr}`)), 20_000);
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          const found = /Prometheus metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
          if (found !== null && stderr.includes('Submitted job')) {
            clearTimeout(timer);
            resolve(found[1]!);
          }
        });
      });
      const jobId = /Submitted job (\w+)/.exec(stderr)![1]!;
      const scrape = async (): Promise<Sample[]> => {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return parseMetrics(await response.text());
      };
      const sourceOut = (samples: Sample[]): number =>
        samples.find((s) => s.name === 'weir_operator_records_out_total' && s.labels['job'] === jobId && s.labels['operator']!.endsWith('-source'))!.value;
      await new Promise((r) => setTimeout(r, 500));
      const first = await scrape();
      await new Promise((r) => setTimeout(r, 700));
      const second = await scrape();
      expect(sourceOut(first)).toBeGreaterThan(0);
      expect(sourceOut(second)).toBeGreaterThan(sourceOut(first));
      const operators = second.filter((s) => s.name === 'weir_operator_records_in_total' && s.labels['job'] === jobId).map((s) => s.labels['operator']);
      expect(operators.some((o) => o!.endsWith('-group-aggregate'))).toBe(true);
      expect(operators.some((o) => o!.endsWith('-sink'))).toBe(true);
      const running = second.find((s) => s.name === 'weir_job_running' && s.labels['job'] === jobId);
      expect(running?.labels['status']).toBe('RUNNING');
      expect(running?.value).toBe(1);
      expect(second.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
      expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(130);
  });

  it('refuses a port that is not a number', async () => {
    const run = await runWeir(['run', writeScript('SELECT 1;'), '--metrics-port', 'abc']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("option '--metrics-port <port>' argument 'abc' is invalid. expected a port number from 0 to 65535.");
  });
});

const BOUNDED = `
  CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20000',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '30000');
  CREATE TABLE out (id BIGINT) WITH ('connector' = 'print');
  INSERT INTO out SELECT id FROM src WHERE MOD(id, 10000) = 0;
  SELECT 'done' AS marker;`;

describe('progress line', () => {
  it('--progress writes rows, rate, percentage and ETA to stderr, never to stdout', async () => {
    const run = await runWeir(['run', writeScript(BOUNDED), '--progress']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.includes('rows/s'));
    expect(lines.length).toBeGreaterThan(1);
    const parsed = lines.map((l) => /^job \w+: ([\d,]+) rows · [\d,]+ rows\/s · ([\d.]+)%/.exec(l));
    expect(parsed.every((m) => m !== null)).toBe(true);
    const rows = parsed.map((m) => Number(m![1]!.replace(/,/g, '')));
    const percent = parsed.map((m) => Number(m![2]));
    expect(rows).toEqual([...rows].sort((a, b) => a - b));
    expect(Math.max(...rows)).toBeLessThanOrEqual(30_000);
    // The percentage is rows read of number-of-rows.
    for (const [i, p] of percent.entries()) expect(Math.abs(p - (rows[i]! / 30_000) * 100)).toBeLessThanOrEqual(0.1);
    expect(lines.some((l) => /ETA \d+:\d\d/.test(l))).toBe(true);
    expect(run.stdout).not.toMatch(/rows\/s|ETA/);
    expect(run.stdout.split('\n').filter((l) => /^\+I\[\d+\]$/.test(l))).toEqual(['+I[10000]', '+I[20000]', '+I[30000]']);
    expect(run.stdout).toContain('done');
  });

  it('is absent when stdout and stderr are pipes', async () => {
    const run = await runWeir(['run', writeScript(BOUNDED)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('rows/s');
  });

  it.skipIf(!existsSync('/usr/bin/script'))('is redrawn in place on a terminal and cleared when the job ends', async () => {
    const script = writeScript(BOUNDED);
    const raw = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', `${process.execPath} ${WEIR} run ${script}`, '/dev/null'], { cwd: mkdtempSync(join(tmpdir(), 'weir-pty-')) });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    const redraws = raw.split('\r\u001b[2K');
    expect(redraws.length).toBeGreaterThan(2);
    expect(redraws.filter((r) => /^job \w+: [\d,]+ rows · [\d,]+ rows\/s · [\d.]+%/.test(r)).length).toBeGreaterThan(1);
    // The printed rows start on a line of their own: the progress line is erased before each.
    expect([...raw.matchAll(/(.{0,5})\+I\[\d+\]/gs)].map((m) => m[1]!.endsWith('\r\u001b[2K') || m[1]!.endsWith('\n'))).toEqual([true, true, true]);
    // The last clear comes after the last progress text: nothing of it stays on the screen.
    expect(redraws[redraws.length - 1]).not.toContain('rows/s');
    expect(redraws[redraws.length - 1]).toMatch(/\[INFO\] Job \w+ finished/);
  });

  it.skipIf(!existsSync('/usr/bin/script'))('shows in the shell while an INSERT it waits for runs, and is cleared before its result', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weir-pty-home-'));
    const inputs = [
      "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20000', 'number-of-rows' = '30000');",
      'CREATE TABLE t (id BIGINT);',
      'INSERT INTO t SELECT id FROM src;',
      '.quit',
    ];
    const raw = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', `${process.execPath} ${WEIR}`, '/dev/null'], { cwd: home, env: { ...process.env, HOME: home } });
      let out = '';
      let next = 0;
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (/weir> (\u001b\[[0-9;]*[A-Za-z])*$/.test(out) && next < inputs.length) child.stdin.write(inputs[next++] + '\r');
      });
      child.on('error', reject);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    const plain = raw.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/job \w+: [\d,]+ rows · [\d,]+ rows\/s · [\d.]+% · ETA \d+:\d\d/);
    expect(plain).toMatch(/\r\u001b\[2K\[INFO\] Inserted into 't'\./);
  });
});
