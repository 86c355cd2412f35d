/**
 * Merging accumulators (for windows): for every aggregate family, with FILTER, DISTINCT
 * and NULL arguments, accumulating rows in parts and merging the parts gives the results of
 * accumulating all rows into one accumulator; an empty part merges as nothing. The statistics of
 * DOUBLE values merge Welford states by Chan's formula, as Flink's WELFORD_M2 does, which agrees
 * with accumulating every row to rounding: doubles are compared to 12 significant digits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { generateMergingAggregate } from '../../../src/runtime/aggregates/merging-aggregate-codegen.js';
import { aggCall } from './aggregate-call.js';

const int = SqlTypes.int();
const double = SqlTypes.double();
const decimal = SqlTypes.decimal(10, 2);
const string = SqlTypes.string();

/** Rows are [INT, DOUBLE, DECIMAL(10, 2), STRING, BOOLEAN filter, DOUBLE percentage (constant)]. */
const CALLS = [
  aggCall('COUNT', []),
  aggCall('COUNT', [[0, int]]),
  aggCall('SUM', [[0, int]]),
  aggCall('AVG', [[0, int]]),
  aggCall('MIN', [[0, int]]),
  aggCall('MAX', [[3, string]]),
  aggCall('MIN', [[1, double]]),
  aggCall('AVG', [[1, double]]),
  aggCall('SUM', [[2, decimal]]),
  aggCall('AVG', [[2, decimal]]),
  aggCall('COUNT', [[3, string]], { distinct: true, filter: 4 }),
  aggCall('SUM', [[0, int]], { distinct: true }),
  aggCall('MAX', [[0, int]], { filter: 4 }),
  aggCall('COLLECT', [[3, string]]),
  aggCall('VAR_POP', [[1, double]]),
  aggCall('STDDEV_SAMP', [[0, int]]),
  aggCall('VAR_SAMP', [[2, decimal]], { filter: 4 }),
  aggCall('COLLECT', [[0, int]], { distinct: true }),
  aggCall('PERCENTILE', [[1, double], [5, double]]),
  aggCall('PERCENTILE', [[2, decimal], [5, double], [0, int]], { filter: 4 }),
];

/** Aggregates whose result depends on the order of the rows: merged from consecutive runs of rows. */
const ORDERED_CALLS = [
  aggCall('FIRST_VALUE', [[0, int]]),
  aggCall('LAST_VALUE', [[3, string]]),
  aggCall('LISTAGG', [[3, string]]),
  aggCall('LISTAGG', [[3, string]], { distinct: true, filter: 4 }),
  aggCall('ARRAY_AGG', [[1, double]]),
  aggCall('ARRAY_AGG_IGNORE_NULLS', [[0, int]]),
  aggCall('JSON_ARRAYAGG_NULL_ON_NULL', [[2, decimal]]),
  aggCall('JSON_ARRAYAGG_ABSENT_ON_NULL', [[3, string]], { distinct: true }),
];

const BASE = 3;

const row = fc.tuple(
  fc.option(fc.integer({ min: -50, max: 50 })),
  fc.option(fc.integer({ min: -20, max: 20 }).map((n) => n / 2)),
  fc.option(fc.bigInt({ min: -10_000n, max: 10_000n })),
  fc.option(fc.constantFrom('a', 'b', 'c', 'B')),
  fc.boolean(),
  fc.constant(0.4),
);

/** A double to 12 significant digits; anything else as it is. */
const toTwelveDigits = (value: unknown): unknown => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value);

describe('merging aggregate codegen', () => {
  it('merging the accumulators of parts equals accumulating every row into one', () => {
    const program = generateMergingAggregate(CALLS, BASE);
    const fresh = (): unknown[] => [...new Array<null>(BASE).fill(null), 0, ...new Array<null>(program.slots - 1).fill(null)];
    fc.assert(
      fc.property(fc.array(fc.tuple(row, fc.integer({ min: 0, max: 2 })), { maxLength: 40 }), (rows) => {
        const whole = fresh();
        const parts = [fresh(), fresh(), fresh()];
        for (const [r, part] of rows) {
          program.accumulate(whole, r as Row);
          program.accumulate(parts[part]!, r as Row);
        }
        const [into, ...others] = parts;
        for (const other of others) program.merge(into!, other);
        if (rows.length > 0) expect(program.results(into!).map(toTwelveDigits)).toEqual(program.results(whole).map(toTwelveDigits));
        expect(into![BASE]).toBe(rows.length);
      }),
    );
  });

  it('merging the accumulators of consecutive runs of rows equals accumulating every row into one, for order-dependent aggregates', () => {
    const program = generateMergingAggregate(ORDERED_CALLS, BASE);
    const fresh = (): unknown[] => [...new Array<null>(BASE).fill(null), 0, ...new Array<null>(program.slots - 1).fill(null)];
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), fc.nat(40), fc.nat(40), (rows, a, b) => {
        const cuts = [Math.min(a, b) % (rows.length + 1), Math.max(a, b) % (rows.length + 1)].sort((x, y) => x - y);
        const whole = fresh();
        const parts = [fresh(), fresh(), fresh()];
        rows.forEach((r, i) => {
          program.accumulate(whole, r as Row);
          program.accumulate(parts[i < cuts[0]! ? 0 : i < cuts[1]! ? 1 : 2]!, r as Row);
        });
        const [into, ...others] = parts;
        for (const other of others) program.merge(into!, other);
        if (rows.length > 0) expect(program.results(into!)).toEqual(program.results(whole));
      }),
    );
  });

  it('builds an output row of the leading columns then the results', () => {
    const program = generateMergingAggregate(CALLS, BASE, [2, 'window_end', 0, 'window_start']);
    const record: unknown[] = ['k0', 'k1', 'k2', 0, ...new Array<null>(program.slots - 1).fill(null)];
    for (const r of [[4, 1.5, 250n, 'b', true], [null, 0.5, null, 'a', false]]) program.accumulate(record, r as Row);
    expect(program.row(record, record, 1000, 2000)).toEqual(['k2', 2000, 'k0', 1000, ...program.results(record)]);
    expect(program.row(['a', 'b', 'c'], record, 0, 1)).toEqual(['c', 1, 'a', 0, ...program.results(record)]);
  });
});
