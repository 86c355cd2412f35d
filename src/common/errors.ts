import { maskSecrets } from './secrets.js';

/** Where in a piece of text something is; line and column count from 1. */
export interface SourcePosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** A span of text: from `start` (inclusive) to `end` (exclusive). */
export interface SourceSpan {
  readonly start: SourcePosition;
  readonly end: SourcePosition;
}

/**
 * What went wrong, as a stable machine-readable code. The category (the prefix) is what a user
 * sees first: syntax, validation (names and types), planning, execution, connector, internal.
 */
export type ErrorCode =
  | 'SYNTAX_ERROR'
  | 'UNKNOWN_TABLE'
  | 'UNKNOWN_COLUMN'
  | 'UNKNOWN_FUNCTION'
  | 'AMBIGUOUS_COLUMN'
  | 'DUPLICATE_OBJECT'
  | 'TYPE_MISMATCH'
  | 'INVALID_ARGUMENT'
  | 'INVALID_OPTION'
  | 'UNSUPPORTED'
  | 'PLANNING_ERROR'
  | 'EXECUTION_ERROR'
  | 'ARITHMETIC_OVERFLOW'
  | 'CONNECTOR_ERROR'
  | 'CHECKPOINT_ERROR'
  | 'INTERNAL_ERROR';

/** Options of a {@link WeirError} beyond its code and message. */
export interface WeirErrorOptions {
  /** Where in the statement text the problem is. */
  readonly span?: SourceSpan;
  /** What the user can do about it, one sentence. */
  readonly hint?: string;
  /** Expected tokens (syntax errors only). */
  readonly expected?: readonly string[];
  readonly cause?: unknown;
  /**
   * True when running the job again cannot help — the same input or the same stored state would
   * meet the same error (a corrupt checkpoint, a record that does not fit its column): restart
   * strategies fail the job at once instead of restarting it.
   */
  readonly permanent?: boolean;
}

/**
 * The error type for everything a user can cause: short, precise message; optional position in
 * the SQL text, hint and cause. Internal invariant violations use code `INTERNAL_ERROR`.
 */
export class WeirError extends Error {
  readonly code: ErrorCode;
  readonly span: SourceSpan | undefined;
  readonly hint: string | undefined;
  readonly expected: readonly string[] | undefined;
  /** See {@link WeirErrorOptions.permanent}. */
  readonly permanent: boolean;

  constructor(code: ErrorCode, message: string, options: WeirErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WeirError';
    this.code = code;
    this.span = options.span;
    this.hint = options.hint;
    this.expected = options.expected;
    this.permanent = options.permanent ?? false;
  }

  /** The same error with a position, unless it already has one. */
  withSpan(span: SourceSpan | undefined): WeirError {
    if (this.span !== undefined || span === undefined) return this;
    const copy = new WeirError(this.code, this.message, { span, hint: this.hint, expected: this.expected, cause: this.cause, permanent: this.permanent });
    copy.stack = this.stack;
    return copy;
  }
}

/** The user-facing category of an error code, as printed before the message. */
export function errorCategory(code: ErrorCode): string {
  switch (code) {
    case 'SYNTAX_ERROR':
      return 'syntax error';
    case 'UNKNOWN_TABLE':
    case 'UNKNOWN_COLUMN':
    case 'UNKNOWN_FUNCTION':
    case 'AMBIGUOUS_COLUMN':
    case 'DUPLICATE_OBJECT':
    case 'TYPE_MISMATCH':
    case 'INVALID_ARGUMENT':
    case 'INVALID_OPTION':
      return 'validation error';
    case 'UNSUPPORTED':
      return 'unsupported';
    case 'PLANNING_ERROR':
      return 'planning error';
    case 'EXECUTION_ERROR':
    case 'ARITHMETIC_OVERFLOW':
      return 'execution error';
    case 'CONNECTOR_ERROR':
      return 'connector error';
    case 'CHECKPOINT_ERROR':
      return 'checkpoint error';
    case 'INTERNAL_ERROR':
      return 'internal error';
  }
}

/** Throws an internal error when an invariant does not hold. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new WeirError('INTERNAL_ERROR', message);
}

/**
 * Renders an error the way Postgres does: `ERROR: message`, then for errors with a position the
 * line (`LINE n: ...`) with a caret under the place, then `HINT:` when there is one.
 * `source` is the text the span refers to; `sourceName` (a file) is named when given.
 */
export function renderError(error: unknown, source?: string, sourceName?: string): string {
  return maskSecrets(renderUnmasked(error, source, sourceName));
}

function renderUnmasked(error: unknown, source?: string, sourceName?: string): string {
  if (!(error instanceof WeirError)) {
    const message = error instanceof Error ? error.message : String(error);
    return `ERROR: ${message}`;
  }
  const category = errorCategory(error.code);
  const lines = [error.message.startsWith(category) ? `ERROR: ${error.message}` : `ERROR: ${category}: ${error.message}`];
  if (error.span !== undefined && source !== undefined) {
    const { line, column } = error.span.start;
    const text = source.split(/\r?\n/)[line - 1] ?? '';
    const prefix = sourceName === undefined ? `LINE ${line}: ` : `${sourceName}:${line}:${column}: `;
    const shown = text.replace(/\t/g, ' ');
    lines.push(prefix + shown);
    lines.push(' '.repeat(prefix.length + column - 1) + '^');
  } else if (error.span !== undefined) {
    lines.push(`at line ${error.span.start.line}, column ${error.span.start.column}`);
  }
  if (error.hint !== undefined) lines.push(`HINT: ${error.hint}`);
  return lines.join('\n');
}

/** The closest candidate to `name` by edit distance, if it is close enough to be a likely typo. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.max(1, Math.floor(name.length / 3));
  return bestDistance <= limit ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const previous = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length]!;
}
