/**
 * `weir demo` (`npm start`): two materialized views over generated orders in the embedded
 * PostgreSQL, printed as committed once a second, ending with all 600 orders in them; the views
 * stay in the working directory's catalog for the shell.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWeir } from '../support/weir-cli.js';
import { tmpdir } from 'node:os';

describe('weir demo', () => {
  it('maintains two materialized views in the embedded PostgreSQL and shows them as committed', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'weir-demo-'));
    const run = await runWeir(['demo'], { cwd, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Maintaining 2 materialized views in one job, in the embedded PostgreSQL (.weir/postgres)');
    const final = run.stdout.slice(run.stdout.indexOf('-- final'));
    expect(final).toMatch(/\|\s+\d+ \|\s+600 \|\s+[\d.]+ \|/);
    expect(run.stdout.split('\n-- ').length, 'it printed the views while they were maintained').toBeGreaterThan(3);
    const catalog = JSON.parse(readFileSync(join(cwd, '.weir', 'catalog.json'), 'utf8')) as { objects: { name: string }[] };
    expect(catalog.objects.map((o) => o.name)).toEqual(['orders', 'customer_totals', 'product_sales']);
  }, 150_000);
});
