/** What executing a statement gives back, for the CLI and the programmatic API to render. */
import type { Schema } from '../common/schema.js';
import type { JobHandle } from './job-handle.js';

/** The outcome of one statement. */
export type StatementResult =
  /** DDL, SET and similar: a one-line confirmation. */
  | { readonly kind: 'ok'; readonly message: string }
  /** A finite table (SHOW, DESCRIBE). */
  | { readonly kind: 'rows'; readonly schema: Schema; readonly rows: readonly (readonly unknown[])[] }
  /** Text to print as is (EXPLAIN). */
  | { readonly kind: 'text'; readonly text: string }
  /** A job was started (INSERT, or a SELECT printed by a sink). */
  | { readonly kind: 'job'; readonly job: JobHandle };

/** The one-line confirmation `message`. */
export function ok(message: string): StatementResult {
  return { kind: 'ok', message };
}
