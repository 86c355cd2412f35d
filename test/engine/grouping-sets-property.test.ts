/**
 * Property, through the whole engine: random INSERT / UPDATE / DELETE statements on a writable
 * table (NULL grouping values, updates moving rows between groups and to and from NULL), then a
 * GROUP BY with grouping sets — ROLLUP, CUBE, `k, ROLLUP(...)` or GROUPING SETS of random sets
 * (the empty set and repeated sets included) — with SUM, COUNT(*), MIN, COUNT(DISTINCT) and
 * GROUPING() and GROUP_ID(), run in batch mode (the table's changelog replayed with its retractions) at
 * parallelism 1 and 2, answers what a plain model computes from the final rows: per grouping set
 * one row per group of the set's columns, the others NULL, and the empty set one row even over no
 * rows.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { playItemOps, type ItemOp } from '../support/item-ops.js';

type Column = 'a' | 'b';

interface Item {
  readonly id: number;
  readonly a: string | null;
  readonly b: string | null;
  readonly v: number | null;
}

type Op = ItemOp<Omit<Item, 'id'>, { readonly column: 'a' | 'v'; readonly a: string | null; readonly v: number | null }>;

const text = fc.option(fc.constantFrom('x', 'y'), { freq: 4 });
const value = fc.option(fc.integer({ min: -3, max: 3 }), { freq: 4 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(fc.record({ a: text, b: text, v: value }), { minLength: 1, maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), column: fc.constantFrom('a' as const, 'v' as const), a: text, v: value }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

/** A GROUP BY clause and the grouping sets it stands for, in order. */
interface Grouping {
  readonly clause: string;
  readonly sets: readonly (readonly Column[])[];
}

const subset = fc.constantFrom<readonly Column[]>(['a', 'b'], ['a'], ['b'], []);
const groupingArb: fc.Arbitrary<Grouping> = fc.oneof(
  fc.constant<Grouping>({ clause: 'ROLLUP(a, b)', sets: [['a', 'b'], ['a'], []] }),
  fc.constant<Grouping>({ clause: 'CUBE(a, b)', sets: [['a', 'b'], ['a'], ['b'], []] }),
  fc.constant<Grouping>({ clause: 'a, ROLLUP(b)', sets: [['a', 'b'], ['a']] }),
  // The select list reads a and b, which must then be grouping columns of some set.
  fc.array(subset, { minLength: 1, maxLength: 4 }).map((drawn) => (drawn.flat().includes('a') && drawn.flat().includes('b') ? drawn : [...drawn, ['a', 'b'] as const])).map((sets) => ({ clause: `GROUPING SETS (${sets.map((s) => `(${s.join(', ')})`).join(', ')})`, sets })),
);

const SELECT = 'a, b, SUM(v) AS total, COUNT(*) AS n, MIN(v) AS low, COUNT(DISTINCT v) AS kinds, GROUPING(a, b) AS g, GROUPING(b) AS gb, GROUP_ID() AS gid';

/** The model: for each grouping set, the final rows grouped by its columns (a global group for the empty set). */
function model(items: readonly Item[], grouping: Grouping): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [index, set] of grouping.sets.entries()) {
    // GROUP_ID(): how many times the same set was listed before this one.
    const gid = grouping.sets.slice(0, index).filter((other) => [...other].sort().join() === [...set].sort().join()).length;
    const groups = new Map<string, Item[]>();
    if (set.length === 0) groups.set('[]', []);
    for (const item of items) {
      const key = JSON.stringify(set.map((c) => item[c]));
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    for (const rows of groups.values()) {
      const values = rows.map((r) => r.v).filter((v): v is number => v !== null);
      out.push({
        a: set.includes('a') ? rows[0]!.a : null,
        b: set.includes('b') ? rows[0]!.b : null,
        total: values.length === 0 ? null : values.reduce((x, y) => x + y, 0),
        n: rows.length,
        low: values.length === 0 ? null : Math.min(...values),
        kinds: new Set(values).size,
        g: (set.includes('a') ? 0 : 2) + (set.includes('b') ? 0 : 1),
        gb: set.includes('b') ? 0 : 1,
        gid,
      });
    }
  }
  return out;
}

const literal = (v: number | string | null): string => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));

/** Plays the ops as statements, recording the final rows. */
function statements(ops: readonly Op[]): { sql: string[]; items: Item[] } {
  return playItemOps(ops, {
    values: (r) => `CAST(${literal(r.a)} AS STRING), CAST(${literal(r.b)} AS STRING), CAST(${literal(r.v)} AS INT)`,
    update: (item, op) =>
      op.column === 'a'
        ? { item: { ...item, a: op.a }, sql: `UPDATE items SET a = CAST(${literal(op.a)} AS STRING) WHERE id = ${item.id}` }
        : { item: { ...item, v: op.v }, sql: `UPDATE items SET v = CAST(${literal(op.v)} AS INT) WHERE id = ${item.id}` },
  });
}

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

describe('grouping sets through the engine (property)', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  for (const parallelism of [1, 2]) {
    it(`at parallelism ${parallelism}: the answer over a table changed by random statements equals the model's`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 0, maxLength: 8 }), groupingArb, async (ops, grouping) => {
          process.chdir(mkdtempSync(join(tmpdir(), 'weir-grouping-sets-')));
          const engine = createEngine();
          const { sql, items } = statements(ops);
          await engine.execute(`CREATE TABLE items (id INT, a STRING, b STRING, v INT, PRIMARY KEY (id) NOT ENFORCED); ${sql.map((s) => `${s};\n`).join('')}
            SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '${parallelism}';`);
          const query = `SELECT ${SELECT} FROM items GROUP BY ${grouping.clause}`;
          const rows = await engine.query(query);
          expect(key(rows), query).toEqual(key(model(items, grouping)));
          await engine.close();
        }),
        { numRuns: 50 },
      );
    });
  }
});
