/**
 * Upsert keys of the physical plan, as Flink's upsert-key metadata (FlinkRelMdUpsertKeys): sets
 * of output columns that are unique among a node's current rows **and** contain the columns its
 * rows were distributed by, so that every change of one key's row travels one path, in order. A
 * sink may drop update-before rows (upsert by key) only when its primary key is one of its
 * input's upsert keys; a materialized view is keyed by one.
 *
 * A key is a sorted array of column indexes; the empty key (a global aggregate's) says the node
 * has at most one row. Keys are derived bottom-up: a table's primary key, a GROUP BY's grouping
 * columns, kept through projections (a column projected under several names gives each
 * alternative), filters, and exchanges (which add their distribution columns to each key), joins (a side
 * whose join keys contain one of its keys matches at most one row per row of the other side, which
 * then keeps its keys; both sides' keys together are a key of the result), ranks and OVER
 * aggregates. Unions, VALUES and lookup joins offer none.
 */
import type { SqlType } from '../../common/sql-type.js';
import type { PhysicalNode } from '../physical/physical-node.js';

/** One upsert key: sorted output column indexes. */
export type UpsertKey = readonly number[];

/** At most this many keys are kept per node (projections and joins multiply alternatives). */
const MAX_KEYS = 32;

const memo = new WeakMap<PhysicalNode, readonly UpsertKey[]>();

/** The upsert keys of a node's output; empty when none is known. */
export function upsertKeys(node: PhysicalNode): readonly UpsertKey[] {
  const known = memo.get(node);
  if (known !== undefined) return known;
  const keys = normalize(derive(node));
  memo.set(node, keys);
  return keys;
}

/** True when `keys` contains a key with exactly the columns `columns`. */
export function hasKeyEqualTo(keys: readonly UpsertKey[], columns: readonly number[]): boolean {
  const wanted = sortedUnique(columns);
  return keys.some((key) => key.length === wanted.length && key.every((c, i) => c === wanted[i]));
}

/** The keys whose columns all lie within `columns` (each row with such columns is then unique). */
export function keysWithin(keys: readonly UpsertKey[], columns: readonly number[]): UpsertKey[] {
  const set = new Set(columns);
  return keys.filter((key) => key.every((c) => set.has(c)));
}

function derive(node: PhysicalNode): UpsertKey[] {
  switch (node.kind) {
    case 'source': {
      const primaryKey = node.source.primaryKey;
      if (primaryKey.length === 0) return [];
      const indexes = primaryKey.map((name) => node.tableSchema.findIndex((f) => f.name === name));
      return indexes.every((i) => i >= 0) ? [indexes] : [];
    }
    case 'values':
    case 'union':
    case 'lookup-join':
    case 'sink':
    // A row of a correlate is one of several of its input row, none identified by the input's key
    // (an updated row may give fewer rows, which an upsert of the new ones would not remove).
    case 'correlate':
      return [];
    case 'calc':
      return node.projection === null ? [...upsertKeys(node.input)] : projectKeys(upsertKeys(node.input), node.projection);
    case 'watermark-assigner':
      return [...upsertKeys(node.input)];
    case 'expand':
      return expandKeys(node);
    case 'exchange':
      return node.keys === null ? [...upsertKeys(node.input)] : distributed(upsertKeys(node.input), node.keys);
    case 'group-aggregate':
    case 'window-aggregate':
      return [node.keys.map((_, i) => i)];
    case 'changelog-normalize':
      return [[...node.keys]];
    case 'join':
    case 'interval-join':
      return joinKeys(node);
    case 'semi-join':
      // The left rows, each at most once per copy of itself: the left side's keys.
      return [...upsertKeys(node.left)];
    case 'temporal-join':
      // Each left row joins at most one version of the right side's key.
      return [...upsertKeys(node.left)];
    case 'rank': {
      const input = distributed(upsertKeys(node.input), node.partitionKeys);
      if (node.rankType !== 'ROW_NUMBER') return input;
      // ROW_NUMBER numbers a partition's rows apart: the number is unique in its partition, and a
      // range of one number (deduplication, `rn = 1`) keeps one row per partition.
      const keys = [...input];
      if (node.outputNumber) keys.push([...node.partitionKeys, node.schema.length - 1]);
      if (node.range.start === node.range.end) keys.push([...node.partitionKeys]);
      return keys;
    }
    case 'over-aggregate':
      return distributed(upsertKeys(node.input), node.partitionKeys);
    case 'over-window':
      // Not (partition, ROW_NUMBER): a -U/+U pair of one row may carry different numbers.
      return distributed(upsertKeys(node.input), node.partitionKeys);
    case 'window-table': {
      const windowStart = node.input.schema.length;
      return upsertKeys(node.input).map((key) => [...key, windowStart]);
    }
    case 'window-rank':
      return [[...node.partitionKeys, node.schema.length - 1]];
    case 'dynamic-filter':
      // A filter of its input: a row passes or not as the bound moves, keeping its key.
      return [...upsertKeys(node.input)];
    case 'set-operation':
      // INTERSECT and EXCEPT (not ALL) hold each row once, distributed by all its columns.
      return node.all ? [] : [node.schema.map((_, i) => i)];
    case 'window-join': {
      const width = node.left.schema.length;
      const left = upsertKeys(node.left);
      const right = upsertKeys(node.right);
      return left.flatMap((l) => right.map((r) => [...l, ...r.map((c) => c + width)]));
    }
  }
}

/** Keys of a regular or interval join, as Flink's getJoinUniqueKeys over keys that contain the join keys. */
function joinKeys(node: Extract<PhysicalNode, { kind: 'join' | 'interval-join' }>): UpsertKey[] {
  const width = node.left.schema.length;
  const leftAll = upsertKeys(node.left);
  const rightAll = upsertKeys(node.right);
  const left = distributed(leftAll, node.leftKeys);
  const right = distributed(rightAll, node.rightKeys).map((key) => key.map((c) => c + width));
  // A side is unique per match when its join keys contain one of its keys: every row of the
  // other side then matches at most one of its rows (an empty key: a side of at most one row).
  const leftUnique = keysWithin(leftAll, node.leftKeys).length > 0;
  const rightUnique = keysWithin(rightAll, node.rightKeys).length > 0;
  const nullsOnLeft = node.joinType === 'RIGHT' || node.joinType === 'FULL';
  const nullsOnRight = node.joinType === 'LEFT' || node.joinType === 'FULL';
  const keys: UpsertKey[] = left.flatMap((l) => right.map((r) => [...l, ...r]));
  if (rightUnique && !nullsOnLeft) keys.push(...left);
  if (leftUnique && !nullsOnRight) keys.push(...right);
  if (node.joinType !== 'INNER') return keys;
  // An inner join's equated columns are interchangeable in a key.
  const enriched = [...keys];
  node.leftKeys.forEach((l, i) => {
    const r = node.rightKeys[i]! + width;
    for (const key of keys) {
      if (key.includes(l) && !key.includes(r)) enriched.push(key.map((c) => (c === l ? r : c)));
      if (key.includes(r) && !key.includes(l)) enriched.push(key.map((c) => (c === r ? l : c)));
    }
  });
  return enriched;
}

/**
 * Keys of an Expand, as Flink's: an input key whose columns every projection copies to the same
 * output positions, plus the column telling the projections apart (each input row becomes one row
 * per projection, and those differ in it). A column NULLed by some projection keys nothing.
 */
function expandKeys(node: Extract<PhysicalNode, { kind: 'expand' }>): UpsertKey[] {
  const copied = new Map<number, number>();
  node.schema.forEach((_, position) => {
    const first = node.projects[0]![position]!;
    if (first.kind !== 'input-ref') return;
    if (node.projects.every((p) => p[position]!.kind === 'input-ref' && (p[position] as { index: number }).index === first.index) && !copied.has(first.index)) {
      copied.set(first.index, position);
    }
  });
  return upsertKeys(node.input)
    .filter((key) => key.every((c) => copied.has(c)))
    .map((key) => [...key.map((c) => copied.get(c)!), node.idIndex]);
}

/** Input keys through a projection: each column to every output position that copies it (or casts it without loss). */
function projectKeys(keys: readonly UpsertKey[], projection: PhysicalNodeProjection): UpsertKey[] {
  const positions = new Map<number, number[]>();
  projection.forEach((expr, i) => {
    const source = expr.kind === 'cast' && !expr.try && expr.expr.kind === 'input-ref' && isLosslessCast(expr.expr.type, expr.type) ? expr.expr : expr;
    if (source.kind !== 'input-ref') return;
    const list = positions.get(source.index) ?? [];
    list.push(i);
    positions.set(source.index, list);
  });
  const result: UpsertKey[] = [];
  for (const key of keys) {
    let alternatives: number[][] = [[]];
    for (const column of key) {
      const targets = positions.get(column);
      if (targets === undefined) {
        alternatives = [];
        break;
      }
      alternatives = alternatives.flatMap((prefix) => targets.map((t) => [...prefix, t])).slice(0, MAX_KEYS);
    }
    result.push(...alternatives);
  }
  return result;
}

const INTEGER_WIDTH: Partial<Record<SqlType['kind'], number>> = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 };

/**
 * True when CAST from `from` to `to` maps distinct values to distinct values (so a key stays a key):
 * the same type widened (nullability, length, precision, scale), an integer to a wider integer, a
 * DECIMAL or a DOUBLE that holds all its values, FLOAT to DOUBLE.
 */
export function isLosslessCast(from: SqlType, to: SqlType): boolean {
  const fromDigits = INTEGER_WIDTH[from.kind];
  const toDigits = INTEGER_WIDTH[to.kind];
  if (fromDigits !== undefined && toDigits !== undefined) return toDigits >= fromDigits;
  if (fromDigits !== undefined && to.kind === 'DECIMAL') return to.precision - to.scale >= fromDigits;
  if (fromDigits !== undefined && fromDigits <= 10 && to.kind === 'DOUBLE') return true;
  if (from.kind === 'FLOAT' && to.kind === 'DOUBLE') return true;
  if (from.kind !== to.kind) return false;
  switch (from.kind) {
    case 'DECIMAL':
      return to.kind === 'DECIMAL' && to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
    case 'VARCHAR':
      return to.kind === 'VARCHAR' && to.length >= from.length;
    case 'VARBINARY':
      return to.kind === 'VARBINARY' && to.length >= from.length;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
    case 'TIME':
      return (to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ' || to.kind === 'TIME') && to.precision >= from.precision;
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DATE':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
      return true;
    case 'CHAR':
    case 'BINARY':
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'NULL':
      return false;
  }
}

type PhysicalNodeProjection = NonNullable<Extract<PhysicalNode, { kind: 'calc' }>['projection']>;

/**
 * The keys after rows are distributed by `distribution`: each key with those columns added. A
 * row whose distribution columns change travels two paths, but its old and new versions then
 * differ in the extended key, so every extended key's changes still travel one path in order.
 * (Flink drops the keys that lack the columns instead; extending them keeps what can be kept.)
 */
function distributed(keys: readonly UpsertKey[], distribution: readonly number[]): UpsertKey[] {
  return keys.map((key) => [...key, ...distribution.filter((c) => !key.includes(c))]);
}

/** Sorted, deduplicated keys, without keys that contain another (a superset adds nothing), at most MAX_KEYS. */
function normalize(keys: readonly UpsertKey[]): readonly UpsertKey[] {
  const sorted = keys.map(sortedUnique).sort((a, b) => a.length - b.length || compareKeys(a, b));
  const result: UpsertKey[] = [];
  for (const key of sorted) {
    if (result.some((kept) => kept.every((c) => key.includes(c)))) continue;
    result.push(key);
    if (result.length === MAX_KEYS) break;
  }
  return result;
}

function sortedUnique(columns: readonly number[]): number[] {
  return [...new Set(columns)].sort((a, b) => a - b);
}

function compareKeys(a: UpsertKey, b: UpsertKey): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
