/**
 * The first benchmark: datagen → GROUP BY key COUNT(*), SUM(v) over 10K keys → blackhole, run by
 * weir, beside a hand-written loop over a Map that produces the same changelog from the same rows
 * (generated up front, outside the timed part), in the same process.
 */
import { ChangeBatch } from '../src/common/row.js';
import { RowKind } from '../src/common/row-kind.js';
import { datagenConnector } from '../src/connectors/datagen/datagen-connector.js';
import { createEngine } from '../src/engine/engine.js';
import { sourceDdl, timeJob } from './bench-job.js';

/** One measured run. */
export interface Measurement {
  readonly name: string;
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly changes: number;
}

const KEYS = 10_000;
const BATCH = 1024;


/** weir end to end: source generation included. */
export async function runWeirGroupBy(rows: number): Promise<Measurement> {
  const engine = createEngine();
  await engine.execute(`${sourceDdl(rows, KEYS)};
    CREATE TABLE sink (k INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`);
  const { job, seconds } = await timeJob(engine, 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k');
  const changes = job.metrics().find((m) => m.node.endsWith('group-aggregate'))!.recordsOut;
  return { name: 'weir', rows, seconds, rowsPerSecond: rows / seconds, changes };
}

/** weir reading the source into a blackhole: what the source alone costs. */
export async function runWeirSourceOnly(rows: number): Promise<Measurement> {
  const engine = createEngine();
  await engine.execute(`${sourceDdl(rows, KEYS)}; CREATE TABLE sink (k INT, v BIGINT) WITH ('connector' = 'blackhole');`);
  const { seconds } = await timeJob(engine, 'INSERT INTO sink SELECT k, v FROM src');
  return { name: 'weir source → blackhole', rows, seconds, rowsPerSecond: rows / seconds, changes: rows };
}

/** The same rows as weir's source, generated once, in batches. */
export async function generateRows(rows: number): Promise<unknown[][][]> {
  const engine = createEngine();
  await engine.execute(sourceDdl(rows, KEYS));
  const table = engine.session.catalog.getTable('src');
  const reader = datagenConnector.source!.createReader({
    kind: 'source',
    table: 'src',
    connector: 'datagen',
    options: Object.fromEntries(table.options),
    schema: table.columns.map((c) => ({ name: c.name, type: c.type })),
  });
  await reader.open({ subtask: 0, parallelism: 1, warn: () => {} });
  const batches: unknown[][][] = [];
  for (;;) {
    const batch = new ChangeBatch();
    const status = await reader.poll(batch, BATCH);
    if (batch.size > 0) batches.push(batch.rows);
    if (status === 'end') break;
  }
  await reader.close();
  return batches;
}

/**
 * The practical limit in JavaScript: a Map of [count, sum] per key, and per batch one +I or -U/+U
 * pair per changed key, collected into an output batch that is then dropped (the blackhole).
 */
export function runHandwritten(batches: readonly unknown[][][]): Measurement {
  const state = new Map<number, { count: number; sum: number; stamp: number; prevCount: number; prevSum: number }>();
  const out = new ChangeBatch();
  const touched: number[] = [];
  let changes = 0;
  let rows = 0;
  const start = performance.now();
  for (let b = 0; b < batches.length; b++) {
    const batch = batches[b]!;
    touched.length = 0;
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      const key = row[0] as number;
      let acc = state.get(key);
      if (acc === undefined) {
        acc = { count: 0, sum: 0, stamp: -1, prevCount: 0, prevSum: 0 };
        state.set(key, acc);
      }
      if (acc.stamp !== b) {
        acc.stamp = b;
        acc.prevCount = acc.count;
        acc.prevSum = acc.sum;
        touched.push(key);
      }
      acc.count++;
      acc.sum += row[1] as number;
    }
    out.clear();
    for (const key of touched) {
      const acc = state.get(key)!;
      if (acc.prevCount === 0) out.push(RowKind.INSERT, [key, acc.count, acc.sum]);
      else {
        out.push(RowKind.UPDATE_BEFORE, [key, acc.prevCount, acc.prevSum]);
        out.push(RowKind.UPDATE_AFTER, [key, acc.count, acc.sum]);
      }
    }
    changes += out.size;
    rows += batch.length;
  }
  const seconds = (performance.now() - start) / 1000;
  return { name: 'hand-written loop', rows, seconds, rowsPerSecond: rows / seconds, changes };
}
