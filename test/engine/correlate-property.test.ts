/**
 * Property, through the whole engine: random INSERT / UPDATE / DELETE statements on a writable
 * table with a MAP, an ARRAY of ROWs (NULL elements included) and a text column, then queries
 * that correlate each row with a function of it — UNNEST of the MAP WITH ORDINALITY, LEFT JOIN
 * UNNEST of the ARRAY of ROWs ON TRUE, a user-defined table function (LEFT JOIN LATERAL TABLE with
 * an ON condition, and an aggregate over its rows) — run in batch mode (the table's changelog
 * replayed with its retractions) at parallelism 1 and 2, answer what a plain model computes from
 * the final rows. PostgreSQL has no MAP or UNNEST of rows, hence the model (unnest.slt checks
 * UNNEST of arrays against PostgreSQL).
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { playItemOps, type ItemOp } from '../support/item-ops.js';

type Point = { readonly x: number; readonly y: number | null } | null;

interface Item {
  readonly id: number;
  readonly m: readonly (readonly [string, number])[] | null;
  readonly pts: readonly Point[] | null;
  readonly txt: string | null;
}

type Fields = Omit<Item, 'id'>;

type Op = ItemOp<Fields, { readonly fields: Fields }>;

const mapArb = fc.option(
  fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: -5, max: 5 })), { minLength: 1, maxLength: 3, selector: ([k]) => k }),
  { freq: 4 },
);
const pointArb: fc.Arbitrary<Point> = fc.option(fc.record({ x: fc.integer({ min: 0, max: 9 }), y: fc.option(fc.integer({ min: 0, max: 9 }), { freq: 4 }) }), { freq: 4 });
const fieldsArb: fc.Arbitrary<Fields> = fc.record({
  m: mapArb,
  pts: fc.option(fc.array(pointArb, { minLength: 1, maxLength: 3 }), { freq: 4 }),
  txt: fc.option(fc.array(fc.constantFrom('a', 'bb', 'ccc', ''), { maxLength: 4 }).map((w) => w.join(' ')), { freq: 4 }),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(fieldsArb, { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), fields: fieldsArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

const WORDS_MODULE = `export const words = {
  kind: 'table',
  returns: 'ROW<w STRING, l INT>',
  args: ['STRING'],
  *eval(text) {
    if (text === null) return;
    for (const word of text.split(' ')) if (word !== '') yield [word, word.length];
  },
};`;

const words = (text: string | null): [string, number][] => (text === null ? [] : text.split(' ').filter((w) => w !== '').map((w) => [w, w.length]));

/** Each query and its model over the final rows. */
const QUERIES: readonly { readonly sql: string; readonly model: (items: readonly Item[]) => Record<string, unknown>[] }[] = [
  {
    sql: 'SELECT id, k, v, n FROM items CROSS JOIN UNNEST(m) WITH ORDINALITY AS t(k, v, n)',
    model: (items) => items.flatMap((item) => (item.m ?? []).map(([k, v], i) => ({ id: item.id, k, v, n: i + 1 }))),
  },
  {
    sql: 'SELECT id, x, y FROM items LEFT JOIN UNNEST(pts) AS p ON TRUE',
    model: (items) =>
      items.flatMap((item) => (item.pts === null || item.pts.length === 0 ? [{ id: item.id, x: null, y: null }] : item.pts.map((p) => ({ id: item.id, x: p?.x ?? null, y: p?.y ?? null })))),
  },
  {
    sql: 'SELECT id, w, l FROM items LEFT JOIN LATERAL TABLE(words(txt)) AS t(w, l) ON l > 1',
    model: (items) =>
      items.flatMap((item): Record<string, unknown>[] => {
        const long = words(item.txt).filter(([, l]) => l > 1);
        return long.length === 0 ? [{ id: item.id, w: null, l: null }] : long.map(([w, l]) => ({ id: item.id, w, l }));
      }),
  },
  {
    sql: 'SELECT w, COUNT(*) AS n, SUM(id) AS ids FROM items, LATERAL TABLE(words(txt)) GROUP BY w',
    model: (items) => {
      const groups = new Map<string, { n: number; ids: number }>();
      for (const item of items) {
        for (const [w] of words(item.txt)) {
          const g = groups.get(w) ?? { n: 0, ids: 0 };
          groups.set(w, { n: g.n + 1, ids: g.ids + item.id });
        }
      }
      return [...groups].map(([w, g]) => ({ w, n: g.n, ids: g.ids }));
    },
  },
];

const text = (v: string | null): string => (v === null ? 'CAST(NULL AS STRING)' : `'${v}'`);
const mapLiteral = (m: Item['m']): string => (m === null ? 'CAST(NULL AS MAP<STRING, INT>)' : `MAP[${m.map(([k, v]) => `'${k}', ${v}`).join(', ')}]`);
const pointLiteral = (p: Point): string => (p === null ? 'CAST(NULL AS ROW<x INT, y INT>)' : `ROW(${p.x}, ${p.y === null ? 'CAST(NULL AS INT)' : p.y})`);
const pointsLiteral = (pts: Item['pts']): string => (pts === null ? 'CAST(NULL AS ARRAY<ROW<x INT, y INT>>)' : `ARRAY[${pts.map(pointLiteral).join(', ')}]`);
const values = (f: Fields): string => `${mapLiteral(f.m)}, ${pointsLiteral(f.pts)}, ${text(f.txt)}`;

/** Plays the ops as statements, recording the final rows (an update re-inserts the row by its key). */
function statements(ops: readonly Op[]): { sql: string[]; items: Item[] } {
  return playItemOps(ops, {
    values,
    update: (old, { fields }) => {
      const item = { id: old.id, ...fields };
      return { item, sql: `INSERT INTO items VALUES (${item.id}, ${values(item)})` };
    },
  });
}

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

describe('UNNEST and table functions through the engine (property)', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  for (const parallelism of [1, 2]) {
    it(`at parallelism ${parallelism}: the answers over a table changed by random statements equal the model's`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 0, maxLength: 8 }), async (ops) => {
          process.chdir(mkdtempSync(join(tmpdir(), 'weir-correlate-')));
          writeFileSync('words.mjs', WORDS_MODULE);
          const engine = createEngine();
          const { sql, items } = statements(ops);
          await engine.execute(`CREATE TABLE items (id INT, m MAP<STRING, INT>, pts ARRAY<ROW<x INT, y INT>>, txt STRING, PRIMARY KEY (id) NOT ENFORCED);
            CREATE FUNCTION words AS './words.mjs'; ${sql.map((s) => `${s};\n`).join('')}
            SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '${parallelism}';`);
          for (const query of QUERIES) expect(key(await engine.query(query.sql)), query.sql).toEqual(key(query.model(items)));
          await engine.close();
        }),
        { numRuns: 30 },
      );
    });
  }
});
