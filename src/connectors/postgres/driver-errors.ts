/** Turning errors of the `pg` driver into message text, shared by the postgres sink and the CDC source. */

/** The message of a driver error; Node's connection errors may be an AggregateError with an empty message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.map((e: unknown) => describeError(e)).join('; ');
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.name;
}

/** The SQLSTATE of a server error (five digits or capitals), else undefined (a network error, say). */
export function sqlState(error: unknown): string | undefined {
  const state = (error as { code?: unknown } | null)?.code;
  return typeof state === 'string' && /^[0-9A-Z]{5}$/.test(state) ? state : undefined;
}
