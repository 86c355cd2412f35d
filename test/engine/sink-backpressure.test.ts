/**
 * A sink whose pre-commit is in flight holds back its input: the sources pause (backpressure)
 * instead of the sink copying every arriving batch into memory. Barriers still pass a paused
 * source, so sinks that pre-commit together (a transaction group: each waits until the barrier
 * has reached all) cannot deadlock on the pause.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/api/connector.js';
import type { ChangeBatch } from '../../src/common/row.js';
import { createEngine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import type { PreparedTransaction, TransactionalSinkWriter } from '../../src/runtime/sink-writer.js';
import { startJob } from '../support/jobs.js';

/** What a test does while a `gated` sink pre-commits checkpoint `id` (the pre-commit waits for it). */
let onPrepare: (table: string, id: number) => Promise<void> = async () => {};
const committed = new Map<string, number>();

class GatedWriter implements TransactionalSinkWriter {
  private rows = 0;
  constructor(private readonly table: string) {}
  async open(): Promise<void> {}
  write(batch: ChangeBatch): void {
    this.rows += batch.size;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
  async prepareCommit(checkpointId: number): Promise<PreparedTransaction> {
    const rows = this.rows;
    this.rows = 0;
    await onPrepare(this.table, checkpointId);
    return { checkpointId, data: rows };
  }
  async commit(transactions: readonly PreparedTransaction[]): Promise<void> {
    for (const t of transactions) committed.set(this.table, (committed.get(this.table) ?? 0) + (t.data as number));
  }
  async recover(): Promise<void> {}
}

const gated: Connector = {
  descriptor: { name: 'gated', description: 'A transactional sink whose pre-commit waits for the test.', options: [], sink: { accepts: 'all' } },
  sink: { createWriter: (spec) => new GatedWriter(spec.table) },
};

const source = (name: string, rows: number, rate = 1_000_000): string => `CREATE TABLE ${name} (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${rows}');`;

beforeEach(() => {
  committed.clear();
  onPrepare = async () => {};
});

describe('sink backpressure', () => {
  it('while a pre-commit is in flight the source reads nothing', async () => {
    let job: JobHandle | undefined;
    const during: number[] = [];
    onPrepare = async () => {
      const before = job?.progress().rows ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 150));
      during.push((job?.progress().rows ?? 0) - before);
    };
    const engine = createEngine({ connectors: [gated], onWarning: () => {} });
    job = await startJob(
      engine,
      `SET 'execution.checkpointing.interval' = '20 ms';
       SET 'state.checkpoints.dir' = '${process.env.TMPDIR ?? '/tmp'}/weir-backpressure-${Date.now()}';
       ${source('src', 300_000)}
       CREATE TABLE out (id BIGINT) WITH ('connector' = 'gated');
       INSERT INTO out SELECT id FROM src;`,
    );
    expect(await job.result()).toBe('FINISHED');
    expect(during.length).toBeGreaterThan(1);
    expect(during.every((rows) => rows === 0), `rows read while a pre-commit was in flight: ${during.join(', ')}`).toBe(true);
    expect(committed.get('out')).toBe(300_000);
  });

  it('sinks fed by different sources that pre-commit together (each waits for the other) do not deadlock', async () => {
    const arrived = new Map<number, Set<string>>();
    const waiting = new Map<number, () => void>();
    onPrepare = (table, id) => {
      const tables = arrived.get(id) ?? new Set<string>();
      arrived.set(id, tables.add(table));
      if (tables.size === 2) {
        waiting.get(id)?.();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.set(id, resolve));
    };
    const engine = createEngine({ connectors: [gated], onWarning: () => {} });
    const job = await startJob(
      engine,
      `SET 'execution.checkpointing.interval' = '20 ms';
       SET 'state.checkpoints.dir' = '${process.env.TMPDIR ?? '/tmp'}/weir-backpressure-${Date.now()}';
       ${source('a', 50_000, 50_000)} ${source('b', 50_000, 50_000)}
       CREATE TABLE out_a (id BIGINT) WITH ('connector' = 'gated');
       CREATE TABLE out_b (id BIGINT) WITH ('connector' = 'gated');
       EXECUTE STATEMENT SET BEGIN
         INSERT INTO out_a SELECT id FROM a;
         INSERT INTO out_b SELECT id FROM b;
       END;`,
    );
    expect(await job.result()).toBe('FINISHED');
    expect([committed.get('out_a'), committed.get('out_b')]).toEqual([50_000, 50_000]);
    expect(arrived.size, 'checkpoints taken while both sources read').toBeGreaterThan(5);
  });
});
