/**
 * A bounded queue between a job's sink (producer) and an async iterator (consumer): the producer
 * gets a promise to wait for when the queue is full (backpressure on the job), the consumer waits
 * for items, and the end or a failure is delivered in order after the items before it.
 */

/** Items, then either the end or an error. */
export class ChangeQueue<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wakeConsumer: (() => void) | undefined;
  private wakeProducer: (() => void) | undefined;

  constructor(private readonly highWater: number) {}

  /** Adds items; returns a promise when the producer should wait before adding more. */
  push(items: readonly T[]): Promise<void> | undefined {
    if (this.ended) return undefined;
    // One at a time: a spread of a batch of a few hundred thousand changes would overflow the call stack.
    for (const item of items) this.items.push(item);
    this.wakeConsumer?.();
    if (this.items.length < this.highWater) return undefined;
    return new Promise((resolve) => (this.wakeProducer = resolve));
  }

  /** No more items will come. */
  end(): void {
    this.ended = true;
    this.wakeConsumer?.();
  }

  /** The consumer is gone: queued items are dropped, a waiting producer is released, and the iteration ends. */
  close(): void {
    this.items.length = 0;
    this.end();
    this.releaseProducer();
  }

  /** The producer failed; the consumer sees the error after the items already queued. */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.wakeConsumer?.();
  }

  /** The items in order, until the end (or the failure, thrown). */
  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.items.length > 0) {
        const item = this.items.shift()!;
        if (this.items.length < this.highWater / 2) this.releaseProducer();
        yield item;
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
      this.wakeConsumer = undefined;
    }
  }

  private releaseProducer(): void {
    const wake = this.wakeProducer;
    this.wakeProducer = undefined;
    wake?.();
  }
}
