/** The changelog mode of an OVER aggregate, and the check that its ORDER BY suits its input. */
import { WeirError } from '../../common/errors.js';
import { formatType, timeAttributeOf } from '../../common/sql-type.js';
import type { PhysicalNode } from '../physical/physical-node.js';
import { ALL_KINDS, INSERT_ONLY, isUpdating, type ChangelogMode } from './changelog-mode.js';

/**
 * Over an insert-only input, as in Flink, the ORDER BY column must be a time attribute, and the
 * output is insert-only (each row emitted once, when its frame is final). Over an updating input
 * (weir's extension) the output is the updating table of every row's current aggregates.
 */
export function overAggregateMode(node: Extract<PhysicalNode, { kind: 'over-aggregate' }>, input: ChangelogMode): ChangelogMode {
  if (isUpdating(input)) return ALL_KINDS;
  const time = node.input.schema[node.timeIndex]!;
  if (timeAttributeOf(time.type) === undefined) {
    throw new WeirError('PLANNING_ERROR', `OVER windows over an insert-only input must be ordered by a time attribute, but '${time.name}' is a plain ${formatType(time.type)}`, {
      hint: 'order by a rowtime column (one with a WATERMARK) or a PROCTIME() column',
    });
  }
  return INSERT_ONLY;
}
