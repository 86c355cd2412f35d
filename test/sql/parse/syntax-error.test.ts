import { describe, expect, it } from 'vitest';
import { renderError, WeirError } from '../../../src/common/errors.js';
import { parseExpression, parseScript, parseStatement } from '../../../src/sql/parse/parser.js';

/** The error `parse` throws for `text`, in a form easy to compare. */
function syntaxError(text: string, parse: (text: string) => unknown = parseScript) {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WeirError);
    const { code, message, span, expected, hint } = error as WeirError;
    expect(code).toBe('SYNTAX_ERROR');
    return { message, line: span?.start.line, column: span?.start.column, endColumn: span?.end.column, expected, hint };
  }
  throw new Error(`no syntax error in ${text}`);
}

describe('syntax errors', () => {
  it('a missing FROM item', () => {
    expect(syntaxError('SELECT a FROM WHERE b = 1')).toEqual({
      message: 'syntax error at or near "WHERE"', line: 1, column: 15, endColumn: 20, expected: ['identifier', '(', 'LATERAL'], hint: undefined,
    });
  });

  it('a misspelt keyword', () => {
    expect(syntaxError('SELEC a FROM t')).toEqual({
      message: 'syntax error at or near "SELEC"', line: 1, column: 1, endColumn: 6, expected: ['SELECT'], hint: 'did you mean SELECT?',
    });
    expect(syntaxError('SELECT *\n  FROMM bid')).toEqual({
      message: 'syntax error at or near "FROMM"', line: 2, column: 3, endColumn: 8, expected: ['FROM'], hint: 'did you mean FROM?',
    });
  });

  it('an unknown word where a statement should start', () => {
    expect(syntaxError('FOO bar')).toMatchObject({ message: 'syntax error at or near "FOO"', expected: ['SELECT', 'INSERT', 'CREATE'] });
  });

  it('MINUS, which Flink refuses too, names EXCEPT at the operator', () => {
    expect(syntaxError('SELECT a FROM t MINUS SELECT a FROM u')).toMatchObject({
      message: 'MINUS is not supported, as in Flink (its SQL conformance does not allow it); write EXCEPT', line: 1, column: 17,
    });
  });

  it('an unclosed parenthesis', () => {
    expect(syntaxError('SELECT (a + b FROM t')).toEqual({
      message: 'syntax error at or near "FROM"', line: 1, column: 15, endColumn: 19, expected: [')', ','], hint: undefined,
    });
    expect(syntaxError('SELECT count(a')).toEqual({
      message: 'syntax error at end of input', line: 1, column: 15, endColumn: 15, expected: [')', ','], hint: undefined,
    });
  });

  it('an unterminated string, at its opening quote', () => {
    expect(syntaxError("SELECT a\nFROM t\nWHERE s = 'abc;\n")).toEqual({
      message: 'unterminated quoted string', line: 3, column: 11, endColumn: 1, expected: undefined, hint: undefined,
    });
  });

  it('an unterminated quoted identifier or comment', () => {
    expect(syntaxError('SELECT `a FROM t')).toMatchObject({ message: 'unterminated quoted identifier', line: 1, column: 8 });
    expect(syntaxError('SELECT a /* FROM t')).toMatchObject({ message: 'unterminated /* comment', line: 1, column: 10 });
  });

  it('quotes in comments and strings do not count as unterminated', () => {
    expect(syntaxError("SELECT 'it''s' -- don't\nFROM")).toMatchObject({ message: 'syntax error at end of input' });
  });

  it('a trailing comma in the select list', () => {
    expect(syntaxError('SELECT a, b, FROM t')).toEqual({
      message: 'syntax error at or near "FROM"', line: 1, column: 14, endColumn: 18, expected: ['expression'], hint: undefined,
    });
  });

  it('a missing join condition', () => {
    expect(syntaxError('SELECT * FROM a JOIN b WHERE x')).toMatchObject({ message: 'syntax error at or near "WHERE"', expected: ['ON', 'USING'] });
  });

  it('a double-quoted identifier, with a hint to use backticks', () => {
    expect(syntaxError('SELECT "dateTime" FROM bid')).toEqual({
      message: 'syntax error at or near ""dateTime""', line: 1, column: 8, endColumn: 18, expected: ['expression'], hint: 'use backticks for identifiers: `dateTime`',
    });
  });

  it('a bad type in DDL', () => {
    expect(syntaxError('CREATE TABLE t (a 5)')).toMatchObject({ message: 'syntax error at or near "5"', expected: ['type'] });
    expect(syntaxError('CREATE TABLE t (a ARRAY<INT)')).toMatchObject({ message: 'syntax error at or near ")"', expected: ['>'] });
  });

  it('rules the grammar checks itself', () => {
    expect(syntaxError('CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)')).toMatchObject({
      message: 'multiple primary keys for table "t" are not allowed: PRIMARY KEY on column "a" and PRIMARY KEY (a); declare one key with PRIMARY KEY (a) NOT ENFORCED',
      line: 1,
      column: 49,
    });
    expect(syntaxError('CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b INT PRIMARY KEY NOT ENFORCED)')).toMatchObject({
      message: 'multiple primary keys for table "t" are not allowed: PRIMARY KEY on column "a" and PRIMARY KEY on column "b"; declare one key with PRIMARY KEY (a, b) NOT ENFORCED',
      column: 55,
    });
    expect(syntaxError('CREATE TABLE t (a INT, b INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)')).toMatchObject({
      message: 'multiple primary keys for table "t" are not allowed: PRIMARY KEY on column "b" and PRIMARY KEY (a); declare one key with PRIMARY KEY (b, a) NOT ENFORCED',
      column: 56,
    });
    expect(syntaxError("SELECT INTERVAL '1' HOUR TO DAY")).toMatchObject({ message: 'invalid interval qualifier: HOUR TO DAY', column: 8 });
    expect(syntaxError('VALUES (1) LIMIT 1')).toMatchObject({ message: expect.stringContaining('cannot follow VALUES') });
  });

  it('parseStatement wants exactly one statement', () => {
    expect(syntaxError('SELECT 1; SELECT 2', parseStatement)).toEqual({
      message: 'syntax error at or near "SELECT"', line: 1, column: 11, endColumn: 17, expected: ['end of input'], hint: 'only one statement is allowed here',
    });
    expect(syntaxError(' -- nothing', parseStatement)).toMatchObject({ message: 'syntax error at end of input', line: 1, column: 12 });
  });

  it('parseExpression rejects what follows the expression', () => {
    expect(syntaxError('a + b c', parseExpression)).toMatchObject({ message: 'syntax error at or near "c"', column: 7 });
  });

  it('renders like Postgres', () => {
    const text = 'SELECT *\nFROMM bid';
    let rendered = '';
    try {
      parseScript(text);
    } catch (error) {
      rendered = renderError(error, text);
    }
    expect(rendered).toBe('ERROR: syntax error at or near "FROMM"\nLINE 2: FROMM bid\n        ^\nHINT: did you mean FROM?');
  });
});
