/** UNION ALL: forwards every input's batches unchanged. */
import type { ChangeBatch } from '../../common/row.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** Passes batches from any input through; watermarks are combined by the runner (minimum over inputs). */
export class UnionOperator implements StreamOperator {
  private context!: OperatorContext;

  open(context: OperatorContext): void {
    this.context = context;
  }

  processBatch(batch: ChangeBatch): void {
    this.context.output.collect(batch);
  }
}
