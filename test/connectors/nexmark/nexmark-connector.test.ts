/** The nexmark descriptor: traits, option parsing and errors, schema validation. */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../../src/common/errors.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes, type SqlType } from '../../../src/common/sql-type.js';
import { createBuiltinConnectors } from '../../../src/connectors/builtin-connectors.js';
import { nexmarkDescriptor } from '../../../src/connectors/nexmark/nexmark-connector.js';
import { NEXMARK_OPTIONS, parseNexmarkOptions } from '../../../src/connectors/nexmark/nexmark-options.js';
import { NEXMARK_SCHEMA } from '../../../src/connectors/nexmark/nexmark-schema.js';

const options = (entries: Record<string, string>) => new Map(Object.entries({ connector: 'nexmark', ...entries }));
const validate = (entries: Record<string, string>, schema: Schema = NEXMARK_SCHEMA): void => nexmarkDescriptor.validate!(options(entries), schema, []);

/** NEXMARK_SCHEMA with one field (`column` or `column.field`) replaced. */
function withField(path: string, replace: (type: SqlType) => { name?: string; type: SqlType }): Schema {
  const [column, nested] = path.split('.');
  return NEXMARK_SCHEMA.map((f) => {
    if (f.name !== column) return f;
    if (nested === undefined) return { name: f.name, ...replace(f.type) };
    if (f.type.kind !== 'ROW') throw new Error('not a ROW');
    return { name: f.name, type: SqlTypes.row(f.type.fields.map((g) => (g.name === nested ? { name: g.name, ...replace(g.type) } : g))) };
  });
}

describe('nexmark descriptor', () => {
  it('is a registered, insert-only source', () => {
    expect(createBuiltinConnectors().map((c) => c.descriptor.name)).toContain('nexmark');
    expect(nexmarkDescriptor.source?.changelog).toBe('insert-only');
    expect(nexmarkDescriptor.sink).toBeUndefined();
  });

  it("is bounded by 'events.num' or 'stop-at' unless 'keep-alive', and always replayable", () => {
    const traits = (entries: Record<string, string>) => nexmarkDescriptor.source!.traits(options(entries), NEXMARK_SCHEMA);
    expect(traits({})).toEqual({ bounded: false, replayable: true });
    expect(traits({ 'events.num': '0' })).toEqual({ bounded: false, replayable: true });
    expect(traits({ 'events.num': '10' })).toEqual({ bounded: true, replayable: true });
    expect(traits({ 'stop-at': '10' })).toEqual({ bounded: true, replayable: true });
    expect(traits({ 'events.num': '10', 'keep-alive': 'true' })).toEqual({ bounded: false, replayable: true });
  });

  it('declares every option it parses, with its default', () => {
    expect(nexmarkDescriptor.options.map((o) => o.key)).toEqual(NEXMARK_OPTIONS.map((o) => o.key));
    const everything = Object.fromEntries(NEXMARK_OPTIONS.map((o) => [o.key, o.default]));
    expect(() => validate(everything)).not.toThrow();
    expect(parseNexmarkOptions(options(everything))).toEqual(parseNexmarkOptions(options({})));
  });
});

describe('nexmark options', () => {
  it("parses Flink's forms", () => {
    const config = parseNexmarkOptions(
      options({
        'first-event.rate': '10000000',
        'events.num': '100000000',
        'person.avg-size': '1kb',
        'auction.avg-size': '2 KB',
        'bid.avg-size': '64',
        'max-emit-speed': 'FALSE',
        'rate.shape': 'sine',
        'rate.period': '10 min',
        seed: '-7',
        'base-time': '2024-01-01 00:00:00',
        'bid.bidder-offset-bug': 'false',
      }),
    );
    expect(config).toMatchObject({
      firstEventRate: 10_000_000,
      eventsNum: 100_000_000,
      avgPersonSize: 1024,
      avgAuctionSize: 2048,
      avgBidSize: 64,
      maxEmitSpeed: false,
      seed: -7,
      baseTime: Date.UTC(2024, 0, 1),
      bidderOffsetBug: false,
    });
    expect(parseNexmarkOptions(options({ 'base-time': 'NOW' })).baseTime).toBe('now');
    expect(parseNexmarkOptions(options({ 'base-time': '2024-01-01T00:00:00-02:30' })).baseTime).toBe(Date.UTC(2024, 0, 1, 2, 30));
  });

  const errors: [string, Record<string, string>, string][] = [
    ['an unknown option', { 'event.num': '5' }, `nexmark does not support option 'event.num'; did you mean 'events.num'? Known options: ${NEXMARK_OPTIONS.map((o) => o.key).join(', ')}`],
    ['a zero rate', { 'first-event.rate': '0' }, "nexmark option 'first-event.rate' must be a positive integer, got '0'"],
    ['a fractional count', { 'events.num': '1.5' }, "nexmark option 'events.num' must be an integer, got '1.5'"],
    ['a negative count', { 'events.num': '-1' }, "nexmark option 'events.num' must be a non-negative integer, got '-1'"],
    ['a zero hot ratio', { 'bid.hot-ratio.auctions': '0' }, "nexmark option 'bid.hot-ratio.auctions' must be a positive integer, got '0'"],
    ['stop-at below -1', { 'stop-at': '-2' }, "nexmark option 'stop-at' must be an integer of at least -1, got '-2'"],
    ['all proportions 0', { 'person.proportion': '0', 'auction.proportion': '0', 'bid.proportion': '0' }, "nexmark options 'person.proportion', 'auction.proportion' and 'bid.proportion' must not all be 0"],
    ['a bad size', { 'bid.avg-size': '10 apples' }, "nexmark option 'bid.avg-size' must be a size in bytes such as '200b' or '1kb', got '10 apples'"],
    ['a huge size', { 'bid.avg-size': '4gb' }, "nexmark option 'bid.avg-size' must be at most 2147483647 bytes, got '4gb'"],
    ['a bad boolean', { 'max-emit-speed': 'yes' }, "nexmark option 'max-emit-speed' must be 'true' or 'false', got 'yes'"],
    ['a bad rate shape', { 'rate.shape': 'triangle' }, "nexmark option 'rate.shape' must be 'SQUARE' or 'SINE', got 'triangle'"],
    ['a bad rate period', { 'rate.period': 'soon' }, "nexmark option 'rate.period' must be a duration such as '600 s' or '10 min', got 'soon'"],
    ['a bad base time', { 'base-time': 'yesterday' }, "nexmark option 'base-time' must be 'now' or an instant such as '2015-07-15T00:00:00Z', got 'yesterday'"],
  ];

  it.each(errors)('rejects %s', (_what, entries, message) => {
    let error: unknown;
    try {
      validate(entries);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INVALID_OPTION');
    expect((error as WeirError).message).toBe(message);
  });
});

describe('nexmark schema', () => {
  const mismatches: [string, Schema, string][] = [
    ['a missing column', NEXMARK_SCHEMA.slice(0, 3), 'a nexmark table has 4 physical columns (event_type, person, auction, bid), but this one declares 3 (event_type, person, auction)'],
    ['a renamed column', withField('bid', (type) => ({ name: 'bids', type })), "nexmark column 4 must be 'bid', got 'bids'"],
    ['a renamed field', withField('person.emailAddress', (type) => ({ name: 'email', type })), "nexmark field 3 of 'person' must be 'emailAddress', got 'email'"],
    ['a wrong field type', withField('auction.reserve', () => ({ type: SqlTypes.int() })), "nexmark field 'auction.reserve' must be BIGINT, got INT"],
    ['a wrong timestamp precision', withField('bid.dateTime', () => ({ type: SqlTypes.timestamp(6) })), "nexmark field 'bid.dateTime' must be TIMESTAMP(3), got TIMESTAMP(6)"],
    ['a wrong event_type', withField('event_type', () => ({ type: SqlTypes.string() })), "nexmark column 'event_type' must be INT, got STRING"],
    ['a NOT NULL row', withField('person', (type) => ({ type: { ...type, nullable: false } as SqlType })), "nexmark column 'person' must be nullable: it is NULL unless the event is of its kind"],
  ];

  it.each(mismatches)('rejects %s, naming it', (_what, schema, message) => {
    expect(() => validate({}, schema)).toThrow(message);
  });

  it('accepts other VARCHAR lengths, NOT NULL fields and other letter case', () => {
    const schema = withField('person.name', () => ({ name: 'NAME', type: SqlTypes.varchar(100, false) }));
    expect(() => validate({}, schema)).not.toThrow();
  });
});
