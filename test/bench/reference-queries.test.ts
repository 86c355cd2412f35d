/**
 * The benchmark's references are only meaningful if they compute what weir computes: for every
 * query with a hand-written or d2mini implementation, its changelog over the nexmark source equals
 * the changelog weir writes into a sink, as a multiset of (row kind, row), on two small workloads
 * (one whose windows fire during the run, one at Flink V1's event-time rate, where they fire at
 * the end). weir over the source replaying events generated ahead (what the references are
 * compared with) writes what it writes over the generating source.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeBatch } from '../../src/common/row.js';
import { ROW_KIND_SHORT } from '../../src/common/row-kind.js';
import { createEngine } from '../../src/engine/engine.js';
import { D2MINI_QUERIES } from '../../bench/d2mini-queries.js';
import { HANDWRITTEN_QUERIES, type ReferenceQuery } from '../../bench/handwritten-queries.js';
import { allEvents } from '../../bench/nexmark-events.js';
import { nexmarkDdl, nexmarkQueries, type NexmarkWorkload } from '../../bench/nexmark-query-catalog.js';
import { replayedNexmarkConnector } from '../../bench/replayed-nexmark-connector.js';
import type { Connector } from '../../src/connectors/api/connector.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';

const WORKLOADS: readonly NexmarkWorkload[] = [
  { events: 40_000, tps: 1_000 },
  { events: 20_000, tps: 10_000_000 },
];

const key = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** A changelog as sorted `kind row` strings. */
function multiset(changes: readonly (readonly [string, unknown])[]): string[] {
  return changes.map(([kind, row]) => `${kind} ${key(row)}`).sort();
}

/** d2mini knows only insertions and retractions: -U compares as -D, +U as +I. */
function withoutUpdates(changelog: readonly string[]): string[] {
  return changelog.map((c) => c.replace(/^-U /, '-D ').replace(/^\+U /, '+I ')).sort();
}

async function weirChangelog(query: string, workload: NexmarkWorkload, source?: Connector): Promise<string[]> {
  resetCollected();
  const engine = createEngine({ connectors: [collectConnector, ...(source === undefined ? [] : [source])] });
  await engine.execute(nexmarkDdl(workload, '/tmp'));
  const sql = nexmarkQueries().find((q) => q.name === query)!.sql(workload, '/tmp').replace(/'connector'\s*=\s*'blackhole'/, "'connector' = 'collect'");
  const job = (await engine.execute(sql)).find((r) => r.kind === 'job');
  if (job?.kind !== 'job') throw new Error(`${query} started no job`);
  expect(await job.job.result(), String(job.job.error)).toBe('FINISHED');
  return multiset(collected(`nexmark_${query}`));
}

async function referenceChangelog(create: () => ReferenceQuery, workload: NexmarkWorkload): Promise<string[]> {
  const reference = create();
  const out = new ChangeBatch();
  for (const events of await allEvents(workload)) reference.process(events, out);
  reference.finish(out);
  return multiset(out.rows.map((row, i) => [ROW_KIND_SHORT[out.kinds[i]!], row] as const));
}

afterEach(() => resetCollected());

describe.each(WORKLOADS)('references equal weir on $events events at $tps events/s', (workload) => {
  for (const [engine, queries] of [['hand-written', HANDWRITTEN_QUERIES], ['d2mini', D2MINI_QUERIES]] as const) {
    for (const [query, create] of Object.entries(queries)) {
      it(`${engine} ${query}`, async () => {
        const expected = await weirChangelog(query, workload);
        expect(expected.length).toBeGreaterThan(0);
        const actual = await referenceChangelog(create, workload);
        if (engine === 'd2mini') expect(actual).toEqual(withoutUpdates(expected));
        else expect(actual).toEqual(expected);
      });
    }
  }
});

describe('the replayed nexmark source', () => {
  it('gives weir the events of the generating source, also across chunks generated while it runs', async () => {
    const workload = { events: 20_000, tps: 1_000 };
    const clock = { ms: 0 };
    for (const query of ['q3', 'q5']) {
      const generated = await weirChangelog(query, workload);
      expect(generated.length).toBeGreaterThan(0);
      expect(await weirChangelog(query, workload, replayedNexmarkConnector(clock, 4_000))).toEqual(generated);
    }
    expect(clock.ms).toBeGreaterThan(0);
  });
});
