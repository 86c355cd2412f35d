/**
 * Partition commit, as Flink's PartitionCommitter does it for the filesystem sink: once the
 * files a partition received are visible (their checkpoint completed, for every subtask), the
 * trigger decides whether the partition is complete, and the `success-file` policy then writes an
 * empty `_SUCCESS` into its directory. Triggers:
 * - `process-time`: `delay` has passed since the partition was created (processing time);
 * - `partition-time`: the watermark at the barrier of the committed checkpoint, the minimum over
 *   the subtasks, is past the time extracted from the partition values plus `delay`.
 * Once every subtask has seen the final watermark (the input ended), every partition is committed
 * as soon as its files are visible, whatever the trigger (Flink's end-of-input commit).
 *
 * The subtasks of one sink in one run of a job share a committer, and it decides only once all of
 * them have registered. A partition that receives records after its commit (late data) is
 * committed again: writing the success file is idempotent, as is a commit repeated after a restore.
 */
import { open } from 'node:fs/promises';
import { WeirError } from '../../common/errors.js';
import type { PartitionCommitTracker } from './partition-commit-tracker.js';
import { partitionValues } from './partition-paths.js';
import { TIMESTAMP_PATTERN_OPTION, type PartitionTimeExtractor } from './partition-time-extractor.js';
import type { SinkFileIo } from './sink-file-io.js';

/** `'sink.partition-commit.trigger'` values. */
export const PARTITION_COMMIT_TRIGGERS = ['process-time', 'partition-time'] as const;

/** How and when partitions are committed (parsed from the `sink.partition-commit.*` options). */
export interface PartitionCommitOptions {
  readonly trigger: (typeof PARTITION_COMMIT_TRIGGERS)[number];
  /** `'sink.partition-commit.delay'` in milliseconds. */
  readonly delayMs: number;
  /** The name of the success file (`'sink.partition-commit.success-file.name'`). */
  readonly successFileName: string;
  /** `'partition.time-extractor.timestamp-pattern'`, when given. */
  readonly timestampPattern?: string;
}

/** A partition found due, with each subtask's `lastCheckpoint` for it at that moment. */
interface DuePartition {
  readonly directory: string;
  readonly seen: readonly (number | undefined)[];
}

/** The committers shared by the subtasks of each run of a job, by sink. */
const shared = new WeakMap<object, Map<string, PartitionCommitter>>();

/** Commits the partitions of one sink table. */
export class PartitionCommitter {
  readonly #trackers = new Map<number, PartitionCommitTracker>();
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly io: SinkFileIo,
    private readonly options: PartitionCommitOptions,
    private readonly extractTime: PartitionTimeExtractor,
    private readonly parallelism: number,
  ) {}

  /** The committer of sink `key` in `run`, created by `create` for the first subtask that asks; a private one without a run. */
  static shared(run: object | undefined, key: string, create: () => PartitionCommitter): PartitionCommitter {
    if (run === undefined) return create();
    const committers = shared.get(run) ?? new Map<string, PartitionCommitter>();
    shared.set(run, committers);
    const committer = committers.get(key) ?? create();
    committers.set(key, committer);
    return committer;
  }

  /** Adds the tracker of subtask `subtask`; partitions are committed once every subtask has one. */
  register(subtask: number, tracker: PartitionCommitTracker): void {
    this.#trackers.set(subtask, tracker);
  }

  /**
   * Commits every partition that is due now, after the commits already under way. Rejects with a
   * CONNECTOR_ERROR when a success file cannot be written or, with `partition-time`, a partition's
   * time cannot be read from its values.
   */
  commitDue(): Promise<void> {
    const run = this.#queue.then(async () => {
      const trackers = [...this.#trackers.values()];
      const due = this.#due(trackers);
      for (const { directory } of due) await this.#writeSuccessFile(directory);
      for (const { directory, seen } of due) {
        trackers.forEach((tracker, i) => {
          if (tracker.pending.get(directory)?.lastCheckpoint === seen[i]) tracker.pending.delete(directory);
        });
      }
    });
    // The queue only orders the steps: the caller gets the failure from `run`.
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #due(trackers: readonly PartitionCommitTracker[]): DuePartition[] {
    if (trackers.length < this.parallelism) return [];
    const ended = trackers.every((tracker) => tracker.ended);
    const watermark = Math.min(...trackers.map((tracker) => tracker.committedWatermark));
    const now = Date.now();
    const directories = new Set(trackers.flatMap((tracker) => [...tracker.pending.keys()]));
    const due: DuePartition[] = [];
    for (const directory of directories) {
      if (!trackers.every((tracker) => tracker.isVisible(directory))) continue;
      if (!ended && !this.#triggered(directory, trackers, watermark, now)) continue;
      due.push({ directory, seen: trackers.map((tracker) => tracker.pending.get(directory)?.lastCheckpoint) });
    }
    return due;
  }

  #triggered(directory: string, trackers: readonly PartitionCommitTracker[], watermark: number, now: number): boolean {
    const { trigger, delayMs } = this.options;
    if (trigger === 'process-time') {
      const created = Math.min(...trackers.map((tracker) => tracker.pending.get(directory)?.created ?? Number.POSITIVE_INFINITY));
      return delayMs === 0 || now > created + delayMs;
    }
    const { text, time } = this.extractTime(partitionValues(directory));
    if (time === undefined) {
      throw new WeirError(
        'CONNECTOR_ERROR',
        `filesystem sink '${this.io.table}' cannot commit partition ${directory} by partition time: '${text}' (from '${TIMESTAMP_PATTERN_OPTION}') is not a timestamp such as '2024-01-01 10:05:00'`,
      );
    }
    return watermark > time + delayMs;
  }

  async #writeSuccessFile(directory: string): Promise<void> {
    const file = `${directory}/${this.options.successFileName}`;
    const handle = await this.io.run('create the success file', file, () => open(this.io.path(file), 'w'));
    try {
      await this.io.run('fsync', file, () => handle.sync());
    } finally {
      await handle.close();
    }
    await this.io.syncDirectory(directory);
  }
}
