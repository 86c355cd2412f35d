/**
 * One updating line on stderr while jobs run: rows read by their sources, the rate, and — when
 * every source knows the size of its input (datagen `number-of-rows`, nexmark `events.num`, a
 * file's bytes) — the percentage and the time left. Redrawn in place on a terminal, cleared when
 * stopped; never written to stdout. While it is shown on the terminal stdout also writes to (the
 * print connector's rows, results), stdout erases it before each write, so that output never
 * lands on the progress line; the next redraw puts it back under that output.
 */
import type { JobHandle } from '../engine/job-handle.js';

/** How often the line is redrawn. */
const REDRAW_MS = 250;

/** Whether to show progress: `--progress` / `--no-progress`, else only when both stdout and stderr are terminals. */
export function progressWanted(flag: boolean | undefined): boolean {
  return flag ?? (process.stdout.isTTY === true && process.stderr.isTTY === true);
}

/** The progress line of the jobs `jobs()` lists while they run. */
export class ProgressLine {
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private readonly startedAt = performance.now();
  private restoreStdout: (() => void) | undefined;

  constructor(
    private readonly jobs: () => readonly JobHandle[],
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** Starts redrawing. */
  start(): void {
    this.timer ??= setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
    if (this.restoreStdout === undefined && this.stream.isTTY && process.stdout.isTTY && this.stream !== process.stdout) this.clearBeforeStdout();
  }

  private clearBeforeStdout(): void {
    const stdout = process.stdout;
    const write = stdout.write;
    stdout.write = ((...args: Parameters<typeof write>) => {
      this.clear();
      return write.apply(stdout, args);
    }) as typeof write;
    this.restoreStdout = () => {
      stdout.write = write;
    };
  }

  /** Stops and clears the line. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.restoreStdout?.();
    this.restoreStdout = undefined;
    this.clear();
  }

  /** Erases the line (before other output on the terminal); the next redraw shows it again. */
  clear(): void {
    if (this.shown && this.stream.isTTY) this.stream.write('\r\u001b[2K');
    this.shown = false;
  }

  private draw(): void {
    const running = this.jobs().filter((j) => j.status === 'RUNNING');
    if (running.length === 0) return;
    const text = progressText(running, (performance.now() - this.startedAt) / 1000);
    const width = this.stream.columns;
    const line = width > 1 && text.length >= width ? text.slice(0, width - 1) : text;
    // Without a terminal each redraw is a line of its own (stderr piped with --progress).
    this.stream.write(this.stream.isTTY ? `\r\u001b[2K${line}` : `${line}\n`);
    this.shown = true;
  }
}

/** The text of the line for `jobs` after `seconds`: rows, rate, and percentage with ETA when the totals are known. */
export function progressText(jobs: readonly JobHandle[], seconds: number): string {
  let rows = 0;
  let done = 0;
  let total: number | undefined = 0;
  for (const job of jobs) {
    const progress = job.progress();
    rows += progress.rows;
    done += progress.done;
    total = total === undefined || progress.total === undefined ? undefined : total + progress.total;
  }
  const label = jobs.length === 1 ? `job ${jobs[0]!.id}` : `${jobs.length} jobs`;
  const rate = seconds > 0 ? rows / seconds : 0;
  const parts = [`${label}: ${rows.toLocaleString('en-US')} rows`, `${Math.round(rate).toLocaleString('en-US')} rows/s`];
  if (total !== undefined && total > 0) {
    const fraction = Math.min(1, done / total);
    parts.push(`${(fraction * 100).toFixed(1)}%`);
    if (fraction > 0 && fraction < 1) parts.push(`ETA ${clock((seconds * (1 - fraction)) / fraction)}`);
  }
  return parts.join(' · ');
}

/** Seconds as `m:ss` or `h:mm:ss`. */
function clock(seconds: number): string {
  const s = Math.ceil(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
