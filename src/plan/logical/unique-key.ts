/**
 * Unique keys of a logical plan's output: columns whose values identify at most one row of the
 * dynamic table the plan describes. A GROUP BY's keys are unique; projections and filters keep a
 * key when they keep its columns; a table's primary key is unique. Used to key an upsert sink
 * (a materialized view's primary key).
 */
import type { LogicalNode } from './logical-node.js';

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
      return uniqueKey(node.input);
    case 'project': {
      const inputKey = uniqueKey(node.input);
      if (inputKey === undefined) return undefined;
      const mapped = inputKey.map((column) => node.exprs.findIndex((e) => e.kind === 'input-ref' && e.index === column));
      return mapped.every((i) => i >= 0) ? mapped : undefined;
    }
    case 'values':
    case 'union':
    case 'window-tvf':
    case 'join':
    case 'lookup-join':
    case 'temporal-join':
    case 'rank':
    case 'sink':
      return undefined;
  }
}
