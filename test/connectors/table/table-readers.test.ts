/**
 * What FLUSH waits for: the open readers of writable tables reading everything their logs held
 * when it was called — however many polls that takes — while readers that are closed, bounded
 * short of the end, or opened afterwards do not hold it up, and a caller that gives up is told.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../../src/common/row.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { TableLog } from '../../../src/connectors/table/table-log.js';
import { TableReaders } from '../../../src/connectors/table/table-readers.js';
import { TableSourceReader } from '../../../src/connectors/table/table-source-reader.js';

const schema = [{ name: 'id', type: SqlTypes.bigint() }];

function logWith(rows: number): TableLog {
  const log = new TableLog(join(mkdtempSync(join(tmpdir(), 'weir-readers-')), 't.log'), 't', schema);
  log.append(Array.from({ length: rows }, (_, i) => ({ kind: RowKind.INSERT, row: [BigInt(i)] })));
  return log;
}

/** Whether `promise` has settled after the pending timers and I/O of a few milliseconds. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
}

describe('writable table readers', () => {
  it('are caught up only once every open reader has read what the log held at the call', async () => {
    const log = logWith(3000);
    const readers = new TableReaders();
    const reader = new TableSourceReader(log, false, readers);
    await reader.open();
    const batch = new ChangeBatch();
    expect(reader.poll(batch, 1024)).toBe('more');
    const caughtUp = readers.caughtUp();
    log.append([{ kind: RowKind.INSERT, row: [9999n] }]); // written after the call: not waited for
    expect(await settled(caughtUp)).toBe(false);
    reader.poll(batch, 1024);
    expect(await settled(caughtUp)).toBe(false);
    reader.poll(batch, 952);
    expect(batch.size).toBe(3000);
    expect(await settled(caughtUp)).toBe(true);
  });

  it('have a mark that grows with every write into a table one of them follows', async () => {
    const log = logWith(5);
    const readers = new TableReaders();
    const reader = new TableSourceReader(log, false, readers);
    await reader.open();
    const before = readers.writtenMark();
    reader.poll(new ChangeBatch(), 100);
    expect(readers.writtenMark()).toBe(before);
    log.append([{ kind: RowKind.INSERT, row: [5n] }]);
    expect(readers.writtenMark()).toBeGreaterThan(before);
  });

  it('do not wait for a closed reader, a bounded reader at its end, or a reader opened later', async () => {
    const log = logWith(10);
    const readers = new TableReaders();
    const closing = new TableSourceReader(log, false, readers);
    await closing.open();
    const bounded = new TableSourceReader(log, true, readers);
    await bounded.open();
    expect(bounded.poll(new ChangeBatch(), 100)).toBe('more');
    log.append([{ kind: RowKind.INSERT, row: [10n] }]);
    const caughtUp = readers.caughtUp();
    await new TableSourceReader(log, false, readers).open();
    expect(await settled(caughtUp)).toBe(false);
    await closing.close();
    expect(await settled(caughtUp)).toBe(true);
    expect(await caughtUp).toBe(true);
  });

  it('give up, saying so, when the signal of the caller aborts first', async () => {
    const log = logWith(10);
    const readers = new TableReaders();
    await new TableSourceReader(log, false, readers).open();
    const controller = new AbortController();
    const caughtUp = readers.caughtUp(controller.signal);
    expect(await settled(caughtUp)).toBe(false);
    controller.abort();
    expect(await caughtUp).toBe(false);
  });
});
