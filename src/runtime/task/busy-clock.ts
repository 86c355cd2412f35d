/**
 * Measures the time each subtask spends processing, exclusive of the subtasks it calls: operators
 * run synchronously inside their upstream's `collect`, so a plain stopwatch around an operator
 * would count everything downstream too. The clock keeps the stack of subtasks currently on the
 * (single) thread and charges elapsed time to the one on top; one clock reading per batch entry
 * and exit, never per record.
 */

/** A subtask's accumulated busy time. */
export class BusyMeter {
  /** Milliseconds spent processing (fractional). */
  ms = 0;
}

const stack: BusyMeter[] = [];
let since = 0;
let readClock: () => number = () => performance.now();

/** Replaces the clock the meters read (monotonic milliseconds; `performance.now` by default), for tests that drive time. */
export function useBusyClock(clock: () => number = () => performance.now()): void {
  readClock = clock;
}

/** `meter` starts working (nested inside whatever runs now); pair with {@link exitBusy} in a `finally`. */
export function enterBusy(meter: BusyMeter): void {
  const now = readClock();
  const top = stack[stack.length - 1];
  if (top !== undefined) top.ms += now - since;
  stack.push(meter);
  since = now;
}

/** The subtask on top of the stack stops working; the time since the last switch is charged to it. */
export function exitBusy(): void {
  const now = readClock();
  const top = stack.pop();
  if (top !== undefined) top.ms += now - since;
  since = now;
}
