/**
 * The Nexmark queries ElectricSQL's d2mini (a TypeScript differential-dataflow library, weir's
 * nearest peer) can express: stateless q0–q2, the q3 join and a GROUP BY count/sum. Each feeds
 * a source batch into the graph as a multiset of inserts and runs the graph once per batch; its
 * output multiset becomes changes (+I for a positive multiplicity, -D for a negative one).
 */
import { D2, MultiSet, filter, groupBy, groupByOperators, innerJoin, map, output, type IStreamBuilder } from '@electric-sql/d2mini';
import { RowKind } from '../src/common/row-kind.js';
import type { ChangeBatch, Row } from '../src/common/row.js';
import type { ReferenceQuery } from './handwritten-queries.js';

type Event = Row;

/** Builds a d2mini graph over one input of events; `pipeline` returns the stream whose changes are the result. */
function d2miniQuery(pipeline: (events: IStreamBuilder<Event>) => IStreamBuilder<unknown>): () => ReferenceQuery {
  return () => {
    const graph = new D2();
    const input = graph.newInput<Event>();
    let sink: ChangeBatch | undefined;
    pipeline(input).pipe(
      output((changes) => {
        for (const [row, multiplicity] of changes.getInner()) {
          const kind = multiplicity > 0 ? RowKind.INSERT : RowKind.DELETE;
          for (let n = Math.abs(multiplicity); n > 0; n--) sink!.push(kind, row as Row);
        }
      }),
    );
    graph.finalize();
    return {
      process(events, out) {
        sink = out;
        input.sendData(new MultiSet(events.map((e): [Event, number] => [e, 1])));
        graph.run();
      },
      finish() {},
    };
  };
}

const isBid = (e: Event): boolean => e[0] === 2;
const bidOf = (e: Event): Row => e[3] as Row;

/** The d2mini queries by name. */
export const D2MINI_QUERIES: Readonly<Record<string, () => ReferenceQuery>> = {
  q0: d2miniQuery((events) =>
    events.pipe(
      filter(isBid),
      map((e) => {
        const b = bidOf(e);
        return [b[0], b[1], b[2], b[5], b[6]];
      }),
    ),
  ),
  q1: d2miniQuery((events) =>
    events.pipe(
      filter(isBid),
      map((e) => {
        const b = bidOf(e);
        return [b[0], b[1], BigInt(b[2] as number) * 908n, b[5], b[6]];
      }),
    ),
  ),
  q2: d2miniQuery((events) =>
    events.pipe(
      filter((e) => isBid(e) && (bidOf(e)[0] as number) % 123 === 0),
      map((e) => [bidOf(e)[0], bidOf(e)[2]]),
    ),
  ),
  q3: d2miniQuery((events) => {
    const persons = events.pipe(
      filter((e) => {
        const state = e[0] === 0 ? (e[1] as Row)[5] : undefined;
        return state === 'OR' || state === 'ID' || state === 'CA';
      }),
      map((e): [number, Row] => {
        const p = e[1] as Row;
        return [p[0] as number, [p[1], p[4], p[5]]];
      }),
    );
    return events.pipe(
      filter((e) => e[0] === 1 && (e[2] as Row)[8] === 10),
      map((e): [number, number] => {
        const a = e[2] as Row;
        return [a[7] as number, a[0] as number];
      }),
      innerJoin(persons),
      map(([, [auction, person]]) => [person[0], person[1], person[2], auction]),
    );
  }),
  groupby: d2miniQuery((events) =>
    events.pipe(
      filter(isBid),
      groupBy((e: Event) => ({ auction: bidOf(e)[0] as number }), {
        num: groupByOperators.count<Event>(),
        total: groupByOperators.sum<Event>((e) => bidOf(e)[2] as number),
      }),
      map(([, r]) => [r.auction, r.num, r.total]),
    ),
  ),
};
