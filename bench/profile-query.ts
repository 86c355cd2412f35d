/**
 * Profiles weir on one Nexmark query over events generated ahead (the replayed source), with the
 * CPU profiler running only from the source's first poll: `npm run profile -- q8 1000000 out.cpuprofile`.
 * A development tool beside the benchmark; it measures nothing the report uses.
 */
import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { createEngine } from '../src/engine/engine.js';
import { nexmarkDdl, nexmarkQueries } from './nexmark-query-catalog.js';
import { replayedNexmarkConnector } from './replayed-nexmark-connector.js';
import type { GeneratorClock } from './timed-nexmark-connector.js';

/** The profile without the samples taken before `skipMicros` (opening the source generates its events). */
function fromFirstPoll(profile: Profiler.Profile, skipMicros: number): Profiler.Profile {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let elapsed = 0;
  let first = 0;
  while (first < samples.length && (elapsed += deltas[first]!) < skipMicros) first++;
  return { ...profile, startTime: profile.startTime + elapsed, samples: samples.slice(first), timeDeltas: [0, ...deltas.slice(first + 1)] };
}

const [name = 'q8', eventsText = '1000000', output = 'query.cpuprofile'] = process.argv.slice(2);
const query = nexmarkQueries().find((q) => q.name === name);
if (query === undefined) throw new Error(`unknown query ${name}`);
const workload = { events: Number(eventsText), tps: 10_000_000 };
const clock: GeneratorClock = { ms: 0 };
const engine = createEngine({ onWarning: () => {}, connectors: [replayedNexmarkConnector(clock)] });
await engine.execute(nexmarkDdl(workload, '/tmp'));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const started = performance.now();
await session.post('Profiler.start');
const job = (await engine.execute(query.sql(workload, '/tmp'))).find((r) => r.kind === 'job');
if (job?.kind !== 'job') throw new Error('no job');
await job.job.result();
const { profile } = await session.post('Profiler.stop');
const firstPoll = clock.firstPollAt ?? started;
const ms = performance.now() - firstPoll - clock.ms;
writeFileSync(output, JSON.stringify(fromFirstPoll(profile, (firstPoll - started) * 1000)));
console.log(`${name}: ${(workload.events / (ms / 1000)).toFixed(0)} ev/s with the profiler on, profile in ${output}`);
