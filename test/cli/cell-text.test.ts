/**
 * The shell shows a TIMESTAMP_LTZ in the session zone (as Flink's SQL client does) and a TIMESTAMP
 * as it is, in every output format, with every fraction digit of its precision; the API value
 * stays the exact instant.
 */
import { describe, expect, it } from 'vitest';
import { cellText } from '../../src/cli/cell-text.js';
import { formatObjects } from '../../src/cli/result-printer.js';
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
