/**
 * How Flink's type inference words the expected signatures of some of its built-in functions in
 * the error of a call no signature accepts (`Invalid input arguments. Expected signatures are:`):
 * each argument as `name <TYPE>` when the definition names its arguments, else `<TYPE>`, the type
 * being the family or root the argument must have (`<CHARACTER_STRING>`, `<INTEGER>`, `<ARRAY>`,
 * `<ARRAY ELEMENT>`). Taken from the input type strategies of BuiltInFunctionDefinitions; functions
 * not listed here are described by weir's own forms.
 */

const STRING = '<CHARACTER_STRING>';
const BINARY = '<BINARY_STRING>';

const single = (name: string, argument: string): [string, readonly string[]] => [name, [`${name}(${argument})`]];
const haystackNeedle = (name: string): [string, readonly string[]] => [name, [`${name}(haystack <ARRAY>, needle <ARRAY ELEMENT>)`]];
const arrayElement = (name: string): [string, readonly string[]] => [name, [`${name}(array <ARRAY>, element <ARRAY ELEMENT>)`]];
const regexp = (name: string): [string, readonly string[]] => [name, [`${name}(str ${STRING}, regex ${STRING})`]];
const prefixTest = (name: string, argument: string): [string, readonly string[]] => [
  name,
  [`${name}(expr ${STRING}, ${argument} ${STRING})`, `${name}(expr ${BINARY}, ${argument} ${BINARY})`],
];

const TEXTS: ReadonlyMap<string, readonly string[]> = new Map([
  haystackNeedle('ARRAY_CONTAINS'),
  haystackNeedle('ARRAY_POSITION'),
  haystackNeedle('ARRAY_REMOVE'),
  arrayElement('ARRAY_APPEND'),
  arrayElement('ARRAY_PREPEND'),
  single('ARRAY_DISTINCT', 'haystack <ARRAY>'),
  single('ARRAY_REVERSE', 'haystack <ARRAY>'),
  ['ARRAY_SLICE', ['ARRAY_SLICE(<ARRAY>, <INTEGER>, <INTEGER>)', 'ARRAY_SLICE(<ARRAY>, <INTEGER>)']],
  ['ARRAY_JOIN', [`ARRAY_JOIN(ARRAY<STRING>, ${STRING})`, `ARRAY_JOIN(ARRAY<STRING>, ${STRING}, ${STRING})`]],
  single('MAP_KEYS', 'input <MAP>'),
  single('MAP_VALUES', 'input <MAP>'),
  single('MAP_ENTRIES', 'input <MAP>'),
  single('MAP_FROM_ARRAYS', 'keysArray <ARRAY>, valuesArray <ARRAY>'),
  single('MAP_CONTAINS_KEY', 'map <MAP>, key <MAP KEY>'),
  single('SPLIT', `${STRING}, ${STRING}`),
  single('URL_DECODE', STRING),
  single('URL_ENCODE', STRING),
  single('INET_ATON', STRING),
  single('INET_NTOA', '<INTEGER_NUMERIC>'),
  single('IS_VALID_UTF8', BINARY),
  single('MAKE_VALID_UTF8', BINARY),
  single('JSON_QUOTE', STRING),
  single('JSON_UNQUOTE', STRING),
  single('UNHEX', `expr ${STRING}`),
  regexp('REGEXP_COUNT'),
  regexp('REGEXP_INSTR'),
  regexp('REGEXP_SUBSTR'),
  ['REGEXP_EXTRACT_ALL', [`REGEXP_EXTRACT_ALL(str ${STRING}, regex ${STRING})`, `REGEXP_EXTRACT_ALL(str ${STRING}, regex ${STRING}, extractIndex <INTEGER_NUMERIC>)`]],
  ['BTRIM', [`BTRIM(str ${STRING})`, `BTRIM(str ${STRING}, trimStr ${STRING})`]],
  prefixTest('STARTSWITH', 'startExpr'),
  prefixTest('ENDSWITH', 'endExpr'),
]);

/** The functions whose signatures {@link flinkSignatureTexts} words as Flink does (each must be a registered built-in: a test checks). */
export function functionsWithFlinkSignatureTexts(): readonly string[] {
  return [...TEXTS.keys()];
}

/** Flink's wording of the signatures of the built-in function `name` (upper case), one a line, when weir knows it. */
export function flinkSignatureTexts(name: string): readonly string[] | undefined {
  return TEXTS.get(name);
}
