/**
 * Generates watermarks from a table's WATERMARK FOR clause: after each batch, the largest value
 * of the watermark expression seen so far is emitted when it has advanced. Records pass through.
 */
import type { ChangeBatch } from '../../common/row.js';
import type { WatermarkAssignerSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/**
 * Runs a WatermarkAssignerSpec. Watermarks from upstream are ignored (this operator defines event
 * time), except the final one (Infinity) at the end of input, which passes as in Flink, so that
 * windows fire before the job's final checkpoint.
 */
export class WatermarkAssignerOperator implements StreamOperator {
  private readonly watermarkOf: (row: unknown[]) => unknown;
  private context!: OperatorContext;
  private current = -Infinity;

  constructor(spec: WatermarkAssignerSpec, compiler: ExprCompiler) {
    this.watermarkOf = compiler.scalar(spec.watermark);
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    let max = this.current;
    const rows = batch.rows;
    for (let i = 0; i < rows.length; i++) {
      const value = this.watermarkOf(rows[i]!);
      if (typeof value === 'number' && value > max) max = value;
    }
    this.context.output.collect(batch);
    if (max > this.current) {
      this.current = max;
      this.context.output.emitWatermark(max);
    }
  }

  processWatermark(watermark: number): void {
    if (watermark !== Infinity || this.current === Infinity) return;
    this.current = Infinity;
    this.context.output.emitWatermark(Infinity);
  }
}
