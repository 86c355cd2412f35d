/**
 * How a bench run that measured only part of the suite (`--only`) is merged with the results file
 * before it: what the run did not measure is kept from the previous report, what it measured
 * replaces the old figures, and a Nexmark run of another workload replaces the whole table (no
 * table mixes event counts). State-at-scale cases are merged by backend, keys, rows and key order.
 */
import { describe, expect, it } from 'vitest';
import { carryOver, type BenchReport } from '../../bench/results-report.js';

type Case = NonNullable<BenchReport['stateScale']>['cases'][number];

/** A report with the given Nexmark rows (query and rate) and sections; only the fields the merge reads are real. */
function report(events: number, rows: readonly [query: string, rate: number][], sections: Partial<BenchReport> = {}): BenchReport {
  return {
    workload: { events, tps: 10_000_000, runs: 1, pinnedCore: 1 },
    results: rows.map(([query, rate]) => ({ query, engine: 'weir', events, checkpointing: false, status: 'ok', rate })),
    ...sections,
  } as unknown as BenchReport;
}

/** A state-at-scale pair of runs, told apart by its rate. */
function scaleCase(backend: string, keys: number, rows: number, rate: number, sequence = false): Case {
  const run = { backend, keys, rows, rowsPerSecond: rate, ...(sequence ? { sequence } : {}) };
  return { plain: run, checkpointed: run } as unknown as Case;
}

const rates = (r: BenchReport): [string, number][] => r.results.map((m) => [m.query, (m as unknown as { rate: number }).rate]);

describe('merging a partial bench run into the previous results', () => {
  it('keeps the queries a run of the same workload did not measure, and takes the ones it did', () => {
    const merged = carryOver(report(1000, [['q0', 1], ['q1', 2], ['q2', 3]]), report(1000, [['q1', 20]]));
    expect(rates(merged)).toEqual([['q0', 1], ['q2', 3], ['q1', 20]]);
  });

  it('replaces the whole Nexmark table when the run had another workload, and keeps it when the run measured no query', () => {
    expect(rates(carryOver(report(1000, [['q0', 1], ['q1', 2]]), report(5000, [['q1', 20]])))).toEqual([['q1', 20]]);
    const kept = carryOver(report(1000, [['q0', 1]]), report(5000, [], { recovery: [] }));
    expect(rates(kept)).toEqual([['q0', 1]]);
    expect(kept.workload.events).toBe(1000);
  });

  it('keeps the sections a run did not measure and replaces the ones it did', () => {
    const recovery = [{ keys: 1, restoredEntries: 1, checkpointBytes: 1, restartToProcessingMs: 9, peakRssMb: 1 }];
    const newer = [{ ...recovery[0]!, restartToProcessingMs: 5 }];
    const dss = { rows: 1 } as unknown as BenchReport['dss'];
    const merged = carryOver(report(1000, [], { recovery, dss }), report(1000, [], { recovery: newer }));
    expect(merged.recovery).toEqual(newer);
    expect(merged.dss).toBe(dss);
  });

  it('merges state-at-scale cases by backend, keys, rows and key order, the new ones last', () => {
    const previous = report(1000, [], { stateScale: { cases: [scaleCase('hashmap', 1, 4, 10), scaleCase('rocksdb', 1, 4, 11), scaleCase('rocksdb', 50, 50, 12, true)] } });
    const current = report(1000, [], { stateScale: { cases: [scaleCase('rocksdb', 1, 4, 21), scaleCase('rocksdb', 50, 50, 22)] } });
    const cases = carryOver(previous, current).stateScale!.cases.map((c) => (c.plain as unknown as { rowsPerSecond: number }).rowsPerSecond);
    // The sequential 50-key case is another case than the random one; rocksdb 1:4 was measured again.
    expect(cases).toEqual([10, 12, 21, 22]);
  });

  it('is the run itself when there was no previous report', () => {
    const current = report(1000, [['q0', 1]]);
    expect(carryOver(undefined, current)).toBe(current);
  });
});
