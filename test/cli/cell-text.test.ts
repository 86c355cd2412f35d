/**
 * The shell shows a TIMESTAMP_LTZ in the session zone (as Flink's SQL client does) and a TIMESTAMP
 * as it is, in every output format, with every fraction digit of its precision; the API value
 * stays the exact instant. In a table or CSV every value is shown as Flink's SQL client prints it
 * (its CAST to STRING).
 */
import { describe, expect, it } from 'vitest';
import { cellText } from '../../src/cli/cell-text.js';
import { formatObjects, formatText } from '../../src/cli/result-printer.js';
import { createEngine } from '../../src/engine/engine.js';

describe('cell text of TIMESTAMP_LTZ', () => {
  it('is the wall-clock time of the session zone', async () => {
    const engine = createEngine();
    await engine.execute("SET 'table.local-time-zone' = 'Asia/Shanghai'");
    const rows = await engine.query("SELECT TO_TIMESTAMP_LTZ(4001, 3) AS t, TIMESTAMP '1970-01-01 00:00:04.001' AS p");
    expect((rows[0]!.t as Date).getTime()).toBe(4001);
    expect(cellText(rows[0]!.t)).toBe('1970-01-01 08:00:04.001');
    expect(cellText(rows[0]!.p)).toBe('1970-01-01 00:00:04.001');
    expect(formatObjects(rows, 'table')).toContain('| 1970-01-01 08:00:04.001 | 1970-01-01 00:00:04.001 |');
    expect(formatObjects(rows, 'json')).toBe('[{"t":"1970-01-01 08:00:04.001","p":"1970-01-01 00:00:04.001"}]');
    expect(formatObjects(rows, 'csv')).toBe('t,p\n1970-01-01 08:00:04.001,1970-01-01 00:00:04.001');
  });

  it('shows every fraction digit of a TIMESTAMP(9) and a TIMESTAMP_LTZ(9), whose API values keep their nanoseconds', async () => {
    const engine = createEngine();
    await engine.execute("SET 'table.local-time-zone' = 'Asia/Shanghai'");
    const rows = await engine.query("SELECT TO_TIMESTAMP_LTZ(4001000007, 9) AS t, TIMESTAMP '1970-01-01 00:00:04.001000007' AS p, CAST(TIMESTAMP '1970-01-01 00:00:04.5' AS TIMESTAMP(6)) AS m");
    expect((rows[0]!.t as Date).getTime()).toBe(4001);
    expect(rows[0]!.t).toMatchObject({ epochNanos: 4001000007n, nanoOfMillisecond: 7 });
    expect(rows[0]!.p).toMatchObject({ epochNanos: 4001000007n, nanoOfMillisecond: 7 });
    expect(cellText(rows[0]!.t)).toBe('1970-01-01 08:00:04.001000007');
    expect(cellText(rows[0]!.p)).toBe('1970-01-01 00:00:04.001000007');
    expect(formatObjects(rows, 'json')).toBe('[{"t":"1970-01-01 08:00:04.001000007","p":"1970-01-01 00:00:04.001000007","m":"1970-01-01 00:00:04.500000"}]');
  });
});

describe('values shown by the shell in a table or CSV', () => {
  it('are what Flink’s SQL client prints: each value cast to STRING, a TIMESTAMP_LTZ in the session zone', async () => {
    const engine = createEngine();
    await engine.execute("SET 'table.local-time-zone' = 'Asia/Shanghai'");
    const sql = `SELECT CAST(0.1 AS FLOAT) AS f, CAST(1e7 AS DOUBLE) AS d, TRUE AS b, CAST(1.50 AS DECIMAL(4, 2)) AS n, ROW(1, 'a') AS r,
      ARRAY[1, 2] AS a, MAP['k', 1] AS m, x'0aff' AS y, TO_TIMESTAMP_LTZ(4001, 3) AS t, CAST(NULL AS INT) AS z`;
    const text = await engine.queryText(sql);
    expect(text.columns).toEqual(['f', 'd', 'b', 'n', 'r', 'a', 'm', 'y', 't', 'z']);
    expect(text.rows).toEqual([['0.1', '1.0E7', 'TRUE', '1.50', '(1, a)', '[1, 2]', '{k=1}', "x'0aff'", '1970-01-01 08:00:04.001', null]]);
    expect(formatText(text, 'csv')).toBe("f,d,b,n,r,a,m,y,t,z\n0.1,1.0E7,TRUE,1.50,\"(1, a)\",\"[1, 2]\",{k=1},x'0aff',1970-01-01 08:00:04.001,");
    expect(formatText(text, 'table')).toContain("| 0.1 | 1.0E7 | TRUE | 1.50 | (1, a) | [1, 2] | {k=1} | x'0aff' | 1970-01-01 08:00:04.001 | NULL |");
    const changes = [];
    for await (const change of engine.subscribeText(sql)) changes.push(change);
    expect(changes).toEqual([{ op: '+I', columns: text.columns, cells: text.rows[0] }]);
    // The programmatic API keeps values as values.
    const [row] = await engine.query(sql);
    expect(row).toMatchObject({ f: Math.fround(0.1), d: 1e7, b: true });
  });
});
