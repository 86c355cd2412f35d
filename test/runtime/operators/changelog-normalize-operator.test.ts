/**
 * ChangelogNormalize turns an upsert changelog (new rows of a key, deletes that may carry only the
 * key, values the source marks unchanged) into a full changelog of whole rows. Property: for random
 * upsert changelogs cut into random batches, the output is a valid retract changelog (every -U/-D
 * retracts the row the key shows) and, applied, equals a plain model of the last row per key after
 * every batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeComponent } from '../../../src/common/key-codec.js';
import type { Row } from '../../../src/common/row.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { UNCHANGED_VALUE } from '../../../src/common/unchanged-value.js';
import { ChangelogNormalizeOperator } from '../../../src/runtime/operators/changelog-normalize-operator.js';
import { OperatorHarness, type Change } from '../operator-harness.js';

/** Rows are [key, a, b]; the key is column 0. */
const schema = [
  { name: 'k', type: SqlTypes.int(false) },
  { name: 'a', type: SqlTypes.varchar(10) },
  { name: 'b', type: SqlTypes.varchar(10) },
];

const open = (emitUpdateBefore = true): Promise<OperatorHarness> =>
  OperatorHarness.open(new ChangelogNormalizeOperator({ kind: 'changelog-normalize', keys: [0], emitUpdateBefore }, schema));

/** Applies a retract changelog to a table by key, failing on a retraction of a row the table does not show. */
function applyRetract(changes: readonly Change[]): Map<string, Row> {
  const table = new Map<string, Row>();
  for (const [kind, row] of changes) {
    const key = encodeComponent(row[0]);
    if (kind === '+I' || kind === '+U') {
      if (kind === '+I' && table.has(key)) throw new Error(`+I of a key the table has: ${JSON.stringify(row)}`);
      table.set(key, row);
    } else {
      expect(table.get(key), `${kind} must retract the row the table shows`).toEqual(row);
      table.delete(key);
    }
  }
  return table;
}

describe('changelog normalize', () => {
  it('makes upserts and key-only deletes a full changelog, dropping no-op updates and deletes of unknown keys', async () => {
    const h = await open();
    expect(h.push([['+I', [1, 'a', 'x']]])).toEqual([['+I', [1, 'a', 'x']]]);
    expect(h.push([['+U', [1, 'b', 'x']]])).toEqual([
      ['-U', [1, 'a', 'x']],
      ['+U', [1, 'b', 'x']],
    ]);
    expect(h.push([['+U', [1, 'b', 'x']]])).toEqual([]);
    expect(h.push([['-D', [1, null, null]]])).toEqual([['-D', [1, 'b', 'x']]]);
    expect(h.push([['-D', [1, null, null]]])).toEqual([]);
    expect(h.warnings.join('\n')).toMatch(/a delete of a key that has no row/);
    // An upsert of a key not seen before is an insert.
    expect(h.push([['+U', [2, 'c', 'y']]])).toEqual([['+I', [2, 'c', 'y']]]);
  });

  it('fills values marked unchanged from the last row, and fails naming the column when there is none', async () => {
    const h = await open(false);
    h.push([['+I', [1, 'a', 'long text']]]);
    expect(h.push([['+U', [1, 'b', UNCHANGED_VALUE]]])).toEqual([['+U', [1, 'b', 'long text']]]);
    expect(() => h.push([['+U', [7, 'c', UNCHANGED_VALUE]]])).toThrow(/an update of key \(k=7\) left column 'b' unchanged, but the key's last row is not in state/);
  });

  it('equals the last row per key of any upsert changelog (property)', async () => {
    const change = fc.record({
      key: fc.integer({ min: 0, max: 4 }),
      op: fc.constantFrom('insert', 'update', 'update-unchanged-b', 'delete'),
      a: fc.constantFrom('p', 'q', null),
      b: fc.constantFrom('x', 'y'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(change, { minLength: 1, maxLength: 6 }), { maxLength: 25 }), fc.boolean(), async (batches, emitUpdateBefore) => {
        const h = await open(emitUpdateBefore);
        const model = new Map<string, Row>();
        const output: Change[] = [];
        for (const batch of batches) {
          const input: Change[] = [];
          for (const { key, op, a, b } of batch) {
            const id = encodeComponent(key);
            const last = model.get(id);
            if (op === 'delete') {
              input.push(['-D', [key, null, null]]);
              model.delete(id);
            } else if (op === 'update-unchanged-b') {
              // The source marks b unchanged only for a key whose row exists.
              if (last === undefined) continue;
              input.push(['+U', [key, a, UNCHANGED_VALUE]]);
              model.set(id, [key, a, last[2]]);
            } else {
              input.push([op === 'insert' ? '+I' : '+U', [key, a, b]]);
              model.set(id, [key, a, b]);
            }
          }
          const out = h.push(input);
          if (!emitUpdateBefore) expect(out.some(([kind]) => kind === '-U')).toBe(false);
          for (const c of out) {
            // Without update-before rows, a consumer retracts the key's current row itself.
            if (!emitUpdateBefore && c[0] === '+U') output.push(['-U', currentRow(output, c[1])]);
            output.push(c);
          }
          expect(applyRetract(output)).toEqual(model);
        }
      }),
      { numRuns: 200 },
    );
  });
});

/** The row key `row[0]` shows after `changes` (to add the -U a consumer without update-before rows infers). */
function currentRow(changes: readonly Change[], row: Row): Row {
  const table = new Map<unknown, Row>();
  for (const [kind, r] of changes) {
    if (kind === '+I' || kind === '+U') table.set(r[0], r);
    else table.delete(r[0]);
  }
  return table.get(row[0])!;
}
