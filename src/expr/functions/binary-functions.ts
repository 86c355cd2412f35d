/**
 * Functions that turn strings into binary strings and back, as Flink defines them: ENCODE(s,
 * charset) → BYTES, DECODE(bytes, charset) → STRING (Java's six standard charsets, named
 * case-insensitively; another name is an error), and UNHEX(s) → BYTES (NULL for text that is not
 * hex), IS_VALID_UTF8(bytes) → BOOLEAN and MAKE_VALID_UTF8(bytes) → STRING. The binary forms of `||`, CONCAT, SUBSTRING, HEX, TO_BASE64 and the hashes are signatures
 * of those functions (string-functions.ts, math-functions.ts).
 */
import { SqlTypes } from '../../common/sql-type.js';
import type { ScalarFunctionDefinition } from '../function-definition.js';
import { Arg, defineScalar } from './define.js';

/** ENCODE, DECODE, UNHEX, IS_VALID_UTF8 and MAKE_VALID_UTF8. */
export const binaryFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'ENCODE',
    description: "ENCODE(s, charset): s as bytes in charset ('US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16')",
    signatures: [{ args: [Arg.STRING, Arg.STRING], returns: SqlTypes.bytes(false), generate: (ctx, [s, charset]) => `${ctx.lib('encodeString')}(${s!.code}, ${charset!.code})` }],
  }),
  defineScalar({
    name: 'DECODE',
    description: "DECODE(b, charset): the text of bytes b in charset ('US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'); malformed bytes become U+FFFD",
    signatures: [{ args: [Arg.BINARY, Arg.STRING], nullable: true, returns: SqlTypes.string(false), generate: (ctx, [b, charset]) => `${ctx.lib('decodeBytes')}(${b!.code}, ${charset!.code})` }],
  }),
  defineScalar({
    name: 'UNHEX',
    description: 'UNHEX(s): the bytes of hex text s (with an odd number of digits the first is dropped and a zero byte leads); NULL when s holds a character that is not a hex digit',
    signatures: [{ args: [Arg.STRING], nullable: true, returns: SqlTypes.bytes(false), generate: (ctx, [s]) => `${ctx.lib('unhex')}(${s!.code})` }],
  }),
  defineScalar({
    name: 'IS_VALID_UTF8',
    description: 'IS_VALID_UTF8(b): whether bytes b are well-formed UTF-8',
    signatures: [{ args: [Arg.BINARY], returns: SqlTypes.boolean(false), generate: (ctx, [b]) => `${ctx.lib('isValidUtf8')}(${b!.code})` }],
  }),
  defineScalar({
    name: 'MAKE_VALID_UTF8',
    description: 'MAKE_VALID_UTF8(b): the UTF-8 text of bytes b, each malformed sequence replaced by U+FFFD (as Java decodes)',
    signatures: [{ args: [Arg.BINARY], returns: SqlTypes.string(false), generate: (ctx, [b]) => `${ctx.lib('makeValidUtf8')}(${b!.code})` }],
  }),
];
