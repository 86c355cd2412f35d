import { describe, expect, it } from 'vitest';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch } from '../../../src/common/row.js';
import { blackholeConnector, blackholeDescriptor, BlackholeWriter } from '../../../src/connectors/blackhole/blackhole-connector.js';
import { createBuiltinConnectors } from '../../../src/connectors/builtin-connectors.js';

describe('blackhole', () => {
  it('discards every kind of change, counting records', async () => {
    const writer = blackholeConnector.sink!.createWriter({ kind: 'sink', table: 't', connector: 'blackhole', options: {}, schema: [], primaryKey: [] });
    expect(writer).toBeInstanceOf(BlackholeWriter);
    const blackhole = writer as BlackholeWriter;
    await blackhole.open({ subtask: 0, parallelism: 1, warn: () => {} });
    expect(blackhole.write(ChangeBatch.of([[RowKind.INSERT, [1]], [RowKind.UPDATE_BEFORE, [1]], [RowKind.UPDATE_AFTER, [2]]]))).toBeUndefined();
    blackhole.write(ChangeBatch.of([[RowKind.DELETE, [2]]]));
    blackhole.write(new ChangeBatch());
    await blackhole.flush();
    await blackhole.close();
    expect(blackhole.recordCount).toBe(4);
  });

  it('is a sink for any changelog without options', () => {
    expect(blackholeDescriptor.sink?.accepts).toBe('all');
    expect(() => blackholeDescriptor.validate!(new Map([['connector', 'blackhole']]), [], [])).not.toThrow();
    expect(() => blackholeDescriptor.validate!(new Map([['path', '/dev/null']]), [], [])).toThrow("blackhole does not support option 'path'");
  });
});

describe('built-in connectors', () => {
  it('lists datagen, print and blackhole under unique names', () => {
    const names = createBuiltinConnectors().map((c) => c.descriptor.name);
    expect(names).toEqual(expect.arrayContaining(['datagen', 'print', 'blackhole']));
    expect(new Set(names).size).toBe(names.length);
  });
});
