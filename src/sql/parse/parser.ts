/**
 * Parses Flink SQL text into weir's AST (ast.ts) with the parser generated from
 * `grammar/flink-sql.peggy`. Syntax errors become `WeirError('SYNTAX_ERROR')` with a span,
 * the expected tokens and sometimes a hint.
 *
 * Type names are normalised as `ScalarTypeName` in ast.ts says: STRING is VARCHAR without a length
 * and BYTES is VARBINARY without one, so 'STRING' itself never appears in a parsed tree.
 */
import { WeirError } from '../../common/errors.js';
import type { Expr, ParsedStatement, Statement, TypeSyntax } from './ast.js';
import { parse, SyntaxError as PeggySyntaxError, type StartRuleNames } from './generated/flink-sql-parser.js';
import { buildSyntaxError, spanBetween, syntaxErrorMessage, tokenAt } from './syntax-error-builder.js';

/** Parses a script: statements separated by `;` (the last one optional), each with its exact text. */
export function parseScript(text: string): ParsedStatement[] {
  return run(text, 'script') as ParsedStatement[];
}

/** Parses exactly one statement, optionally followed by `;`. */
export function parseStatement(text: string): Statement {
  const [first, second] = parseScript(text);
  if (first === undefined) throw emptyStatementError(text);
  if (second !== undefined) throw extraStatementError(text, second);
  return first.statement;
}

/** Parses one scalar expression, such as a computed column or a watermark. */
export function parseExpression(text: string): Expr {
  return run(text, 'expression') as Expr;
}

/** Parses a type such as `BIGINT`, `DECIMAL(23, 3) NOT NULL` or `ROW<a INT, b STRING>` (surrounding spaces allowed). */
export function parseType(text: string): TypeSyntax {
  return run(text.trim(), 'data_type') as TypeSyntax;
}

function run(text: string, startRule: StartRuleNames): unknown {
  try {
    return parse(text, { startRule });
  } catch (error) {
    if (error instanceof PeggySyntaxError) throw buildSyntaxError(error, text);
    throw error;
  }
}

function emptyStatementError(text: string): WeirError {
  return new WeirError('SYNTAX_ERROR', syntaxErrorMessage(undefined), {
    span: spanBetween(text, text.length, text.length),
    hint: 'the text holds no statement',
  });
}

function extraStatementError(text: string, extra: ParsedStatement): WeirError {
  const offset = extra.span.start.offset;
  const found = tokenAt(text, offset);
  return new WeirError('SYNTAX_ERROR', syntaxErrorMessage(found), {
    span: spanBetween(text, offset, offset + (found?.length ?? 0)),
    expected: ['end of input'],
    hint: 'only one statement is allowed here',
  });
}
