/**
 * The group aggregate over 64-bit BIGINT keys and values (property): random changelogs of inserts
 * and deletes, in random batches, with a snapshot and restore of the keyed state in the middle,
 * leave the same table as a batch recomputation by a BigInt model of Java's long arithmetic
 * (COUNT, SUM and AVG wrapping at 2^63, MIN and MAX exact) over the rows that survive.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, normalizeInt64 } from '../../../src/common/int64.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes as T } from '../../../src/common/sql-type.js';
import { GroupAggregateOperator } from '../../../src/runtime/operators/group-aggregate-operator.js';
import { aggCall, groupSpec } from '../aggregates/aggregate-call.js';
import { materialize, OperatorHarness, type Change } from '../operator-harness.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const KEYS = [INT64_MAX, INT64_MIN, SAFE, SAFE + 1n, -SAFE - 1n, 8821808526777993777n, 0n, 3n];
const value = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.constantFrom(INT64_MAX, INT64_MIN, SAFE, SAFE + 1n, -SAFE - 1n),
  fc.bigInt({ min: -100n, max: 100n }),
);

const spec = groupSpec([0], [aggCall('COUNT', []), aggCall('SUM', [[1, T.bigint()]]), aggCall('MIN', [[1, T.bigint()]]), aggCall('MAX', [[1, T.bigint()]]), aggCall('AVG', [[1, T.bigint()]])]);

/** The batch answer: per key, COUNT, SUM (wrapped), MIN, MAX and AVG (wrapped sum / count, truncated) in the normalized form. */
function model(rows: readonly (readonly [bigint, bigint])[]): Row[] {
  const groups = new Map<bigint, bigint[]>();
  for (const [k, v] of rows) groups.set(k, [...(groups.get(k) ?? []), v]);
  const result: Change[] = [...groups].map(([k, vs]) => {
    const sum = BigInt.asIntN(64, vs.reduce((a, b) => a + b, 0n));
    const min = vs.reduce((a, b) => (b < a ? b : a));
    const max = vs.reduce((a, b) => (b > a ? b : a));
    return ['+I', [normalizeInt64(k), vs.length, normalizeInt64(sum), normalizeInt64(min), normalizeInt64(max), normalizeInt64(sum / BigInt(vs.length))]];
  });
  return materialize(result);
}

describe('group aggregate over 64-bit BIGINTs (property)', () => {
  it('equals a BigInt model of Java long arithmetic under inserts, deletes and a state restore', async () => {
    const step = fc.record({ insert: fc.boolean(), key: fc.integer({ min: 0, max: KEYS.length - 1 }), value, pick: fc.nat(), batchEnd: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 120 }), fc.nat(), async (steps, restoreAt) => {
        const live: [bigint, bigint][] = [];
        let harness = await OperatorHarness.open(new GroupAggregateOperator(spec));
        const emitted: Change[] = [];
        let batch: Change[] = [];
        const flush = (): void => {
          if (batch.length > 0) emitted.push(...harness.push(batch));
          batch = [];
        };
        for (let i = 0; i < steps.length; i++) {
          const { insert, key, value: v, pick, batchEnd } = steps[i]!;
          if (insert || live.length === 0) {
            const row: [bigint, bigint] = [KEYS[key]!, v];
            live.push(row);
            batch.push(['+I', [normalizeInt64(row[0]), normalizeInt64(row[1])]]);
          } else {
            const [row] = live.splice(pick % live.length, 1);
            batch.push(['-D', [normalizeInt64(row![0]), normalizeInt64(row![1])]]);
          }
          if (batchEnd) flush();
          if (i === restoreAt % steps.length) {
            flush();
            const snapshot = harness.state.snapshot();
            harness = await OperatorHarness.open(new GroupAggregateOperator(spec), snapshot === undefined ? {} : { restore: { snapshot } });
          }
        }
        flush();
        expect(materialize(emitted)).toEqual(model(live));
      }),
      { numRuns: 150 },
    );
  });
});
