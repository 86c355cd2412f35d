/**
 * Property, through the whole engine: random INSERT / UPDATE / DELETE statements on a writable
 * table with a BYTES column k (values with common prefixes, high bytes, the empty value and NULL)
 * and a VARBINARY column p, then, in batch mode (the table's changelog replayed with its
 * retractions) at parallelism 1 and 2 (so rows are routed to subtasks by the hash of the bytes):
 * a GROUP BY k with COUNT, MIN, MAX and COUNT(DISTINCT p), a self-join on k, and SELECT DISTINCT p
 * — each must answer what a plain model computes from the final rows, comparing bytes by content
 * and ordering them unsigned, a prefix first.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { playItemOps, type ItemOp } from '../support/item-ops.js';

/** Hex text of bytes (the model's value), or null. */
type Hex = string | null;

interface Item {
  readonly id: number;
  readonly k: Hex;
  readonly p: Hex;
}

type Op = ItemOp<Omit<Item, 'id'>, { readonly column: 'k' | 'p'; readonly value: Hex }>;

const hexValue = fc.option(fc.constantFrom('', '00', '0000', '01', '7f', '80', 'ff', 'ff00', 'ffff', '0aff'), { freq: 5 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(fc.record({ k: hexValue, p: hexValue }), { minLength: 1, maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), column: fc.constantFrom('k' as const, 'p' as const), value: hexValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

const literal = (v: Hex): string => (v === null ? 'CAST(NULL AS BYTES)' : `x'${v}'`);

/** Plays the ops as statements, recording the final rows. */
function statements(ops: readonly Op[]): { sql: string[]; items: Item[] } {
  return playItemOps(ops, {
    values: (r) => `${literal(r.k)}, ${literal(r.p)}`,
    update: (item, { column, value }) => ({ item: { ...item, [column]: value }, sql: `UPDATE items SET ${column} = ${literal(value)} WHERE id = ${item.id}` }),
  });
}

/** Hex strings of equal length compare as their bytes; with a common prefix the shorter is first. So plain string order is the bytes' order. */
const byBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function groupModel(items: readonly Item[]): Record<string, unknown>[] {
  const groups = new Map<Hex, Item[]>();
  for (const item of items) groups.set(item.k, [...(groups.get(item.k) ?? []), item]);
  return [...groups].map(([k, rows]) => {
    const ps = rows.map((r) => r.p).filter((p): p is string => p !== null).sort(byBytes);
    return { k, n: rows.length, lo: ps[0] ?? null, hi: ps[ps.length - 1] ?? null, kinds: new Set(ps).size };
  });
}

function joinModel(items: readonly Item[]): Record<string, unknown>[] {
  return items.flatMap((a) => items.filter((b) => a.k !== null && a.k === b.k).map((b) => ({ a: a.id, b: b.id })));
}

/** A result row with every byte value as hex text (the model's form); anything else must not be bytes-shaped. */
function asHex(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([name, v]) => [name, v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v]));
}

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

describe('binary strings through the engine (property)', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  for (const parallelism of [1, 2]) {
    it(`at parallelism ${parallelism}: GROUP BY, a join and DISTINCT on bytes over a table changed by random statements equal the model's`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 0, maxLength: 10 }), async (ops) => {
          process.chdir(mkdtempSync(join(tmpdir(), 'weir-bytes-')));
          const engine = createEngine();
          const { sql, items } = statements(ops);
          await engine.execute(`CREATE TABLE items (id INT, k BYTES, p VARBINARY(4), PRIMARY KEY (id) NOT ENFORCED); ${sql.map((s) => `${s};\n`).join('')}
            SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '${parallelism}';`);
          const grouped = await engine.query('SELECT k, COUNT(*) AS n, MIN(p) AS lo, MAX(p) AS hi, COUNT(DISTINCT p) AS kinds FROM items GROUP BY k');
          expect(key(grouped.map(asHex)), sql.join('\n')).toEqual(key(groupModel(items)));
          const joined = await engine.query('SELECT x.id AS a, y.id AS b FROM items AS x JOIN items AS y ON x.k = y.k');
          expect(key(joined), sql.join('\n')).toEqual(key(joinModel(items)));
          const distinct = await engine.query('SELECT DISTINCT p FROM items');
          expect(key(distinct.map(asHex)), sql.join('\n')).toEqual(key([...new Set(items.map((i) => i.p))].map((p) => ({ p }))));
          await engine.close();
        }),
        { numRuns: 40 },
      );
    });
  }
});
