/**
 * The project's sqllogictest suite: every `test/slt/**\/*.slt` file runs as its own test, in a
 * fresh engine and database (slt-runner.ts), its materialized views checked against PostgreSQL.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSltFile } from './slt-runner.js';

const ROOT = dirname(fileURLToPath(import.meta.url));

function sltFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sltFiles(path);
      return name.endsWith('.slt') ? [path] : [];
    });
}

const files = sltFiles(ROOT);

describe('sqllogictest files', () => {
  it('finds the files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(relative(ROOT, file), async () => {
      const report = await runSltFile(file);
      expect(report.statements + report.queries, 'the file runs records').toBeGreaterThan(0);
      if (report.views.length > 0) expect(report.viewChecks, 'its materialized views were checked against PostgreSQL').toBeGreaterThan(0);
    }, 120_000);
  }
});
