/**
 * The `nexmark` connector with a stopwatch around its reader's `poll`: weir's runs report both
 * their end-to-end rate (generator included, as Flink's figures are) and the rate with the time
 * spent generating events taken out, which is what the references (consuming pre-generated
 * events) are compared with.
 */
import type { Connector } from '../src/connectors/api/connector.js';
import { nexmarkConnector } from '../src/connectors/nexmark/nexmark-connector.js';
import type { SourceReader } from '../src/runtime/source-reader.js';

/** Milliseconds spent inside the readers' `poll`, and when the first poll began. */
export interface GeneratorClock {
  ms: number;
  /** `performance.now()` at the start of the first poll; undefined before it. */
  firstPollAt?: number;
}

function timed(reader: SourceReader, clock: GeneratorClock): SourceReader {
  return {
    open: (context) => reader.open(context),
    poll: (output, maxRecords) => {
      const start = performance.now();
      clock.firstPollAt ??= start;
      const status = reader.poll(output, maxRecords);
      clock.ms += performance.now() - start;
      return status;
    },
    currentOffset: () => reader.currentOffset(),
    seek: (offset) => reader.seek?.(offset),
    close: () => reader.close(),
  };
}

/** A `nexmark` connector (replacing the built-in one) whose readers add their poll time to `clock`. */
export function timedNexmarkConnector(clock: GeneratorClock): Connector {
  return {
    descriptor: nexmarkConnector.descriptor,
    source: { createReader: (spec) => timed(nexmarkConnector.source!.createReader(spec), clock) },
  };
}
