/**
 * Processing-time lookup join (Flink's LookupJoin): for each input batch, the distinct keys of its
 * rows are looked up in the table at once, and every row is emitted joined with the rows found
 * for its key (with the input row's kind), filtered by the residual condition; a LEFT join pads a
 * row without matches with NULLs. A lookup that needs I/O holds back later batches and
 * watermarks until it completes, so that output keeps input order and no watermark overtakes
 * the rows before it. The only state is the input whose lookup is in flight at a barrier: it is
 * the operator state of the checkpoint and is looked up again after a restore (as Flink's
 * AsyncWaitOperator does); the connector's cache is never state.
 */
import { encodeComponent } from '../../common/key-codec.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { RowKind } from '../../common/row-kind.js';
import type { LookupJoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { LookupFactory, LookupFunction, LookupResult } from '../lookup-source.js';
import type { OperatorContext, StateInitializationContext, StreamOperator } from '../stream-operator.js';

/** Input rows whose lookup had not completed at a barrier. */
interface InFlightState {
  readonly kinds: readonly RowKind[];
  readonly rows: readonly Row[];
}

/** The runtime implementation of a `lookup-join` job-graph node. */
export class LookupJoinOperator implements StreamOperator {
  private readonly lookup: LookupFunction;
  private readonly condition: ((row: Row) => boolean) | null;
  private readonly nulls: Row;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  /** The batch whose lookup is in flight, and the input that arrived after it (batches copied, watermarks). */
  private current: ChangeBatch | undefined;
  private inFlight: Promise<void> | undefined;
  private queue: (ChangeBatch | number)[] = [];
  private restored: InFlightState[] = [];

  constructor(
    private readonly spec: LookupJoinSpec,
    compiler: ExprCompiler,
    factory: LookupFactory,
  ) {
    this.lookup = factory.createLookup(spec.lookup);
    this.condition = spec.condition === null ? null : compiler.predicate(spec.condition);
    this.nulls = spec.lookup.schema.map(() => null);
  }

  initializeState(context: StateInitializationContext): void {
    this.restored = context.operatorState as InFlightState[];
  }

  async open(context: OperatorContext): Promise<void> {
    this.context = context;
    await this.lookup.open({ subtask: context.subtask, parallelism: context.parallelism, processingTime: context.processingTime, warn: (m) => context.warn(m) });
    for (const state of this.restored) this.processBatch(ChangeBatch.of(state.kinds.map((kind, i) => [kind, state.rows[i]!])));
    this.restored = [];
  }

  processBatch(batch: ChangeBatch): void {
    if (this.inFlight !== undefined) this.queue.push(batch.copy());
    else this.join(batch);
  }

  processWatermark(watermark: number): void {
    if (this.inFlight !== undefined) this.queue.push(watermark);
    else this.context.output.emitWatermark(watermark);
  }

  snapshotState(): InFlightState | undefined {
    const pending = [this.current, ...this.queue].filter((item): item is ChangeBatch => item instanceof ChangeBatch);
    if (pending.length === 0) return undefined;
    return { kinds: pending.flatMap((b) => b.kinds), rows: pending.flatMap((b) => b.rows) };
  }

  async endInput(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
  }

  async close(): Promise<void> {
    await this.lookup.close();
  }

  private join(batch: ChangeBatch): void {
    const { inputKeys } = this.spec;
    const slots: number[] = new Array<number>(batch.size);
    const keys: Row[] = [];
    const slotOf = new Map<string, number>();
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const key = inputKeys.map((k) => row[k]);
      if (key.includes(null)) {
        slots[i] = -1;
        continue;
      }
      const encoded = key.map(encodeComponent).join('');
      let slot = slotOf.get(encoded);
      if (slot === undefined) {
        slotOf.set(encoded, (slot = keys.length));
        keys.push(key);
      }
      slots[i] = slot;
    }
    const result = keys.length === 0 ? [] : this.lookup.lookup(keys);
    if (!(result instanceof Promise)) {
      this.emit(batch, slots, result);
      return;
    }
    const held = batch.copy();
    this.current = held;
    this.inFlight = result.then((found) => {
      this.current = undefined;
      this.inFlight = undefined;
      this.emit(held, slots, found);
      this.drain();
    });
    this.context.waitFor(this.inFlight);
  }

  private emit(batch: ChangeBatch, slots: readonly number[], found: LookupResult): void {
    const out = this.out;
    out.clear();
    const { condition, nulls } = this;
    const left = this.spec.joinType === 'LEFT';
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const kind = batch.kinds[i]!;
      let matched = false;
      const slot = slots[i]!;
      if (slot >= 0) {
        for (const match of found[slot]!) {
          const joined = row.concat(match);
          if (condition !== null && !condition(joined)) continue;
          out.push(kind, joined);
          matched = true;
        }
      }
      if (!matched && left) out.push(kind, row.concat(nulls));
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  private drain(): void {
    while (this.inFlight === undefined && this.queue.length > 0) {
      const item = this.queue.shift()!;
      if (typeof item === 'number') this.context.output.emitWatermark(item);
      else this.join(item);
    }
  }
}
