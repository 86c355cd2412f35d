/**
 * Window properties of a logical node (Flink's window properties of windowed relations): which
 * output columns are `window_start`, `window_end` and `window_time` of which window, for nodes
 * whose rows of a window all arrive before the watermark passes that window's end. That holds for
 * a window TVF (TUMBLE, HOP, CUMULATE), a window aggregation (the aggregate the planner lowers to
 * one: directly over a window TVF, SESSION included), a window Top-N and a window join,
 * and is kept through filters and through projections that pass the columns on unchanged. Window
 * Top-N and window join are planned only over inputs with these properties.
 */
import type { WindowSpec } from '../../common/window-spec.js';
import { isRowFunctionWindow, type LogicalJoin, type LogicalNode, type LogicalRank } from './logical-node.js';

/**
 * What a column of a windowed relation is, when it is one of the window's columns. `zoned`: the
 * window runs over a TIMESTAMP_LTZ time, so its bounds are wall-clock times of the session zone
 * and operators closing it read the watermark on that clock.
 */
export type WindowRole = { readonly role: 'start' | 'end' | 'time'; readonly window: WindowSpec; readonly zoned?: true } | undefined;

/** The window columns of a windowed relation (`zoned` as in {@link WindowRole}). */
export interface WindowColumns {
  readonly window: WindowSpec;
  readonly start: number;
  readonly end: number;
  readonly zoned?: true;
}

/** The role of each output column of `node` (all undefined when the node is not windowed). */
export function windowRoles(node: LogicalNode): readonly WindowRole[] {
  const none = (): WindowRole[] => node.schema.map(() => undefined);
  switch (node.kind) {
    case 'window-tvf':
      // Windows over a plain timestamp are ordinary columns: no watermark closes them.
      return node.window.kind === 'SESSION' || isRowFunctionWindow(node) ? none() : tvfRoles(node);
    case 'filter':
      return windowRoles(node.input);
    case 'project': {
      const input = windowRoles(node.input);
      return node.exprs.map((e) => (e.kind === 'input-ref' ? input[e.index] : undefined));
    }
    case 'aggregate': {
      const tvf = node.input.kind === 'project' ? node.input.input : node.input;
      if (tvf.kind !== 'window-tvf' || isRowFunctionWindow(tvf)) return none();
      const roles = tvfRoles(tvf);
      const projected = node.input.kind === 'project' ? node.input.exprs.map((e) => (e.kind === 'input-ref' ? roles[e.index] : undefined)) : roles;
      const keys: WindowRole[] = node.keys.map((k) => projected[k]);
      return windowColumnsOf(keys) === undefined ? none() : [...keys, ...node.calls.map(() => undefined)];
    }
    case 'rank':
      return windowRankOf(node) === undefined ? none() : node.outputNumber ? [...windowRoles(node.input), undefined] : windowRoles(node.input);
    case 'join':
      return windowJoinOf(node) === undefined ? none() : [...windowRoles(node.left), ...windowRoles(node.right)];
    case 'semi-join':
      return windowRoles(node.left);
    default:
      return none();
  }
}

/** The window_start and window_end columns of one window among `roles`, when both are there. */
export function windowColumnsOf(roles: readonly WindowRole[]): WindowColumns | undefined {
  const start = roles.findIndex((r) => r?.role === 'start');
  if (start < 0) return undefined;
  const window = roles[start]!.window;
  const end = roles.findIndex((r) => r?.role === 'end' && sameWindow(r.window, window));
  return end < 0 ? undefined : { window, start, end, ...(roles[start]!.zoned === true ? { zoned: true as const } : {}) };
}

/**
 * The window columns of the input of `rank` when it is a window Top-N: a ROW_NUMBER whose
 * partition keys include them. (Ranks gain a `rankType` on main; RANK and DENSE_RANK are not run
 * per window yet, so they keep the regular Top-N.)
 */
export function windowRankOf(rank: LogicalRank): WindowColumns | undefined {
  if (((rank as { readonly rankType?: string }).rankType ?? 'ROW_NUMBER') !== 'ROW_NUMBER') return undefined;
  const columns = windowColumnsOf(windowRoles(rank.input));
  return columns !== undefined && rank.partitionKeys.includes(columns.start) && rank.partitionKeys.includes(columns.end) ? columns : undefined;
}

/**
 * The window columns of both inputs of `join` when it is a window join: both inputs are windowed
 * by the same window and the join equates window_start with window_start and window_end with
 * window_end (the window columns are then part of the join keys).
 */
export function windowJoinOf(join: LogicalJoin): { readonly left: WindowColumns; readonly right: WindowColumns } | undefined {
  const left = windowColumnsOf(windowRoles(join.left));
  const right = windowColumnsOf(windowRoles(join.right));
  if (left === undefined || right === undefined || !sameWindow(left.window, right.window)) return undefined;
  const equated = (l: number, r: number): boolean => join.leftKeys.some((k, i) => k === l && join.rightKeys[i] === r);
  return equated(left.start, right.start) && equated(left.end, right.end) ? { left, right } : undefined;
}

/** True when two window specs describe the same windows. */
export function sameWindow(a: WindowSpec, b: WindowSpec): boolean {
  const x = a as unknown as Readonly<Record<string, unknown>>;
  const y = b as unknown as Readonly<Record<string, unknown>>;
  return Object.keys(x).length === Object.keys(y).length && Object.keys(x).every((k) => x[k] === y[k]);
}

/** The roles of a window TVF's columns: its input's, then window_start, window_end, window_time. */
function tvfRoles(tvf: Extract<LogicalNode, { kind: 'window-tvf' }>): WindowRole[] {
  const { window } = tvf;
  const zoned = tvf.input.schema[tvf.timeIndex]!.type.kind === 'TIMESTAMP_LTZ' ? { zoned: true as const } : {};
  return [...tvf.input.schema.map(() => undefined), { role: 'start', window, ...zoned }, { role: 'end', window, ...zoned }, { role: 'time', window, ...zoned }];
}
