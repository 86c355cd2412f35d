/** Filter and projection in one generated loop over each batch (see ExprCompiler.calc). */
import { ChangeBatch } from '../../common/row.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { CalcSpec } from '../../dataflow/job-graph.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/**
 * Runs a CalcSpec: rows whose condition is TRUE, projected, keeping their row kind. It passes
 * watermarks on, remembering the last one for CURRENT_WATERMARK.
 */
export class CalcOperator implements StreamOperator {
  private readonly apply: (input: ChangeBatch, output: ChangeBatch, watermark: number) => void;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private watermark = -Infinity;

  constructor(spec: CalcSpec, compiler: ExprCompiler) {
    this.apply = compiler.calc(spec.condition, spec.projection);
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    this.apply(batch, out, this.watermark);
    if (out.size > 0) this.context.output.collect(out);
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    this.context.output.emitWatermark(watermark);
  }
}
