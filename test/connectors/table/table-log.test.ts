/**
 * The log of a writable table: changes round-trip with their kinds and exact values, reads resume
 * at the offset they return (also mid-log and at a partial last line), and a damaged line is an
 * error naming the table, the file and the byte.
 */
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { TableLog } from '../../../src/connectors/table/table-log.js';

const schema = [
  { name: 'id', type: SqlTypes.bigint() },
  { name: 'name', type: SqlTypes.string() },
  { name: 'amount', type: SqlTypes.decimal(10, 2) },
];

function freshLog(): TableLog {
  return new TableLog(join(mkdtempSync(join(tmpdir(), 'weir-log-')), 'tables', 't.log'), 't', schema);
}

describe('table log', () => {
  it('round-trips changes and resumes reads at the returned offset', () => {
    const log = freshLog();
    const changes = [
      { kind: RowKind.INSERT, row: [1, 'a "quoted" name', 1050n] },
      { kind: RowKind.UPDATE_BEFORE, row: [1, 'a "quoted" name', 1050n] },
      { kind: RowKind.UPDATE_AFTER, row: [1, null, -1n] },
      { kind: RowKind.DELETE, row: [1, null, -1n] },
    ];
    log.append(changes);
    expect(log.readAll()).toEqual(changes);
    const first = log.read(0, log.size(), 3);
    expect(first.changes).toEqual(changes.slice(0, 3));
    expect(log.read(first.next, log.size(), 10)).toEqual({ changes: changes.slice(3), next: log.size() });
  });

  it('leaves a partial last line for a later read', () => {
    const log = freshLog();
    log.append([{ kind: RowKind.INSERT, row: [1, 'x', 100n] }]);
    const complete = log.size();
    appendFileSync(log.path, '+I {"id":2,"na');
    expect(log.read(0, log.size(), 10)).toEqual({ changes: [{ kind: RowKind.INSERT, row: [1, 'x', 100n] }], next: complete });
  });

  it('names the table, the file and the byte of a damaged line', () => {
    const log = freshLog();
    log.append([{ kind: RowKind.INSERT, row: [1, 'x', 100n] }]);
    const at = log.size();
    appendFileSync(log.path, '+X {"id":2}\n');
    expect(() => log.readAll()).toThrow(`the log of table 't' (${log.path}) is damaged at byte ${at}: unknown row kind '+X'`);
  });
});
