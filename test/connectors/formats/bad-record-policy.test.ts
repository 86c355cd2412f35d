import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import { createBadRecordPolicy, deadLetterPath } from '../../../src/connectors/formats/bad-record-policy.js';
import { RecordDecodeError } from '../../../src/connectors/formats/record-decoder.js';

const origin = { source: '/data/in/a.csv', position: 'line 7 (byte 812)' };
const reason = new RecordDecodeError("column 'price': 'abc' is not a valid DECIMAL(10, 2)", 'price');

describe('bad-record policy', () => {
  it('fails with a connector error naming table, file, position and reason', () => {
    const warnings: string[] = [];
    const policy = createBadRecordPolicy({ connector: 'filesystem', table: 'orders', ignoreParseErrors: false, warn: (m) => warnings.push(m) });
    let thrown: unknown;
    try {
      policy.reject('1,abc', origin, reason);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WeirError);
    expect((thrown as WeirError).code).toBe('CONNECTOR_ERROR');
    expect((thrown as WeirError).message).toBe("filesystem source 'orders': /data/in/a.csv, line 7 (byte 812): column 'price': 'abc' is not a valid DECIMAL(10, 2)");
    expect(policy.rejected).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('sets records aside in the dead-letter file, counts and reports each once', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'weir-dlq-')), 'dead-letter');
    const warnings: string[] = [];
    const policy = createBadRecordPolicy({ connector: 'nats', table: 'my orders', ignoreParseErrors: true, warn: (m) => warnings.push(m), deadLetterDir: dir });
    policy.reject('1,abc', origin, reason);
    policy.reject('{"x":', { source: 's', position: 'stream sequence 3' }, new RecordDecodeError('not valid JSON: cut short'));
    expect(policy.rejected).toBe(2);
    const file = deadLetterPath('my orders', dir);
    expect(file).toBe(join(dir, 'my_orders.jsonl'));
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const records = lines.map((line) => JSON.parse(line) as Record<string, string>);
    expect(records.map(({ time, ...rest }) => rest)).toEqual([
      { source: '/data/in/a.csv', position: 'line 7 (byte 812)', reason: "column 'price': 'abc' is not a valid DECIMAL(10, 2)", record: '1,abc' },
      { source: 's', position: 'stream sequence 3', reason: 'not valid JSON: cut short', record: '{"x":' },
    ]);
    for (const { time } of records) expect(Date.parse(time!)).toBeGreaterThan(Date.now() - 60_000);
    expect(warnings).toEqual([
      `nats source 'my orders': /data/in/a.csv, line 7 (byte 812): column 'price': 'abc' is not a valid DECIMAL(10, 2) (set aside in ${file})`,
      `nats source 'my orders': s, stream sequence 3: not valid JSON: cut short (set aside in ${file})`,
    ]);
  });

  it('writes under .weir/dead-letter of the working directory by default', () => {
    expect(deadLetterPath('orders')).toBe(join('.weir', 'dead-letter', 'orders.jsonl'));
    const policy = createBadRecordPolicy({ connector: 'filesystem', table: 'unused', ignoreParseErrors: true, warn: () => {} });
    expect(policy.rejected).toBe(0);
    expect(existsSync(deadLetterPath('unused'))).toBe(false);
  });
});
