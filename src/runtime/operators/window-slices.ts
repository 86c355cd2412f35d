/**
 * Slices of aligned windows, as Flink's slice assigners: time is cut into slices so that every
 * window is a run of whole slices and every slice lies in a known run of windows — TUMBLE: one
 * slice per window; HOP: slices of `slide` (the size is a multiple of it), each in `size / slide`
 * windows; CUMULATE: slices of `step`, each in the windows of its cycle that end at or after it.
 * A window aggregate then folds each row into one slice and merges a window's slices when it
 * fires, instead of copying the row into every window.
 *
 * A slice and a window are named by their end (exclusive); window ends are slice ends. Slices and
 * windows are aligned to the window's offset (0 when it has none).
 */
import { invariant } from '../../common/errors.js';
import type { AlignedWindowSpec } from '../../common/window-spec.js';

/** The slice arithmetic of one window spec (see the module comment). */
export interface WindowSlices {
  /** The end of the slice holding time `t`. */
  sliceEnd(t: number): number;
  /** The end of the first window holding the slice ending at `slice`. */
  firstWindowEnd(slice: number): number;
  /** The end of the last window holding the slice ending at `slice`. */
  lastWindowEnd(slice: number): number;
  /** The end of the window after the one ending at `end` that holds the same slices' successors (only meaningful while `end` < some slice's last window end). */
  nextWindowEnd(end: number): number;
  /** The start of the window ending at `end`: it holds the slices ending in `(start, end]`. */
  windowStart(end: number): number;
  /**
   * Whether every window after one that fired holds all of its remaining earlier slices
   * (CUMULATE), so that those slices can be merged into one once it has fired.
   */
  readonly collapsible: boolean;
}

/** The slices of `window`; HOP and CUMULATE sizes must be multiples of their slide or step (the binder checks it). */
export function windowSlices(window: AlignedWindowSpec): WindowSlices {
  const offset = window.offset ?? 0;
  /** The end of the period of `unit` (aligned to the offset) holding `t`. */
  const periodEnd = (t: number, unit: number): number => Math.floor((t - offset) / unit) * unit + unit + offset;
  switch (window.kind) {
    case 'TUMBLE': {
      const { size } = window;
      return {
        sliceEnd: (t) => periodEnd(t, size),
        firstWindowEnd: (slice) => slice,
        lastWindowEnd: (slice) => slice,
        nextWindowEnd: (end) => end + size,
        windowStart: (end) => end - size,
        collapsible: false,
      };
    }
    case 'HOP': {
      const { slide, size } = window;
      invariant(size % slide === 0, `HOP size ${size} is not a multiple of its slide ${slide}`);
      return {
        sliceEnd: (t) => periodEnd(t, slide),
        firstWindowEnd: (slice) => slice,
        lastWindowEnd: (slice) => slice - slide + size,
        nextWindowEnd: (end) => end + slide,
        windowStart: (end) => end - size,
        collapsible: false,
      };
    }
    case 'CUMULATE': {
      const { step, size } = window;
      invariant(size % step === 0, `CUMULATE size ${size} is not a multiple of its step ${step}`);
      const cycleStart = (slice: number): number => periodEnd(slice - step, size) - size;
      return {
        sliceEnd: (t) => periodEnd(t, step),
        firstWindowEnd: (slice) => slice,
        lastWindowEnd: (slice) => cycleStart(slice) + size,
        nextWindowEnd: (end) => end + step,
        windowStart: cycleStart,
        collapsible: true,
      };
    }
  }
}
