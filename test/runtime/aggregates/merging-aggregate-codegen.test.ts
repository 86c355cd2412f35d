/**
 * Merging accumulators (for windows): for every aggregate family, with FILTER, DISTINCT
 * and NULL arguments, accumulating rows in parts and merging the parts gives the results of
 * accumulating all rows into one accumulator; an empty part merges as nothing.
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

/** Rows are [INT, DOUBLE, DECIMAL(10, 2), STRING, BOOLEAN filter]. */
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
];

const BASE = 3;

const row = fc.tuple(
  fc.option(fc.integer({ min: -50, max: 50 })),
  fc.option(fc.integer({ min: -20, max: 20 }).map((n) => n / 2)),
  fc.option(fc.bigInt({ min: -10_000n, max: 10_000n })),
  fc.option(fc.constantFrom('a', 'b', 'c', 'B')),
  fc.boolean(),
);

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
        if (rows.length > 0) expect(program.results(into!)).toEqual(program.results(whole));
        expect(into![BASE]).toBe(rows.length);
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
