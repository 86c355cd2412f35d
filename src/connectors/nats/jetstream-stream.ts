/**
 * What a NATS source learns about its stream before reading: that the server has JetStream, that
 * the stream exists (else "did you mean" among the streams there are), that the subject filter is
 * one the server accepts for it (tried with a consumer that is deleted at once), and the stream's
 * first and last sequences, which startup and bounded modes resolve against.
 */
import { AckPolicy, DeliverPolicy, nanos, NatsError, type JetStreamManager } from 'nats';
import { closestName, WeirError } from '../../common/errors.js';
import type { NatsLink } from './nats-connection.js';

/** The sequences a stream holds: `first` to `last`, both 0 for a stream that never had a message. */
export interface StreamBounds {
  readonly first: number;
  readonly last: number;
}

/** JetStream's error codes the checks tell apart. */
const STREAM_NOT_FOUND = 10059;
const FILTER_NOT_IN_STREAM = 10093;
const NO_MESSAGE_FOUND = 10037;

/** Checks the stream and the filter; throws CONNECTOR_ERROR naming table, stream and server. */
export async function inspectStream(link: NatsLink, table: string, stream: string, subject: string | undefined): Promise<{ manager: JetStreamManager; bounds: StreamBounds }> {
  const where = `nats table '${table}'`;
  let manager: JetStreamManager;
  try {
    manager = await link.connection.jetstreamManager();
  } catch (error) {
    const reason = error instanceof NatsError && error.code === '503' ? 'JetStream is not enabled there (nats-server -js)' : link.describe(error);
    throw new WeirError('CONNECTOR_ERROR', `${where} cannot use JetStream at ${link.display}: ${reason}`, { cause: error });
  }
  let subjects: readonly string[];
  let bounds: StreamBounds;
  try {
    const info = await manager.streams.info(stream);
    subjects = info.config.subjects ?? [];
    bounds = { first: info.state.first_seq, last: info.state.last_seq };
  } catch (error) {
    if (!isStreamNotFound(error)) throw failure(where, `cannot read stream '${stream}' at ${link.display}`, link, error);
    const names: string[] = [];
    for await (const name of manager.streams.names()) names.push(name);
    const guess = closestName(stream, names);
    throw new WeirError('CONNECTOR_ERROR', `${where}: stream '${stream}' does not exist at ${link.display}`, {
      hint: guess !== undefined ? `did you mean '${guess}'?` : names.length === 0 ? 'the server has no streams' : `its streams: ${names.sort().join(', ')}`,
    });
  }
  if (subject !== undefined) await checkFilter(manager, where, stream, subject, subjects, link);
  return { manager, bounds };
}

/** The sequence of the first message at or after `sequence` on `subject` (every subject when undefined), or undefined when there is none. */
export async function firstMessageFrom(manager: JetStreamManager, stream: string, subject: string | undefined, sequence: number): Promise<number | undefined> {
  try {
    // `next_by_subj` is the server's STREAM.MSG.GET request for the next match; the client's type lists it for direct gets only.
    const request = { seq: sequence, next_by_subj: subject ?? '>' } as unknown as { seq: number };
    return (await manager.streams.getMessage(stream, request)).seq;
  } catch (error) {
    if (apiCode(error) === NO_MESSAGE_FOUND) return undefined;
    throw error;
  }
}

/** True for the error of a request about a stream that does not exist (the client reports some without the API code). */
export function isStreamNotFound(error: unknown): boolean {
  return apiCode(error) === STREAM_NOT_FOUND || (error instanceof Error && error.message === 'stream not found');
}

function apiCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

async function checkFilter(manager: JetStreamManager, where: string, stream: string, subject: string, subjects: readonly string[], link: NatsLink): Promise<void> {
  let name: string;
  try {
    const probe = await manager.consumers.add(stream, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.New,
      filter_subject: subject,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: nanos(10_000),
    });
    name = probe.name;
  } catch (error) {
    if (apiCode(error) === FILTER_NOT_IN_STREAM) {
      throw new WeirError('CONNECTOR_ERROR', `${where}: subject '${subject}' is not within stream '${stream}' at ${link.display}`, {
        hint: subjects.length === 0 ? undefined : `the stream's subjects: ${subjects.join(', ')}`,
      });
    }
    throw failure(where, `cannot read subject '${subject}' of stream '${stream}' at ${link.display}`, link, error);
  }
  // The probe expires by itself (inactive_threshold); a failed delete leaves nothing behind for long, but is said.
  await manager.consumers.delete(stream, name).catch((error: unknown) => link.warn(`${where} could not delete its probe consumer of stream '${stream}' (the server removes it within 10 s): ${link.describe(error)}`));
}

function failure(where: string, what: string, link: NatsLink, error: unknown): WeirError {
  return new WeirError('CONNECTOR_ERROR', `${where} ${what}: ${link.describe(error)}`, { cause: error });
}
