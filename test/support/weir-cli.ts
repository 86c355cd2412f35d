/** Runs the built `weir` CLI (dist/weir.js, built by the global setup) as a child process. */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The bundled CLI. */
export const WEIR = join(ROOT, 'dist/weir.js');

/** What a finished CLI run printed and returned. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `weir <args>` in `cwd` (a fresh temporary directory by default) and waits for it to exit. */
export function runWeir(args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'weir-cwd-'));
    const child = spawn(process.execPath, [WEIR, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`weir ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Writes a script into a fresh temporary directory and returns its path. */
export function writeScript(sql: string, name = 'job.sql'): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-test-'));
  const path = join(dir, name);
  writeFileSync(path, sql);
  return path;
}
