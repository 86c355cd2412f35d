/**
 * Collects typed lines until they hold complete statements: text ending inside a statement, a
 * string, a comment or `BEGIN STATEMENT SET` is incomplete (the parser reports that as a syntax
 * error at the end of the input); anything else — statements, or a real syntax error — is ready.
 */
import type { ParsedStatement } from '../engine/engine.js';
import { parseScriptText, isIncompleteInput } from '../engine/engine.js';

/** The outcome of adding a line. */
export type BufferState =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'ready'; readonly text: string; readonly statements: readonly ParsedStatement[] }
  | { readonly kind: 'error'; readonly text: string; readonly error: unknown };

/** Lines typed so far, not yet executed. */
export class StatementBuffer {
  private lines: string[] = [];

  /** True when nothing is buffered. */
  get empty(): boolean {
    return this.lines.length === 0;
  }

  /** The lines buffered so far, each followed by a newline ('' when empty). */
  get text(): string {
    return this.lines.map((line) => line + '\n').join('');
  }

  /** Adds a line; returns what can be executed now. */
  add(line: string): BufferState {
    this.lines.push(line);
    const text = this.lines.join('\n');
    if (text.trim() === '') {
      this.lines = [];
      return { kind: 'ready', text, statements: [] };
    }
    if (!text.includes(';')) return { kind: 'incomplete' };
    try {
      const statements = parseScriptText(text);
      const last = statements[statements.length - 1];
      if (last !== undefined && !terminated(text.slice(last.span.end.offset))) return { kind: 'incomplete' };
      this.lines = [];
      return { kind: 'ready', text, statements };
    } catch (error) {
      if (isIncompleteInput(error, text)) return { kind: 'incomplete' };
      this.lines = [];
      return { kind: 'error', text, error };
    }
  }

  /** Drops what is buffered (Ctrl-C at a continuation prompt). */
  clear(): void {
    this.lines = [];
  }
}

/** True when the text after the last statement (only blanks, comments and `;`) holds its `;`. */
function terminated(rest: string): boolean {
  return rest.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '').includes(';');
}
