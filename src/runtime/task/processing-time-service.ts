/**
 * Processing-time timers of a job (Flink's ProcessingTimeService): operators read the wall clock
 * and register callbacks for a time; a callback runs on the event loop between batches, never
 * inside another operator's processing. Stopping the service (when the job closes) cancels every
 * timer still registered, so a finished or cancelled job leaves no timer behind.
 */

/** What an operator sees of processing time. */
export interface ProcessingTimeService {
  /** The current processing time, epoch milliseconds. */
  now(): number;
  /**
   * Calls `callback(time)` once the clock has reached `time` (on the next turn of the event loop
   * when it already has). Returns a function that cancels the timer if it has not fired.
   */
  registerTimer(time: number, callback: (time: number) => void): () => void;
}

/** The longest delay setTimeout honours (longer ones fire at once); a timer further away waits in steps. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The wall-clock service of one job; a callback that throws is reported to `onError`. */
export class WallClockTimerService implements ProcessingTimeService {
  private readonly handles = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  now(): number {
    return Date.now();
  }

  registerTimer(time: number, callback: (time: number) => void): () => void {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      if (this.stopped) return;
      const delay = Math.max(0, time - Date.now());
      handle = setTimeout(() => {
        this.handles.delete(handle!);
        if (this.stopped) return;
        if (delay > MAX_TIMEOUT_MS) return arm();
        try {
          callback(time);
        } catch (error) {
          this.onError(error);
        }
      }, Math.min(delay, MAX_TIMEOUT_MS));
      this.handles.add(handle);
    };
    arm();
    return () => {
      if (handle === undefined) return;
      clearTimeout(handle);
      this.handles.delete(handle);
    };
  }

  /** Cancels every pending timer; later registrations are ignored. */
  stop(): void {
    this.stopped = true;
    for (const handle of this.handles) clearTimeout(handle);
    this.handles.clear();
  }
}

/**
 * The timers of the subtasks of one part of a job graph, on the job's service: when the part
 * leaves the running job (see JobExecution.removeParts), {@link stop} cancels every timer its
 * operators left, so that none fires into a closed operator, while the job's other timers run on.
 */
export class ScopedTimerService implements ProcessingTimeService {
  private readonly cancels = new Set<() => void>();
  private stopped = false;

  constructor(private readonly service: ProcessingTimeService) {}

  now(): number {
    return this.service.now();
  }

  registerTimer(time: number, callback: (time: number) => void): () => void {
    if (this.stopped) return () => {};
    const cancel = this.service.registerTimer(time, (fired) => {
      this.cancels.delete(cancel);
      callback(fired);
    });
    this.cancels.add(cancel);
    return () => {
      this.cancels.delete(cancel);
      cancel();
    };
  }

  /** Cancels every pending timer of the scope; later registrations are ignored. */
  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
  }
}
