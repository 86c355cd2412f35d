/**
 * Upsert keys through the Expand of grouping sets and through a Correlate: an Expand keeps an
 * input key that every projection copies, extended by its `$e` column (each input row gives one
 * row per projection, told apart by `$e`); a key column NULLed by some projection keys nothing; a
 * Correlate offers none (one input row gives several rows, and an update may give fewer).
 */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../src/common/schema.js';
import { SqlTypes } from '../../src/common/sql-type.js';
import { Exprs } from '../../src/expr/scalar-expr.js';
import { ALL_KINDS } from '../../src/plan/changelog/changelog-mode.js';
import { upsertKeys } from '../../src/plan/changelog/upsert-keys.js';
import type { PhysicalNode } from '../../src/plan/physical/physical-node.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.int(false) },
  { name: 'a', type: SqlTypes.string() },
  { name: 'tags', type: SqlTypes.array(SqlTypes.string()) },
];

const source: PhysicalNode = {
  kind: 'source',
  source: { qualifiedName: 'default_catalog.default_database.t', name: 't', connector: 'datagen', options: {}, changelog: 'all', bounded: true, replayable: true, primaryKey: ['id'] },
  tableSchema: schema,
  schema,
  mode: ALL_KINDS,
};

const id = Exprs.inputRef(0, SqlTypes.int(false));
const a = Exprs.inputRef(1, SqlTypes.string());
const nullA = Exprs.literal(null, SqlTypes.string());
const set = (n: number) => Exprs.literal(n, SqlTypes.int(false));
const expandSchema: Schema = [
  { name: 'a', type: SqlTypes.string() },
  { name: 'id', type: SqlTypes.int(false) },
  { name: '$e', type: SqlTypes.int(false) },
];

describe('upsert keys through Expand and Correlate', () => {
  it('an Expand keeps a key every projection copies, with $e', () => {
    const expand: PhysicalNode = { kind: 'expand', input: source, projects: [[a, id, set(0)], [nullA, id, set(1)]], idIndex: 2, schema: expandSchema, mode: ALL_KINDS };
    expect(upsertKeys(expand)).toEqual([[1, 2]]);
  });

  it('an Expand NULLing a key column keeps no key', () => {
    const nulled: PhysicalNode = {
      kind: 'expand',
      input: source,
      projects: [[a, id, set(0)], [a, Exprs.literal(null, SqlTypes.int()), set(1)]],
      idIndex: 2,
      schema: expandSchema,
      mode: ALL_KINDS,
    };
    expect(upsertKeys(nulled)).toEqual([]);
  });

  it('a Correlate offers none', () => {
    const correlate: PhysicalNode = {
      kind: 'correlate',
      input: source,
      fn: { kind: 'unnest', expr: Exprs.inputRef(2, schema[2]!.type), source: 'array', withOrdinality: true },
      joinType: 'INNER',
      condition: null,
      schema: [...schema, { name: 'tag', type: SqlTypes.string() }, { name: 'n', type: SqlTypes.int(false) }],
      mode: ALL_KINDS,
    };
    expect(upsertKeys(source)).toEqual([[0]]);
    expect(upsertKeys(correlate)).toEqual([]);
  });
});
