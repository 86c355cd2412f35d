/**
 * Property, through the whole engine: random INSERT / UPDATE / DELETE statements on a writable
 * table (NULL partitions and sort keys, updates to and from NULL), then a Top-N over it — `ORDER BY
 * ... LIMIT n OFFSET m`, or ROW_NUMBER / RANK / DENSE_RANK filtered to a range, partitioned or not,
 * any direction and null order, the number in the output or not — run in batch mode (the table's
 * changelog replayed with its retractions) at parallelism 1 and 2, answers what a plain model
 * computes from the final rows. The order ends with the unique id for ROW_NUMBER, so that the
 * answer is one; RANK and DENSE_RANK order by the value alone and number ties alike.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

interface Item {
  readonly id: number;
  readonly k: string | null;
  readonly v: number | null;
}

type Op = { readonly kind: 'insert'; readonly rows: readonly Omit<Item, 'id'>[] } | { readonly kind: 'update'; readonly pick: number; readonly v: number | null } | { readonly kind: 'delete'; readonly pick: number };

const value = fc.option(fc.integer({ min: -2, max: 2 }), { freq: 4 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), rows: fc.array(fc.record({ k: fc.option(fc.constantFrom('a', 'b'), { freq: 5 }), v: value }), { minLength: 1, maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), v: value }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

interface Query {
  readonly form: 'limit' | 'rank';
  readonly rankType: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';
  readonly partitioned: boolean;
  readonly descending: boolean;
  readonly nulls: 'FIRST' | 'LAST' | undefined;
  readonly start: number;
  readonly end: number;
  readonly numbered: boolean;
}

const queryArb: fc.Arbitrary<Query> = fc
  .record({
    form: fc.constantFrom('limit' as const, 'rank' as const),
    rankType: fc.constantFrom('ROW_NUMBER' as const, 'RANK' as const, 'DENSE_RANK' as const),
    partitioned: fc.boolean(),
    descending: fc.boolean(),
    nulls: fc.constantFrom('FIRST' as const, 'LAST' as const, undefined),
    start: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 1, max: 4 }),
    numbered: fc.boolean(),
  })
  .map(({ length, ...q }) => ({ ...q, end: q.start + length - 1, ...(q.form === 'limit' ? { rankType: 'ROW_NUMBER' as const, partitioned: false, numbered: false } : {}) }));

function sqlOf(q: Query): string {
  const order = `v${q.descending ? ' DESC' : ''}${q.nulls === undefined ? '' : ` NULLS ${q.nulls}`}${q.rankType === 'ROW_NUMBER' ? ', id' : ''}`;
  if (q.form === 'limit') return `SELECT k, id, v FROM items ORDER BY ${order} LIMIT ${q.end - q.start + 1} OFFSET ${q.start - 1}`;
  const over = `${q.partitioned ? 'PARTITION BY k ' : ''}ORDER BY ${order}`;
  return `SELECT k, id, v${q.numbered ? ', rn' : ''} FROM (SELECT k, id, v, ${q.rankType}() OVER (${over}) AS rn FROM items) WHERE rn BETWEEN ${q.start} AND ${q.end}`;
}

/** The model: the final rows per partition, sorted (NULL first ascending and last descending unless said), numbered, kept within the range. */
function model(items: readonly Item[], q: Query): Record<string, unknown>[] {
  const nullsFirst = q.nulls === undefined ? !q.descending : q.nulls === 'FIRST';
  const compareV = (a: Item, b: Item): number => {
    if (a.v === null || b.v === null) return a.v === b.v ? 0 : (a.v === null) === nullsFirst ? -1 : 1;
    return q.descending ? b.v - a.v : a.v - b.v;
  };
  const compare = (a: Item, b: Item): number => compareV(a, b) || (q.rankType === 'ROW_NUMBER' ? a.id - b.id : 0);
  const partitions = new Map<unknown, Item[]>();
  for (const item of items) {
    const key = q.partitioned ? item.k : 'all';
    partitions.set(key, [...(partitions.get(key) ?? []), item]);
  }
  const out: Record<string, unknown>[] = [];
  for (const rows of partitions.values()) {
    const sorted = [...rows].sort(compare);
    let number = 0;
    sorted.forEach((item, i) => {
      const tie = i > 0 && compare(sorted[i - 1]!, item) === 0;
      if (q.rankType === 'ROW_NUMBER') number = i + 1;
      else if (!tie) number = q.rankType === 'RANK' ? i + 1 : number + 1;
      if (number >= q.start && number <= q.end) out.push({ k: item.k, id: item.id, v: item.v, ...(q.numbered ? { rn: number } : {}) });
    });
  }
  return out;
}

const literal = (v: number | string | null): string => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));

/** Plays the ops as statements (recording the final rows); ops on an empty table insert. */
function statements(ops: readonly Op[]): { sql: string[]; items: Item[] } {
  const items: Item[] = [];
  const sql: string[] = [];
  let id = 0;
  for (const op of ops) {
    if (op.kind === 'insert' || items.length === 0) {
      const rows = op.kind === 'insert' ? op.rows : [{ k: 'a', v: null }];
      const added = rows.map((r) => ({ id: ++id, ...r }));
      items.push(...added);
      sql.push(`INSERT INTO items VALUES ${added.map((r) => `(${r.id}, CAST(${literal(r.k)} AS STRING), CAST(${literal(r.v)} AS INT))`).join(', ')}`);
    } else if (op.kind === 'update') {
      const index = op.pick % items.length;
      items[index] = { ...items[index]!, v: op.v };
      sql.push(`UPDATE items SET v = CAST(${literal(op.v)} AS INT) WHERE id = ${items[index]!.id}`);
    } else {
      const [removed] = items.splice(op.pick % items.length, 1);
      sql.push(`DELETE FROM items WHERE id = ${removed!.id}`);
    }
  }
  return { sql, items };
}

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('Top-N through the engine (property)', () => {
  const home = process.cwd();
  afterAll(() => process.chdir(home));

  for (const parallelism of [1, 2]) {
    it(`at parallelism ${parallelism}: the answer over a table changed by random statements equals the model's`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), queryArb, async (ops, q) => {
          process.chdir(mkdtempSync(join(tmpdir(), 'weir-top-n-')));
          const engine = createEngine();
          const { sql, items } = statements(ops);
          await engine.execute(`CREATE TABLE items (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED); ${sql.join(';\n')};
            SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '${parallelism}';`);
          const query = sqlOf(q);
          const rows = await engine.query(query);
          expect(key(rows), query).toEqual(key(model(items, q)));
          if (q.form === 'limit') expect(rows.map((r) => r.id), `${query}: returned in order`).toEqual(model(items, q).map((r) => r.id));
          await engine.close();
        }),
        { numRuns: 60 },
      );
    });
  }
});
