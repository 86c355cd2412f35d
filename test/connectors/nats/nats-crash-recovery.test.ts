/**
 * Exactly once from NATS into PostgreSQL under crashes: while the test publishes messages into a
 * stream, `weir run` reads them (bounded by the last sequence the test will publish) into an append
 * sink and a GROUP BY upsert sink with two-phase commit, with checkpoints every 100 ms. It is
 * killed with SIGKILL mid-stream at three failpoints of the checkpoint and sink protocol (before
 * the metadata is written, between PREPARE and the acknowledgement, between the metadata and the
 * commit) and restarted each time; each restart resumes right after
 * the stream sequence of its latest checkpoint. In the end every message is in the append table
 * exactly once, the aggregate equals Postgres computing it over those rows (EXCEPT ALL both ways
 * empty), and no prepared transaction is left.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runChild, runUntilDone } from '../../support/crash-harness.js';
import { expectRawAndAggregateExact, rawAndAggregateSinks } from '../../support/raw-and-aggregate-sinks.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { createTestStream, type TestStream } from './nats-test-util.js';

const ROWS = 12_000;

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Publishes messages `from`..`to` in order, 500 at a time every 50 ms, each batch acknowledged. */
async function publish(stream: TestStream, from: number, to: number): Promise<void> {
  for (let first = from; first <= to; first += 500) {
    const ids = Array.from({ length: Math.min(500, to - first + 1) }, (_, i) => first + i);
    await stream.publish('events', ids.map((id) => JSON.stringify({ id, k: id % 50, v: (id * 7919) % 1001 })));
    await new Promise((r) => setTimeout(r, 50));
  }
}

function script(dir: string, stream: TestStream, db: TestDatabase): string {
  const path = join(dir, 'job.sql');
  writeFileSync(
    path,
    `SET 'state.checkpoints.dir' = '${dir}/checkpoints';
     SET 'execution.checkpointing.interval' = '100 ms';
     SET 'pipeline.name' = 'nats-e2e';
     CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'nats', 'url' = '${stream.url}', 'stream' = '${stream.name}',
       'subject' = '${stream.name}.events', 'format' = 'json', 'scan.bounded.mode' = 'sequence', 'scan.bounded.sequence' = '${ROWS}');
     ${rawAndAggregateSinks(db.url)}`,
  );
  return path;
}

describe('nats → postgres exactly once under crashes', () => {
  it('killed mid-stream at three failpoints while messages arrive: the tables equal the batch answer', async () => {
    const stream = await createTestStream('crash');
    cleanup.push(() => stream.delete());
    const db = await createTestDatabase('nats_crash');
    cleanup.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'weir-nats-crash-'));
    const path = script(dir, stream, db);

    // Each crashed run stops at a failpoint while the stream is still short of its last sequence, so
    // mid-stream; messages keep arriving during the runs.
    let log = '';
    const crashes = ['checkpoint.after-acks-before-metadata=crash@4', 'sink.after-prepare-before-ack=crash@3', 'checkpoint.after-metadata-before-notify=crash@5'];
    for (const [i, failpoints] of crashes.entries()) {
      const publishing = publish(stream, i * 3_000 + 1, (i + 1) * 3_000);
      const run = await runChild(path, { cwd: dir, failpoints });
      log += run.stderr;
      expect(run.signal, `the run must die by SIGKILL at ${failpoints}: ${run.stderr}`).toBe('SIGKILL');
      await publishing;
    }
    const publishing = publish(stream, 9_001, ROWS);
    log += await runUntilDone(path, dir, []);
    await publishing;

    expect(log).toMatch(/resumed from checkpoint/);
    await expectRawAndAggregateExact(db.url, ROWS);
  });
});
