/** Builds the CLI bundle once per test run, so that end-to-end tests run what users run. */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Vitest global setup. */
export default function setup(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
