/**
 * Restoring a job's state from a checkpoint: keyed state of every old subtask is redistributed to
 * the subtasks that own its keys' key groups now (the parallelism may have changed); operator
 * state is handed out round-robin, except that a sink's prepared transactions all go to its
 * subtask 0, which commits or aborts them before any subtask writes. A subtask that had finished
 * restores finished (see {@link restoresFinished}).
 */
import { WeirError } from '../../common/errors.js';
import { UTC_ZONE } from '../../common/time-zone.js';
import { subtaskOfKeyGroup } from '../../common/key-codec.js';
import { graphFingerprint, partFingerprints, type JobGraph } from '../../dataflow/job-graph.js';
import type { Subtask } from '../task/subtask-wiring.js';
import type { SubtaskState } from './checkpoint-metadata.js';
import type { CheckpointStorage, CompletedCheckpoint } from './checkpoint-storage.js';
import { failpoint } from './failpoints.js';
import { RemovedKeys } from '../state/snapshotting-state-backend.js';

/**
 * The subtasks `checkpoint` restores: every one, when it was taken by the same graph (another
 * graph is refused); in a graph of parts, those of the parts whose fingerprint is unchanged — the
 * others start afresh.
 */
export function restorableSubtasks(subtasks: readonly Subtask[], graph: JobGraph, checkpoint: CompletedCheckpoint): Set<Subtask> {
  const { metadata } = checkpoint;
  if (graph.nodes.some((n) => n.part !== undefined)) {
    const now = partFingerprints(graph);
    return new Set(subtasks.filter(({ node }) => node.part !== undefined && metadata.partFingerprints?.[node.part] === now[node.part] && metadata.operators[node.id] !== undefined));
  }
  const [then, now] = [metadata.localTimeZone ?? UTC_ZONE, graph.localTimeZone ?? UTC_ZONE];
  if (then !== now && metadata.graphFingerprint !== graphFingerprint(graph)) {
    throw new WeirError('CHECKPOINT_ERROR', `${metadata.kind} ${metadata.checkpointId} at ${checkpoint.path} was taken by job '${graph.name}' computing in time zone '${then}', not '${now}'; it cannot be restored in another zone`, {
      hint: `SET 'table.local-time-zone' = '${then}' to resume it, or start the job from scratch (weir run --fresh)`,
    });
  }
  if (metadata.graphFingerprint !== graphFingerprint(graph)) {
    throw new WeirError('CHECKPOINT_ERROR', `${metadata.kind} ${metadata.checkpointId} at ${checkpoint.path} was taken by a different query than job '${graph.name}' runs now; it cannot be restored`, {
      hint: 'start the job from scratch (weir run --fresh), or restore the query the checkpoint was taken with',
    });
  }
  return new Set(subtasks);
}

/**
 * Loads keyed state into the given subtasks (see {@link restorableSubtasks}); refuses a checkpoint
 * of another max-parallelism. Each old subtask's chain (full file, then deltas) is applied in
 * order, or newest first where the backend can (the same state, without decoding the entries
 * newer files replaced); with another parallelism a subtask reads only the chains of old subtasks whose key groups
 * overlap its own, and decodes only the key groups it owns.
 */
export async function restoreKeyedState(subtasks: readonly Subtask[], checkpoint: CompletedCheckpoint, storage: CheckpointStorage, maxParallelism: number): Promise<void> {
  const { metadata } = checkpoint;
  if (metadata.maxParallelism !== maxParallelism) {
    throw new WeirError('CHECKPOINT_ERROR', `${metadata.kind} ${metadata.checkpointId} was taken with pipeline.max-parallelism ${metadata.maxParallelism}, which can never change (now ${maxParallelism})`);
  }
  failpoint('recovery.during-restore');
  // Every chain to apply, in order: the files are read one ahead of the one being decoded, so that
  // reading, which runs off the main thread, overlaps decoding instead of adding to it (a read's
  // checksum is verified in slices between turns of the event loop, on the main thread).
  const chains: { subtask: Subtask; oldSubtask: number; files: { file: string; checksum?: string }[]; ownsGroup: (keyGroup: number) => boolean }[] = [];
  for (const subtask of subtasks) {
    const old = metadata.operators[subtask.node.id]!;
    const sameLayout = old.parallelism === subtask.node.parallelism;
    const [first, last] = keyGroupRange(subtask.index, subtask.node.parallelism, maxParallelism);
    const ownsGroup = sameLayout ? (): boolean => true : (keyGroup: number): boolean => subtaskOfKeyGroup(keyGroup, subtask.node.parallelism, maxParallelism) === subtask.index;
    for (const oldSubtask of old.subtasks) {
      if (sameLayout && oldSubtask.subtask !== subtask.index) continue;
      if (!sameLayout && (oldSubtask.keyGroups[1] < first || oldSubtask.keyGroups[0] > last)) continue;
      const files = keyedStateFiles(oldSubtask);
      // A backend that can takes a chain newest first, never decoding what newer files replaced.
      if (subtask.state.restoresNewestFirst) files.reverse();
      chains.push({ subtask, oldSubtask: oldSubtask.subtask, files, ownsGroup });
    }
  }
  const reads = new ReadAhead(chains.flatMap(({ files }) => files.map((ref) => () => storage.readStateFile(checkpoint, ref.file, ref.checksum))));
  for (const { subtask, oldSubtask, files, ownsGroup } of chains) {
    const newer = subtask.state.restoresNewestFirst && files.length > 1 ? new RemovedKeys() : undefined;
    for (const ref of files) subtask.state.restoreKeyGroups(await reads.next(), ownsGroup, `${checkpoint.path}/${ref.file}`, newer);
    newer?.checkComplete(`${checkpoint.path} (subtask ${oldSubtask} of ${subtask.node.id})`);
  }
}

/**
 * Runs reads in order, each started when the one before it is taken (one ahead). A read that
 * fails fails when it is taken; one never taken (the restore failed before it) is abandoned with
 * the restore, whose own error is the one reported.
 */
class ReadAhead<T> {
  private index = 0;
  private ahead: Promise<{ value: T } | { error: unknown }> | undefined;

  constructor(private readonly reads: readonly (() => Promise<T>)[]) {
    this.ahead = this.start();
  }

  /** The next read's result, starting the one after it. */
  async next(): Promise<T> {
    const current = this.ahead;
    if (current === undefined) throw new Error('no state file is left to read');
    this.ahead = this.start();
    const result = await current;
    if ('error' in result) throw result.error;
    return result.value;
  }

  private start(): Promise<{ value: T } | { error: unknown }> | undefined {
    const read = this.reads[this.index++];
    return read?.().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  }
}

/** The keyed state files of an old subtask in the order they apply: its chain (version 3) or its one file (versions 1 and 2). */
function keyedStateFiles(state: SubtaskState): { file: string; checksum?: string }[] {
  if (state.keyedStateChain !== undefined) return [...state.keyedStateChain];
  if (state.keyedStateFile === undefined) return [];
  return [{ file: state.keyedStateFile, ...(state.keyedStateChecksum === undefined ? {} : { checksum: state.keyedStateChecksum }) }];
}

/** The key groups a subtask owns: [first, last] inclusive, the groups `subtaskOfKeyGroup` maps to it. */
export function keyGroupRange(index: number, parallelism: number, maxParallelism: number): [number, number] {
  return [Math.ceil((index * maxParallelism) / parallelism), Math.ceil(((index + 1) * maxParallelism) / parallelism) - 1];
}

/** The operator states of the old subtasks that this subtask takes over. */
export function restoredOperatorState(subtask: Subtask, checkpoint: CompletedCheckpoint): unknown[] {
  const old = checkpoint.metadata.operators[subtask.node.id]!.subtasks;
  const mine = subtask.node.spec.kind === 'sink' ? (subtask.index === 0 ? old : []) : old.filter((s) => s.subtask % subtask.node.parallelism === subtask.index);
  return mine.flatMap((s) => (s.operatorState === undefined ? [] : [s.operatorState]));
}

/**
 * Whether a restored subtask starts finished (it had read or processed all its input: it reads and
 * emits nothing, as Flink skips fully finished operators). Every old subtask of its node finished:
 * yes, at any parallelism (none holds keyed state). None: no. Some (a source's subtasks ended at
 * different times, or forward edges finished one pipeline before another): at the same parallelism
 * each subtask restores as its old self; at another one a new subtask would take key groups, or
 * input, of finished and running subtasks together, which cannot be right — refused.
 */
export function restoresFinished(subtask: Subtask, checkpoint: CompletedCheckpoint): boolean {
  const { metadata } = checkpoint;
  const old = metadata.operators[subtask.node.id]!;
  const finished = old.subtasks.filter((s) => s.finished === true).length;
  if (finished === 0) return false;
  if (finished === old.subtasks.length) return true;
  if (old.parallelism === subtask.node.parallelism) return old.subtasks.find((s) => s.subtask === subtask.index)?.finished === true;
  throw new WeirError(
    'CHECKPOINT_ERROR',
    `${metadata.kind} ${metadata.checkpointId} at ${checkpoint.path} has ${finished} of the ${old.subtasks.length} subtasks of ${subtask.node.id} finished (their input ended) and the others running; it cannot be restored at another parallelism (${subtask.node.parallelism}, was ${old.parallelism})`,
    { hint: `restore it at parallelism ${old.parallelism} (the finished subtasks hold no state to redistribute), or start the job from scratch (weir run --fresh)` },
  );
}
