/**
 * Property, through the whole engine: window TVFs (TUMBLE, HOP, CUMULATE, with or without an
 * offset) over a plain TIMESTAMP column of a writable table changed by random INSERT / UPDATE /
 * DELETE statements — updates move rows between windows, to and from a NULL time — aggregated by
 * window as an ordinary updating GROUP BY (the table's changelog replayed with its retractions,
 * at parallelism 1 and 2), answer what a plain model computes from the final rows.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

interface Item {
  readonly id: number;
  readonly v: number;
  /** Seconds after the epoch, or NULL. */
  readonly t: number | null;
}

type Op =
  | { readonly kind: 'insert'; readonly rows: readonly Omit<Item, 'id'>[] }
  | { readonly kind: 'move'; readonly pick: number; readonly t: number | null }
  | { readonly kind: 'revalue'; readonly pick: number; readonly v: number }
  | { readonly kind: 'delete'; readonly pick: number };

const time = fc.option(fc.integer({ min: 0, max: 40 }), { freq: 6 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(fc.record({ v: fc.integer({ min: 1, max: 9 }), t: time }), { minLength: 1, maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), t: time }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revalue' as const), pick: fc.nat(), v: fc.integer({ min: 1, max: 9 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

/** A window in seconds: TUMBLE(size), HOP(slide, size = slide * n), CUMULATE(step, size = step * n); offset any sign. */
interface Window {
  readonly kind: 'TUMBLE' | 'HOP' | 'CUMULATE';
  readonly unit: number;
  readonly multiple: number;
  readonly offset: number | undefined;
}

const windowArb: fc.Arbitrary<Window> = fc.record({
  kind: fc.constantFrom('TUMBLE' as const, 'HOP' as const, 'CUMULATE' as const),
  unit: fc.integer({ min: 2, max: 7 }),
  multiple: fc.integer({ min: 1, max: 3 }),
  offset: fc.option(fc.integer({ min: -9, max: 9 }), { nil: undefined }),
});

const interval = (seconds: number): string => `INTERVAL '${seconds}' SECOND`;

function sqlOf(w: Window): string {
  const offset = w.offset === undefined ? '' : `, ${interval(w.offset)}`;
  const args = w.kind === 'TUMBLE' ? interval(w.unit) : `${interval(w.unit)}, ${interval(w.unit * w.multiple)}`;
  const tvf = `TABLE(${w.kind}(TABLE items, DESCRIPTOR(ts), ${args}${offset}))`;
  return `SELECT CAST(window_start AS STRING) AS ws, CAST(window_end AS STRING) AS we, COUNT(*) AS n, SUM(v) AS s FROM ${tvf} GROUP BY window_start, window_end`;
}

const floorTo = (t: number, period: number, offset: number): number => Math.floor((t - offset) / period) * period + offset;

/** The windows [start, end) in seconds containing second `t`, computed the plain way: every candidate start checked. */
function windowsOf(w: Window, t: number): [number, number][] {
  const offset = w.offset ?? 0;
  switch (w.kind) {
    case 'TUMBLE': {
      const start = floorTo(t, w.unit, offset);
      return [[start, start + w.unit]];
    }
    case 'HOP': {
      const size = w.unit * w.multiple;
      const out: [number, number][] = [];
      for (let start = floorTo(t - size, w.unit, offset); start <= t; start += w.unit) if (start <= t && t < start + size) out.push([start, start + size]);
      return out;
    }
    case 'CUMULATE': {
      const size = w.unit * w.multiple;
      const base = floorTo(t, size, offset);
      const out: [number, number][] = [];
      for (let end = base + w.unit; end <= base + size; end += w.unit) if (t < end) out.push([base, end]);
      return out;
    }
  }
}

/** `1970-01-01 00:00:07.000` for 7 seconds (negative: the day before). */
function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('T', ' ').replace('Z', '');
}

function model(items: readonly Item[], w: Window): Record<string, unknown>[] {
  const groups = new Map<string, { ws: string; we: string; n: number; s: number }>();
  for (const item of items) {
    if (item.t === null) continue;
    for (const [start, end] of windowsOf(w, item.t)) {
      const key = `${start}/${end}`;
      const group = groups.get(key) ?? { ws: timestamp(start), we: timestamp(end), n: 0, s: 0 };
      group.n += 1;
      group.s += item.v;
      groups.set(key, group);
    }
  }
  return [...groups.values()].map((g) => ({ ws: g.ws, we: g.we, n: g.n, s: g.s }));
}

const tsLiteral = (t: number | null): string => (t === null ? 'CAST(NULL AS TIMESTAMP(3))' : `TIMESTAMP '${timestamp(t)}'`);

/** Plays the ops as statements (recording the final rows); ops on an empty table insert. */
function statements(ops: readonly Op[]): { sql: string[]; items: Item[] } {
  const items: Item[] = [];
  const sql: string[] = [];
  let id = 0;
  for (const op of ops) {
    if (op.kind === 'insert' || items.length === 0) {
      const rows = op.kind === 'insert' ? op.rows : [{ v: 1, t: 3 }];
      const added = rows.map((r) => ({ id: ++id, ...r }));
      items.push(...added);
      sql.push(`INSERT INTO items VALUES ${added.map((r) => `(${r.id}, ${r.v}, ${tsLiteral(r.t)})`).join(', ')}`);
    } else if (op.kind === 'move' || op.kind === 'revalue') {
      const index = op.pick % items.length;
      const item = items[index]!;
      items[index] = op.kind === 'move' ? { ...item, t: op.t } : { ...item, v: op.v };
      sql.push(op.kind === 'move' ? `UPDATE items SET ts = ${tsLiteral(op.t)} WHERE id = ${item.id}` : `UPDATE items SET v = ${op.v} WHERE id = ${item.id}`);
    } else {
      const [removed] = items.splice(op.pick % items.length, 1);
      sql.push(`DELETE FROM items WHERE id = ${removed!.id}`);
    }
  }
  return { sql, items };
}

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify({ ws: r.ws, we: r.we, n: Number(r.n), s: Number(r.s) })).sort();

describe('windows over a plain timestamp through the engine (property)', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  it('the model computes the windows the examples name', () => {
    expect(windowsOf({ kind: 'TUMBLE', unit: 10, multiple: 1, offset: 5 }, 4)).toEqual([[-5, 5]]);
    expect(windowsOf({ kind: 'HOP', unit: 2, multiple: 3, offset: undefined }, 5)).toEqual([[0, 6], [2, 8], [4, 10]]);
    expect(windowsOf({ kind: 'CUMULATE', unit: 2, multiple: 3, offset: 1 }, 4)).toEqual([[1, 5], [1, 7]]);
  });

  for (const parallelism of [1, 2]) {
    it(`at parallelism ${parallelism}: the windowed aggregate over a table changed by random statements equals the model's`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), windowArb, async (ops, w) => {
          process.chdir(mkdtempSync(join(tmpdir(), 'weir-plain-window-')));
          const engine = createEngine();
          const { sql, items } = statements(ops);
          await engine.execute(`CREATE TABLE items (id INT, v INT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED); ${sql.join(';\n')};
            SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '${parallelism}';`);
          const query = sqlOf(w);
          const rows = await engine.query(query);
          expect(key(rows), query).toEqual(key(model(items, w)));
          await engine.close();
        }),
        { numRuns: 50 },
      );
    });
  }
});
