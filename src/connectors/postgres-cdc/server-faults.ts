/**
 * Which failures mean "the server is away for now" (restarting, unreachable, the old session not
 * yet gone) and are worth retrying, and how long to wait before attempt n.
 */
import { WeirError } from '../../common/errors.js';
import { sqlState } from '../postgres/driver-errors.js';

/** SQLSTATEs of a server shutting down or starting, and of a slot still held by a dying session. */
const TRANSIENT_STATES = new Set(['57P01', '57P02', '57P03', '53300', '55006']);

/**
 * True for network errors of the driver (no SQLSTATE: a refused or reset connection, a connection
 * terminated), connection exceptions (class 08) and the states above; never for weir's own errors.
 */
export function isTransientFault(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof WeirError) return false;
  const state = sqlState(error);
  if (state !== undefined) return state.startsWith('08') || TRANSIENT_STATES.has(state);
  const code = (error as { code?: unknown }).code;
  return code === undefined || (typeof code === 'string' && code.startsWith('E'));
}

/** Milliseconds before retry `attempt` (1, 2, ...): 200 ms doubling up to 5 s. */
export function backoffDelay(attempt: number): number {
  return Math.min(5_000, 200 * 2 ** Math.max(0, attempt - 1));
}
