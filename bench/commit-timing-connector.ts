/**
 * The `postgres` connector with a clock on its writers' checkpoint protocol: when the barrier
 * reached the sink, when PREPARE TRANSACTION (or, at least once, COMMIT) returned, when the sink
 * was told the checkpoint completed and when COMMIT PREPARED returned — per checkpoint — and when
 * the writer had opened (connected, created its tables). Instants are `Date.now()`: the clock of
 * the checkpoint's `completedAt` and of the server's commit timestamps (the monotonic clock behind
 * `performance.now()` drifts from it by about a millisecond). Everything else is the built-in
 * connector, unchanged.
 */
import type { Connector } from '../src/connectors/api/connector.js';
import { postgresConnector } from '../src/connectors/postgres/postgres-connector.js';
import { isTransactional, type TransactionalSinkWriter } from '../src/runtime/sink-writer.js';

/** The steps of one checkpoint's transaction as the sink saw them (see CheckpointTiming). */
export interface SinkSteps {
  barrierAt: number;
  preparedAt?: number;
  commitCalledAt?: number;
  commitAckAt?: number;
}

/** What the writers of one job recorded. */
export interface SinkClock {
  /** When the (last) writer had opened. */
  openedAt?: number;
  /** By checkpoint id. */
  readonly checkpoints: Map<number, SinkSteps>;
}

function timed(writer: TransactionalSinkWriter, clock: SinkClock): TransactionalSinkWriter {
  const steps = clock.checkpoints;
  return {
    open: async (context) => {
      await writer.open(context);
      clock.openedAt = Date.now();
    },
    write: (batch) => writer.write(batch),
    flush: () => writer.flush(),
    close: () => writer.close(),
    initializeState: (states) => writer.initializeState?.(states),
    recover: (pending, restored) => writer.recover(pending, restored),
    prepareCommit: async (checkpointId) => {
      const step: SinkSteps = { barrierAt: Date.now() };
      steps.set(checkpointId, step);
      const prepared = await writer.prepareCommit(checkpointId);
      step.preparedAt = Date.now();
      return prepared;
    },
    commit: async (transactions) => {
      const called = Date.now();
      await writer.commit(transactions);
      const ack = Date.now();
      for (const { checkpointId } of transactions) {
        const step = steps.get(checkpointId);
        if (step !== undefined) Object.assign(step, { commitCalledAt: called, commitAckAt: ack });
      }
    },
  };
}

/** A `postgres` connector (replacing the built-in one) whose writers record their steps into `clock`. */
export function commitTimingConnector(clock: SinkClock): Connector {
  return {
    ...postgresConnector,
    sink: {
      createWriter: (spec) => {
        const writer = postgresConnector.sink!.createWriter(spec);
        if (!isTransactional(writer)) throw new Error('the postgres sink writer is expected to be transactional');
        return timed(writer, clock);
      },
    },
  };
}
