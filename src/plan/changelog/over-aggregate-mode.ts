/** The changelog mode of an OVER aggregate, and the check that its ORDER BY suits its input. */
import { WeirError } from '../../common/errors.js';
import { orderKey } from '../../common/order-key.js';
import type { WindowFrame } from '../../common/window-function.js';
import { formatType, timeAttributeOf } from '../../common/sql-type.js';
import type { WindowCall } from '../logical/logical-node.js';
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
      hint: "order by a rowtime column (one with a WATERMARK) or a PROCTIME() column, or use a ROWS frame (ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), which weir computes over rows in any order",
    });
  }
  return INSERT_ONLY;
}

/**
 * The OVER aggregate as the general OVER operator's node, when it must run there: over an
 * insert-only input ordered by a plain TIMESTAMP (no time attribute, so rows need not arrive in
 * order), and over an updating input when it has LAG calls (the updating OVER aggregate computes
 * aggregates only). Undefined when it runs as it is, or cannot run there (a RANGE frame with an
 * interval: refused by {@link overAggregateMode}, or below).
 */
export function overWindowOf(node: Extract<PhysicalNode, { kind: 'over-aggregate' }>, input: ChangelogMode): Extract<PhysicalNode, { kind: 'over-window' }> | undefined {
  const lags = node.calls.some((c) => 'lag' in c);
  const plainTime = timeAttributeOf(node.input.schema[node.timeIndex]!.type) === undefined;
  if (isUpdating(input) ? !lags : !plainTime) return undefined;
  const { unit, preceding } = node.frame;
  if (unit === 'RANGE' && preceding !== null) {
    if (!isUpdating(input)) return undefined;
    throw new WeirError('UNSUPPORTED', 'LAG over an updating input cannot share a window with a RANGE frame with an interval', {
      hint: 'give the aggregates with the RANGE frame and the LAG calls different windows (LAG ignores the frame): LAG(x) OVER (PARTITION BY k ORDER BY ts)',
    });
  }
  const frame: WindowFrame = { unit, start: preceding === null ? null : -preceding, end: 0 };
  const calls = node.calls.map((c): WindowCall =>
    'lag' in c ? { kind: 'offset', function: 'LAG', arg: c.arg, offset: c.offset, default: c.default, name: c.name, type: c.type } : { kind: 'aggregate', aggregate: c, frame, name: c.name, type: c.type },
  );
  const orderKeys = [orderKey(node.timeIndex, false, node.nullsLast ? false : undefined)];
  return { kind: 'over-window', input: node.input, partitionKeys: node.partitionKeys, orderKeys, calls, schema: node.schema, mode: node.mode };
}
