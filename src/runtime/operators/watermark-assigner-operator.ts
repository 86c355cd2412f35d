/**
 * Generates watermarks from a table's WATERMARK FOR clause: after each batch, the largest value
 * of the watermark expression seen so far (over every input row) is emitted when it has
 * advanced, after the batch's records. Records go on through the fused Calc of the spec
 * (filter, then projection), in the same generated loop, so that dropped rows are never copied
 * and the batch is read once.
 */
import { ChangeBatch } from '../../common/row.js';
import type { WatermarkAssignerSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/**
 * Runs a WatermarkAssignerSpec. Watermarks from upstream are ignored (this operator defines event
 * time), except the final one (Infinity) at the end of input, which passes as in Flink, so that
 * windows fire before the job's final checkpoint.
 */
export class WatermarkAssignerOperator implements StreamOperator {
  /** The watermark over a batch whose records pass through unchanged; undefined with a fused Calc. */
  private readonly maxWatermark: ((rows: readonly unknown[][]) => number) | undefined;
  /** The fused Calc, returning the watermark over its input; undefined when records pass through unchanged. */
  private readonly apply: ((input: ChangeBatch, output: ChangeBatch, current: number) => number) | undefined;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private current = -Infinity;

  constructor(spec: WatermarkAssignerSpec, compiler: ExprCompiler) {
    const passThrough = spec.condition === null && spec.projection === null;
    this.maxWatermark = passThrough ? compiler.maxOf(spec.watermark) : undefined;
    this.apply = passThrough ? undefined : compiler.calcMaxOf(spec.condition, spec.projection, spec.watermark);
  }

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    let max: number;
    if (this.apply === undefined) {
      max = this.maxWatermark!(batch.rows);
      this.context.output.collect(batch);
    } else {
      const out = this.out;
      // The fused Calc's CURRENT_WATERMARK is the watermark sent downstream before this batch.
      max = this.apply(batch, out, this.current);
      if (out.size > 0) this.context.output.collect(out);
    }
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
