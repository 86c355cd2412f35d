/**
 * Where a column lost its time attribute: a regular join's output has none (Flink's
 * RelTimeIndicatorConverter materializes them, see logical-node.ts, materializedSchema), so a
 * rowtime column read through one is a plain TIMESTAMP. Traced down through projections (of the
 * column itself) and filters, for an error message that names the join (or the join with a
 * subquery, whose input the binder materializes by a projection).
 */
import type { LogicalNode } from './logical-node.js';
import { lostTimeAttribute } from '../../common/sql-type.js';

/**
 * The join that turned column `column` of `node` from a time attribute into a plain TIMESTAMP,
 * described as `the regular join of ev and dim` (a side that is not one table is `a subquery`);
 * undefined when the column did not come from a time attribute through a join.
 */
export function materializingJoin(node: LogicalNode, column: number): string | undefined {
  switch (node.kind) {
    case 'project': {
      const expr = node.exprs[column];
      if (expr?.kind !== 'input-ref') return undefined;
      // The binder materializes what a subquery (of the WHERE or SELECT list, or LATERAL) is joined with by such a projection.
      const lost = lostTimeAttribute(node.input.schema[expr.index]!.type, node.schema[column]!.type);
      return lost ? `the join of ${relationName(node.input)} with a subquery` : materializingJoin(node.input, expr.index);
    }
    case 'filter':
    case 'watermark-assigner':
    case 'dynamic-filter':
      return materializingJoin(node.input, column);
    case 'join': {
      const width = node.left.schema.length;
      const [side, index] = column < width ? [node.left, column] : [node.right, column - width];
      const lost = lostTimeAttribute(side.schema[index]!.type, node.schema[column]!.type);
      if (!lost) return materializingJoin(side, index);
      const kind = node.joinType === 'INNER' ? 'regular join' : `${node.joinType} OUTER join`;
      return `the ${kind} of ${relationName(node.left)} and ${relationName(node.right)}`;
    }
    case 'semi-join':
    case 'apply': {
      const input = node.kind === 'apply' ? node.input : node.left;
      if (column >= input.schema.length) return undefined;
      const lost = lostTimeAttribute(input.schema[column]!.type, node.schema[column]!.type);
      return lost ? `the join of ${relationName(input)} with a subquery` : materializingJoin(input, column);
    }
    case 'scan':
    case 'values':
    case 'aggregate':
    case 'union':
    case 'window-tvf':
    case 'rank':
    case 'over-aggregate':
    case 'over-window':
    case 'sink':
    case 'lookup-join':
    case 'temporal-join':
    case 'set-operation':
    case 'expand':
    case 'correlate':
      return undefined;
    default: {
      const unreachable: never = node;
      return unreachable;
    }
  }
}

/** `node` named for a message: its table when it reads one table through projections and filters, else `a subquery`. */
function relationName(node: LogicalNode): string {
  if (node.kind === 'scan') return node.source.name;
  if (node.kind === 'project' || node.kind === 'filter' || node.kind === 'watermark-assigner') return relationName(node.input);
  return 'a subquery';
}
