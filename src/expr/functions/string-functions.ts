/**
 * String functions with Flink's semantics: `||`/CONCAT (NULL if any argument is NULL),
 * CONCAT_WS (skips NULLs), UPPER, LOWER, CHAR_LENGTH, SUBSTRING, TRIM/LTRIM/RTRIM, POSITION,
 * REPLACE, LIKE, LPAD/RPAD, INITCAP, REPEAT, REVERSE, the REGEXP family, SPLIT_INDEX and hashes.
 * Constant patterns (LIKE, regular expressions) are compiled once, into the closure.
 */
import { MAX_VARCHAR_LENGTH, SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import { javaRegex, likeRegExp, similarRegExp } from '../runtime/string-lib.js';
import { Arg, booleanType, defineScalar, stringLiteral, type Signature } from './define.js';

type StringType = Extract<SqlType, { kind: 'CHAR' | 'VARCHAR' }>;

const lengthOf = (type: SqlType): number => (type as StringType).length ?? MAX_VARCHAR_LENGTH;
const varchar = (length: number): SqlType => SqlTypes.varchar(Math.min(length, MAX_VARCHAR_LENGTH), false);
const sameType = (types: readonly SqlType[]): SqlType => types[0]!;
const asVarchar = (index: number) => (types: readonly SqlType[]): SqlType => varchar(lengthOf(types[index]!));
const STRING = SqlTypes.string(false);
const INT = SqlTypes.int(false);

/** A strict function of strings (and integers) computed by one JS expression of the argument codes. */
function stringFunction(name: string, description: string, signature: Omit<Signature, 'generate'> & { generate: (ctx: CodegenContext, ...codes: string[]) => string }): ScalarFunctionDefinition {
  const { generate, ...rest } = signature;
  return defineScalar({ name, description, signatures: [{ ...rest, generate: (ctx, args) => generate(ctx, ...args.map((a) => a.code)) }] });
}

const helper = (name: string) => (ctx: CodegenContext, ...codes: string[]): string => `${ctx.lib(name)}(${codes.join(', ')})`;

/** A JS expression for `s LIKE pattern` with a constant pattern: plain comparisons where possible, else a precompiled RegExp. */
function constantLike(ctx: CodegenContext, s: string, pattern: string, escape: string | null): string {
  if ((escape === null || !pattern.includes(escape)) && !pattern.includes('_')) {
    const parts = pattern.split('%');
    if (parts.length === 1) return `${s} === ${stringLiteral(pattern)}`;
    if (parts.length === 2 && parts[1] === '') return `${s}.startsWith(${stringLiteral(parts[0]!)})`;
    if (parts.length === 2 && parts[0] === '') return `${s}.endsWith(${stringLiteral(parts[1]!)})`;
    if (parts.length === 3 && parts[0] === '' && parts[2] === '') return `${s}.includes(${stringLiteral(parts[1]!)})`;
  }
  return `${ctx.constant(likeRegExp(pattern, escape), 'like')}.test(${s})`;
}

function generateLike(ctx: CodegenContext, args: readonly ArgCode[]): string {
  const [s, pattern, escape] = args as [ArgCode, ArgCode, ArgCode | undefined];
  const escapeConstant = escape === undefined ? { value: null } : escape.constant;
  if (pattern.constant !== undefined && escapeConstant !== undefined) {
    return constantLike(ctx, s.code, pattern.constant.value as string, escapeConstant.value as string | null);
  }
  return `${ctx.lib('like')}(${s.code}, ${pattern.code}, ${escape?.code ?? 'null'})`;
}

function generateSimilar(ctx: CodegenContext, args: readonly ArgCode[]): string {
  const [s, pattern, escape] = args as [ArgCode, ArgCode, ArgCode | undefined];
  const escapeConstant = escape === undefined ? { value: null } : escape.constant;
  if (pattern.constant !== undefined && escapeConstant !== undefined) {
    return `${ctx.constant(similarRegExp(pattern.constant.value as string, escapeConstant.value as string | null), 'similar')}.test(${s.code})`;
  }
  return `${ctx.lib('similar')}(${s.code}, ${pattern.code}, ${escape?.code ?? 'null'})`;
}

/** The regex argument: a precompiled RegExp constant (null when invalid) or a run-time lookup. */
function regexArg(ctx: CodegenContext, arg: ArgCode, global: boolean): string {
  if (arg.constant !== undefined) return ctx.constant(javaRegex(arg.constant.value as string, global), 'regex');
  return `${ctx.lib('javaRegex')}(${arg.code}${global ? ', true' : ''})`;
}

function generateTrim(ctx: CodegenContext, args: readonly ArgCode[]): string {
  if (args.length === 1) return `${ctx.lib('trimChars')}(${args[0]!.code}, " ", true, true)`;
  const [mode, chars, s] = args as [ArgCode, ArgCode, ArgCode];
  if (mode.constant === undefined) return `${ctx.lib('trimMode')}(${mode.code}, ${chars.code}, ${s.code})`;
  const upper = String(mode.constant.value).toUpperCase();
  if (upper !== 'BOTH' && upper !== 'LEADING' && upper !== 'TRAILING') return `${ctx.lib('trimMode')}(${mode.code}, ${chars.code}, ${s.code})`;
  return `${ctx.lib('trimChars')}(${s.code}, ${chars.code}, ${upper !== 'TRAILING'}, ${upper !== 'LEADING'})`;
}

const sideTrim = (name: 'LTRIM' | 'RTRIM'): ScalarFunctionDefinition =>
  defineScalar({
    name,
    description: `${name}(s[, chars]): s without ${name === 'LTRIM' ? 'leading' : 'trailing'} characters from chars (default a space)`,
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        returns: asVarchar(0),
        generate: (ctx, [s, chars]) => `${ctx.lib('trimChars')}(${s!.code}, ${chars?.code ?? '" "'}, ${name === 'LTRIM'}, ${name === 'RTRIM'})`,
      },
    ],
  });

const concatenation = (types: readonly SqlType[]): SqlType => varchar(types.reduce((sum, t) => sum + lengthOf(t), 0));

const HASHES: readonly (readonly [string, string, number])[] = [
  ['MD5', 'md5', 32],
  ['SHA1', 'sha1', 40],
  ['SHA256', 'sha256', 64],
];

/** The string functions. */
export const stringFunctions: readonly ScalarFunctionDefinition[] = [
  stringFunction('||', "a || b: concatenation; NULL when either is NULL", {
    args: [Arg.STRING, Arg.STRING],
    returns: (types) => (types.every((t) => t.kind === 'CHAR') ? SqlTypes.char(lengthOf(types[0]!) + lengthOf(types[1]!), false) : concatenation(types)),
    generate: (_ctx, a, b) => `${a} + ${b}`,
  }),
  stringFunction('CONCAT', 'CONCAT(s1, s2, ...): concatenation; NULL when any argument is NULL', {
    args: [Arg.STRING],
    variadic: true,
    returns: concatenation,
    generate: (_ctx, ...codes) => (codes.length === 1 ? codes[0]! : codes.join(' + ')),
  }),
  defineScalar({
    name: 'CONCAT_WS',
    description: 'CONCAT_WS(sep, s1, s2, ...): the non-NULL strings joined by sep; NULL only when sep is NULL',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        variadic: true,
        returns: (types) => SqlTypes.string(types[0]!.nullable),
        generate: (ctx, [sep, ...rest]) => `${sep!.code} === null ? null : ${ctx.lib('concatWs')}(${[sep!, ...rest].map((a) => a.code).join(', ')})`,
      },
    ],
  }),
  stringFunction('UPPER', 'UPPER(s): s in upper case', { args: [Arg.STRING], returns: sameType, generate: (_ctx, s) => `${s}.toUpperCase()` }),
  stringFunction('LOWER', 'LOWER(s): s in lower case', { args: [Arg.STRING], returns: sameType, generate: (_ctx, s) => `${s}.toLowerCase()` }),
  stringFunction('CHAR_LENGTH', 'CHAR_LENGTH(s): the number of characters', { args: [Arg.STRING], returns: INT, generate: (_ctx, s) => `${s}.length` }),
  stringFunction('INITCAP', 'INITCAP(s): the first letter of each word upper case, the rest lower case', { args: [Arg.STRING], returns: sameType, generate: helper('initcap') }),
  defineScalar({
    name: 'SUBSTRING',
    description: 'SUBSTRING(s, start[, length]): length characters from position start (1-based; negative counts from the end); NULL for a negative length',
    signatures: [
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.INTEGER],
        optional: 1,
        nullable: true,
        returns: asVarchar(0),
        generate: (ctx, args) => helper('substring')(ctx, ...args.map((a) => a.code)),
      },
    ],
  }),
  defineScalar({
    name: 'TRIM',
    description: "TRIM('BOTH'|'LEADING'|'TRAILING', chars, s): s without the given characters at the given ends",
    signatures: [
      { args: [Arg.STRING, Arg.STRING, Arg.STRING], returns: asVarchar(2), generate: generateTrim },
      { args: [Arg.STRING], returns: asVarchar(0), generate: generateTrim },
    ],
  }),
  sideTrim('LTRIM'),
  sideTrim('RTRIM'),
  stringFunction('POSITION', 'POSITION(a, b): the 1-based position of a in b, 0 when absent', {
    args: [Arg.STRING, Arg.STRING],
    returns: INT,
    generate: (_ctx, a, b) => `${b}.indexOf(${a}) + 1`,
  }),
  stringFunction('LOCATE', 'LOCATE(a, b[, start]): the 1-based position of a in b from position start, 0 when absent', {
    args: [Arg.STRING, Arg.STRING, Arg.INTEGER],
    optional: 1,
    returns: INT,
    generate: (_ctx, a, b, start) => (start === undefined ? `${b}.indexOf(${a}) + 1` : `${b}.indexOf(${a}, ${start} - 1) + 1`),
  }),
  stringFunction('REPLACE', 'REPLACE(s, search, replacement): every occurrence of search replaced', {
    args: [Arg.STRING, Arg.STRING, Arg.STRING],
    returns: STRING,
    generate: helper('replaceAll'),
  }),
  defineScalar({
    name: 'LIKE',
    description: "s LIKE pattern [ESCAPE e]: '%' matches any sequence, '_' one character",
    signatures: [{ args: [Arg.STRING, Arg.STRING, Arg.STRING], optional: 1, returns: booleanType(false), generate: generateLike }],
  }),
  defineScalar({
    name: 'SIMILAR TO',
    description: "s SIMILAR TO pattern [ESCAPE e]: TRUE when the SQL regular expression matches all of s ('%', '_', '|', '*', '+', '?', '{m,n}', '( )', '[ ]')",
    signatures: [{ args: [Arg.STRING, Arg.STRING, Arg.STRING], optional: 1, returns: booleanType(false), generate: generateSimilar }],
  }),
  ...(['LPAD', 'RPAD'] as const).map((name) =>
    defineScalar({
      name,
      description: `${name}(s, length, pad): s padded on the ${name === 'LPAD' ? 'left' : 'right'} with pad to length, or cut; NULL for a negative length or empty pad`,
      signatures: [{ args: [Arg.STRING, Arg.INTEGER, Arg.STRING], nullable: true, returns: STRING, generate: (ctx, args) => helper(name.toLowerCase())(ctx, ...args.map((a) => a.code)) }],
    }),
  ),
  stringFunction('REPEAT', 'REPEAT(s, n): s repeated n times', { args: [Arg.STRING, Arg.INTEGER], returns: STRING, generate: helper('repeat') }),
  stringFunction('REVERSE', 'REVERSE(s): the characters of s in reverse order', {
    args: [Arg.STRING],
    returns: asVarchar(0),
    generate: (_ctx, s) => `Array.from(${s}).reverse().join("")`,
  }),
  stringFunction('ASCII', 'ASCII(s): the code of the first character, 0 for an empty string', {
    args: [Arg.STRING],
    returns: INT,
    generate: (_ctx, s) => `${s}.length === 0 ? 0 : ${s}.charCodeAt(0)`,
  }),
  stringFunction('CHR', 'CHR(n): the character with code n', {
    args: [Arg.INTEGER],
    returns: SqlTypes.char(1, false),
    generate: (_ctx, n) => `String.fromCharCode(${n})`,
  }),
  defineScalar({
    name: 'REGEXP_EXTRACT',
    description: 'REGEXP_EXTRACT(s, regex[, group]): group (default 0, the whole match) of the first match; NULL without one',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.INTEGER],
        optional: 1,
        nullable: true,
        returns: STRING,
        generate: (ctx, [s, regex, group]) => `${ctx.lib('regexpExtract')}(${s!.code}, ${regexArg(ctx, regex!, false)}, ${group?.code ?? '0'})`,
      },
    ],
  }),
  defineScalar({
    name: 'REGEXP_REPLACE',
    description: 'REGEXP_REPLACE(s, regex, replacement): every match replaced ($1 refers to a group)',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING],
        nullable: true,
        returns: STRING,
        generate: (ctx, [s, regex, replacement]) => `${ctx.lib('regexpReplace')}(${s!.code}, ${regexArg(ctx, regex!, true)}, ${replacement!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'REGEXP',
    description: 'REGEXP(s, regex): TRUE when regex matches part of s',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        nullable: true,
        returns: booleanType(false),
        generate: (ctx, [s, regex]) => `${ctx.lib('regexpMatches')}(${s!.code}, ${regexArg(ctx, regex!, false)})`,
      },
    ],
  }),
  defineScalar({
    name: 'SPLIT_INDEX',
    description: 'SPLIT_INDEX(s, separator, index): the index-th (0-based) piece of s split at separator; NULL when out of range',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.INTEGER],
        nullable: true,
        returns: STRING,
        generate: (ctx, args) => helper('splitIndex')(ctx, ...args.map((a) => a.code)),
      },
    ],
  }),
  stringFunction('LEFT', 'LEFT(s, n): the first n characters of s (empty when n is negative)', { args: [Arg.STRING, Arg.INTEGER], returns: asVarchar(0), generate: helper('left') }),
  stringFunction('RIGHT', 'RIGHT(s, n): the last n characters of s (empty when n is negative)', { args: [Arg.STRING, Arg.INTEGER], returns: asVarchar(0), generate: helper('right') }),
  stringFunction('INSTR', 'INSTR(s, sub): the position (from 1) of the first occurrence of sub in s, 0 when there is none', {
    args: [Arg.STRING, Arg.STRING],
    returns: INT,
    generate: (_ctx, s, sub) => `(${s}.indexOf(${sub}) + 1)`,
  }),
  stringFunction('TO_BASE64', 'TO_BASE64(s): the base64 encoding of the UTF-8 bytes of s', { args: [Arg.STRING], returns: STRING, generate: helper('toBase64') }),
  stringFunction('FROM_BASE64', 'FROM_BASE64(s): the UTF-8 text of base64 s (an error when s is not base64)', { args: [Arg.STRING], returns: STRING, generate: helper('fromBase64') }),
  ...HASHES.map(([name, algorithm, length]) =>
    stringFunction(name, `${name}(s): the ${name} digest of the UTF-8 bytes of s, in hex`, {
      args: [Arg.STRING],
      returns: SqlTypes.char(length, false),
      generate: (ctx, s) => `${ctx.lib('hashHex')}(${stringLiteral(algorithm)}, ${s})`,
    }),
  ),
];

/** Aliases of string functions: alias → canonical name. */
export const STRING_ALIASES: Readonly<Record<string, string>> = {
  CHARACTER_LENGTH: 'CHAR_LENGTH',
  SUBSTR: 'SUBSTRING',
};
