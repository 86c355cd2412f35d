/**
 * Turns an error of the generated parser into weir's SYNTAX_ERROR, worded like Postgres:
 * `syntax error at or near "FROMM"` (or `at end of input`), with the span of the offending token,
 * the few tokens that were expected there, and a hint when the mistake is obvious.
 */
import { WeirError, type SourcePosition, type SourceSpan } from '../../common/errors.js';
import { describeExpected, misspeltKeyword, rankExpected } from './expected-token-ranker.js';
import type { LocationRange, SyntaxError as PeggySyntaxError } from './generated/flink-sql-parser.js';

/** A quoted token or comment that is never closed, found before the parser gave up. */
interface UnterminatedToken {
  readonly offset: number;
  readonly message: string;
}

const UNTERMINATED_MESSAGES: Readonly<Record<string, string>> = {
  "'": 'unterminated quoted string',
  '`': 'unterminated quoted identifier',
  '"': 'unterminated quoted identifier',
};

/** The shapes of the tokens an error message may name; anything else is one character. */
const TOKEN_PATTERNS = [
  /^[A-Za-z_\u0080-\uFFFF][A-Za-z0-9_$\u0080-\uFFFF]*/,
  /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/,
  /^'(?:[^']|'')*'/,
  /^`(?:[^`]|``)*`/,
  /^"(?:[^"]|"")*"/,
  /^(?:<>|<=|>=|!=|\|\|)/,
];

/** The WeirError for a syntax error the generated parser threw while parsing `text`. */
export function buildSyntaxError(error: PeggySyntaxError, text: string): WeirError {
  // `expected` is null for errors raised by the grammar's own actions (`error(...)`).
  if (error.expected === null) return new WeirError('SYNTAX_ERROR', error.message, { span: spanOf(error.location) });
  const offset = error.location.start.offset;
  const unterminated = findUnterminatedToken(text);
  if (unterminated !== undefined && unterminated.offset <= offset) {
    return new WeirError('SYNTAX_ERROR', unterminated.message, { span: spanBetween(text, unterminated.offset, text.length) });
  }
  const found = tokenAt(text, offset);
  const expected = describeExpected(error.expected);
  const misspelt = misspeltKeyword(expected, found);
  return new WeirError('SYNTAX_ERROR', syntaxErrorMessage(found), {
    span: spanBetween(text, offset, offset + (found?.length ?? 0)),
    expected: misspelt === undefined ? rankExpected(expected) : [misspelt],
    hint: hintFor(found, misspelt),
  });
}

/** `syntax error at or near "X"`, or `syntax error at end of input` when nothing is left. */
export function syntaxErrorMessage(found: string | undefined): string {
  return found === undefined ? 'syntax error at end of input' : `syntax error at or near "${found}"`;
}

/** The token that starts at `offset`, or undefined at the end of the text. */
export function tokenAt(text: string, offset: number): string | undefined {
  const rest = text.slice(offset);
  if (rest.length === 0) return undefined;
  for (const pattern of TOKEN_PATTERNS) {
    const match = pattern.exec(rest);
    if (match !== null) return match[0];
  }
  return String.fromCodePoint(rest.codePointAt(0)!);
}

/** The span from `start` to `end` (offsets) in `text`, with 1-based lines and columns. */
export function spanBetween(text: string, start: number, end: number): SourceSpan {
  const startPosition = positionAt(text, start, { offset: 0, line: 1, column: 1 });
  return { start: startPosition, end: positionAt(text, end, startPosition) };
}

function hintFor(found: string | undefined, misspelt: string | undefined): string | undefined {
  if (found?.startsWith('"')) {
    const name = found.replace(/^"|"$/g, '').replaceAll('""', '"');
    return `use backticks for identifiers: \`${name}\``;
  }
  return misspelt === undefined ? undefined : `did you mean ${misspelt}?`;
}

/** The first string, quoted identifier or block comment of `text` that is never closed. */
function findUnterminatedToken(text: string): UnterminatedToken | undefined {
  let offset = 0;
  while (offset < text.length) {
    const char = text[offset]!;
    if (text.startsWith('--', offset)) {
      const lineEnd = text.indexOf('\n', offset);
      offset = lineEnd < 0 ? text.length : lineEnd + 1;
    } else if (text.startsWith('/*', offset)) {
      const commentEnd = text.indexOf('*/', offset + 2);
      if (commentEnd < 0) return { offset, message: 'unterminated /* comment' };
      offset = commentEnd + 2;
    } else if (char in UNTERMINATED_MESSAGES) {
      const close = closingQuote(text, offset);
      if (close < 0) return { offset, message: UNTERMINATED_MESSAGES[char]! };
      offset = close + 1;
    } else {
      offset += 1;
    }
  }
  return undefined;
}

/** The offset of the quote closing the one at `open` (doubled quotes are escapes), or -1. */
function closingQuote(text: string, open: number): number {
  const quote = text[open]!;
  for (let offset = open + 1; offset < text.length; offset++) {
    if (text[offset] !== quote) continue;
    if (text[offset + 1] !== quote) return offset;
    offset += 1;
  }
  return -1;
}

/** The position of `offset`, counting lines and columns on from `from` (at or before it). */
function positionAt(text: string, offset: number, from: SourcePosition): SourcePosition {
  let { line, column } = from;
  for (let index = from.offset; index < offset; index++) {
    if (text[index] === '\n') {
      line += 1;
      column = 1;
    } else {
      column += 1;
    }
  }
  return { offset, line, column };
}

function spanOf(location: LocationRange): SourceSpan {
  return { start: location.start, end: location.end };
}
