/** The published Nexmark queries (Flink dialect, `../shared/nexmark/queries`), with the runner's placeholders filled in. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { ROOT } from './weir-cli.js';

/** Where the published queries are: shared beside the repository. */
export const NEXMARK_QUERIES_DIR = join(ROOT, '..', 'shared', 'nexmark', 'queries');

/** What the Nexmark runner substitutes for `${...}` (small, bounded runs). */
export const NEXMARK_PLACEHOLDERS: Readonly<Record<string, string>> = {
  TPS: '10000',
  EVENTS_NUM: '1000',
  PERSON_PROPORTION: '1',
  AUCTION_PROPORTION: '3',
  BID_PROPORTION: '46',
  NEXMARK_TABLE: 'datagen',
  FLINK_HOME: '/tmp',
  NEXMARK_DIR: '/tmp',
  SUBMIT_TIME: '1',
};

/** A published query file with its placeholders substituted (`overrides` win over the defaults). */
export function publishedSql(file: string, overrides: Readonly<Record<string, string>> = {}): string {
  const values = { ...NEXMARK_PLACEHOLDERS, ...overrides };
  return readFileSync(join(NEXMARK_QUERIES_DIR, file), 'utf8').replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for ${whole} in ${file}`);
    return value;
  });
}

/** The bid columns the window and OVER tests compare on. */
export interface NexmarkBid {
  auction: number;
  price: number;
  dateTime: Date;
}

/** An engine with the published DDL over `events` events at `tps` events per second of event time, and the bids that source generates. */
export async function engineWithNexmarkBids(events: number, tps = 2000): Promise<{ engine: Engine; bids: NexmarkBid[] }> {
  const engine = createEngine();
  await engine.execute(publishedSql('ddl.sql', { EVENTS_NUM: String(events), TPS: String(tps) }));
  const bids = (await engine.query('SELECT auction, price, `dateTime` FROM bid')) as unknown as NexmarkBid[];
  return { engine, bids };
}
