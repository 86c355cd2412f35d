/**
 * The coordinator on its own, with real file storage and a scripted host: a checkpoint completes
 * only when every subtask acknowledged it, metadata before notification; one that does not
 * complete in time is aborted, and more aborted checkpoints in a row than tolerated fail the job.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Barrier } from '../../../src/runtime/checkpoint/barrier.js';
import { CheckpointCoordinator, type CheckpointConfig, type CoordinatorHost } from '../../../src/runtime/checkpoint/checkpoint-coordinator.js';
import { FileCheckpointStorage } from '../../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { setFailpoints } from '../../../src/runtime/checkpoint/failpoints.js';

/** File storage whose retention fails, as a full or read-only disk would make it. */
class FailingRetentionStorage extends FileCheckpointStorage {
  override retain(): Promise<void> {
    return Promise.reject(new Error('EROFS: read-only file system'));
  }
}

function setup(config: Partial<CheckpointConfig> = {}, acknowledge = true, Storage = FileCheckpointStorage) {
  const dir = mkdtempSync(join(tmpdir(), 'weir-coordinator-'));
  const storage = new Storage(dir, 'job');
  const events: string[] = [];
  const failures: unknown[] = [];
  const warnings: string[] = [];
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
    warn: (message) => void warnings.push(message),
  };
  coordinator = new CheckpointCoordinator(host, storage, { interval: undefined, mode: 'EXACTLY_ONCE', timeout: 1000, tolerableFailures: 0, retained: 2, ...config });
  return { coordinator, storage, events, failures, warnings };
}

afterEach(() => setFailpoints(''));

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

  it('records a trigger that cannot reserve an id (an unreadable counter) as FAILED and counts it', async () => {
    const { coordinator, storage, failures } = setup({ tolerableFailures: 1 });
    mkdirSync(join(storage.jobPath, 'checkpoint-counter'), { recursive: true });
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow(/checkpoint could not be triggered: cannot read .*checkpoint-counter: EISDIR/);
    expect(coordinator.history).toEqual([expect.objectContaining({ id: undefined, kind: 'checkpoint', status: 'FAILED', failure: expect.stringContaining('EISDIR') })]);
    expect(coordinator.failedCount).toBe(1);
    expect(failures).toEqual([]);
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow('could not be triggered');
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('2 checkpoints failed in a row, more than tolerated (execution.checkpointing.tolerable-failed-checkpoints = 1)');
  });

  it('counts a corrupt counter as a failed checkpoint and fails the job when nothing is tolerated', async () => {
    const { coordinator, storage, failures } = setup();
    mkdirSync(storage.jobPath, { recursive: true });
    writeFileSync(join(storage.jobPath, 'checkpoint-counter'), 'garbage');
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow("is corrupt: expected a number, found 'garbage'");
    expect(failures).toHaveLength(1);
    expect(coordinator.history[0]?.status).toBe('FAILED');
  });

  it('a metadata write that fails is a failed checkpoint, counted against the tolerance; the next one completes', async () => {
    const { coordinator, failures, storage } = setup({ tolerableFailures: 1 });
    setFailpoints('checkpoint.after-acks-before-metadata=error@1');
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow('failpoint checkpoint.after-acks-before-metadata triggered');
    expect(failures).toEqual([]);
    expect(coordinator.history.map((r) => [r.id, r.status])).toEqual([[1, 'FAILED']]);
    expect(existsSync(join(storage.jobPath, 'chk-1'))).toBe(false);
    await coordinator.trigger('checkpoint');
    expect(coordinator.history.map((r) => [r.id, r.status])).toEqual([[1, 'FAILED'], [2, 'COMPLETED']]);
    expect(coordinator.failedCount).toBe(1);
  });

  it('a failed retention only warns: the checkpoint is complete and its sinks are notified', async () => {
    const { coordinator, failures, warnings, events } = setup({}, true, FailingRetentionStorage);
    await coordinator.trigger('checkpoint');
    expect(failures).toEqual([]);
    expect(events).toEqual(['inject 1', 'notify 1 (metadata on disk: true)']);
    expect(warnings).toEqual(['checkpoint 1 is complete, but older checkpoints could not be deleted (the next checkpoint tries again): EROFS: read-only file system']);
    expect(coordinator.history[0]?.status).toBe('COMPLETED');
  });

  it('a failed savepoint is recorded but not counted against the tolerance (as in Flink)', async () => {
    const { coordinator, failures } = setup({ timeout: 20 }, false);
    await expect(coordinator.trigger('savepoint')).rejects.toThrow('savepoint 1 expired');
    expect(failures).toEqual([]);
    expect(coordinator.history[0]).toEqual(expect.objectContaining({ id: 1, kind: 'savepoint', status: 'FAILED' }));
    expect(coordinator.failedCount).toBe(1);
  });

  it('warns about a snapshot failing for a checkpoint that had already failed', async () => {
    const { coordinator, warnings } = setup({ timeout: 20, tolerableFailures: 5 }, false);
    await expect(coordinator.trigger('checkpoint')).rejects.toThrow('expired');
    coordinator.decline(1, new Error('disk full'));
    expect(warnings).toEqual(['a snapshot for checkpoint 1, which had already failed, failed too: disk full']);
  });
});
