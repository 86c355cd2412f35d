/**
 * Recognises an interval join (Flink's IntervalJoinUtil): conjuncts of a join condition that bound
 * a left time attribute relative to a right one, `l.ts >= r.ts - INTERVAL '5' SECOND AND l.ts <
 * r.ts + INTERVAL '1' MINUTE` (BETWEEN binds to the same pair). Both columns must be event-time
 * (rowtime) attributes of the inputs, and there must be a lower and an upper bound for the same
 * pair; otherwise the condition stays an ordinary (residual) join condition, as in Nexmark's
 * `B.dateTime BETWEEN A.dateTime AND A.expires`. Also recognises a window join (Flink's
 * WindowJoin): a join key equating the window_end columns of two window aggregations, which is an
 * interval join on those columns with zero bounds.
 */
import type { IntervalBounds } from '../../common/join-type.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import type { LogicalNode } from './logical-node.js';
import { isWindowEnd } from './window-end-column.js';

/** The bounds and the conjuncts that remain once the bounding ones are taken out. */
export interface ExtractedInterval {
  readonly bounds: IntervalBounds;
  readonly rest: readonly ScalarExpr[];
}

/** A comparison `left - right <op> offset`, `op` inclusive after normalising. */
interface TimeBound {
  readonly conjunct: ScalarExpr;
  readonly leftTimeIndex: number;
  readonly rightTimeIndex: number;
  readonly kind: 'lower' | 'upper';
  readonly offset: number;
}

/**
 * The interval bounds among `conjuncts` (over the left columns, `0 .. width-1`, then the right
 * ones; the returned right time index is relative to the right input), or undefined.
 */
export function extractIntervalBounds(conjuncts: readonly ScalarExpr[], width: number): ExtractedInterval | undefined {
  const bounds = conjuncts.map((c) => timeBound(c, width)).filter((b): b is TimeBound => b !== undefined);
  const first = bounds[0];
  if (first === undefined) return undefined;
  const pair = bounds.filter((b) => b.leftTimeIndex === first.leftTimeIndex && b.rightTimeIndex === first.rightTimeIndex);
  const lowers = pair.filter((b) => b.kind === 'lower').map((b) => b.offset);
  const uppers = pair.filter((b) => b.kind === 'upper').map((b) => b.offset);
  if (lowers.length === 0 || uppers.length === 0) return undefined;
  const lower = Math.max(...lowers);
  const upper = Math.min(...uppers);
  if (lower > upper) return undefined;
  const used = new Set(pair.map((b) => b.conjunct));
  return { bounds: { leftTimeIndex: first.leftTimeIndex, rightTimeIndex: first.rightTimeIndex - width, lower, upper }, rest: conjuncts.filter((c) => !used.has(c)) };
}

const FLIPPED: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function timeBound(conjunct: ScalarExpr, width: number): TimeBound | undefined {
  if (conjunct.kind !== 'call' || conjunct.args.length !== 2 || FLIPPED[conjunct.name] === undefined) return undefined;
  const a = shiftedTime(conjunct.args[0]!);
  const b = shiftedTime(conjunct.args[1]!);
  if (a === undefined || b === undefined) return undefined;
  // a.column + a.shift <op> b.column + b.shift, written as left - right <op> offset.
  let op = conjunct.name;
  let left = a;
  let right = b;
  if (a.column >= width && b.column < width) {
    left = b;
    right = a;
    op = FLIPPED[op]!;
  } else if (!(a.column < width && b.column >= width)) return undefined;
  const offset = right.shift - left.shift;
  const base = { conjunct, leftTimeIndex: left.column, rightTimeIndex: right.column };
  switch (op) {
    case '>=':
      return { ...base, kind: 'lower', offset };
    case '>':
      return { ...base, kind: 'lower', offset: offset + 1 };
    case '<=':
      return { ...base, kind: 'upper', offset };
    default:
      return { ...base, kind: 'upper', offset: offset - 1 };
  }
}

/** `ts`, `ts + INTERVAL ...` or `ts - INTERVAL ...` with `ts` a rowtime column: the column and the shift in milliseconds. */
function shiftedTime(expr: ScalarExpr): { column: number; shift: number } | undefined {
  if (expr.kind === 'input-ref') return isRowtime(expr.type) ? { column: expr.index, shift: 0 } : undefined;
  if (expr.kind !== 'call' || (expr.name !== '+' && expr.name !== '-') || expr.args.length !== 2) return undefined;
  const [x, y] = expr.args as [ScalarExpr, ScalarExpr];
  const interval = (e: ScalarExpr): number | undefined => (e.kind === 'literal' && e.type.kind === 'INTERVAL_DAY_TIME' && typeof e.value === 'number' ? e.value : undefined);
  const base = x.kind === 'input-ref' ? shiftedTime(x) : undefined;
  if (base !== undefined && interval(y) !== undefined) return { column: base.column, shift: base.shift + (expr.name === '+' ? interval(y)! : -interval(y)!) };
  const swapped = y.kind === 'input-ref' && expr.name === '+' ? shiftedTime(y) : undefined;
  if (swapped !== undefined && interval(x) !== undefined) return { column: swapped.column, shift: swapped.shift + interval(x)! };
  return undefined;
}

function isRowtime(type: ScalarExpr['type']): boolean {
  return (type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ') && type.timeAttribute === 'rowtime';
}

/**
 * The bounds of a window join when a key pair (`leftKeys[i]` of `left` = `rightKeys[i]` of
 * `right`, plain column references) equates the window_end columns of two window aggregations.
 */
export function windowJoinBounds(left: LogicalNode, right: LogicalNode, leftKeys: readonly ScalarExpr[], rightKeys: readonly ScalarExpr[]): IntervalBounds | undefined {
  for (let i = 0; i < leftKeys.length; i++) {
    const l = leftKeys[i]!;
    const r = rightKeys[i]!;
    if (l.kind === 'input-ref' && r.kind === 'input-ref' && isWindowEnd(left, l.index) && isWindowEnd(right, r.index)) {
      return { leftTimeIndex: l.index, rightTimeIndex: r.index, lower: 0, upper: 0, windowJoin: true };
    }
  }
  return undefined;
}
