/**
 * When a subtask's next keyed state file is a delta and when the chain is materialised again: the
 * rules of keyed-state-chain.ts, driven checkpoint by checkpoint.
 */
import { describe, expect, it } from 'vitest';
import { DELTA_BYTES_FLOOR, KeyedStateChain, MAX_DELTAS, type ChainFile } from '../../../src/runtime/checkpoint/keyed-state-chain.js';

/** Takes checkpoint `id` of the kind the chain asks for, writing a file of `bytes` (of which `appendedBytes` only append rows), and completes it. */
function checkpoint(chain: KeyedStateChain, id: number, bytes: number, appendedBytes = 0): { kind: 'full' | 'delta'; files: readonly ChainFile[] } {
  const kind = chain.nextKind('checkpoint');
  const files = chain.record(id, 'checkpoint', kind, { checkpointId: id, name: `chk-${id}`, checksum: '', bytes, kind, appendedBytes: kind === 'delta' ? appendedBytes : 0 });
  expect(chain.complete(id)).toBe(true);
  return { kind, files };
}

describe('keyed state chain', () => {
  it('starts full, then builds deltas on the last completed checkpoint, and is full again after MAX_DELTAS deltas', () => {
    const chain = new KeyedStateChain(true);
    expect(checkpoint(chain, 1, 10 * DELTA_BYTES_FLOOR).kind).toBe('full');
    for (let id = 2; id <= MAX_DELTAS + 1; id++) {
      const { kind, files } = checkpoint(chain, id, 100);
      expect(kind).toBe('delta');
      expect(files.map((f) => f.checkpointId)).toEqual(Array.from({ length: id }, (_, i) => i + 1));
    }
    const { kind, files } = checkpoint(chain, MAX_DELTAS + 2, 10 * DELTA_BYTES_FLOOR);
    expect(kind).toBe('full');
    expect(files.map((f) => f.checkpointId)).toEqual([MAX_DELTAS + 2]);
  });

  it('is full again once the deltas outweigh the full file, not counting rows they only append', () => {
    const full = 4 * DELTA_BYTES_FLOOR;
    const replacing = new KeyedStateChain(true);
    checkpoint(replacing, 1, full);
    expect(checkpoint(replacing, 2, full / 2 + 1).kind).toBe('delta');
    expect(checkpoint(replacing, 3, full / 2 + 1).kind).toBe('delta');
    expect(checkpoint(replacing, 4, 100).kind).toBe('full');
    // The same bytes, nearly all rows appended to lists (a join's state that only grows): deltas go on.
    const appending = new KeyedStateChain(true);
    checkpoint(appending, 1, full);
    for (let id = 2; id <= 5; id++) expect(checkpoint(appending, id, full, full - 10).kind).toBe('delta');
  });

  it('keeps deltas while they stay under the floor, however small the full file', () => {
    const chain = new KeyedStateChain(true);
    checkpoint(chain, 1, 10);
    expect(checkpoint(chain, 2, DELTA_BYTES_FLOOR / 2).kind).toBe('delta');
    expect(checkpoint(chain, 3, DELTA_BYTES_FLOOR / 2).kind).toBe('delta');
    expect(checkpoint(chain, 4, 1).kind).toBe('delta'); // exactly the floor
    expect(checkpoint(chain, 5, 10).kind).toBe('full');
  });

  it('writes savepoints, and every checkpoint without incremental checkpoints, in full; a failed checkpoint leaves the base as it was', () => {
    const chain = new KeyedStateChain(true);
    checkpoint(chain, 1, 1000);
    expect(chain.nextKind('savepoint')).toBe('full');
    // Checkpoint 2 never completes: checkpoint 3 builds on checkpoint 1.
    chain.record(2, 'checkpoint', 'delta', { checkpointId: 2, name: 'chk-2', checksum: '', bytes: 10, kind: 'delta' });
    expect(checkpoint(chain, 3, 10).files.map((f) => f.checkpointId)).toEqual([1, 3]);
    const plain = new KeyedStateChain(false);
    checkpoint(plain, 1, 1000);
    expect(checkpoint(plain, 2, 1000).kind).toBe('full');
  });
});
