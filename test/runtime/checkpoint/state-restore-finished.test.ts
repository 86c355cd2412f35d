/**
 * Which restored subtasks start finished: all of a node's old subtasks finished — every new one,
 * at any parallelism; none — none; some — each as its old self at the same parallelism, and a
 * clear refusal at another one (a new subtask would mix finished and running ones' input and key
 * groups). Checkpoints of versions before 4 have no finished subtasks.
 */
import { describe, expect, it } from 'vitest';
import type { CheckpointMetadata, SubtaskState } from '../../../src/runtime/checkpoint/checkpoint-metadata.js';
import type { CompletedCheckpoint } from '../../../src/runtime/checkpoint/checkpoint-storage.js';
import { restoresFinished } from '../../../src/runtime/checkpoint/state-restore.js';
import type { Subtask } from '../../../src/runtime/task/subtask-wiring.js';

function checkpoint(finished: readonly boolean[], version = 4): CompletedCheckpoint {
  const subtasks: SubtaskState[] = finished.map((f, i) => ({ subtask: i, keyGroups: [0, 0], ...(version >= 4 && f ? { finished: true } : {}) }));
  const metadata: CheckpointMetadata = {
    version, jobName: 'job', checkpointId: 12, kind: 'checkpoint', completedAt: 0, graphFingerprint: 'g', maxParallelism: 128, finished: false,
    operators: { agg: { parallelism: finished.length, subtasks } },
  };
  return { metadata, path: '/ckpt/chk-12' } as CompletedCheckpoint;
}

/** Subtask `index` of node `agg` at `parallelism` (restoresFinished reads only these). */
const subtask = (index: number, parallelism: number): Subtask => ({ index, node: { id: 'agg', parallelism } }) as unknown as Subtask;

describe('restoresFinished', () => {
  it('a node whose subtasks all finished restores finished at any parallelism', () => {
    for (const parallelism of [1, 2, 3]) {
      for (let i = 0; i < parallelism; i++) expect(restoresFinished(subtask(i, parallelism), checkpoint([true, true]))).toBe(true);
    }
  });

  it('a node with no finished subtask (or an older checkpoint) restores running', () => {
    expect(restoresFinished(subtask(0, 3), checkpoint([false, false]))).toBe(false);
    expect(restoresFinished(subtask(1, 2), checkpoint([true, true], 3))).toBe(false);
  });

  it('a partly finished node restores each subtask as it was at the same parallelism, and is refused at another', () => {
    const partly = checkpoint([true, false]);
    expect(restoresFinished(subtask(0, 2), partly)).toBe(true);
    expect(restoresFinished(subtask(1, 2), partly)).toBe(false);
    expect(() => restoresFinished(subtask(0, 3), partly)).toThrow(
      'checkpoint 12 at /ckpt/chk-12 has 1 of the 2 subtasks of agg finished (their input ended) and the others running; it cannot be restored at another parallelism (3, was 2)',
    );
  });
});
