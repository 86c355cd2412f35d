/**
 * Golden EXPLAIN tests: each `queries/<name>.sql` runs its statements in a fresh session and
 * EXPLAINs the last one; the plan (with changelog modes) must equal `queries/<name>.plan.txt`.
 * A file whose first line is `--fail=<message>` must instead fail with an error containing it.
 * A missing golden file fails the test; only UPDATE_GOLDEN=1 writes (or rewrites) golden files,
 * after an intended change whose diff has been read.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'queries');
const files = readdirSync(DIR).filter((f) => f.endsWith('.sql')).sort();

describe('EXPLAIN golden plans', () => {
  it('has query files', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  for (const file of files) {
    it(file, async () => {
      const sql = readFileSync(join(DIR, file), 'utf8');
      const expectedFailure = /^--fail=(.*)$/m.exec(sql.split('\n')[0]!)?.[1];
      const engine = createEngine();
      const statements = engine.session.parse(sql);
      const run = async (): Promise<string> => {
        for (const statement of statements.slice(0, -1)) await engine.session.execute(statement);
        const last = statements[statements.length - 1]!;
        const result = await engine.session.execute({ ...last, statement: { kind: 'explain', details: [], statement: last.statement, span: last.span } });
        if (result.kind !== 'text') throw new Error(`EXPLAIN gave ${result.kind}`);
        return result.text;
      };
      if (expectedFailure !== undefined) {
        await expect(run()).rejects.toThrow(expectedFailure);
        return;
      }
      const plan = await run();
      const golden = join(DIR, file.replace(/\.sql$/, '.plan.txt'));
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, plan);
      expect(existsSync(golden), `${golden} is missing: write it with UPDATE_GOLDEN=1 and read it`).toBe(true);
      expect(plan).toBe(readFileSync(golden, 'utf8'));
      await engine.close();
    });
  }
});
