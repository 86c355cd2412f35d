import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { ChangeBatch } from '../../src/common/row.js';
import { RowKind } from '../../src/common/row-kind.js';
import { formatValue } from '../../src/common/value-format.js';
import { Exprs, type ScalarExpr } from '../../src/expr/scalar-expr.js';
import { call, compiler, evaluate, lit, ref, T } from './expr-test-helpers.js';

// Nexmark bid: auction, bidder, price, channel, url, dateTime, extra
const auction = ref(0, T.bigint(false));
const price = ref(2, T.bigint(false));
const channel = ref(3, T.string(false));
const dateTime = ref(5, T.timestamp(3, false));
const bid = (auctionId: number, priceValue: number, hour: number, channelName = 'Google'): unknown[] => [
  auctionId,
  7,
  priceValue,
  channelName,
  'https://x/y',
  Date.UTC(2020, 0, 1, hour),
  '',
];

const euro = (): ScalarExpr => call('*', lit.dec('0.908'), price);
const hour = (): ScalarExpr => call('HOUR', dateTime);
const q14Condition = (): ScalarExpr => call('AND', call('>', euro(), lit.int(1000000)), call('<', euro(), lit.int(50000000)));
const q14BidTimeType = (): ScalarExpr => ({
  kind: 'case',
  whens: [
    { when: call('AND', call('>=', hour(), lit.int(8)), call('<=', hour(), lit.int(18))), then: lit.str('dayTime') },
    { when: call('OR', call('<=', hour(), lit.int(6)), call('>=', hour(), lit.int(20))), then: lit.str('nightTime') },
  ],
  else: lit.str('otherTime'),
  type: T.varchar(9, false),
});

describe('calc', () => {
  it('filters and projects a batch in one generated loop, keeping row kinds (Nexmark q14)', () => {
    const projection = [auction, euro(), q14BidTimeType(), dateTime];
    const run = compiler.calc(q14Condition(), projection);
    const input = ChangeBatch.of([
      [RowKind.INSERT, bid(1, 2_000_000, 9)],
      [RowKind.INSERT, bid(2, 10, 9)],
      [RowKind.DELETE, bid(3, 40_000_000, 3)],
      [RowKind.UPDATE_AFTER, bid(4, 3_000_000, 19)],
    ]);
    const output = new ChangeBatch();
    run(input, output);
    expect(output.kinds).toEqual([RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_AFTER]);
    expect(output.rows.map((r) => [r[0], formatValue(r[1], projection[1]!.type), r[2]])).toEqual([
      [1, '1816000.000', 'dayTime'],
      [3, '36320000.000', 'nightTime'],
      [4, '2724000.000', 'otherTime'],
    ]);
  });

  it('computes a repeated sub-expression once on each path', () => {
    const { source } = compiler.calcSource(q14Condition(), [euro(), q14BidTimeType()]);
    expect(source.match(/908n \* /g)).toHaveLength(1);
    expect(source.match(/k\d+_hour\(/g)).toHaveLength(1);
    expect(source).not.toMatch(/=>|function \(/);
  });

  it('emits the same source for the same expressions', () => {
    expect(compiler.calcSource(q14Condition(), [euro()]).source).toBe(compiler.calcSource(q14Condition(), [euro()]).source);
  });

  it('passes input rows through when there is no projection, and everything when there is no condition', () => {
    const rows = [bid(1, 1, 1), bid(2, 2, 2)];
    const output = new ChangeBatch();
    compiler.calc(call('=', auction, lit.int(2)), null)(ChangeBatch.of(rows.map((r) => [RowKind.INSERT, r])), output);
    expect(output.rows[0]).toBe(rows[1]);
    const all = new ChangeBatch();
    compiler.calc(null, null)(ChangeBatch.of(rows.map((r) => [RowKind.DELETE, r])), all);
    expect(all.rows).toEqual(rows);
    expect(all.kinds).toEqual([RowKind.DELETE, RowKind.DELETE]);
  });

  it('stops at a run-time error with its message', () => {
    const run = compiler.calc(null, [call('/', price, ref(1, T.bigint(false)))]);
    expect(() => run(ChangeBatch.of([[RowKind.INSERT, [1, 0, 7]]]), new ChangeBatch())).toThrowError(new WeirError('EXECUTION_ERROR', 'division by zero in 7 / 0'));
  });

  it("replaces the output's records, larger or smaller batches than the last", () => {
    const run = compiler.calc(call('>', auction, lit.int(1)), [auction]);
    const output = ChangeBatch.of([[RowKind.DELETE, ['earlier']]]);
    run(ChangeBatch.of([1, 2, 3].map((a) => [RowKind.INSERT, bid(a, 1, 1)])), output);
    expect(output.rows).toEqual([[2], [3]]);
    expect(output.kinds).toEqual([RowKind.INSERT, RowKind.INSERT]);
    run(ChangeBatch.of([[RowKind.UPDATE_AFTER, bid(5, 1, 1)]]), output);
    expect(output.rows).toEqual([[5]]);
    expect(output.kinds).toEqual([RowKind.UPDATE_AFTER]);
    run(ChangeBatch.of([[RowKind.INSERT, bid(1, 1, 1)]]), output);
    expect(output.size).toBe(0);
  });

  it('fused with a watermark, returns its maximum over every record, dropped ones included, in one pass', () => {
    const watermark = call('-', dateTime, lit.of(4000, T.intervalDayTime(false)));
    const run = compiler.calcMaxOf(q14Condition(), [auction, dateTime], watermark);
    const input = ChangeBatch.of([
      [RowKind.INSERT, bid(1, 2_000_000, 9)],
      [RowKind.INSERT, bid(2, 10, 11)],
      [RowKind.INSERT, bid(3, 3_000_000, 10)],
    ]);
    const output = new ChangeBatch();
    expect(run(input, output)).toBe(Date.UTC(2020, 0, 1, 11) - 4000);
    expect(output.rows).toEqual([
      [1, Date.UTC(2020, 0, 1, 9)],
      [3, Date.UTC(2020, 0, 1, 10)],
    ]);
    expect(run(new ChangeBatch(), output)).toBe(-Infinity);
    const { source } = compiler.calcSource(q14Condition(), [auction, dateTime], watermark);
    expect(source.match(/row\[5\]/g)).toHaveLength(1);
  });

  it('drops everything for a constant FALSE or NULL condition', () => {
    const output = new ChangeBatch();
    compiler.calc(Exprs.literal(null, T.boolean()), null)(ChangeBatch.of([[RowKind.INSERT, [1]]]), output);
    expect(output.size).toBe(0);
  });
});

describe('scalar, predicate, projection', () => {
  it('makes a fresh row per call', () => {
    const project = compiler.projection([auction, call('UPPER', channel)]);
    const first = project(bid(1, 1, 1));
    const second = project(bid(1, 1, 1));
    expect(first).toEqual([1, 'GOOGLE']);
    expect(first).not.toBe(second);
  });

  it('reads nested fields and NULL rows', () => {
    const rowType = T.row([{ name: 'id', type: T.int() }, { name: 'name', type: T.string() }]);
    const name = Exprs.field(ref(0, rowType), 1, T.string());
    expect(evaluate(call('UPPER', name), [[1, 'ann']])).toBe('ANN');
    expect(evaluate(call('UPPER', name), [null])).toBe(null);
  });

  it('compiles join conditions over two rows without concatenating them', () => {
    const condition = call('AND', call('=', ref(0, T.bigint(false)), ref(3, T.bigint(false))), call('>', ref(1, T.int(false)), ref(2, T.int(false))));
    const join = compiler.joinPredicate(condition, 2);
    expect(join([1, 5], [3, 1])).toBe(true);
    expect(join([1, 2], [3, 1])).toBe(false);
    expect(compiler.joinProjection([ref(3, T.int()), ref(0, T.int())], 2)([1, 2], [3, 4])).toEqual([4, 1]);
  });

  it('reports unknown functions and type errors when compiling', () => {
    expect(() => compiler.scalar(Exprs.call('NO_SUCH', [], T.int()))).toThrowError(new WeirError('UNKNOWN_FUNCTION', "function 'NO_SUCH' does not exist"));
    expect(() => compiler.scalar(Exprs.call('COUNT', [], T.bigint()))).toThrow('aggregate function COUNT cannot be used as a scalar expression');
    expect(() => compiler.scalar(Exprs.call('UPPER', [lit.int(1)], T.string()))).toThrow('Invalid function call:\nUPPER(INT NOT NULL)\nInvalid input arguments. Expected signatures are:\nUPPER(STRING)');
  });

  it('inserts the casts a signature asks for when the call was built without them', () => {
    const expr = Exprs.call('+', [lit.int(1), lit.dec('0.5')], T.decimal(12, 1));
    expect(evaluate(expr)).toBe(15n);
    const widened = Exprs.call('+', [lit.int(1), lit.int(2)], T.bigint(false));
    expect(evaluate(widened)).toBe(3);
    const asDouble = Exprs.call('+', [lit.int(1), lit.int(2)], T.double(false));
    expect(evaluate(asDouble)).toBe(3);
  });

  it('renders readable source', () => {
    const { source } = compiler.predicateSource(call('LIKE', ref(0, T.string()), lit.str('a_%')));
    expect(source).toBe(
      [
        '"use strict";',
        'const k0_like = $constants[0]; // /^a.[\\s\\S]*$/',
        'return function predicate(row) {',
        '  const c0 = row[0];',
        '  const t0 = c0 === null ? null : k0_like.test(c0);',
        '  return t0 === true;',
        '};',
      ].join('\n'),
    );
  });
});
