/**
 * The JSON functions, as Flink's (runtime/json-lib.ts has the parser, the paths and the
 * serializer): `IS JSON [VALUE | SCALAR | ARRAY | OBJECT]`, JSON_EXISTS, JSON_VALUE, JSON_QUERY,
 * JSON_STRING, JSON_OBJECT, JSON_ARRAY, JSON (raw JSON inside those two), JSON_QUOTE,
 * JSON_UNQUOTE, JSON_LENGTH and JSON_TYPE. The grammar turns their clauses into literal
 * arguments: JSON_VALUE(json, path, <RETURNING type as a typed NULL>, 'NULL'|'ERROR'|'DEFAULT',
 * default, 'NULL'|'ERROR'|'DEFAULT', default); JSON_QUERY(json, path, wrapper, onEmpty, onError,
 * <RETURNING type>); JSON_EXISTS(json, path, onError); JSON_OBJECT(mode, k1, v1, ...) and
 * JSON_ARRAY(mode, v1, ...), where mode is `NULL` or `ABSENT` followed, after a colon, by a letter
 * per value (the binder adds them): `R` for a value written by a JSON constructor, inserted as
 * JSON rather than as a string.
 */
import { WeirError } from '../../common/errors.js';
import { formatType, isStringType, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { castConverter } from '../cast.js';
import type { ArgCode, CodegenContext, LazyArg, ScalarFunctionDefinition, StatementContext } from '../function-definition.js';
import { jsonSerializer, tryCompileJsonPath, type JsonConversionKind, type JsonQueryReturning, type JsonValueConversion } from '../runtime/json-lib.js';
import { Arg, booleanType, constantArg, defineScalar, stringLiteral, type Literals } from './define.js';

const STRING = SqlTypes.string(false);

/** The compiled path of a literal path argument (null when it does not compile), or a run-time compilation. */
function pathCode(ctx: CodegenContext, path: ArgCode | LazyArg, code: string): string {
  if (path.constant !== undefined) return ctx.constant(tryCompileJsonPath(String(path.constant.value)) ?? null, 'path');
  return `(${ctx.lib('tryCompileJsonPath')}(${code}) ?? null)`;
}

/**
 * Checks a literal path at planning time, as Flink validates it: a path that does not compile is
 * an error; for the functions without path modes (`allowMode` false) only a mode prefix is (any
 * other malformed path makes them NULL).
 */
function checkedPath(fn: string, index: number, returns: SqlType | ((types: readonly SqlType[]) => SqlType), allowMode = true): (types: readonly SqlType[], literals: Literals) => SqlType {
  return (types, literals) => {
    const path = literals[index]?.value;
    if (!allowMode && types.length > index && literals[index] === undefined) {
      throw new WeirError('TYPE_MISMATCH', `Invalid input arguments: the path of ${fn} must be a literal`);
    }
    if (typeof path === 'string') {
      if (!allowMode && /^\s*(lax|strict)\s/i.test(path)) {
        throw new WeirError(
          'INVALID_ARGUMENT',
          `${fn} does not support the 'lax'/'strict' path mode prefix (got: '${path}'). Use a plain path such as '$.a.b'. To check path existence or handle invalid input, use JSON_EXISTS or IS JSON.`,
        );
      }
      if (allowMode && tryCompileJsonPath(path) === undefined) throw new WeirError('INVALID_ARGUMENT', `${fn}: invalid JSON path '${path}'`);
    }
    return typeof returns === 'function' ? returns(types) : returns;
  };
}

/** The RETURNING type of JSON_VALUE (a typed NULL argument; an untyped NULL means none: STRING, Flink's default). */
function returningType(type: SqlType): SqlType {
  return type.kind === 'NULL' ? SqlTypes.string(true) : withNullable(type, true);
}

const VALUE_TYPES = new Set(['VARCHAR', 'CHAR', 'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL', 'DATE', 'TIME', 'TIMESTAMP']);

/** The RETURNING types Flink converts a JSON scalar to by its own rules rather than by a CAST of its text. */
const CONVERSION_KINDS = new Set<string>(['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL'] satisfies JsonConversionKind[]);

/** Flink's name of a type's root in its conversion errors: INTEGER for INT. */
const rootName = (type: SqlType): string => (type.kind === 'INT' ? 'INTEGER' : type.kind);

/** How JSON_VALUE converts a scalar to `type`. */
function valueConversion(type: SqlType): JsonValueConversion {
  if (isStringType(type)) return null;
  if (CONVERSION_KINDS.has(type.kind)) {
    const [precision, scale] = type.kind === 'DECIMAL' ? [type.precision, type.scale] : [0, 0];
    return { kind: type.kind as JsonConversionKind, precision, scale, typeName: rootName(type) };
  }
  return castConverter(SqlTypes.string(false), type) ?? ((text: string) => text);
}

/** What JSON_QUERY returns for its RETURNING type: JSON text, the texts of an array's elements, or an array's elements converted. */
function queryReturning(type: SqlType | undefined): JsonQueryReturning {
  if (type === undefined || type.kind !== 'ARRAY') return null;
  const element = type.element;
  if (element.kind === 'VARCHAR' || element.kind === 'CHAR') return 'text';
  const [precision, scale] = element.kind === 'DECIMAL' ? [element.precision, element.scale] : [0, 0];
  return { kind: element.kind as JsonConversionKind, precision, scale, nullable: element.nullable };
}

/** Flink's (Calcite's) name of a RETURNING type in JSON_QUERY's messages: `VARCHAR(2147483647) ARRAY`. */
function calciteTypeName(type: SqlType): string {
  if (type.kind === 'ARRAY') return `${calciteTypeName(type.element)} ARRAY`;
  if (type.kind === 'VARCHAR' && formatType(type).startsWith('STRING')) return 'VARCHAR(2147483647)';
  return formatType(withNullable(type, true)).replace(/^INT\b/, 'INTEGER');
}

/**
 * JSON_QUERY's type: STRING, or the RETURNING ARRAY type (of a string type, BOOLEAN, an integer
 * type, FLOAT, DOUBLE or DECIMAL); other RETURNING types, and EMPTY OBJECT for an ARRAY, are
 * errors, as Flink validates them.
 */
function jsonQueryType(types: readonly SqlType[], literals: Literals): SqlType {
  const returning = types[5];
  if (returning === undefined || returning.kind === 'NULL' || isStringType(returning)) return SqlTypes.string(true);
  if (returning.kind !== 'ARRAY') throw new WeirError('TYPE_MISMATCH', `Unsupported type '${formatType(withNullable(returning, true))}' for RETURNING in JSON_QUERY().`);
  const element = returning.element;
  if (!isStringType(element) && !CONVERSION_KINDS.has(element.kind)) {
    throw new WeirError('TYPE_MISMATCH', `Unsupported array element type '${formatType(element)}' for RETURNING ARRAY in JSON_QUERY().`);
  }
  for (const [index, clause] of [[3, 'empty'], [4, 'error']] as const) {
    if (literals[index]?.value === 'EMPTY OBJECT') throw new WeirError('INVALID_ARGUMENT', `Illegal on ${clause} behavior 'EMPTY OBJECT' for return type: ${calciteTypeName(returning)}`);
  }
  return withNullable(isStringType(element) ? SqlTypes.array(SqlTypes.string(true), true) : returning, true);
}

/**
 * JSON_VALUE, lazily: a DEFAULT is computed only when its clause applies, and a DEFAULT for an
 * empty result that fails falls through to the ON ERROR clause.
 */
function jsonValueStatements(ctx: StatementContext, args: readonly LazyArg[], call: { type: SqlType }): string {
  const [json, path, returning, emptyMode, emptyDefault, errorMode, errorDefault] = args as [LazyArg, LazyArg, LazyArg, LazyArg, LazyArg, LazyArg, LazyArg];
  const type = call.type;
  const conversion = valueConversion(type);
  const convert = conversion === null ? 'null' : ctx.constant(conversion, 'convert');
  const modes = [String(constantArg('JSON_VALUE', emptyMode, 'ON EMPTY behaviour')), String(constantArg('JSON_VALUE', errorMode, 'ON ERROR behaviour'))] as const;
  void returning;
  const result = ctx.local();
  const read = ctx.local();
  ctx.emit(`let ${result} = null;`);
  const input = json.evaluate();
  const pathValue = path.constant === undefined ? path.evaluate() : '';
  const onError = (message: string): void => {
    if (modes[1] === 'ERROR') ctx.emit(`throw new ${ctx.constant(WeirError, 'WeirError')}('EXECUTION_ERROR', ${message});`);
    else if (modes[1] === 'DEFAULT') ctx.emit(`${result} = ${errorDefault.evaluate()};`);
  };
  // A JSON text that is not a string (Flink accepts any type there) gives NULL.
  if (!isStringType(json.type)) return result;
  ctx.block(`if (${input} !== null${path.constant === undefined ? ` && ${pathValue} !== null` : ''})`, () => {
    ctx.emit(`const ${read} = ${ctx.lib('jsonValueAs')}(${input}, ${pathCode(ctx, path, pathValue)}, ${convert});`);
    ctx.block(`if (${read}.kind === 'converted')`, () => ctx.emit(`${result} = ${read}.value;`));
    ctx.block(`else if (${read}.kind === 'empty')`, () => {
      if (modes[0] === 'ERROR') ctx.emit(`throw new ${ctx.constant(WeirError, 'WeirError')}('EXECUTION_ERROR', 'Empty result of JSON_VALUE function is not allowed');`);
      else if (modes[0] === 'DEFAULT') {
        ctx.block('try', () => ctx.emit(`${result} = ${emptyDefault.evaluate()};`));
        ctx.block('catch (error)', () => {
          ctx.emit(`if (!(error instanceof ${ctx.constant(WeirError, 'WeirError')})) throw error;`);
          onError(`'JSON_VALUE: the ON EMPTY default failed: ' + error.message`);
        });
      }
    });
    ctx.block('else', () => onError(`'JSON_VALUE: ' + ${read}.message`));
  });
  return result;
}

/** `IS JSON <type>`: NULL for NULL. */
function isJson(type: 'VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT'): ScalarFunctionDefinition {
  return defineScalar({
    name: `IS JSON ${type}`,
    description: `s IS JSON ${type}: TRUE when s is valid JSON${type === 'VALUE' ? '' : ` and a JSON ${type.toLowerCase()}`} (\`IS JSON\` means VALUE); NULL for NULL`,
    signatures: [
      { args: [Arg.STRING], returns: booleanType(false), generate: (ctx, [s]) => `${ctx.lib('isJson')}(${s!.code}, '${type}')` },
      {
        // Any other type is refused with Calcite's message.
        args: [Arg.ANY],
        coerce: (types) => (types[0]!.kind === 'NULL' ? undefined : types),
        returns: (types) => {
          const operator = `IS JSON ${type}`;
          const given = formatType(withNullable(types[0]!, true)).replace(/^INT\b/, 'INTEGER');
          throw new WeirError('TYPE_MISMATCH', `Cannot apply '${operator}' to arguments of type '<${given}> ${operator}'. Supported form(s): '<CHARACTER> ${operator}'`);
        },
        generate: () => {
          throw new WeirError('INTERNAL_ERROR', `IS JSON ${type} of a value that is not a string`);
        },
      },
    ],
  });
}

/** The `mode:mask` literal of JSON_OBJECT/JSON_ARRAY: whether NULL values are written, and which values are raw JSON. */
function constructorMode(arg: ArgCode | undefined, fn: string): { readonly absent: boolean; readonly raw: (i: number) => boolean } {
  const text = String(constantArg(fn, arg, 'ON NULL behaviour'));
  const [mode, mask = ''] = text.split(':') as [string, string | undefined];
  return { absent: mode === 'ABSENT', raw: (i) => mask[i] === 'R' };
}

/** A JS expression for a value's JSON text (`null` for NULL), `raw` when it is JSON already. */
function jsonOf(ctx: CodegenContext, value: ArgCode, raw: boolean): string {
  if (value.type.kind === 'NULL') return "'null'";
  const text = raw ? value.code : `${ctx.constant(jsonSerializer(value.type), 'toJson')}(${value.code})`;
  return value.type.nullable || raw ? `(${value.code} === null ? 'null' : ${text})` : text;
}

/** The JSON functions. */
export const jsonFunctions: readonly ScalarFunctionDefinition[] = [
  isJson('VALUE'),
  isJson('SCALAR'),
  isJson('ARRAY'),
  isJson('OBJECT'),
  defineScalar({
    name: 'JSON_EXISTS',
    description: 'JSON_EXISTS(json, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR]): whether the path finds a value (FALSE ON ERROR by default)',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        returns: checkedPath('JSON_EXISTS', 1, booleanType(false)),
        generate: (ctx, [json, path, onError]) =>
          `${ctx.lib('jsonExists')}(${json!.code}, ${pathCode(ctx, path!, path!.code)}, ${onError === undefined ? "'FALSE'" : stringLiteral(String(constantArg('JSON_EXISTS', onError, 'ON ERROR behaviour')))})`,
      },
    ],
  }),
  defineScalar({
    name: 'JSON_VALUE',
    description: 'JSON_VALUE(json, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY] [{NULL | ERROR | DEFAULT e} ON ERROR]): the scalar at the path, as STRING or the RETURNING type (a JSON text of another type than a string gives NULL)',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY, Arg.STRING, Arg.ANY, Arg.STRING, Arg.ANY, Arg.STRING, Arg.ANY],
        optional: 5,
        coerce: (types) => {
          const returning = returningType(types[2] ?? SqlTypes.null());
          if (!VALUE_TYPES.has(returning.kind)) return undefined;
          const json = types[0]!.kind === 'NULL' ? SqlTypes.string() : types[0]!;
          const rest = types.slice(3).map((t, i) => (i % 2 === 1 ? withNullable(returning, t.nullable) : t));
          return [json, types[1]!, returning, ...rest];
        },
        returns: checkedPath('JSON_VALUE', 1, (types) => returningType(types[2] ?? SqlTypes.null())),
        generate: () => {
          throw new WeirError('INTERNAL_ERROR', 'JSON_VALUE is generated lazily');
        },
      },
    ],
    generateStatements: (ctx, args, call) => {
      const defaults = (i: number): LazyArg => args[i] ?? { type: SqlTypes.null(), constant: { value: i === 3 || i === 5 ? 'NULL' : null }, evaluate: () => 'null' };
      return jsonValueStatements(ctx, [0, 1, 2, 3, 4, 5, 6].map(defaults), call);
    },
  }),
  defineScalar({
    name: 'JSON_QUERY',
    description:
      'JSON_QUERY(json, path [RETURNING STRING | ARRAY<STRING>] [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [... ON ERROR]): the object or array at the path, as JSON text',
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.STRING, Arg.STRING, Arg.STRING, Arg.ANY],
        optional: 4,
        returns: (types, literals) => {
          checkedPath('JSON_QUERY', 1, STRING)(types, literals);
          return jsonQueryType(types, literals);
        },
        generate: (ctx, [json, path, wrapper, onEmpty, onError], expr) => {
          const text = (arg: ArgCode | undefined, fallback: string, what: string) => stringLiteral(arg === undefined ? fallback : String(constantArg('JSON_QUERY', arg, what)));
          const call = `${ctx.lib('jsonQueryResult')}(${json!.code}, ${pathCode(ctx, path!, path!.code)}, ${text(wrapper, 'WITHOUT', 'wrapper')}, ${text(onEmpty, 'NULL', 'ON EMPTY behaviour')}, ${text(onError, 'NULL', 'ON ERROR behaviour')}, ${ctx.constant(queryReturning(expr.type), 'returning')})`;
          return `${json!.code} === null || ${path!.code} === null ? null : ${call}`;
        },
      },
    ],
  }),
  defineScalar({
    name: 'JSON_STRING',
    description: 'JSON_STRING(x): x serialized as JSON (objects with sorted keys); NULL for NULL',
    signatures: [{ args: [Arg.ANY], coerce: (types) => (types[0]!.kind === 'NULL' ? undefined : types), returns: STRING, generate: (ctx, [x]) => `${ctx.constant(jsonSerializer(x!.type), 'toJson')}(${x!.code})` }],
  }),
  defineScalar({
    name: 'JSON_OBJECT',
    description: "JSON_OBJECT([[KEY] k VALUE v, ...] [{NULL | ABSENT} ON NULL]): a JSON object of the pairs (sorted by key; NULL ON NULL by default); JSON_OBJECT/JSON_ARRAY/JSON values nest as JSON",
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING, Arg.ANY],
        optional: 2,
        returns: STRING,
        generate: generateJsonObject,
      },
      { args: [Arg.STRING, Arg.STRING, Arg.ANY], variadic: true, returns: STRING, generate: generateJsonObject },
    ],
  }),
  defineScalar({
    name: 'JSON_ARRAY',
    description: 'JSON_ARRAY([v, ...] [{NULL | ABSENT} ON NULL]): a JSON array of the values (ABSENT ON NULL by default); JSON_OBJECT/JSON_ARRAY/JSON values nest as JSON',
    nulls: 'custom',
    signatures: [
      { args: [Arg.STRING, Arg.ANY], optional: 1, returns: STRING, generate: generateJsonArray },
      { args: [Arg.STRING, Arg.ANY], variadic: true, returns: STRING, generate: generateJsonArray },
    ],
  }),
  defineScalar({
    name: 'JSON',
    description: "JSON(s): s as raw JSON, inserted as it is by JSON_OBJECT and JSON_ARRAY (only allowed there); NULL for blank text; invalid JSON is an error",
    nulls: 'custom',
    signatures: [{ args: [Arg.STRING], returns: SqlTypes.string(true), generate: (ctx, [s]) => `${ctx.lib('rawJson')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'JSON_QUOTE',
    description: 'JSON_QUOTE(s): s as a JSON string literal (quotes, backslashes, / and control characters escaped, non-ASCII as \\uxxxx)',
    signatures: [{ args: [Arg.STRING], returns: STRING, generate: (ctx, [s]) => `${ctx.lib('jsonQuoteText')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'JSON_UNQUOTE',
    description: 'JSON_UNQUOTE(s): the text of a JSON string literal, unescaped; any other text as it is',
    signatures: [{ args: [Arg.STRING], returns: STRING, generate: (ctx, [s]) => `${ctx.lib('jsonUnquote')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'JSON_LENGTH',
    description: 'JSON_LENGTH(json[, path]): the elements of an array, members of an object, or 1 for a scalar; NULL for invalid JSON or a path that selects no single value',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        returns: checkedPath('JSON_LENGTH', 1, SqlTypes.int(false), false),
        generate: (ctx, args) => `${ctx.lib('jsonLength')}(${args.map((a) => a.code).join(', ')})`,
      },
    ],
  }),
  defineScalar({
    name: 'JSON_TYPE',
    description: 'JSON_TYPE(json[, path]): object, array, string, number, boolean or null; NULL for invalid JSON or a path that selects no single value',
    signatures: [
      {
        args: [Arg.STRING, Arg.STRING],
        optional: 1,
        nullable: true,
        returns: checkedPath('JSON_TYPE', 1, STRING, false),
        generate: (ctx, args) => `${ctx.lib('jsonType')}(${args.map((a) => a.code).join(', ')})`,
      },
    ],
  }),
];

function generateJsonObject(ctx: CodegenContext, [modeArg, ...pairs]: readonly ArgCode[]): string {
  if (pairs.length % 2 !== 0) throw new WeirError('TYPE_MISMATCH', 'JSON_OBJECT needs a VALUE for every KEY');
  const mode = constructorMode(modeArg, 'JSON_OBJECT');
  const entries: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const [key, value] = [pairs[i]!, pairs[i + 1]!];
    if (key.constant !== undefined && key.constant.value === null) throw new WeirError('INVALID_ARGUMENT', 'JSON_OBJECT: a key must not be NULL');
    const json = jsonOf(ctx, value, mode.raw(i / 2));
    const pair = `[${key.code}, ${json}]`;
    entries.push(mode.absent ? `...(${json} === 'null' ? [] : [${pair}])` : pair);
  }
  return `${ctx.lib('jsonObjectOf')}([${entries.join(', ')}])`;
}

function generateJsonArray(ctx: CodegenContext, [modeArg, ...values]: readonly ArgCode[]): string {
  const mode = constructorMode(modeArg, 'JSON_ARRAY');
  const parts = values.map((v, i) => jsonOf(ctx, v, mode.raw(i)));
  if (!mode.absent) return `'[' + ${parts.length === 0 ? "''" : `[${parts.join(', ')}].join(',')`} + ']'`;
  return `'[' + [${parts.join(', ')}].filter((v) => v !== 'null').join(',') + ']'`;
}
