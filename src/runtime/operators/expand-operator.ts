/** Flink's Expand: each record once per projection, keeping its row kind (see ExpandSpec). */
import { ChangeBatch, type Row } from '../../common/row.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { ExpandSpec } from '../../dataflow/job-graph.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/**
 * Runs an ExpandSpec. Stateless: the output of a record depends on that record alone, so a
 * retraction retracts exactly the rows its insertion produced.
 */
export class ExpandOperator implements StreamOperator {
  private readonly projects: readonly ((row: Row) => Row)[];
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;

  constructor(spec: ExpandSpec, compiler: ExprCompiler) {
    this.projects = spec.projects.map((p) => compiler.projection(p));
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const { kinds, rows } = batch;
    const projects = this.projects;
    for (let i = 0, n = rows.length; i < n; i++) {
      const kind = kinds[i]!;
      const row = rows[i]!;
      for (let p = 0; p < projects.length; p++) out.push(kind, projects[p]!(row));
    }
    if (out.size > 0) this.context.output.collect(out);
  }
}
