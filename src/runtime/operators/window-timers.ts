/**
 * The event-time timers of a window operator: which keys have a window that fires once the
 * watermark reaches a time, so that a watermark finds the windows it closes without scanning
 * state. Timers are not checkpointed: an operator registers them again from its keyed state when
 * it opens. A timer may be stale (its window grew or merged away), so the operator checks its
 * state when the timer fires.
 *
 * Invariant: `times` is a binary min-heap holding exactly the keys of `byTime`, so a watermark
 * costs O(log n) per due time, however many windows are open.
 */
import type { Key } from '../../common/key-codec.js';

/** Keys by the event time at which one of their windows fires (see the module comment). */
export class WindowTimers {
  private readonly byTime = new Map<number, Set<Key>>();
  private readonly times: number[] = [];

  /** Fires `key` once the watermark reaches `time`; registering the same pair again is a no-op. */
  register(time: number, key: Key): void {
    let keys = this.byTime.get(time);
    if (keys === undefined) {
      this.byTime.set(time, (keys = new Set()));
      this.push(time);
    }
    keys.add(key);
  }

  /** The earliest registered time, if any. */
  nextTime(): number | undefined {
    return this.times[0];
  }

  /** Removes every timer at or before `watermark` and calls `fire` for each, by ascending time (a time's keys in registration order). */
  advance(watermark: number, fire: (key: Key, time: number) => void): void {
    while (this.times.length > 0 && this.times[0]! <= watermark) {
      const time = this.pop();
      const keys = this.byTime.get(time)!;
      this.byTime.delete(time);
      for (const key of keys) fire(key, time);
    }
  }

  private push(time: number): void {
    const heap = this.times;
    let i = heap.push(time) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= time) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = time;
  }

  private pop(): number {
    const heap = this.times;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const child = left + 1 < heap.length && heap[left + 1]! < heap[left]! ? left + 1 : left;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
