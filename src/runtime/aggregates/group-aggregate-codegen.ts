/**
 * Generates, once per operator, the two functions that run a group aggregation: `fold`, the
 * per-row loop over a batch (key selection, state lookup, accumulate or retract for every
 * aggregate), and `emit`, which turns the keys a batch touched into at most one change each.
 * Both are single monomorphic functions with the aggregates spliced in, as Flink generates its
 * AggsHandleFunction; nothing is allocated per row except a new group's accumulator.
 *
 * The accumulator of a group is one flat array in keyed state (see {@link GroupAccumulator}).
 * During a batch, the first row that touches a group records the group in the touched list,
 * snapshots its row count and results, so that `emit` can compare before with after without a
 * second lookup. With a backend that copies values (KeyedStateBackend.sharesValues false), the
 * first touch also stores the accumulator with its touch index, later rows of the group in the
 * batch find the working accumulator through that index, and `emit` writes every touched
 * accumulator back (the state contract: what is read is a copy). The heap backend hands out its
 * stored accumulators, so there a new accumulator is stored once and changed in place — after its
 * key was selected, where change tracking and copy-on-access snapshots hook in — which saves a key
 * selection and two Map writes per touched group and batch (GROUP BY over a million keys ran at
 * half the rate with them). Groups that emptied are cleared on either backend.
 */
import { WeirError } from '../../common/errors.js';
import { keySelector } from '../../common/key-codec.js';
import type { ChangeBatch, Row } from '../../common/row.js';
import { RowKind } from '../../common/row-kind.js';
import type { AggregateCallSpec, GroupAggregateSpec } from '../../dataflow/job-graph.js';
import type { KeyedStateBackend, ValueState } from '../state/keyed-state-backend.js';
import { SourceScope, type AggregateCodegen } from '../../expr/aggregates/aggregate-codegen.js';
import { builtinAggregate } from '../../expr/function-registry.js';
import { distinctAggregate } from './distinct-aggregate.js';

/**
 * A group's state: `[touch, rowCount, ...keyValues, ...aggregateSlots]`. `touch` is the group's
 * index in the current batch's touched list, and -1 between batches; `rowCount` counts every
 * row of the group (FILTER does not apply), and the group exists while it is positive; the key
 * values are those of the row that created the group; each aggregate owns a run of slots.
 */
export type GroupAccumulator = unknown[];

/** What the generated functions run against; bound when the operator opens. */
export interface GroupAggregateBindings {
  readonly backend: KeyedStateBackend;
  readonly state: ValueState<GroupAccumulator>;
  /** Called for a retraction of a group that has no rows (the retraction is ignored). */
  onRetractionWithoutState(): void;
}

/** The generated functions of one operator. */
export interface GroupAggregateProgram {
  /**
   * Folds a batch into keyed state; returns how many groups it touched. Must be followed by
   * `emit` before the next `fold`. A thrown error (overflow) leaves state half-folded, which is
   * fine only because the task then fails and recovers from a checkpoint.
   */
  fold(kinds: readonly RowKind[], rows: readonly Row[]): number;
  /** Appends each touched group's change (+I, -U/+U, -D or nothing) to `out`, and clears emptied groups' state. */
  emit(touched: number, out: ChangeBatch): void;
  /**
   * The row of a global aggregate (no GROUP BY keys) over no rows: every aggregate's result over
   * an empty input (COUNT 0, SUM NULL). A global aggregate has this row from the start, and goes
   * back to it (-U/+U) when its last row is retracted, rather than disappearing.
   */
  emptyRow(): Row;
}

const TOUCH = 0;
const ROW_COUNT = 1;
const KEYS = 2;

/** Where everything lives in a group's accumulator, and the source of each aggregate's result. */
interface Layout {
  readonly parts: readonly { readonly call: AggregateCallSpec; readonly codegen: AggregateCodegen; readonly slots: readonly string[] }[];
  /** The key values, as expressions over `acc`. */
  readonly keyValues: readonly string[];
  readonly results: readonly string[];
  /** Accumulator slots after the key values. */
  readonly slotCount: number;
  /** Entries per touched group in `before`: the row count, then one result per aggregate. */
  readonly stride: number;
}

/**
 * Generates the program for `spec` (validating every aggregate call) and returns a function that
 * instantiates it against an operator's state.
 */
export function generateGroupAggregate(spec: GroupAggregateSpec): (bindings: GroupAggregateBindings) => GroupAggregateProgram {
  const scope = new SourceScope();
  let nextSlot = KEYS + spec.keys.length;
  const parts = spec.aggregates.map((call) => {
    const codegen = aggregateCodegen(call, scope, spec.inputRetracts, `acc[${ROW_COUNT}]`);
    const slots = Array.from({ length: codegen.slots }, (_, i) => `acc[${nextSlot + i}]`);
    nextSlot += codegen.slots;
    return { call, codegen, slots };
  });
  const layout: Layout = {
    parts,
    keyValues: spec.keys.map((_, i) => `acc[${KEYS + i}]`),
    results: parts.map((p) => p.codegen.result(p.slots)),
    slotCount: nextSlot - KEYS - spec.keys.length,
    stride: 1 + parts.length,
  };
  const keyOf = scope.bind(keySelector(spec.keys), 'keyOf');
  const source = (shared: boolean): string => `
    const touchedKeys = [];
    const touchedAccs = [];
    const before = [];
    ${foldSource(spec, layout, scope, keyOf, shared)}
    ${emitSource(spec, layout, shared)}
    function emptyRow() {
      const acc = [-1, 0${', null'.repeat(layout.slotCount)}];
      ${parts.map((p) => p.codegen.init(p.slots)).join(' ')}
      return [${layout.results.join(', ')}];
    }
    return { fold, emit, emptyRow };`;
  // Each variant is generated when first asked for: the code depends on whether the backend
  // shares its values, which is fixed per backend (no per-row test of it).
  const sources: Partial<Record<'shared' | 'copied', string>> = {};
  return (bindings) => {
    const shared = bindings.backend.sharesValues;
    const text = (sources[shared ? 'shared' : 'copied'] ??= source(shared));
    return scope.instantiate<GroupAggregateProgram>(text, {
      backend: bindings.backend,
      state: bindings.state,
      onRetractionWithoutState: () => bindings.onRetractionWithoutState(),
    });
  };
}

/**
 * The fold over a batch. With a backend that shares its values, a new accumulator is stored once
 * and changed in place afterwards; with one that copies, the stored accumulator carries its touch
 * index, so that a group's later rows in the batch continue the working accumulator (which emit
 * writes back).
 */
function foldSource(spec: GroupAggregateSpec, { parts, results, slotCount, stride }: Layout, scope: SourceScope, keyOf: string, shared: boolean): string {
  const update = (method: 'accumulate' | 'retract') =>
    parts.map(({ call, codegen, slots }) => guarded(call, codegen, scope, (args) => codegen[method](slots, args))).join('\n');
  const newAccumulator = `[-1, 0${spec.keys.map((k) => `, row[${k}]`).join('')}${', null'.repeat(slotCount)}]`;
  return `
    function fold(kinds, rows) {
      let touched = 0;
      for (let i = 0, n = rows.length; i < n; i++) {
        const row = rows[i];
        const key = ${keyOf}(row);
        backend.setCurrentKey(key);
        let acc = state.value();
        ${shared ? '' : `if (acc !== undefined && acc[${TOUCH}] >= 0) acc = touchedAccs[acc[${TOUCH}]];`}
        const kind = kinds[i];
        const accumulates = kind === ${RowKind.INSERT} || kind === ${RowKind.UPDATE_AFTER};
        if (accumulates) {
          if (acc === undefined) {
            acc = ${newAccumulator};
            ${shared ? 'state.update(acc);' : ''}
          }
        } else if (acc === undefined || acc[${ROW_COUNT}] === 0) {
          onRetractionWithoutState();
          continue;
        }
        if (acc[${TOUCH}] < 0) {
          acc[${TOUCH}] = touched;
          touchedKeys[touched] = key;
          touchedAccs[touched] = acc;
          const o = touched++ * ${stride};
          before[o] = acc[${ROW_COUNT}];
          if (acc[${ROW_COUNT}] !== 0) { ${results.map((r, j) => `before[o + ${1 + j}] = ${r};`).join(' ')} }
          ${shared ? '' : 'state.update(acc);'}
        }
        if (accumulates) {
          if (acc[${ROW_COUNT}]++ === 0) { ${parts.map((p) => p.codegen.init(p.slots)).join(' ')} }
          ${update('accumulate')}
        } else {
          acc[${ROW_COUNT}]--;
          ${update('retract')}
        }
      }
      return touched;
    }`;
}

/** Emits the touched groups' changes; with a backend that copies, writes each touched accumulator back first. */
function emitSource(spec: GroupAggregateSpec, { keyValues, results, stride }: Layout, shared: boolean): string {
  const previous = (j: number) => `before[o + ${1 + j}]`;
  const previousRow = `[${[...keyValues, ...results.map((_, j) => previous(j))].join(', ')}]`;
  const differs = results.map((_, j) => `(r${j} !== ${previous(j)} && (r${j} === r${j} || ${previous(j)} === ${previous(j)}))`);
  const updateBefore = (row: string): string => (spec.emitUpdateBefore ? `out.push(${RowKind.UPDATE_BEFORE}, ${row});` : '');
  // A global aggregate (no keys) always has its one row: it starts as the empty row (see emptyRow),
  // updates from and to it, and is never inserted or deleted once it exists.
  const global = spec.keys.length === 0;
  const emptied = global
    ? `if (previousCount !== 0) { const empty = emptyRow(); ${updateBefore(previousRow)} out.push(${RowKind.UPDATE_AFTER}, empty); }`
    : `if (previousCount !== 0) out.push(${RowKind.DELETE}, ${previousRow});`;
  const created = global ? `{ ${updateBefore('emptyRow()')} out.push(${RowKind.UPDATE_AFTER}, row); }` : `out.push(${RowKind.INSERT}, row);`;
  return `
    function emit(touched, out) {
      for (let t = 0; t < touched; t++) {
        const acc = touchedAccs[t];
        touchedAccs[t] = undefined;
        acc[${TOUCH}] = -1;
        const o = t * ${stride};
        const previousCount = before[o];
        if (acc[${ROW_COUNT}] === 0) {
          backend.setCurrentKey(touchedKeys[t]);
          state.clear();
          ${emptied}
          continue;
        }
        ${shared ? '' : `backend.setCurrentKey(touchedKeys[t]); state.update(acc);`}
        ${results.map((r, j) => `const r${j} = ${r};`).join(' ')}
        const row = [${[...keyValues, ...results.map((_, j) => `r${j}`)].join(', ')}];
        if (previousCount === 0) ${created}
        else if (${differs.length === 0 ? 'false' : differs.join(' || ')}) {
          ${updateBefore(previousRow)}
          out.push(${RowKind.UPDATE_AFTER}, row);
        }
      }
    }`;
}

/** Types whose values are objects (sql-type.ts), so that equal values need not be identical. */
const OBJECT_VALUED: ReadonlySet<string> = new Set(['BINARY', 'VARBINARY', 'ROW', 'ARRAY', 'MAP']);

/**
 * The codegen for one call: the generator its registered aggregate function carries, behind
 * DISTINCT when asked; COUNT(*) reads the row count held in `rowCount` (an lvalue of the generated
 * code). Throws a WeirError for an unsupported call.
 */
export function aggregateCodegen(call: AggregateCallSpec, scope: SourceScope, retractable: boolean, rowCount: string): AggregateCodegen {
  const definition = builtinAggregate(call.function);
  if (definition === undefined) throw new WeirError('UNSUPPORTED', `aggregate function ${call.function} is not supported`);
  if (definition.name === 'COUNT' && call.args.length === 0 && call.filter === null) return rowCountAggregate(rowCount);
  if (call.args.length !== call.argTypes.length) throw new WeirError('INTERNAL_ERROR', `${definition.name} has ${call.args.length} arguments but ${call.argTypes.length} argument types`);
  const codegen = definition.accumulator({ name: definition.name, argTypes: call.argTypes, type: call.type, scope, retractable });
  const objectValued = call.argTypes.some((t) => OBJECT_VALUED.has(t.kind));
  return call.distinct ? distinctAggregate(codegen, scope, call.args.length, objectValued) : codegen;
}

/** COUNT(*) answered by the group's row count held in `rowCount` (an lvalue of the generated code, merged by its owner). */
function rowCountAggregate(rowCount: string): AggregateCodegen {
  return { slots: 0, init: () => '', accumulate: () => '', retract: () => '', merge: () => '', result: () => rowCount };
}

/**
 * Source that runs `body` on the call's argument values, read from the generated code's `row`
 * into locals, for rows that pass its FILTER and — unless the aggregate accepts NULLs — have no
 * NULL argument.
 */
export function guarded(call: AggregateCallSpec, codegen: AggregateCodegen, scope: SourceScope, body: (args: readonly string[]) => string): string {
  let code: string;
  if (call.args.length === 0) code = body([]);
  else {
    const locals = call.args.map(() => scope.local('value'));
    const reads = call.args.map((a, i) => `const ${locals[i]} = row[${a}];`).join(' ');
    const nonNull = locals.map((v) => `${v} != null`).join(' && ');
    code = codegen.acceptsNulls === true ? `${reads} ${body(locals)}` : `${reads} if (${nonNull}) { ${body(locals)} }`;
  }
  return call.filter === null ? `{ ${code} }` : `if (row[${call.filter}] === true) { ${code} }`;
}
