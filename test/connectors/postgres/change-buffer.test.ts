import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { AppendBuffer, UpsertBuffer } from '../../../src/connectors/postgres/change-buffer.js';
import { valueEncoder } from '../../../src/connectors/postgres/postgres-types.js';

const encoders = [valueEncoder(SqlTypes.int()), valueEncoder(SqlTypes.string()), valueEncoder(SqlTypes.timestamp(0))];

describe('upsert buffer', () => {
  it('keeps the last change per key: +I/+U upsert, -U/-D delete, +U after -U wins', () => {
    const buffer = new UpsertBuffer([0], encoders);
    buffer.add(RowKind.INSERT, [1, 'a', 0]);
    buffer.add(RowKind.INSERT, [2, 'b', 0]);
    buffer.add(RowKind.UPDATE_BEFORE, [1, 'a', 0]);
    buffer.add(RowKind.UPDATE_AFTER, [1, 'a2', 0]);
    buffer.add(RowKind.DELETE, [2, 'b', 0]);
    buffer.add(RowKind.UPDATE_BEFORE, [3, 'c', 0]);
    expect(buffer.size).toBe(3);
    expect(buffer.drain()).toEqual({ rows: [[1, 'a2', 0]], deletes: [[2, 'b', 0], [3, 'c', 0]] });
    expect(buffer.size).toBe(0);
    expect(buffer.drain()).toEqual({ rows: [], deletes: [] });
  });

  it('compares composite keys by the text PostgreSQL receives, without ambiguity between columns', () => {
    const buffer = new UpsertBuffer([1, 2], encoders);
    buffer.add(RowKind.INSERT, [1, 'a', 1000]);
    buffer.add(RowKind.INSERT, [2, 'a', 1999]);
    buffer.add(RowKind.INSERT, [3, 'a1', 0]);
    buffer.add(RowKind.INSERT, [4, 'a', 10]);
    expect(buffer.drain().rows).toEqual([
      [2, 'a', 1999],
      [3, 'a1', 0],
      [4, 'a', 10],
    ]);
  });
});

describe('append buffer', () => {
  it('keeps every row in order', () => {
    const buffer = new AppendBuffer();
    buffer.add(RowKind.INSERT, [1]);
    buffer.add(RowKind.INSERT, [1]);
    expect(buffer.size).toBe(2);
    expect(buffer.drain()).toEqual({ rows: [[1], [1]], deletes: [] });
    expect(buffer.size).toBe(0);
  });
});
