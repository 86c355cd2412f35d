/**
 * String functions with Flink's semantics: `||`/CONCAT (NULL if any argument is NULL; also of
 * binary strings, as SUBSTRING, TO_BASE64 and the hashes take them),
 * CONCAT_WS (skips NULLs), UPPER, LOWER, CHAR_LENGTH, SUBSTRING, OVERLAY, TRIM/LTRIM/RTRIM/BTRIM,
 * POSITION, LOCATE, INSTR, REPLACE, TRANSLATE, LIKE, SIMILAR TO, LPAD/RPAD, INITCAP, REPEAT,
 * REVERSE, the REGEXP family, SPLIT_INDEX, STR_TO_MAP, PARSE_URL, URL_ENCODE/URL_DECODE, ELT,
 * PRINTF, PRINT (writes its argument to standard output), STARTSWITH/ENDSWITH, base64 and the hashes. Constant patterns (LIKE, regular
 * expressions) are compiled once, into the closure; a regular expression that does not compile,
 * literal or computed, makes the function NULL (REGEXP: FALSE), as Flink's.
 */
import { formatValue } from '../../common/value-format.js';
import { formatType, isBinaryType, MAX_VARBINARY_LENGTH, MAX_VARCHAR_LENGTH, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { isNanoTimestamp } from '../../common/epoch-nanos.js';
import { WeirError } from '../../common/errors.js';
import type { ArgCode, CodegenContext, ScalarFunctionDefinition } from '../function-definition.js';
import type { PrintfArg } from '../runtime/printf.js';
import { decodeUtf8AsJava } from '../runtime/java-utf8-decoder.js';
import { javaRegex, likeRegExp, similarRegExp } from '../runtime/string-lib.js';
import { leastRestrictive } from '../type-coercion.js';
import { Arg, booleanType, constantArg, defineScalar, stringLiteral, type ArgFamily, type Signature } from './define.js';

type StringType = Extract<SqlType, { kind: 'CHAR' | 'VARCHAR' }>;
type BinaryType = Extract<SqlType, { kind: 'BINARY' | 'VARBINARY' }>;

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

/** The widths INET_NTOA reads a negative integer of these types as unsigned at. */
const UNSIGNED_BITS: Readonly<Partial<Record<SqlType['kind'], number>>> = { TINYINT: 8, SMALLINT: 16, INT: 32 };

/** URL_DECODE_RECURSIVE's default number of passes, as Flink's. */
const URL_DECODE_DEPTH = 10;

/** URL_DECODE_RECURSIVE's maxDepth: a positive integer literal (as Flink checks it when planning). */
function urlDecodeDepth(depth: ArgCode | undefined): number {
  if (depth === undefined) return URL_DECODE_DEPTH;
  const value = Number(constantArg('URL_DECODE_RECURSIVE', depth, 'maxDepth'));
  if (!(value > 0)) throw new WeirError('INVALID_ARGUMENT', `URL_DECODE_RECURSIVE: maxDepth must be a positive integer, got ${value}`);
  return Math.min(value, 2 ** 31 - 1);
}

/** A JS expression for `s LIKE pattern` with a constant pattern: plain comparisons where possible, else a precompiled RegExp. */
function constantLike(ctx: CodegenContext, s: string, pattern: string, escape: string | null): string {
  const regex = likeRegExp(pattern, escape); // also rejects an invalid escape where the plain tests would not look at it
  if ((escape === null || escape === '' || !pattern.includes(escape)) && !pattern.includes('_')) {
    const parts = pattern.split('%');
    if (parts.length === 1) return `${s} === ${stringLiteral(pattern)}`;
    if (parts.length === 2 && parts[1] === '') return `${s}.startsWith(${stringLiteral(parts[0]!)})`;
    if (parts.length === 2 && parts[0] === '') return `${s}.endsWith(${stringLiteral(parts[1]!)})`;
    if (parts.length === 3 && parts[0] === '' && parts[2] === '') return `${s}.includes(${stringLiteral(parts[1]!)})`;
  }
  return `${ctx.constant(regex, 'like')}.test(${s})`;
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

/** The regex argument: a precompiled RegExp constant or a run-time lookup (null when invalid). */
function regexArg(ctx: CodegenContext, arg: ArgCode, global: boolean): string {
  if (arg.constant !== undefined) return ctx.constant(javaRegex(arg.constant.value as string, global), 'regex');
  return `${ctx.lib('javaRegex')}(${arg.code}${global ? ', true' : ''})`;
}

/** A regular-expression function of (s, regex[, extra]) calling the run-time helper `helper`. */
function regexFunction(name: string, description: string, returns: SqlType, helperName: string, options: { readonly global?: boolean; readonly extra?: Signature['args']; readonly defaultExtra?: string } = {}): ScalarFunctionDefinition {
  const extra = options.extra ?? [];
  return defineScalar({
    name,
    description,
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, ...extra],
        optional: extra.length,
        nullable: true,
        returns,
        generate: (ctx, [s, regex, ...rest]) => {
          const more = rest.length > 0 ? rest.map((a) => `, ${a.code}`).join('') : options.defaultExtra === undefined ? '' : `, ${options.defaultExtra}`;
          return `${ctx.lib(helperName)}(${s!.code}, ${regexArg(ctx, regex!, options.global === true)}${more})`;
        },
      },
    ],
  });
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

/** The summed length of binary strings, at most BYTES's. */
const binaryLength = (types: readonly SqlType[]): number => Math.min(types.reduce((sum, t) => sum + (t as BinaryType).length, 0), MAX_VARBINARY_LENGTH);

const HASHES: readonly (readonly [string, string, number])[] = [
  ['MD5', 'md5', 32],
  ['SHA1', 'sha1', 40],
  ['SHA224', 'sha224', 56],
  ['SHA256', 'sha256', 64],
  ['SHA384', 'sha384', 96],
  ['SHA512', 'sha512', 128],
];

const INTEGER_BITS: Readonly<Record<string, 8 | 16 | 32 | 64>> = { TINYINT: 8, SMALLINT: 16, INT: 32, BIGINT: 64 };

/** How PRINTF's Java formatter sees a value of `type` (see runtime/printf.ts). */
function printfArg(type: SqlType): PrintfArg {
  switch (type.kind) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return { kind: 'integer', bits: INTEGER_BITS[type.kind]! };
    case 'FLOAT':
      return { kind: 'float' };
    case 'DOUBLE':
      return { kind: 'double' };
    case 'DECIMAL':
      return { kind: 'decimal', scale: type.scale };
    case 'BOOLEAN':
      return { kind: 'boolean' };
    case 'CHAR':
    case 'VARCHAR':
      return { kind: 'string' };
    default:
      return { kind: 'other', text: (value) => formatValue(value, type) };
  }
}

function generatePrintf(ctx: CodegenContext, [format, ...values]: readonly ArgCode[]): string {
  const args = ctx.constant(values.map((v) => printfArg(v.type)), 'printf_args');
  return `${format!.code} === null ? null : ${ctx.lib('printf')}(${format!.code}, ${args}${values.map((v) => `, ${v.code}`).join('')})`;
}

/** TIMESTAMP without a time zone only: Flink has no HASH_CODE of a TIMESTAMP_LTZ (its code generator refuses the call). */
const PLAIN_TIMESTAMP: ArgFamily = { name: 'TIMESTAMP', accepts: (t) => t.kind === 'TIMESTAMP', nullType: SqlTypes.timestamp() };

/** HASH_CODE of `type`'s values as Flink computes it (runtime/hash-code-lib.ts): a JS expression of `code`. */
function hashCodeOf(ctx: CodegenContext, type: SqlType, code: string): string {
  switch (type.kind) {
    case 'CHAR':
    case 'VARCHAR':
      return `${ctx.lib('javaHashCode')}(${code})`;
    case 'BINARY':
    case 'VARBINARY':
      return `${ctx.lib('hashCodeOfBytes')}(${code})`;
    case 'BOOLEAN':
      return `${ctx.lib('hashCodeOfBoolean')}(${code})`;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'DATE':
    case 'TIME':
      return `(${code} | 0)`;
    case 'BIGINT':
      return `${ctx.lib('hashCodeOfLong')}(${code})`;
    case 'FLOAT':
      return `${ctx.lib('hashCodeOfFloat')}(${code})`;
    case 'DOUBLE':
      return `${ctx.lib('hashCodeOfDouble')}(${code})`;
    case 'DECIMAL':
      return `${ctx.lib('hashCodeOfDecimal')}(${code}, ${type.scale})`;
    case 'TIMESTAMP':
      return `${ctx.lib(isNanoTimestamp(type) ? 'hashCodeOfTimestampNanos' : 'hashCodeOfTimestamp')}(${code})`;
    case 'TIMESTAMP_LTZ':
    case 'INTERVAL_DAY_TIME':
    case 'INTERVAL_YEAR_MONTH':
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
    case 'NULL':
      throw new WeirError('TYPE_MISMATCH', `HASH_CODE does not take ${formatType(withNullable(type, true))}`);
    default: {
      const unknown: never = type;
      throw new WeirError('INTERNAL_ERROR', `HASH_CODE of an unknown type ${JSON.stringify(unknown)}`);
    }
  }
}

const hashCodeSignature = (family: ArgFamily): Signature => ({
  args: [family],
  exactInt64: true,
  exactNanos: true,
  returns: INT,
  generate: (ctx, [x]) => hashCodeOf(ctx, x!.type, x!.code),
});

/**
 * HASH_CODE(x): Flink's HASH_CODE (FlinkSqlOperatorTable: BOOLEAN, NUMERIC, STRING (character or
 * binary), TIMESTAMP, TIME and DATE; ROW, ARRAY, MAP, intervals and TIMESTAMP_LTZ are refused).
 */
const hashCode = defineScalar({
  name: 'HASH_CODE',
  description: "HASH_CODE(x): Flink's hash code of x, an INT: Java's String.hashCode of a string, Long.hashCode of a BIGINT, BigDecimal.hashCode of a DECIMAL, TimestampData.hashCode of a TIMESTAMP, Murmur3 (seed 42) of a binary string",
  signatures: [Arg.STRING, Arg.BINARY, Arg.BOOLEAN, Arg.NUMERIC, Arg.DATE, Arg.TIME, PLAIN_TIMESTAMP].map(hashCodeSignature),
});

/** The string functions. */
export const stringFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: '||',
    description: 'a || b: concatenation of two strings or of two binary strings; NULL when either is NULL',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        returns: (types) => (types.every((t) => t.kind === 'CHAR') ? SqlTypes.char(lengthOf(types[0]!) + lengthOf(types[1]!), false) : concatenation(types)),
        generate: (_ctx, [a, b]) => `${a!.code} + ${b!.code}`,
      },
      {
        args: [Arg.BINARY, Arg.BINARY],
        returns: (types) => (types.every((t) => t.kind === 'BINARY') ? SqlTypes.binary(binaryLength(types), false) : SqlTypes.varbinary(binaryLength(types), false)),
        generate: (ctx, [a, b]) => `${ctx.lib('concatBytes')}(${a!.code}, ${b!.code})`,
      },
    ],
  }),
  defineScalar({
    name: 'CONCAT',
    description: 'CONCAT(s1, s2, ...): concatenation of strings, or of binary strings; NULL when any argument is NULL',
    signatures: [
      {
        args: [Arg.STRING],
        variadic: true,
        returns: concatenation,
        generate: (_ctx, args) => (args.length === 1 ? args[0]!.code : args.map((a) => a.code).join(' + ')),
      },
      {
        args: [Arg.BINARY],
        variadic: true,
        returns: (types) => SqlTypes.varbinary(binaryLength(types), false),
        generate: (ctx, args) => (args.length === 1 ? args[0]!.code : `${ctx.lib('concatBytes')}(${args.map((a) => a.code).join(', ')})`),
      },
    ],
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
    description: 'SUBSTRING(s, start[, length]): length characters (bytes of a binary string) from position start (1-based; negative counts from the end); NULL for a negative length',
    signatures: [
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.INTEGER],
        optional: 1,
        nullable: true,
        returns: asVarchar(0),
        generate: (ctx, args) => helper('substring')(ctx, ...args.map((a) => a.code)),
      },
      {
        args: [Arg.BINARY, Arg.INTEGER, Arg.INTEGER],
        optional: 1,
        nullable: true,
        returns: (types) => SqlTypes.varbinary((types[0] as BinaryType).length, false),
        generate: (ctx, args) => helper('substringBytes')(ctx, ...args.map((a) => a.code)),
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
  defineScalar({
    name: 'BTRIM',
    description: 'BTRIM(s[, chars]): s without leading and trailing characters from chars (default a space)',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        returns: asVarchar(0),
        generate: (ctx, [s, chars]) => `${ctx.lib('trimChars')}(${s!.code}, ${chars?.code ?? '" "'}, true, true)`,
      },
    ],
  }),
  defineScalar({
    name: 'OVERLAY',
    description: "OVERLAY(s PLACING r FROM start [FOR length]): s with length characters (r's length by default) from position start replaced by r",
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.INTEGER, Arg.INTEGER],
        optional: 1,
        returns: STRING,
        generate: (ctx, args) => helper('overlay')(ctx, ...args.map((a) => a.code)),
      },
    ],
  }),
  stringFunction('POSITION', 'POSITION(a, b): the 1-based position of a in b, 0 when absent', {
    args: [Arg.STRING, Arg.STRING],
    returns: INT,
    generate: (_ctx, a, b) => `${b}.indexOf(${a}) + 1`,
  }),
  stringFunction('LOCATE', 'LOCATE(a, b[, start]): the 1-based position of a in b from position start, 0 when absent', {
    args: [Arg.STRING, Arg.STRING, Arg.INTEGER],
    optional: 1,
    returns: INT,
    generate: (ctx, a, b, start) => (start === undefined ? `${b}.indexOf(${a}) + 1` : `${ctx.lib('locate')}(${a}, ${b}, ${start})`),
  }),
  defineScalar({
    name: 'TRANSLATE',
    description: "TRANSLATE(s, from, to): each character of from in s replaced by the one at its place in to (removed when to is shorter); s itself when from is NULL",
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING],
        returns: (types) => SqlTypes.string(types[0]!.nullable),
        generate: (ctx, [s, from, to]) => `${s!.code} === null || ${from!.code} === null ? ${s!.code} : ${ctx.lib('translate')}(${s!.code}, ${from!.code}, ${to!.code} ?? "")`,
      },
    ],
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
  stringFunction('CHR', 'CHR(n): the character whose code is the low byte of n (CHR(353) = a); empty for a negative n', {
    args: [Arg.INTEGER],
    returns: SqlTypes.string(false),
    generate: helper('chr'),
  }),
  regexFunction('REGEXP_EXTRACT', 'REGEXP_EXTRACT(s, regex[, group]): group (default 0, the whole match) of the first match; NULL without one', STRING, 'regexpExtract', { extra: [Arg.INTEGER], defaultExtra: '0' }),
  regexFunction('REGEXP_EXTRACT_ALL', 'REGEXP_EXTRACT_ALL(s, regex[, group]): group (default 1) of every match, as an array', SqlTypes.array(SqlTypes.string(true), false), 'regexpExtractAll', { global: true, extra: [Arg.INTEGER], defaultExtra: '1' }),
  regexFunction('REGEXP_COUNT', 'REGEXP_COUNT(s, regex): how many times regex matches s', INT, 'regexpCount', { global: true }),
  regexFunction('REGEXP_INSTR', 'REGEXP_INSTR(s, regex): the 1-based position of the first match, 0 without one', INT, 'regexpInstr'),
  regexFunction('REGEXP_SUBSTR', 'REGEXP_SUBSTR(s, regex): the first match; NULL without one', STRING, 'regexpSubstr'),
  defineScalar({
    name: 'REGEXP_REPLACE',
    description: 'REGEXP_REPLACE(s, regex, replacement): every match replaced by replacement, taken literally',
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
    description: 'REGEXP(s, regex): TRUE when regex matches part of s (FALSE for an empty regex)',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        returns: booleanType(false),
        generate: (ctx, [s, regex]) => `${ctx.lib('regexpMatches')}(${s!.code}, ${regexArg(ctx, regex!, false)})`,
      },
    ],
  }),
  defineScalar({
    name: 'SPLIT_INDEX',
    description: 'SPLIT_INDEX(s, separator, index): the index-th (0-based) piece of s split at separator (a string, or a character code 1-255); NULL when out of range',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.INTEGER],
        nullable: true,
        returns: STRING,
        generate: (ctx, args) => helper('splitIndex')(ctx, ...args.map((a) => a.code)),
      },
      {
        args: [Arg.STRING, Arg.INTEGER, Arg.INTEGER],
        nullable: true,
        returns: STRING,
        generate: (ctx, args) => helper('splitIndexByCode')(ctx, ...args.map((a) => a.code)),
      },
    ],
  }),
  defineScalar({
    name: 'STR_TO_MAP',
    description: "STR_TO_MAP(s[, pairDelimiter, keyValueDelimiter]): s split into key/value pairs (delimiters are regular expressions, default ',' and '=')",
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING],
        optional: 2,
        returns: SqlTypes.map(SqlTypes.string(true), SqlTypes.string(true), false),
        coerce: (types) => (types.length === 2 ? undefined : types),
        generate: (ctx, args) => helper('strToMap')(ctx, ...args.map((a) => a.code)),
      },
    ],
  }),
  defineScalar({
    name: 'PARSE_URL',
    description: "PARSE_URL(url, part[, key]): the HOST, PATH, QUERY, REF, PROTOCOL, AUTHORITY, FILE or USERINFO of url, or the value of key in its QUERY; NULL when absent",
    signatures: [
      { args: [Arg.STRING, Arg.STRING], nullable: true, returns: STRING, generate: (ctx, args) => helper('parseUrl')(ctx, ...args.map((a) => a.code)) },
      { args: [Arg.STRING, Arg.STRING, Arg.STRING], nullable: true, returns: STRING, generate: (ctx, args) => helper('parseUrlQuery')(ctx, ...args.map((a) => a.code)) },
    ],
  }),
  stringFunction('URL_ENCODE', "URL_ENCODE(s): s in application/x-www-form-urlencoded form (UTF-8)", { args: [Arg.STRING], returns: STRING, generate: helper('urlEncode') }),
  defineScalar({
    name: 'URL_DECODE',
    description: 'URL_DECODE(s): application/x-www-form-urlencoded text decoded (UTF-8); NULL for an illegal escape',
    signatures: [{ args: [Arg.STRING], nullable: true, returns: STRING, generate: (ctx, [s]) => `${ctx.lib('urlDecode')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'URL_DECODE_RECURSIVE',
    description: 'URL_DECODE_RECURSIVE(s[, maxDepth]): s URL-decoded again and again until it no longer changes or maxDepth (a positive integer literal, default 10) passes are done; the last good result when a later pass fails, NULL when the first does',
    signatures: [
      { args: [Arg.STRING, Arg.INTEGER], optional: 1, nullable: true, returns: STRING, generate: (ctx, [s, depth]) => `${ctx.lib('urlDecodeRecursive')}(${s!.code}, ${urlDecodeDepth(depth)})` },
      // The form of Flink's first URL_DECODE_RECURSIVE tests: TRUE decodes to the default depth, FALSE once.
      { args: [Arg.STRING, Arg.BOOLEAN], nullable: true, returns: STRING, generate: (ctx, [s, all]) => `${ctx.lib('urlDecodeRecursive')}(${s!.code}, ${constantArg('URL_DECODE_RECURSIVE', all, 'BOOLEAN') === true ? URL_DECODE_DEPTH : 1})` },
    ],
  }),
  stringFunction('STARTSWITH', 'STARTSWITH(s, prefix): TRUE when s starts with prefix', { args: [Arg.STRING, Arg.STRING], returns: booleanType(false), generate: (_ctx, a, b) => `${a}.startsWith(${b})` }),
  stringFunction('ENDSWITH', 'ENDSWITH(s, suffix): TRUE when s ends with suffix', { args: [Arg.STRING, Arg.STRING], returns: booleanType(false), generate: (_ctx, a, b) => `${a}.endsWith(${b})` }),
  defineScalar({
    name: 'ELT',
    description: 'ELT(index, e1, e2, ...): the index-th expression (1-based) of strings or of binary strings; NULL when index is NULL, an error when it is out of range',
    nulls: 'custom',
    signatures: [eltSignature(Arg.STRING), eltSignature(Arg.BINARY)],
  }),
  defineScalar({
    name: 'PRINTF',
    description: 'PRINTF(format, args...): the arguments formatted by a Java format string (%s, %d, %f, %x, ...; NULL arguments print as null); NULL for an invalid format',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.ANY],
        optional: 1,
        returns: () => SqlTypes.string(true),
        generate: generatePrintf,
      },
      {
        args: [Arg.STRING, Arg.ANY],
        variadic: true,
        returns: () => SqlTypes.string(true),
        generate: generatePrintf,
      },
    ],
  }),
  defineScalar({
    name: 'PRINT',
    description: "PRINT(prefix, x): x unchanged, after writing the line prefix || x (NULL as 'null', bytes read as UTF-8) to standard output; for debugging",
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.ANY],
        // Flink's operator table types it as x, nullable when either argument is (ReturnTypes.ARG1_NULLABLE).
        returns: (types) => withNullable(types[1]!, types.some((t) => t.nullable)),
        coerce: (types) => (types[1]!.kind === 'NULL' ? undefined : types),
        generate: (ctx, [prefix, value]) => {
          const type = value!.type;
          const format = ctx.constant(isBinaryType(type) ? (v: unknown) => decodeUtf8AsJava(v as Uint8Array) : (v: unknown) => formatValue(v, type, ctx.timeZone), 'print_format');
          return `${ctx.lib('printThrough')}(${prefix!.code}, ${value!.code}, ${format})`;
        },
      },
    ],
  }),
  defineScalar({
    name: 'IS_ALPHA',
    description: 'IS_ALPHA(s): TRUE when s is not empty and every character is a letter; FALSE for NULL',
    nulls: 'custom',
    signatures: [{ args: [Arg.STRING], returns: booleanType(false), generate: (ctx, [s]) => `${s!.code} !== null && ${ctx.lib('isAlpha')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'IS_DIGIT',
    description: 'IS_DIGIT(s): TRUE when s is not empty and every character is a digit; FALSE for NULL',
    nulls: 'custom',
    signatures: [
      { args: [Arg.STRING], returns: booleanType(false), generate: (ctx, [s]) => `${s!.code} !== null && ${ctx.lib('isDigit')}(${s!.code})` },
      { args: [Arg.INTEGER], returns: booleanType(false), exactInt64: true, generate: (_ctx, [n]) => `${n!.code} !== null` },
    ],
  }),
  defineScalar({
    name: 'IS_DECIMAL',
    description: 'IS_DECIMAL(s): TRUE when s parses as a number (Java Integer, Long or Double); FALSE for NULL',
    nulls: 'custom',
    signatures: [
      { args: [Arg.STRING], returns: booleanType(false), generate: (ctx, [s]) => `${s!.code} !== null && ${ctx.lib('isDecimal')}(${s!.code})` },
      { args: [Arg.NUMERIC], returns: booleanType(false), generate: (_ctx, [n]) => `${n!.code} !== null` },
    ],
  }),
  stringFunction('INET_ATON', 'INET_ATON(s): an IPv4 address as a BIGINT (short forms a.b, a.b.c and a lone number, as MySQL); NULL when invalid', {
    args: [Arg.STRING],
    nullable: true,
    returns: SqlTypes.bigint(false),
    generate: helper('inetAton'),
  }),
  defineScalar({
    name: 'INET_NTOA',
    description: 'INET_NTOA(n): a number in [0, 4294967295] as an IPv4 address (a TINYINT, SMALLINT or INT read as unsigned); NULL otherwise',
    signatures: [{ args: [Arg.INTEGER], nullable: true, returns: STRING, generate: (ctx, [n]) => `${ctx.lib('inetNtoa')}(${n!.code}, ${UNSIGNED_BITS[n!.type.kind] ?? 0})` }],
  }),
  // LEFT and RIGHT are typed nullable whatever the arguments, as Flink's operator table types them (ARG0_VARCHAR_FORCE_NULLABLE).
  stringFunction('LEFT', 'LEFT(s, n): the first n characters of s (empty when n is negative)', { args: [Arg.STRING, Arg.INTEGER], nullable: true, returns: asVarchar(0), generate: helper('left') }),
  stringFunction('RIGHT', 'RIGHT(s, n): the last n characters of s (empty when n is negative)', { args: [Arg.STRING, Arg.INTEGER], nullable: true, returns: asVarchar(0), generate: helper('right') }),
  stringFunction('INSTR', 'INSTR(s, sub[, start[, nth]]): the position (from 1) of the nth occurrence (default the first) of sub in s searching from start (default 1; from the end backwards when negative), 0 when there is none', {
    args: [Arg.STRING, Arg.STRING, Arg.INTEGER, Arg.INTEGER],
    optional: 2,
    returns: INT,
    generate: (ctx, s, sub, start, nth) => (start === undefined ? `(${s}.indexOf(${sub}) + 1)` : `${ctx.lib('instr')}(${s}, ${sub}, ${start}, ${nth ?? 1})`),
  }),
  defineScalar({
    name: 'TO_BASE64',
    description: 'TO_BASE64(s): the base64 encoding of the UTF-8 bytes of s, or of a binary string',
    signatures: [
      { args: [Arg.STRING], returns: STRING, generate: (ctx, [s]) => `${ctx.lib('toBase64')}(${s!.code})` },
      { args: [Arg.BINARY], returns: STRING, generate: (ctx, [b]) => `${ctx.lib('base64OfBytes')}(${b!.code})` },
    ],
  }),
  defineScalar({
    name: 'FROM_BASE64',
    description: 'FROM_BASE64(s): the UTF-8 text of base64 s, a string or a binary string (an error when s is not base64)',
    signatures: [
      { args: [Arg.STRING], returns: STRING, generate: (ctx, [s]) => `${ctx.lib('fromBase64')}(${s!.code})` },
      { args: [Arg.BINARY], returns: STRING, generate: (ctx, [b]) => `${ctx.lib('fromBase64Bytes')}(${b!.code})` },
    ],
  }),
  hashCode,
  defineScalar({
    name: 'SHA2',
    description: 'SHA2(s, bits): the SHA-224, SHA-256, SHA-384 or SHA-512 digest of the UTF-8 bytes of s (or of a binary string), in hex; NULL for another bit length',
    signatures: [
      { args: [Arg.STRING, Arg.INTEGER], nullable: true, returns: STRING, generate: (ctx, [s, bits]) => `${ctx.lib('sha2')}(${s!.code}, ${bits!.code})` },
      { args: [Arg.BINARY, Arg.INTEGER], nullable: true, returns: STRING, generate: (ctx, [b, bits]) => `${ctx.lib('sha2OfBytes')}(${b!.code}, ${bits!.code})` },
    ],
  }),
  ...HASHES.map(([name, algorithm, length]) =>
    defineScalar({
      name,
      description: `${name}(s): the ${name} digest of the UTF-8 bytes of s (or of a binary string), in hex`,
      signatures: [
        { args: [Arg.STRING], returns: SqlTypes.char(length, false), generate: (ctx, [s]) => `${ctx.lib('hashHex')}(${stringLiteral(algorithm)}, ${s!.code})` },
        { args: [Arg.BINARY], returns: SqlTypes.char(length, false), generate: (ctx, [b]) => `${ctx.lib('hashBytesHex')}(${stringLiteral(algorithm)}, ${b!.code})` },
      ],
    }),
  ),
];

/** Aliases of string functions: alias → canonical name. */
export const STRING_ALIASES: Readonly<Record<string, string>> = {
  CHARACTER_LENGTH: 'CHAR_LENGTH',
  SUBSTR: 'SUBSTRING',
};

/**
 * ELT over one family of values: their common type, nullable when the index or any value is (as
 * Flink types it); an index outside [1, n] is an error, as Flink's IndexOutOfBoundsException.
 */
function eltSignature(values: ArgFamily): Signature {
  return {
    args: [Arg.INTEGER, values],
    variadic: true,
    coerce: (types) => {
      const common = leastRestrictive(types.slice(1));
      return common === undefined ? undefined : [types[0]!, ...types.slice(1).map((t) => withNullable(common, t.nullable))];
    },
    returns: (types) => withNullable(types[1]!, types.some((t) => t.nullable)),
    generate: (ctx, [index, ...values]) =>
      `(${index!.code} === null ? null : [${values.map((v) => v.code).join(', ')}][${ctx.lib('eltIndex')}(${index!.code}, ${values.length})])`,
  };
}
