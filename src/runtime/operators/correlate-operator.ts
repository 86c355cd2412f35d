/** Flink's Correlate: each record joined with the rows a function of it gives (see CorrelateSpec). */
import { ChangeBatch, type Row } from '../../common/row.js';
import type { CorrelateSpec } from '../../dataflow/job-graph.js';
import type { CorrelateFunction } from '../../expr/correlate-function.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** The rows a correlate function gives for one input row, each of the function's columns. */
type RowFunction = (row: Row) => readonly Row[];

/**
 * Runs a CorrelateSpec: UNNEST of a collection column or a user-defined table function. Holds no
 * state: a record's output depends on that record alone, so every kind passes through and a
 * retraction retracts the rows its insertion emitted.
 */
export class CorrelateOperator implements StreamOperator {
  private readonly rowsOf: RowFunction;
  private readonly condition: ((row: Row) => boolean) | null;
  private readonly padding: readonly null[];
  private readonly left: boolean;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;

  constructor(spec: CorrelateSpec, compiler: ExprCompiler) {
    this.rowsOf = rowFunction(spec.fn, compiler);
    this.condition = spec.condition === null ? null : compiler.predicate(spec.condition);
    this.padding = Array.from({ length: spec.functionArity }, () => null);
    this.left = spec.joinType === 'LEFT';
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const { kinds, rows } = batch;
    const condition = this.condition;
    for (let i = 0, n = rows.length; i < n; i++) {
      const kind = kinds[i]!;
      const row = rows[i]!;
      let matched = false;
      for (const produced of this.rowsOf(row)) {
        const joined = row.concat(produced);
        if (condition !== null && !condition(joined)) continue;
        matched = true;
        out.push(kind, joined);
      }
      if (!matched && this.left) out.push(kind, row.concat(this.padding));
    }
    if (out.size > 0) this.context.output.collect(out);
  }
}

/** The function of a row that gives its rows. */
function rowFunction(fn: CorrelateFunction, compiler: ExprCompiler): RowFunction {
  switch (fn.kind) {
    case 'unnest': {
      const value = compiler.scalar(fn.expr);
      const ordinal = fn.withOrdinality;
      switch (fn.source) {
        case 'array':
          return (row) => {
            const array = value(row) as unknown[] | null;
            if (array === null) return [];
            return array.map((element, i) => (ordinal ? [element ?? null, i + 1] : [element ?? null]));
          };
        case 'array-of-rows': {
          const width = fn.expr.type.kind === 'ARRAY' && fn.expr.type.element.kind === 'ROW' ? fn.expr.type.element.fields.length : 0;
          const nulls = Array.from({ length: width }, () => null);
          return (row) => {
            const array = value(row) as (unknown[] | null)[] | null;
            if (array === null) return [];
            return array.map((element, i) => {
              const fields = element === null || element === undefined ? nulls : element;
              return ordinal ? [...fields, i + 1] : [...fields];
            });
          };
        }
        case 'map':
          return (row) => {
            const map = value(row) as Map<unknown, unknown> | null;
            if (map === null) return [];
            const rows: Row[] = [];
            for (const [k, v] of map) rows.push(ordinal ? [k, v ?? null, rows.length + 1] : [k, v ?? null]);
            return rows;
          };
      }
    }
    case 'table-function': {
      const definition = compiler.tableFunction(fn.name);
      const args = compiler.projection(fn.args);
      return (row) => definition.rows(args(row));
    }
  }
}
