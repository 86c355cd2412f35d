/**
 * The options of the `nats` connector that are its own (the format's options belong to the
 * format), parsed into a {@link NatsSourceConfig}. Startup and bounded modes follow Flink's Kafka
 * source (`scan.startup.mode`, `scan.bounded.mode`) with stream sequences for offsets. Every
 * error is a WeirError('INVALID_OPTION') naming the option, so that DDL fails early.
 */
import type { OptionSpec } from '../../common/connector-descriptor.js';
import { WeirError } from '../../common/errors.js';
import { parseNatsServers, type NatsServers } from './nats-servers.js';

/** Where reading starts when the job does not resume from a checkpoint. */
export type NatsStartup =
  | { readonly mode: 'earliest' }
  /** After the stream's last message as of the job's first start. */
  | { readonly mode: 'latest' }
  /** At this stream sequence (the first message at or after it). */
  | { readonly mode: 'sequence'; readonly sequence: number };

/** Where reading ends; the bound is fixed at the job's first start and kept in checkpoints. */
export type NatsBound =
  | { readonly mode: 'unbounded' }
  /** At the stream's last sequence as of the job's first start. */
  | { readonly mode: 'latest' }
  /** After this stream sequence (inclusive). */
  | { readonly mode: 'sequence'; readonly sequence: number };

/** A NATS source's own options, parsed and checked. */
export interface NatsSourceConfig {
  readonly servers: NatsServers;
  readonly stream: string;
  /** The subject filter within the stream (wildcards allowed); undefined reads every subject. */
  readonly subject: string | undefined;
  readonly startup: NatsStartup;
  readonly bound: NatsBound;
}

const STARTUP_MODES = ['earliest', 'latest', 'sequence'] as const;
const BOUNDED_MODES = ['unbounded', 'latest', 'sequence'] as const;

/** The options the connector itself understands (besides `connector` and the format's). */
export const NATS_OPTIONS: readonly OptionSpec[] = [
  { key: 'url', required: true, description: 'The NATS server: nats://host:4222, several separated by commas; credentials as nats://user:password@host or nats://token@host.' },
  { key: 'stream', required: true, description: 'The JetStream stream to read.' },
  { key: 'subject', description: 'Reads only the messages of this subject within the stream (wildcards * and > allowed); every subject when absent.' },
  { key: 'scan.startup.mode', description: 'Where a job that does not resume from a checkpoint starts.', values: STARTUP_MODES, default: 'earliest' },
  { key: 'scan.startup.sequence', description: "The first stream sequence to read, for 'scan.startup.mode' = 'sequence'." },
  { key: 'scan.bounded.mode', description: "Where reading ends: never, at the stream's last sequence when the job first started, or at 'scan.bounded.sequence'.", values: BOUNDED_MODES, default: 'unbounded' },
  { key: 'scan.bounded.sequence', description: "The last stream sequence to read, for 'scan.bounded.mode' = 'sequence'." },
];

/** The keys of {@link NATS_OPTIONS}. */
export const NATS_OPTION_KEYS: readonly string[] = NATS_OPTIONS.map((o) => o.key);

/** Reads and checks the connector's own options; the caller checks that no other key is present. */
export function parseNatsOptions(options: ReadonlyMap<string, string>): NatsSourceConfig {
  const url = options.get('url');
  if (url === undefined || url.trim() === '') throw invalid("nats needs option 'url': the server to connect to, such as nats://127.0.0.1:4222");
  const stream = options.get('stream');
  if (stream === undefined) throw invalid("nats needs option 'stream': the JetStream stream to read");
  checkStreamName(stream);
  const subject = options.get('subject');
  if (subject !== undefined) checkSubject(subject);
  return {
    servers: parseNatsServers(url),
    stream,
    subject,
    startup: startup(options),
    bound: bound(options),
  };
}

/** True when a table with these options ends by itself. */
export function isBounded(options: ReadonlyMap<string, string>): boolean {
  return bound(options).mode !== 'unbounded';
}

function startup(options: ReadonlyMap<string, string>): NatsStartup {
  const mode = modeOf(options, 'scan.startup.mode', STARTUP_MODES, 'earliest');
  const sequence = sequenceFor(options, 'scan.startup.sequence', 'scan.startup.mode', mode === 'sequence');
  return mode === 'sequence' ? { mode, sequence: sequence! } : { mode };
}

function bound(options: ReadonlyMap<string, string>): NatsBound {
  const mode = modeOf(options, 'scan.bounded.mode', BOUNDED_MODES, 'unbounded');
  const sequence = sequenceFor(options, 'scan.bounded.sequence', 'scan.bounded.mode', mode === 'sequence');
  return mode === 'sequence' ? { mode, sequence: sequence! } : { mode };
}

function modeOf<M extends string>(options: ReadonlyMap<string, string>, key: string, modes: readonly M[], fallback: M): M {
  const text = options.get(key);
  if (text === undefined) return fallback;
  if ((modes as readonly string[]).includes(text)) return text as M;
  throw invalid(`nats option '${key}' must be one of ${modes.map((m) => `'${m}'`).join(', ')}, got '${text}'`);
}

/** The sequence option `key`, which must be present exactly when `modeKey` is 'sequence'. */
function sequenceFor(options: ReadonlyMap<string, string>, key: string, modeKey: string, wanted: boolean): number | undefined {
  const text = options.get(key);
  if (!wanted) {
    if (text !== undefined) throw invalid(`nats option '${key}' applies only to '${modeKey}' = 'sequence'`);
    return undefined;
  }
  if (text === undefined) throw invalid(`nats option '${modeKey}' = 'sequence' needs option '${key}'`);
  const value = Number(text.trim());
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(`nats option '${key}' must be a stream sequence (a positive integer), got '${text}'`);
  }
  return value;
}

/** JetStream's rule for stream names: no whitespace, no `.`, `*`, `>`, path separators, at most 255 characters. */
function checkStreamName(name: string): void {
  if (name === '' || name.length > 255 || /[\s.*>/\\]/.test(name)) {
    throw invalid(`nats option 'stream' must be a stream name (no spaces, '.', '*', '>', '/' or '\\'), got '${name}'`);
  }
}

/** Subjects are dot-separated non-empty tokens; `*` stands for one whole token, `>` for the rest and only last. */
function checkSubject(subject: string): void {
  const tokens = subject.split('.');
  const bad = tokens.some((t, i) => t === '' || /\s/.test(t) || (t.includes('*') && t !== '*') || (t.includes('>') && (t !== '>' || i !== tokens.length - 1)));
  if (bad) throw invalid(`nats option 'subject' must be a subject such as 'orders.*' or 'orders.>' (dot-separated tokens, '>' only last), got '${subject}'`);
}

function invalid(message: string): WeirError {
  return new WeirError('INVALID_OPTION', message);
}
