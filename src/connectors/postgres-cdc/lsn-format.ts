/**
 * Log sequence numbers (positions in the write-ahead log): 64-bit unsigned integers, held as
 * bigint, written as PostgreSQL writes them (`16/B374D848`: the high and low 32 bits in hex).
 */
import { WeirError } from '../../common/errors.js';

/** A WAL position. 0n is PostgreSQL's InvalidXLogRecPtr ("none"). */
export type Lsn = bigint;

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** Parses `hi/lo`; throws CONNECTOR_ERROR naming `what` when the text is not an LSN. */
export function parseLsn(text: string, what: string): Lsn {
  const match = LSN_TEXT.exec(text);
  if (match === null) throw new WeirError('CONNECTOR_ERROR', `${what} is not a WAL position (like 16/B374D848): '${text}'`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** `hi/lo` in upper-case hex, as `pg_current_wal_lsn()` prints it. */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
