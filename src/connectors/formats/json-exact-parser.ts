/**
 * A JSON parser that keeps numbers as their text, for the records whose numbers a double cannot
 * hold exactly (a DECIMAL(20, 2) value, a BIGINT beyond 2^53). The JSON decoder parses with
 * `JSON.parse` and only falls back to this on such a record, so the common case stays native.
 * The input must already be valid JSON (`JSON.parse` accepted it).
 */

/** A JSON number exactly as written. */
export class JsonNumberText {
  constructor(readonly text: string) {}
}

const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_TOKEN = /"(?:[^"\\]|\\.)*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

/**
 * The value of valid JSON `text`, with numbers as {@link JsonNumberText} and objects without a
 * prototype (so a `__proto__` key is an ordinary field, as with `JSON.parse`).
 */
export function parseJsonExact(text: string): unknown {
  return parseValue({ text, at: 0 });
}

interface Cursor {
  readonly text: string;
  at: number;
}

function skipSpace(cursor: Cursor): void {
  WHITESPACE.lastIndex = cursor.at;
  WHITESPACE.exec(cursor.text);
  cursor.at = WHITESPACE.lastIndex;
}

function token(cursor: Cursor, pattern: RegExp): string {
  pattern.lastIndex = cursor.at;
  const match = pattern.exec(cursor.text);
  if (match === null) throw new SyntaxError(`invalid JSON at position ${cursor.at}`);
  cursor.at = pattern.lastIndex;
  return match[0];
}

function parseValue(cursor: Cursor): unknown {
  skipSpace(cursor);
  const { text } = cursor;
  const c = text[cursor.at];
  if (c === '{') {
    cursor.at++;
    const object: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    skipSpace(cursor);
    if (text[cursor.at] === '}') {
      cursor.at++;
      return object;
    }
    for (;;) {
      skipSpace(cursor);
      const key = JSON.parse(token(cursor, STRING_TOKEN)) as string;
      skipSpace(cursor);
      cursor.at++;
      object[key] = parseValue(cursor);
      skipSpace(cursor);
      if (text[cursor.at++] === '}') return object;
    }
  }
  if (c === '[') {
    cursor.at++;
    const array: unknown[] = [];
    skipSpace(cursor);
    if (text[cursor.at] === ']') {
      cursor.at++;
      return array;
    }
    for (;;) {
      array.push(parseValue(cursor));
      skipSpace(cursor);
      if (text[cursor.at++] === ']') return array;
    }
  }
  if (c === '"') return JSON.parse(token(cursor, STRING_TOKEN)) as string;
  if (text.startsWith('true', cursor.at)) return literal(cursor, 4, true);
  if (text.startsWith('false', cursor.at)) return literal(cursor, 5, false);
  if (text.startsWith('null', cursor.at)) return literal(cursor, 4, null);
  return new JsonNumberText(token(cursor, NUMBER_TOKEN));
}

function literal<T>(cursor: Cursor, length: number, value: T): T {
  cursor.at += length;
  return value;
}
