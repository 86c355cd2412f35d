/**
 * Flink's legacy table options: the filesystem connector's are translated into current options
 * (spans kept), other keys pass through, and what has no counterpart is refused at the span of
 * the option, in CREATE TABLE too.
 */
import { describe, expect, it } from 'vitest';
import { translateLegacyOptions } from '../../src/connectors/legacy-connector-options.js';
import { createEngine } from '../../src/engine/engine.js';
import { WeirError } from '../../src/common/errors.js';

describe('legacy connector options', () => {
  it('translates the filesystem connector and csv format options, drops version markers, and passes other keys through', () => {
    const translated = translateLegacyOptions([
      { key: 'connector.type', value: 'filesystem' },
      { key: 'connector.path', value: 'file:///tmp/x.csv' },
      { key: 'connector.property-version', value: '1' },
      { key: 'format.type', value: 'csv' },
      { key: 'format.field-delimiter', value: '|' },
      { key: 'lookup.cache.ttl', value: '1 min' },
    ]);
    expect(translated).toEqual([
      { key: 'connector', value: 'filesystem' },
      { key: 'path', value: 'file:///tmp/x.csv' },
      { key: 'format', value: 'csv' },
      { key: 'csv.field-delimiter', value: '|' },
      { key: 'lookup.cache.ttl', value: '1 min' },
    ]);
  });

  it('refuses legacy keys and connector types it cannot translate, at their option', async () => {
    expect(() => translateLegacyOptions([{ key: 'connector.type', value: 'kafka' }])).toThrow("legacy connector type 'kafka' is not supported");
    expect(() => translateLegacyOptions([{ key: 'format.type', value: 'avro' }])).toThrow("legacy format type 'avro' is not supported");
    const engine = createEngine();
    const error = await engine
      .execute(`CREATE TABLE side (k BIGINT, v STRING) WITH (
  'connector.type' = 'filesystem',
  'connector.path' = '/tmp/side.csv',
  'connector.compression' = 'gzip',
  'format.type' = 'csv')`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).message).toBe("legacy option 'connector.compression' has no counterpart in weir");
    expect((error as WeirError).span?.start.line).toBe(4);
  });

  it('validates translated options like current ones', async () => {
    const engine = createEngine();
    await expect(engine.execute("CREATE TABLE side (k BIGINT) WITH ('connector.type' = 'filesystem', 'format.type' = 'csv')")).rejects.toThrow("connector 'filesystem' requires option 'path'");
  });
});
