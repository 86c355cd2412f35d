/**
 * BIGINT values over the whole 64-bit range through whole queries: read from JSON (as raw JSON
 * numbers and as strings) and CSV files, grouped by a BIGINT key with COUNT, SUM (wrapping as
 * Java's long), MIN and MAX, joined on a BIGINT key, filtered by a literal beyond 2^53, and handed
 * out by `engine.query` as numbers when safe and bigints otherwise; the CLI's printer shows the
 * exact digits. Expected answers come from a BigInt model of the same rows.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatObjects } from '../../src/cli/result-printer.js';
import { normalizeInt64 } from '../../src/common/int64.js';
import { createEngine } from '../../src/engine/engine.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const BOUNDS = [9223372036854775807n, -9223372036854775808n, SAFE, SAFE + 1n, SAFE + 2n, -SAFE - 2n, 8821808526777993777n, 0n, -1n, 42n];

/** A snowflake-like id: milliseconds since an epoch, a worker and a sequence number in 64 bits. */
const snowflake = (i: number): bigint => ((1_700_000_000_000n + BigInt(i * 7919)) << 22n) | (BigInt(i % 1024) << 12n) | BigInt(i % 4096);

interface Event {
  readonly id: bigint;
  readonly grp: bigint;
  readonly v: bigint;
}

function events(): Event[] {
  const rows: Event[] = [];
  for (let i = 0; i < 400; i++) {
    const id = i < BOUNDS.length ? BOUNDS[i]! : snowflake(i);
    rows.push({ id, grp: BOUNDS[i % BOUNDS.length]!, v: i % 3 === 0 ? BOUNDS[(i * 7) % BOUNDS.length]! : BigInt(i) * 1_000_000_007n });
  }
  return rows;
}

const long = (value: bigint): bigint => BigInt.asIntN(64, value);
/** The API form of a model value: a number when safe, else the bigint. */
const api = (value: bigint): number | bigint => normalizeInt64(value);

describe('BIGINT over the full 64-bit range in queries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-bigint-'));
  const data = events();
  // JSON numbers written as raw digits (beyond what a double holds), every fifth one as a string.
  const jsonFile = join(dir, 'events.json');
  writeFileSync(jsonFile, data.map((e, i) => `{"id":${i % 5 === 0 ? `"${e.id}"` : e.id},"grp":${e.grp},"v":${e.v}}\n`).join(''));
  const csvFile = join(dir, 'names.csv');
  writeFileSync(csvFile, data.filter((_e, i) => i % 2 === 0).map((e) => `${e.id},name ${e.id}\n`).join(''));

  async function engine() {
    const e = createEngine();
    await e.execute(`CREATE TABLE events (id BIGINT, grp BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${jsonFile}', 'format' = 'json');
      CREATE TABLE names (id BIGINT, label STRING) WITH ('connector' = 'filesystem', 'path' = '${csvFile}', 'format' = 'csv');`);
    return e;
  }

  it('groups by a BIGINT key with COUNT, SUM (wrapping), MIN and MAX exactly', async () => {
    const e = await engine();
    const rows = await e.query('SELECT grp, COUNT(*) AS n, SUM(v) AS total, MIN(id) AS lo, MAX(id) AS hi FROM events GROUP BY grp');
    const model = new Map<bigint, { n: number; total: bigint; lo: bigint; hi: bigint }>();
    for (const { id, grp, v } of data) {
      const g = model.get(grp);
      if (g === undefined) model.set(grp, { n: 1, total: long(v), lo: id, hi: id });
      else model.set(grp, { n: g.n + 1, total: long(g.total + v), lo: id < g.lo ? id : g.lo, hi: id > g.hi ? id : g.hi });
    }
    const expected = [...model].map(([grp, g]) => ({ grp: api(grp), n: g.n, total: api(g.total), lo: api(g.lo), hi: api(g.hi) }));
    const key = (r: Record<string, unknown>): string => String(r.grp);
    expect([...rows].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(expected.sort((a, b) => key(a).localeCompare(key(b))));
    // The form tells the range: numbers for safe values, bigints beyond.
    for (const row of rows) for (const name of ['grp', 'total', 'lo', 'hi']) expect(typeof row[name] === 'bigint').toBe(BigInt(row[name] as number) > SAFE || BigInt(row[name] as number) < -SAFE);
  });

  it('joins a JSON and a CSV source on a BIGINT key, and filters by a literal beyond 2^53', async () => {
    const e = await engine();
    const joined = await e.query('SELECT e.id, n.label FROM events AS e JOIN names AS n ON e.id = n.id');
    const named = new Set(data.filter((_e, i) => i % 2 === 0).map((x) => x.id));
    const expected = data.filter((x) => named.has(x.id)).map((x) => ({ id: api(x.id), label: `name ${x.id}` }));
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>): number => (BigInt(a.id as number) < BigInt(b.id as number) ? -1 : 1);
    expect([...joined].sort(byId)).toEqual(expected.sort(byId));

    const filtered = await e.query('SELECT id, id + 1 AS next, -id AS negated FROM events WHERE id > 9007199254740992 AND id <> 9223372036854775807');
    const model = data.filter((x) => x.id > SAFE + 1n && x.id !== 9223372036854775807n).map((x) => ({ id: api(x.id), next: api(long(x.id + 1n)), negated: api(-x.id) }));
    expect([...filtered].sort(byId)).toEqual(model.sort(byId));
    expect(await e.query('SELECT 9223372036854775807 + 1 AS wrapped, -9223372036854775808 AS lowest, CAST(-9223372036854775808 AS STRING) AS text')).toEqual([
      { wrapped: -9223372036854775808n, lowest: -9223372036854775808n, text: '-9223372036854775808' },
    ]);
  });

  it('keeps 64-bit keys and values of a writable table exactly through its log, INSERT, UPDATE and DELETE', async () => {
    const home = process.cwd();
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-bigint-table-')));
    try {
      const ddl = 'CREATE TABLE ledger (id BIGINT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)';
      const e = createEngine();
      await e.execute(`${ddl};
        INSERT INTO ledger VALUES (9223372036854775807, 1), (-9223372036854775808, -1), (9007199254740993, 9007199254740993), (8821808526777993777, 0);
        INSERT INTO ledger VALUES (9007199254740993, 9007199254740995);
        UPDATE ledger SET amount = amount + 9223372036854775806 WHERE id = 9223372036854775807;
        DELETE FROM ledger WHERE id = 8821808526777993777;`);
      const again = createEngine();
      await again.execute(`${ddl}; SET 'execution.runtime-mode' = 'batch';`);
      const rows = await again.query('SELECT id, amount FROM ledger');
      const byId = (a: Record<string, unknown>, b: Record<string, unknown>): number => (BigInt(a.id as number) < BigInt(b.id as number) ? -1 : 1);
      expect([...rows].sort(byId)).toEqual([
        { id: -9223372036854775808n, amount: -1 },
        { id: 9007199254740993n, amount: 9007199254740995n },
        { id: 9223372036854775807n, amount: 9223372036854775807n },
      ]);
      expect(await again.query('SELECT SUM(amount) AS total FROM ledger')).toEqual([{ total: api(long(-1n + 9007199254740995n + 9223372036854775807n)) }]);
    } finally {
      process.chdir(home);
    }
  });

  it('prints the exact digits in the CLI formats', async () => {
    const e = await engine();
    const rows = await e.query('SELECT id FROM events WHERE id = 8821808526777993777 OR id = 9007199254740993 OR id = 42');
    const table = formatObjects(rows, 'table');
    for (const digits of ['8821808526777993777', '9007199254740993', '42']) expect(table).toContain(digits);
    const json = JSON.parse(formatObjects(rows, 'json')) as { id: unknown }[];
    expect(json.map((r) => String(r.id)).sort()).toEqual(['42', '8821808526777993777', '9007199254740993']);
  });
});
