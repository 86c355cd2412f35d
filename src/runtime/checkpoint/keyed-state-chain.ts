/**
 * The chain of keyed state files of one subtask (incremental checkpoints): the files of the last
 * completed checkpoint — a full file, then deltas — and for each checkpoint in flight the chain it
 * will have if it completes. A delta is only ever taken relative to a COMPLETED checkpoint: a
 * checkpoint that fails leaves the completed chain as it was, and the backend keeps the changed
 * keys of failed checkpoints in the next delta.
 *
 * When to materialise a full file again (bounding what a restore reads and what retention keeps):
 * the next checkpoint is full when the completed chain already holds {@link MAX_DELTAS} deltas, or
 * when its deltas together weigh more than its full file (and more than
 * {@link DELTA_BYTES_FLOOR}, so that a small state does not alternate full and delta) — not
 * counting the rows deltas append to lists, which replace nothing (a join's state that only grows
 * would otherwise be rewritten whole every other checkpoint). So a restore reads at most about
 * twice the size of the state, in at most 1 + MAX_DELTAS files. Savepoints are
 * always full and self-contained, and never become a base. After a restore the chain is empty, so
 * the first checkpoint is full.
 */
import type { KeyedStateFileRef } from './checkpoint-metadata.js';

/** Deltas after a full file at most; the checkpoint after that many is full. */
export const MAX_DELTAS = 9;

/** Deltas may weigh this much in all even when the full file is smaller. */
export const DELTA_BYTES_FLOOR = 64 * 1024;

/** A state file of the chain, with the checkpoint whose folder holds it. */
export interface ChainFile {
  readonly checkpointId: number;
  readonly name: string;
  readonly checksum: string;
  readonly bytes: number;
  readonly kind: 'full' | 'delta';
  /** Of its bytes, those of frames that only append rows to lists: they replace nothing before them (absent: none). */
  readonly appendedBytes?: number;
}

/** The chain of one subtask. */
export class KeyedStateChain {
  /** Undefined until a checkpoint of this run completed (no base to build on). */
  private completed: readonly ChainFile[] | undefined;
  private readonly pending = new Map<number, readonly ChainFile[]>();

  constructor(private readonly incremental: boolean) {}

  /** What the snapshot for a barrier writes: `delta` only for an incremental checkpoint with a completed base not due to be rematerialised. */
  nextKind(barrierKind: 'checkpoint' | 'savepoint'): 'full' | 'delta' {
    const base = this.completed;
    if (!this.incremental || barrierKind === 'savepoint' || base === undefined) return 'full';
    const deltas = base.filter((f) => f.kind === 'delta');
    if (deltas.length >= MAX_DELTAS) return 'full';
    const deltaBytes = deltas.reduce((sum, f) => sum + f.bytes - (f.appendedBytes ?? 0), 0);
    const fullBytes = base.find((f) => f.kind === 'full')?.bytes ?? 0;
    return deltaBytes > Math.max(fullBytes, DELTA_BYTES_FLOOR) ? 'full' : 'delta';
  }

  /**
   * The chain of checkpoint `checkpointId` whose snapshot was of `kind` and wrote `file` (none when
   * there was nothing to write), remembered until it completes. Savepoints are not remembered.
   */
  record(checkpointId: number, barrierKind: 'checkpoint' | 'savepoint', kind: 'full' | 'delta', file: ChainFile | undefined): readonly ChainFile[] {
    const before = kind === 'delta' ? (this.completed ?? []) : [];
    const chain = file === undefined ? before : [...before, file];
    if (barrierKind === 'checkpoint') this.pending.set(checkpointId, chain);
    return chain;
  }

  /** Checkpoint `checkpointId` completed: its chain is the base of the next deltas. Returns false when it was not this chain's checkpoint (a savepoint). */
  complete(checkpointId: number): boolean {
    const chain = this.pending.get(checkpointId);
    for (const id of [...this.pending.keys()]) if (id <= checkpointId) this.pending.delete(id);
    if (chain === undefined) return false;
    this.completed = chain;
    return true;
  }
}

/** The chain as checkpoint `checkpointId`'s metadata lists it: names relative to its folder. */
export function chainRefs(chain: readonly ChainFile[], checkpointId: number): KeyedStateFileRef[] {
  return chain.map((f) => ({ file: f.checkpointId === checkpointId ? f.name : `../chk-${f.checkpointId}/${f.name}`, checksum: f.checksum, bytes: f.bytes, kind: f.kind }));
}
