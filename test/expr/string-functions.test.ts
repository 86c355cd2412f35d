import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatType } from '../../src/common/sql-type.js';
import { createEngine } from '../../src/engine/engine.js';
import { call, compiler, evalCall, evaluate, lit, NULL, ref, T } from './expr-test-helpers.js';

const s = ref(0, T.string());

describe('concatenation', () => {
  it('is NULL when any argument is NULL (|| and CONCAT)', () => {
    expect(evalCall('||', lit.str('a'), lit.str('b'))).toBe('ab');
    expect(evalCall('CONCAT', lit.str('a'), lit.str('b'), lit.str('c'))).toBe('abc');
    expect(evalCall('CONCAT', lit.str('a'), NULL(T.string()))).toBe(null);
    expect(evalCall('||', NULL(T.null()), lit.str('b'))).toBe(null);
    expect(formatType(call('||', lit.str('ab'), lit.str('c')).type)).toBe('CHAR(3) NOT NULL');
  });

  it('CONCAT_WS skips NULL values and is NULL only for a NULL separator', () => {
    expect(evalCall('CONCAT_WS', lit.str('-'), lit.str('a'), NULL(T.string()), lit.str('b'))).toBe('a-b');
    expect(evalCall('CONCAT_WS', NULL(T.string()), lit.str('a'))).toBe(null);
    expect(evalCall('CONCAT_WS', lit.str(','), NULL(T.string()))).toBe('');
  });
});

describe('case, length, substrings', () => {
  it('changes case and counts characters', () => {
    expect(evalCall('UPPER', lit.str('Apple'))).toBe('APPLE');
    expect(evalCall('LOWER', lit.str('Apple'))).toBe('apple');
    expect(evalCall('CHAR_LENGTH', lit.str('héllo'))).toBe(5);
    expect(evalCall('CHARACTER_LENGTH', lit.str(''))).toBe(0);
    expect(evalCall('INITCAP', lit.str('hello WORLD-foo 9bar'))).toBe('Hello World-Foo 9bar');
  });

  it.each([
    [1, 3, 'Hel'],
    [2, undefined, 'ello world'],
    [0, 3, 'Hel'],
    [-5, 3, 'wor'],
    [-5, undefined, 'world'],
    [-20, 3, ''],
    [20, 3, ''],
    [3, 100, 'llo world'],
    [1, 0, ''],
    [1, -1, null],
  ])('SUBSTRING(s, %s, %s) as Flink', (start, length, expected) => {
    const args = [lit.str('Hello world'), lit.int(start), ...(length === undefined ? [] : [lit.int(length)])];
    expect(evalCall('SUBSTRING', ...args)).toBe(expected);
  });

  it('finds positions and replaces', () => {
    expect(evalCall('POSITION', lit.str('lo'), lit.str('hello'))).toBe(4);
    expect(evalCall('POSITION', lit.str('x'), lit.str('hello'))).toBe(0);
    expect(evalCall('LOCATE', lit.str('l'), lit.str('hello'), lit.int(4))).toBe(4);
    expect(evalCall('REPLACE', lit.str('a.b.c'), lit.str('.'), lit.str('$&'))).toBe('a$&b$&c');
    expect(evalCall('REPLACE', lit.str('abc'), lit.str(''), lit.str('-'))).toBe('-a-b-c-');
    expect(evalCall('REPEAT', lit.str('ab'), lit.int(3))).toBe('ababab');
    expect(evalCall('REVERSE', lit.str('abc'))).toBe('cba');
    expect(evalCall('INSTR', lit.str('hello'), lit.str('lo'))).toBe(4);
    expect(evalCall('INSTR', lit.str('hello'), lit.str('x'))).toBe(0);
  });

  it('takes characters from either end with LEFT and RIGHT', () => {
    expect(evalCall('LEFT', lit.str('hello'), lit.int(2))).toBe('he');
    expect(evalCall('RIGHT', lit.str('hello'), lit.int(3))).toBe('llo');
    expect(evalCall('RIGHT', lit.str('hi'), lit.int(5))).toBe('hi');
    expect(evalCall('LEFT', lit.str('hi'), lit.int(-1))).toBe('');
  });

  it('encodes and decodes base64, refusing what is not base64', () => {
    expect(evalCall('TO_BASE64', lit.str('héllo'))).toBe('aMOpbGxv');
    expect(evalCall('FROM_BASE64', lit.str('aMOpbGxv'))).toBe('héllo');
    expect(evalCall('FROM_BASE64', lit.str(''))).toBe('');
    expect(() => evalCall('FROM_BASE64', lit.str('not base64!'))).toThrow(/FROM_BASE64: 'not base64!' is not base64/);
  });
});

describe('trimming and padding', () => {
  it('trims the given characters at the given ends', () => {
    expect(evalCall('TRIM', lit.str('BOTH'), lit.str(' '), lit.str('  a b  '))).toBe('a b');
    expect(evalCall('TRIM', lit.str('LEADING'), lit.str('x'), lit.str('xxaxx'))).toBe('axx');
    expect(evalCall('TRIM', lit.str('TRAILING'), lit.str('xy'), lit.str('xyaxyyx'))).toBe('xya');
    expect(evalCall('TRIM', lit.str(' \t a \t'))).toBe('\t a \t');
    expect(evalCall('LTRIM', lit.str('  a  '))).toBe('a  ');
    expect(evalCall('RTRIM', lit.str('  a  '))).toBe('  a');
    expect(evalCall('RTRIM', lit.str('a..'), lit.str('.'))).toBe('a');
    expect(evaluate(call('TRIM', ref(1, T.string()), lit.str('x'), s), ['xax', 'leading'])).toBe('ax');
    expect(() => evaluate(call('TRIM', ref(1, T.string()), lit.str('x'), s), ['xax', 'middle'])).toThrow("invalid TRIM mode 'middle'");
  });

  it('pads and cuts as Flink LPAD/RPAD', () => {
    expect(evalCall('LPAD', lit.str('hi'), lit.int(5), lit.str('??'))).toBe('???hi');
    expect(evalCall('RPAD', lit.str('hi'), lit.int(5), lit.str('ab'))).toBe('hiaba');
    expect(evalCall('LPAD', lit.str('hello'), lit.int(2), lit.str('?'))).toBe('he');
    expect(evalCall('RPAD', lit.str('hi'), lit.int(-1), lit.str('?'))).toBe(null);
    expect(evalCall('LPAD', lit.str('hi'), lit.int(4), lit.str(''))).toBe(null);
  });
});

describe('LIKE', () => {
  const like = (value: string, pattern: string, escape?: string): unknown =>
    evaluate(call('LIKE', s, lit.str(pattern), ...(escape === undefined ? [] : [lit.str(escape)])), [value]);

  it('matches % and _ over the whole string', () => {
    expect(like('apple', 'a%')).toBe(true);
    expect(like('apple', '%le')).toBe(true);
    expect(like('apple', '%pp%')).toBe(true);
    expect(like('apple', 'apple')).toBe(true);
    expect(like('apple', 'appl')).toBe(false);
    expect(like('apple', 'a_ple')).toBe(true);
    expect(like('apple', '_')).toBe(false);
    expect(like('a\nb', 'a%b')).toBe(true);
    expect(like('a.c', 'a.c')).toBe(true);
    expect(like('abc', 'a.c')).toBe(false);
    expect(like('(x)', '(%)')).toBe(true);
  });

  it('honours ESCAPE', () => {
    expect(like('50%', '50!%', '!')).toBe(true);
    expect(like('500', '50!%', '!')).toBe(false);
    expect(like('a_b', 'a!_b', '!')).toBe(true);
    expect(() => like('abc', 'a!bc', '!')).toThrow("Invalid escape sequence 'a!bc', 1");
  });

  it('compiles constant patterns to plain string tests or one hoisted RegExp', () => {
    expect(compiler.scalarSource(call('LIKE', s, lit.str('abc%'))).source).toContain('c0.startsWith("abc")');
    expect(compiler.scalarSource(call('LIKE', s, lit.str('%abc%'))).source).toContain('c0.includes("abc")');
    const regex = compiler.scalarSource(call('LIKE', s, lit.str('a_c%')));
    expect(regex.source).toContain('const k0_like = $constants[0]; // /^a.c[\\s\\S]*$/');
    expect(regex.source).toContain('k0_like.test(c0)');
  });

  it('accepts patterns known only at run time', () => {
    const expr = call('LIKE', s, ref(1, T.string()));
    expect(evaluate(expr, ['abc', 'a%'])).toBe(true);
    expect(evaluate(expr, ['abc', 'b%'])).toBe(false);
    expect(evaluate(expr, ['abc', null])).toBe(null);
  });
});

describe('regular expressions and splitting', () => {
  const url = 'https://www.nexmark.com/abc/item.htm?query=1&channel_id=1234';

  it('extracts a group as Nexmark q21 does', () => {
    const expr = call('REGEXP_EXTRACT', s, lit.str('(&|^)channel_id=([^&]*)'), lit.int(2));
    expect(evaluate(expr, [url])).toBe('1234');
    expect(evaluate(expr, ['https://x/?a=1'])).toBe(null);
    expect(evaluate(expr, [null])).toBe(null);
    expect(evalCall('REGEXP_EXTRACT', lit.str('foothebar'), lit.str('foo(.*?)(bar)'))).toBe('foothebar');
    expect(evalCall('REGEXP_EXTRACT', lit.str('foothebar'), lit.str('foo(.*?)(bar)'), lit.int(1))).toBe('the');
    expect(evalCall('REGEXP_EXTRACT', lit.str('foothebar'), lit.str('foo(.*?)(bar)'), lit.int(3))).toBe(null);
    expect(evalCall('REGEXP_EXTRACT', lit.str('abc'), lit.str('('))).toBe(null);
    expect(evaluate(call('REGEXP_EXTRACT', lit.str('abc'), ref(0, T.string())), ['('])).toBe(null);
  });

  it('replaces (the replacement taken literally, as Flink quotes it) and matches', () => {
    expect(evalCall('REGEXP_REPLACE', lit.str('foobar'), lit.str('oo|ar'), lit.str(''))).toBe('fb');
    expect(evalCall('REGEXP_REPLACE', lit.str('2020-01-02'), lit.str('(\\d+)-(\\d+)-(\\d+)'), lit.str('$3/$2/$1'))).toBe('$3/$2/$1');
    expect(evalCall('REGEXP_REPLACE', lit.str('a.b'), lit.str('\\.'), lit.str('\\$'))).toBe('a\\$b');
    expect(evalCall('REGEXP', lit.str('k1=v1;k2=v2'), lit.str('k2=.+'))).toBe(true);
    expect(evalCall('REGEXP', lit.str('ABC'), lit.str('(?i)abc'))).toBe(true);
    expect(evaluate(call('REGEXP', lit.str('abc'), ref(0, T.string())), ['^b'])).toBe(false);
  });

  it('splits as Nexmark q22 does, NULL out of range', () => {
    const dir = (index: number) => evaluate(call('SPLIT_INDEX', s, lit.str('/'), lit.int(index)), [url]);
    expect([0, 1, 2, 3, 4, 5].map(dir)).toEqual(['https:', '', 'www.nexmark.com', 'abc', 'item.htm?query=1&channel_id=1234', null]);
    expect(evalCall('SPLIT_INDEX', lit.str('a,,b,'), lit.str(','), lit.int(3))).toBe('');
    expect(evalCall('SPLIT_INDEX', lit.str('a,b'), lit.str(','), lit.int(-1))).toBe(null);
    expect(evalCall('SPLIT_INDEX', lit.of('', T.string(false)), lit.str(','), lit.int(0))).toBe(null);
    expect(evalCall('SPLIT_INDEX', lit.str('a::b::c'), lit.str('::'), lit.int(2))).toBe('c');
  });
});

describe('other string functions', () => {
  it('hashes and converts characters', () => {
    expect(evalCall('MD5', lit.str('abc'))).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(evalCall('SHA256', lit.str(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(evalCall('ASCII', lit.str('A'))).toBe(65);
    expect(evalCall('CHR', lit.int(97))).toBe('a');
  });

  it('rejects arguments of the wrong type with the supported forms', () => {
    expect(() => call('UPPER', lit.int(1))).toThrow('Invalid function call:\nUPPER(INT NOT NULL)\nInvalid input arguments. Expected signatures are:\nUPPER(STRING)');
    expect(() => call('SUBSTRING', lit.str('a'))).toThrow('Expected signatures are:\nSUBSTRING(STRING, INTEGER[, INTEGER])');
  });
});

describe('PRINT', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes prefix and value as one line to standard output and gives the value back', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const row = ['hello', 5, null, new Uint8Array([0x68, 0xc3, 0xa9])];
    const value = (index: number, type: Parameters<typeof ref>[1]) => evaluate(call('PRINT', lit.str(`#${index} `), ref(index, type)), row);
    expect(value(0, T.string())).toBe('hello');
    expect(value(1, T.int())).toBe(5);
    expect(value(2, T.int())).toBe(null);
    expect(value(3, T.bytes())).toEqual(new Uint8Array([0x68, 0xc3, 0xa9]));
    expect(evaluate(call('PRINT', NULL(T.string()), ref(1, T.int())), row)).toBe(5);
    expect(written).toEqual(['#0 hello\n', '#1 5\n', '#2 null\n', '#3 hé\n', 'null5\n']);
  });

  it('prints once per row through the engine, and once when planning a call of constants (folded)', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const engine = createEngine();
    expect(await engine.query("SELECT PRINT('row ', x) AS v FROM (VALUES (1), (2)) AS t(x)")).toEqual([{ v: 1 }, { v: 2 }]);
    expect(await engine.query("SELECT PRINT('const ', 7) AS v FROM (VALUES (1), (2)) AS t(x)")).toEqual([{ v: 7 }, { v: 7 }]);
    expect(written).toEqual(['row 1\n', 'row 2\n', 'const 7\n']);
  });

  it('is typed as its value, nullable when either argument is', () => {
    expect(formatType(call('PRINT', lit.str('p'), ref(0, T.int(false))).type)).toBe('INT NOT NULL');
    expect(formatType(call('PRINT', NULL(T.string()), ref(0, T.int(false))).type)).toBe('INT');
    expect(() => call('PRINT', lit.int(1), lit.int(2))).toThrow('Invalid function call:\nPRINT(INT NOT NULL, INT NOT NULL)\nInvalid input arguments. Expected signatures are:\nPRINT(STRING, ANY)');
  });
});
