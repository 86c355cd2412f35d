/**
 * The framing of streaming replication inside CopyData (PostgreSQL's "Streaming Replication
 * Protocol"): what the server sends (XLogData carrying one output-plugin message, primary
 * keepalives) and the standby status update the client answers with.
 */
import { WeirError } from '../../common/errors.js';
import type { Lsn } from './lsn-format.js';

/** A message of the server in the replication stream. */
export type WalSenderMessage =
  /** `w`: one message of the output plugin, written at WAL position `start`. */
  | { readonly kind: 'xlog'; readonly start: Lsn; readonly data: Buffer }
  /** `k`: the server has sent everything before `end`; `replyRequested` asks for a status update now. */
  | { readonly kind: 'keepalive'; readonly end: Lsn; readonly replyRequested: boolean };

/** Microseconds between the Unix epoch and PostgreSQL's epoch (2000-01-01). */
const POSTGRES_EPOCH_MICROS = 946_684_800_000_000n;

/** Decodes one CopyData payload of the server; throws CONNECTOR_ERROR on an unknown message type. */
export function decodeWalSenderMessage(chunk: Buffer): WalSenderMessage {
  const type = chunk[0];
  if (type === 0x77 && chunk.length >= 25) return { kind: 'xlog', start: chunk.readBigUInt64BE(1), data: chunk.subarray(25) };
  if (type === 0x6b && chunk.length >= 18) return { kind: 'keepalive', end: chunk.readBigUInt64BE(1), replyRequested: chunk[17] === 1 };
  throw new WeirError('CONNECTOR_ERROR', `unexpected replication message of type '${String.fromCharCode(type ?? 0)}' (${chunk.length} bytes) from the server`);
}

/**
 * `r`: the standby status update. `flushed` becomes the slot's confirmed position (the server may
 * discard WAL before it and never sends transactions that committed before it again); 0n leaves
 * it unchanged.
 */
export function standbyStatusUpdate(written: Lsn, flushed: Lsn, nowMillis: number = Date.now()): Buffer {
  const message = Buffer.alloc(34);
  message[0] = 0x72;
  message.writeBigUInt64BE(written, 1);
  message.writeBigUInt64BE(flushed, 9);
  message.writeBigUInt64BE(flushed, 17);
  message.writeBigInt64BE(BigInt(Math.floor(nowMillis)) * 1000n - POSTGRES_EPOCH_MICROS, 25);
  message[33] = 0;
  return message;
}
