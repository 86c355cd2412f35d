/**
 * Unique keys of a logical plan's output: columns whose values identify at most one row of the
 * dynamic table the plan describes. A GROUP BY's keys are unique; projections and filters keep a
 * key when they keep its columns; a table's primary key is unique. Used to key an upsert sink
 * (a materialized view's primary key).
 */
import type { LogicalJoin, LogicalNode } from './logical-node.js';

/** Output column indexes forming a unique key, or undefined when none is known. */
export function uniqueKey(node: LogicalNode): readonly number[] | undefined {
  switch (node.kind) {
    case 'aggregate':
      return node.keys.length === 0 ? undefined : node.keys.map((_, i) => i);
    case 'scan': {
      if (node.source.primaryKey.length === 0) return undefined;
      const indexes = node.source.primaryKey.map((name) => node.schema.findIndex((f) => f.name === name));
      return indexes.every((i) => i >= 0) ? indexes : undefined;
    }
    case 'filter':
    case 'watermark-assigner':
    case 'over-aggregate':
    case 'over-window':
    case 'dynamic-filter':
      return uniqueKey(node.input);
    case 'semi-join':
      // The left rows, each at most as often as it is there.
      return uniqueKey(node.left);
    case 'apply':
      // Semi/anti applies keep rows of the input; a scalar one adds one value to each.
      return uniqueKey(node.input);
    case 'project': {
      const inputKey = uniqueKey(node.input);
      if (inputKey === undefined) return undefined;
      const mapped = inputKey.map((column) => node.exprs.findIndex((e) => e.kind === 'input-ref' && e.index === column));
      return mapped.every((i) => i >= 0) ? mapped : undefined;
    }
    case 'join':
      return joinUniqueKey(node);
    case 'set-operation':
      // INTERSECT and EXCEPT emit each distinct row at most once; their ALL forms keep duplicates.
      return node.all ? undefined : node.schema.map((_, i) => i);
    case 'values':
    case 'union':
    case 'window-tvf':
    case 'lookup-join':
    case 'temporal-join':
    case 'rank':
    case 'sink':
    case 'expand':
    case 'correlate':
      return undefined;
    default: {
      const unknown: never = node;
      throw new Error(`unknown logical node ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * A join keeps an input's unique key when that input is never NULL-padded and the other input's
 * unique key lies within its join keys (each row then matches at most one row of the other input:
 * an enrichment join). An inner join of two keyed inputs is keyed by both keys together. Keys with
 * NULL-padded columns are not offered, since a primary key cannot hold NULLs.
 */
function joinUniqueKey(join: LogicalJoin): readonly number[] | undefined {
  const left = uniqueKey(join.left);
  const right = uniqueKey(join.right);
  const width = join.left.schema.length;
  const shiftedRight = right?.map((i) => width + i);
  const within = (key: readonly number[] | undefined, joinKeys: readonly number[]): boolean => key !== undefined && key.every((k) => joinKeys.includes(k));
  if ((join.joinType === 'INNER' || join.joinType === 'LEFT') && left !== undefined && within(right, join.rightKeys)) return left;
  if ((join.joinType === 'INNER' || join.joinType === 'RIGHT') && shiftedRight !== undefined && within(left, join.leftKeys)) return shiftedRight;
  if (join.joinType === 'INNER' && left !== undefined && shiftedRight !== undefined) return [...left, ...shiftedRight];
  return undefined;
}
