/**
 * The coordinator on its own, with real file storage and a scripted host: a checkpoint completes
 * only when every subtask acknowledged it, metadata before notification; one that does not
 * complete in time is aborted, and more aborted checkpoints in a row than tolerated fail the job.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Barrier } from '../../../src/runtime/checkpoint/barrier.js';
import { CheckpointCoordinator, type CheckpointConfig, type CoordinatorHost } from '../../../src/runtime/checkpoint/checkpoint-coordinator.js';
import { FileCheckpointStorage } from '../../../src/runtime/checkpoint/file-checkpoint-storage.js';

function setup(config: Partial<CheckpointConfig> = {}, acknowledge = true) {
  const dir = mkdtempSync(join(tmpdir(), 'weir-coordinator-'));
  const storage = new FileCheckpointStorage(dir, 'job');
  const events: string[] = [];
  const failures: unknown[] = [];
  let coordinator!: CheckpointCoordinator;
  const host: CoordinatorHost = {
    jobName: 'job',
    graphFingerprint: 'f',
    maxParallelism: 128,
    parallelism: { source: 1, sink: 2 },
    injectBarrier: (barrier: Barrier) => {
      events.push(`inject ${barrier.id}`);
      if (!acknowledge) return;
      for (const [nodeId, subtask] of [['source', 0], ['sink', 0], ['sink', 1]] as const) {
        queueMicrotask(() => coordinator.acknowledge(barrier.id, { nodeId, state: { subtask, keyGroups: [0, 127] } }));
      }
    },
    notifyComplete: async (id) => {
      events.push(`notify ${id} (metadata on disk: ${existsSync(join(storage.jobPath, `chk-${id}`, '_metadata'))})`);
    },
    fail: (error) => void failures.push(error),
  };
  coordinator = new CheckpointCoordinator(host, storage, { interval: undefined, mode: 'EXACTLY_ONCE', timeout: 1000, tolerableFailures: 0, retained: 2, ...config });
  return { coordinator, storage, events, failures };
}

describe('checkpoint coordinator', () => {
  it('completes when every subtask acknowledged: metadata first, then the notification', async () => {
    const { coordinator, storage, events } = setup();
    const path = await coordinator.trigger('checkpoint');
    expect(path).toBe(join(storage.jobPath, 'chk-1'));
    expect(events).toEqual(['inject 1', 'notify 1 (metadata on disk: true)']);
    const latest = await storage.latest();
    expect(latest?.metadata.operators.sink?.subtasks.map((s) => s.subtask)).toEqual([0, 1]);
    expect(coordinator.lastCompleted?.id).toBe(1);
  });

  it('aborts a checkpoint that times out and fails the job beyond the tolerated failures', async () => {
    const { coordinator, failures } = setup({ timeout: 30, tolerableFailures: 1 }, false);
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow('checkpoint 1 expired after 30 ms before all subtasks acknowledged it');
    expect(failures).toEqual([]);
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow('expired');
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('2 checkpoints failed in a row, more than tolerated (execution.checkpointing.tolerable-failed-checkpoints = 1)');
    expect(coordinator.failedCount).toBe(2);
  });

  it('ignores acknowledgements of an aborted checkpoint and keeps ids rising', async () => {
    const { coordinator } = setup({ timeout: 20, tolerableFailures: 5 }, false);
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow();
    coordinator.acknowledge(1, { nodeId: 'source', state: { subtask: 0, keyGroups: [0, 127] } });
    await expect(coordinator.trigger('savepoint')).rejects.toThrow('savepoint 2 expired');
  });
});
