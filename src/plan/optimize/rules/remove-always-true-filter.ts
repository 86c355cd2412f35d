/** Drops `WHERE TRUE` (and filters the binder made constant true), keeping the filter's schema. */
import type { LogicalNode } from '../../logical/logical-node.js';
import type { RewriteRule } from '../optimizer.js';

/** The rule `remove-always-true-filter`. */
export const removeAlwaysTrueFilter: RewriteRule = {
  name: 'remove-always-true-filter',
  rewrite(node: LogicalNode): LogicalNode {
    if (node.kind !== 'filter') return node;
    const { condition } = node;
    return condition.kind === 'literal' && condition.value === true ? node.input : node;
  },
};
