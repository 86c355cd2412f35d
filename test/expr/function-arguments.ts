/**
 * Calls of every registered function (function-coverage.test.ts checks that there is an entry for
 * each, and none for a function that is not registered): typical arguments, NULL arguments and
 * edge cases, each a SQL expression that calls the function. Aggregates are evaluated over
 * AGGREGATE_ROWS of function-facts.ts (columns i INT, s STRING, d DOUBLE, n DECIMAL(2, 1)).
 */

/** Calls of one function. */
export interface Calls {
  /** Ordinary arguments: the call must succeed. */
  readonly typical: readonly string[];
  /** NULL arguments: the call must succeed, and give NULL when the function is strict. Empty only for functions without arguments. */
  readonly nulls: readonly string[];
  /** Edge cases (empty strings, out-of-range numbers, bad text): the call may fail, but only with a user-facing error. */
  readonly edge: readonly string[];
  /** What the calls read (`FROM ...`, one row), when not nothing: functions of a rowtime attribute read {@link ROWTIME_ROW}. */
  readonly from?: string;
}

/** A table of one row with a rowtime attribute `ts` (created by the coverage test with {@link ROWTIME_TABLE_DDL}). */
export const ROWTIME_ROW = 'FROM rowtimes';

/** The DDL of the table {@link ROWTIME_ROW} reads. */
export const ROWTIME_TABLE_DDL = "CREATE TABLE rowtimes (ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '1')";

const N_INT = 'CAST(NULL AS INT)';
const N_STR = 'CAST(NULL AS STRING)';
const N_BYTES = 'CAST(NULL AS BYTES)';
const N_DBL = 'CAST(NULL AS DOUBLE)';
const N_BOOL = 'CAST(NULL AS BOOLEAN)';
const N_TS = 'CAST(NULL AS TIMESTAMP(3))';
const N_DATE = 'CAST(NULL AS DATE)';
const N_ARR = 'CAST(NULL AS ARRAY<INT>)';
const N_MAP = 'CAST(NULL AS MAP<STRING, INT>)';
const TS = "TIMESTAMP '2021-03-14 15:09:26.535'";

const calls = (typical: readonly string[], nulls: readonly string[], edge: readonly string[] = []): Calls => ({ typical, nulls, edge });

/** A function of doubles: typical, NULL and edge (NaN, infinity, out of domain) arguments. */
const math = (name: string): Calls => calls([`${name}(0.5)`, `${name}(2)`], [`${name}(${N_DBL})`], [`${name}(-1e308)`, `${name}(CAST('NaN' AS DOUBLE))`, `${name}(1e308 * 10)`]);

/** A one-argument string function. */
const text = (name: string, typical = "'Hello World'"): Calls => calls([`${name}(${typical})`], [`${name}(${N_STR})`], [`${name}('')`, `${name}('\u{1F600}é')`]);

/** A hash function. */
const hash = (name: string): Calls => calls([`${name}('abc')`, `${name}(x'616263')`], [`${name}(${N_STR})`, `${name}(${N_BYTES})`], [`${name}('')`, `${name}(x'')`, `${name}('\u{1F600}é')`]);

/** An EXTRACT shorthand of a date part (of a DATE or a TIMESTAMP) or a time part (of a TIME or a TIMESTAMP). */
const part = (name: string, of: 'date' | 'time' = 'date', interval = ''): Calls =>
  calls([`${name}(${TS})`, of === 'date' ? `${name}(DATE '2021-03-14')` : `${name}(TIME '15:09:26')`, ...(interval === '' ? [] : [`${name}(${interval})`])], [`${name}(${N_TS})`], [`${name}(TIMESTAMP '1970-01-01 00:00:00')`]);
const DAY_TIME = "INTERVAL '1 02:03:04' DAY TO SECOND";
const YEAR_MONTH = "INTERVAL '1-2' YEAR TO MONTH";

/** The calls of every scalar function, by canonical name. */
export const SCALAR_CALLS: Readonly<Record<string, Calls>> = {
  '*': calls(['2 * 3', '1.5 * 2', '2e0 * 3'], [`${N_INT} * 2`], ['65536 * 65536', 'CAST(9007199254740991 AS BIGINT) * 2']),
  '+': calls(['1 + 2', "DATE '2020-01-01' + INTERVAL '1' DAY", "TIMESTAMP '2020-01-31 00:00:00' + INTERVAL '1' MONTH"], [`${N_INT} + 1`], ['2147483647 + 1', 'CAST(9007199254740991 AS BIGINT) + 1']),
  '-': calls(['5 - 3', "TIME '00:30:00' - INTERVAL '1' HOUR", 'INTERVAL \'2\' DAY - INTERVAL \'1\' HOUR'], [`${N_INT} - 1`], ['CAST(-2147483648 AS INT) - 1']),
  '/': calls(['7 / 2', '7.0 / 2', '7e0 / 2'], [`${N_INT} / 2`], ['1 / 0', '1e0 / 0', 'CAST(1 AS DECIMAL(38, 0)) / 0.0001']),
  '<': calls(['1 < 2', "'a' < 'b'"], [`${N_INT} < 1`], ['CAST(\'NaN\' AS DOUBLE) < 1']),
  '<=': calls(['1 <= 2'], [`${N_INT} <= 1`]),
  '<>': calls(['1 <> 2', 'ARRAY[1] <> ARRAY[2]'], [`${N_INT} <> 1`]),
  '=': calls(['1 = 1', "ROW(1, 'a') = ROW(1, 'a')", "DATE '2020-01-01' = '2020-01-01'"], [`${N_INT} = 1`], ["CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)", "DATE '2020-01-01' = 'x'", "DATE '2020-01-01' = UPPER('x')"]),
  '>': calls(['2 > 1'], [`${N_INT} > 1`]),
  '>=': calls(['2 >= 1'], [`${N_INT} >= 1`]),
  '||': calls(["'a' || 'b'", "x'0a' || x'41'"], [`'a' || ${N_STR}`, `x'0a' || ${N_BYTES}`], ["'' || ''", "x'' || x''"]),
  ABS: calls(['ABS(-3)', 'ABS(-1.5)', 'ABS(-2e0)', "ABS(INTERVAL '-1' DAY)"], [`ABS(${N_INT})`], ['ABS(CAST(-2147483648 AS INT))']),
  ACOS: math('ACOS'),
  AND: calls(['TRUE AND FALSE'], [`TRUE AND ${N_BOOL}`]),
  ARRAY: calls(['ARRAY[1, 2]', "ARRAY['a', 'bc']"], ['ARRAY[CAST(NULL AS INT)]']),
  ARRAY_APPEND: calls(['ARRAY_APPEND(ARRAY[1], 2)'], [`ARRAY_APPEND(${N_ARR}, 1)`, `ARRAY_APPEND(ARRAY[1], ${N_INT})`]),
  ARRAY_CONCAT: calls(['ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3])'], [`ARRAY_CONCAT(ARRAY[1], ${N_ARR})`]),
  ARRAY_CONTAINS: calls(['ARRAY_CONTAINS(ARRAY[1, 2], 2)'], [`ARRAY_CONTAINS(${N_ARR}, 1)`, `ARRAY_CONTAINS(ARRAY[1], ${N_INT})`]),
  ARRAY_DISTINCT: calls(['ARRAY_DISTINCT(ARRAY[1, 1, 2])'], [`ARRAY_DISTINCT(${N_ARR})`], ['ARRAY_DISTINCT(ARRAY[CAST(NULL AS INT), NULL])']),
  ARRAY_EXCEPT: calls(['ARRAY_EXCEPT(ARRAY[1, 2], ARRAY[2])'], [`ARRAY_EXCEPT(ARRAY[1], ${N_ARR})`]),
  ARRAY_INTERSECT: calls(['ARRAY_INTERSECT(ARRAY[1, 2], ARRAY[2])'], [`ARRAY_INTERSECT(${N_ARR}, ARRAY[1])`]),
  ARRAY_JOIN: calls(["ARRAY_JOIN(ARRAY['a', 'b'], ',')", "ARRAY_JOIN(ARRAY['a', NULL], ',', '?')"], [`ARRAY_JOIN(ARRAY['a'], ${N_STR})`]),
  ARRAY_MAX: calls(['ARRAY_MAX(ARRAY[1, 3, 2])'], [`ARRAY_MAX(${N_ARR})`], ["ARRAY_MAX(ARRAY[CAST('NaN' AS DOUBLE), 1e0])"]),
  ARRAY_MIN: calls(['ARRAY_MIN(ARRAY[1, 3, 2])'], [`ARRAY_MIN(${N_ARR})`]),
  ARRAY_POSITION: calls(['ARRAY_POSITION(ARRAY[1, 2], 2)'], [`ARRAY_POSITION(${N_ARR}, 1)`]),
  ARRAY_PREPEND: calls(['ARRAY_PREPEND(ARRAY[1], 0)'], [`ARRAY_PREPEND(${N_ARR}, 0)`]),
  ARRAY_REMOVE: calls(['ARRAY_REMOVE(ARRAY[1, 2, 1], 1)'], [`ARRAY_REMOVE(${N_ARR}, 1)`, `ARRAY_REMOVE(ARRAY[1], ${N_INT})`]),
  ARRAY_REVERSE: calls(['ARRAY_REVERSE(ARRAY[1, 2])'], [`ARRAY_REVERSE(${N_ARR})`]),
  ARRAY_SLICE: calls(['ARRAY_SLICE(ARRAY[1, 2, 3], 2)', 'ARRAY_SLICE(ARRAY[1, 2, 3], -2, -1)'], [`ARRAY_SLICE(${N_ARR}, 1)`, `ARRAY_SLICE(ARRAY[1], ${N_INT})`], ['ARRAY_SLICE(ARRAY[1], 2147483647, -2147483648)']),
  ARRAY_SORT: calls(['ARRAY_SORT(ARRAY[2, 1])', 'ARRAY_SORT(ARRAY[2, 1], FALSE, TRUE)'], [`ARRAY_SORT(${N_ARR})`, `ARRAY_SORT(ARRAY[1], ${N_BOOL})`]),
  ARRAY_UNION: calls(['ARRAY_UNION(ARRAY[1], ARRAY[1, 2])'], [`ARRAY_UNION(${N_ARR}, ARRAY[1])`]),
  ASCII: text('ASCII'),
  ASIN: math('ASIN'),
  ATAN: math('ATAN'),
  ATAN2: calls(['ATAN2(1, 2)'], [`ATAN2(${N_DBL}, 1)`], ['ATAN2(0, 0)']),
  CONV: calls(["CONV(255, 10, 16)", "CONV('ff', 16, -10)", 'CONV(CAST(-1 AS BIGINT), 10, 2)'], [`CONV(${N_INT}, 10, 2)`, `CONV('1', ${N_INT}, 2)`, `CONV(${N_STR}, 10, 2)`], ["CONV('', 10, 2)", "CONV('1', 1, 2)", "CONV('99999999999999999999999', 10, 10)", "CONV('zz', 10, 2)"]),
  BIN: calls(['BIN(12)'], [`BIN(${N_INT})`], ['BIN(-1)', 'BIN(0)']),
  SHIFTLEFT: calls(['SHIFTLEFT(3, 4)', 'SHIFTLEFT(CAST(3 AS BIGINT), 40)'], [`SHIFTLEFT(${N_INT}, 1)`, `SHIFTLEFT(1, ${N_INT})`], ['SHIFTLEFT(1, -1)', 'SHIFTLEFT(-1, 64)']),
  SHIFTRIGHT: calls(['SHIFTRIGHT(48, 4)', 'SHIFTRIGHT(CAST(-48 AS BIGINT), 2)'], [`SHIFTRIGHT(${N_INT}, 1)`, `SHIFTRIGHT(1, ${N_INT})`], ['SHIFTRIGHT(1, -1)', 'SHIFTRIGHT(-1, 99)']),
  BTRIM: calls(["BTRIM('  a  ')", "BTRIM('xax', 'x')"], [`BTRIM(${N_STR})`, `BTRIM('a', ${N_STR})`], ["BTRIM('', '')"]),
  CARDINALITY: calls(['CARDINALITY(ARRAY[1])', "CARDINALITY(MAP['a', 1])"], [`CARDINALITY(${N_ARR})`, `CARDINALITY(${N_MAP})`]),
  CEIL: calls(['CEIL(1.5)', 'CEIL(1.5e0)', 'CEIL(2)', `CEIL(${TS} TO HOUR)`, "CEIL(DATE '2020-05-17' TO YEAR)"], [`CEIL(${N_DBL})`, `CEIL(${N_TS} TO DAY)`], ['CEIL(-0.5e0)', "CEIL(TIME '23:59:59' TO HOUR)"]),
  CHAR_LENGTH: text('CHAR_LENGTH'),
  CHR: calls(['CHR(65)'], [`CHR(${N_INT})`], ['CHR(-1)', 'CHR(0)', 'CHR(2147483647)']),
  COALESCE: calls(['COALESCE(NULL, 1)', 'COALESCE(1, 2, 3)'], [`COALESCE(${N_INT}, ${N_INT})`]),
  CONCAT: calls(["CONCAT('a', 'b', 'c')", "CONCAT(x'01', x'02', x'03')"], [`CONCAT('a', ${N_STR})`, `CONCAT(x'01', ${N_BYTES})`]),
  DECODE: calls(["DECODE(x'466c696e6b', 'UTF-8')", "DECODE(x'00410042', 'UTF-16BE')", "DECODE(x'e9', 'ISO-8859-1')"], [`DECODE(${N_BYTES}, 'UTF-8')`, `DECODE(x'41', ${N_STR})`], ["DECODE(x'ff', 'UTF-8')", "DECODE(x'41', 'EBCDIC')", "DECODE(x'41', 'UTF-16')"]),
  CONCAT_WS: calls(["CONCAT_WS('-', 'a', 'b')"], [`CONCAT_WS(${N_STR}, 'a')`, `CONCAT_WS('-', ${N_STR})`]),
  CONVERT_TZ: calls(["CONVERT_TZ('2020-01-01 00:00:00', 'UTC', 'Asia/Tokyo')"], [`CONVERT_TZ(${N_STR}, 'UTC', 'UTC')`], ["CONVERT_TZ('bad', 'UTC', 'UTC')", "CONVERT_TZ('2020-01-01 00:00:00', 'Nowhere/City', 'UTC')"]),
  COS: math('COS'),
  COSH: math('COSH'),
  COT: math('COT'),
  CURRENT_DATABASE: calls(['CURRENT_DATABASE()'], []),
  CURRENT_DATE: calls(['CURRENT_DATE'], []),
  CURRENT_ROW_TIMESTAMP: calls(['CURRENT_ROW_TIMESTAMP()'], []),
  CURRENT_TIME: calls(['CURRENT_TIME', 'LOCALTIME'], []),
  CURRENT_TIMESTAMP: calls(['CURRENT_TIMESTAMP', 'NOW()'], []),
  // Its argument is a rowtime attribute, which is never a NULL literal; the one row comes before any watermark.
  CURRENT_WATERMARK: { ...calls(['CURRENT_WATERMARK(ts)', 'CURRENT_WATERMARK(ts) IS NULL'], []), from: ROWTIME_ROW },
  DATE_ADD: calls(["DATE_ADD('2020-01-01', 1)", "DATE_ADD(DATE '2020-01-01', 1)"], [`DATE_ADD(${N_STR}, 1)`, `DATE_ADD('2020-01-01', ${N_INT})`], ["DATE_ADD('bad', 1)"]),
  DATE_FORMAT: calls([`DATE_FORMAT(${TS}, 'yyyy-MM-dd HH:mm:ss.SSS')`, "DATE_FORMAT('2020-01-01 00:00:00', 'yyyy')"], [`DATE_FORMAT(${N_TS}, 'yyyy')`], ["DATE_FORMAT('bad', 'yyyy')", `DATE_FORMAT(${TS}, 'qqq')`]),
  DATE_SUB: calls(["DATE_SUB('2020-01-01', 1)"], [`DATE_SUB(${N_STR}, 1)`]),
  DAYOFMONTH: part('DAYOFMONTH'),
  DAYOFWEEK: part('DAYOFWEEK'),
  DAYOFYEAR: part('DAYOFYEAR'),
  DEGREES: math('DEGREES'),
  E: calls(['E()'], []),
  ELEMENT: calls(['ELEMENT(ARRAY[1])'], [`ELEMENT(${N_ARR})`], ['ELEMENT(ARRAY[1, 2])']),
  ELT: calls(["ELT(1, 'a', 'b')"], [`ELT(${N_INT}, 'a')`, `ELT(1, ${N_STR})`], ["ELT(0, 'a')", "ELT(3, 'a')"]),
  ENCODE: calls(["ENCODE('Flink', 'UTF-8')", "ENCODE('A', 'UTF-16LE')", "ENCODE('é', 'us-ascii')"], [`ENCODE(${N_STR}, 'UTF-8')`, `ENCODE('a', ${N_STR})`], ["ENCODE('', 'UTF-16')", "ENCODE('a', 'EBCDIC')"]),
  ENDSWITH: calls(["ENDSWITH('abc', 'c')"], [`ENDSWITH(${N_STR}, 'c')`], ["ENDSWITH('', '')"]),
  EXP: math('EXP'),
  EXTRACT: calls([`EXTRACT(YEAR FROM ${TS})`, "EXTRACT(DOW FROM DATE '2020-01-01')", "EXTRACT(SECOND FROM TIME '12:00:01')", "EXTRACT(DAY FROM INTERVAL '3' DAY)"], [`EXTRACT(DAY FROM ${N_TS})`], [`EXTRACT(EPOCH FROM TIMESTAMP '1900-01-01 00:00:00')`]),
  FLOOR: calls(['FLOOR(1.5)', 'FLOOR(-1.5e0)', 'FLOOR(2)', `FLOOR(${TS} TO WEEK)`, "FLOOR(TIME '12:34:56' TO MINUTE)"], [`FLOOR(${N_DBL})`, `FLOOR(${N_DATE} TO MONTH)`], ["FLOOR(DATE '0001-01-01' TO MILLENNIUM)"]),
  FROM_BASE64: calls(["FROM_BASE64('aGk=')", "FROM_BASE64(x'61476b3d')"], [`FROM_BASE64(${N_STR})`, `FROM_BASE64(${N_BYTES})`], ["FROM_BASE64('!!')", "FROM_BASE64('')", "FROM_BASE64(x'ff')"]),
  HASH_CODE: text('HASH_CODE'),
  FROM_UNIXTIME: calls(['FROM_UNIXTIME(0)', "FROM_UNIXTIME(86400, 'yyyy-MM-dd')"], [`FROM_UNIXTIME(${N_INT})`], ['FROM_UNIXTIME(-1)']),
  GREATEST: calls(['GREATEST(1, 2)', "GREATEST('a', 'b')"], [`GREATEST(1, ${N_INT})`]),
  HEX: calls(['HEX(255)', "HEX('abc')", "HEX(x'0aff')"], [`HEX(${N_INT})`, `HEX(${N_STR})`, `HEX(${N_BYTES})`], ['HEX(-1)', "HEX('')", "HEX(x'')"]),
  HOUR: part('HOUR', 'time', DAY_TIME),
  IF: calls(['IF(1 < 2, 1, 2)'], [`IF(${N_BOOL}, 1, 2)`, `IF(TRUE, ${N_INT}, 2)`]),
  IFNULL: calls(['IFNULL(NULL, 1)'], [`IFNULL(${N_INT}, ${N_INT})`]),
  IN: calls(['1 IN (1, 2)', "'a' IN ('b', 'c')"], [`${N_INT} IN (1, 2)`, `1 IN (2, ${N_INT})`]),
  INET_ATON: calls(["INET_ATON('10.0.0.1')"], [`INET_ATON(${N_STR})`], ["INET_ATON('')", "INET_ATON('999.1.1.1')"]),
  INET_NTOA: calls(['INET_NTOA(167772161)'], [`INET_NTOA(${N_INT})`], ['INET_NTOA(-1)', 'INET_NTOA(4294967296)']),
  INITCAP: text('INITCAP', "'hello wORLD'"),
  INSTR: calls(["INSTR('abc', 'b')", "INSTR('abcb', 'b', 3, 1)"], [`INSTR(${N_STR}, 'b')`, `INSTR('ab', 'b', ${N_INT}, 1)`], ["INSTR('', '')", "INSTR('ab', 'b', 1, 0)", "INSTR('ab', 'b', -9, 1)"]),
  'IS DISTINCT FROM': calls(['1 IS DISTINCT FROM 2'], [`${N_INT} IS DISTINCT FROM ${N_INT}`]),
  'IS FALSE': calls(['FALSE IS FALSE'], [`${N_BOOL} IS FALSE`]),
  'IS JSON ARRAY': calls(["'[]' IS JSON ARRAY"], [`${N_STR} IS JSON ARRAY`], ["'' IS JSON ARRAY"]),
  'IS JSON OBJECT': calls(["'{}' IS JSON OBJECT"], [`${N_STR} IS JSON OBJECT`]),
  'IS JSON SCALAR': calls(["'1' IS JSON SCALAR"], [`${N_STR} IS JSON SCALAR`]),
  'IS JSON VALUE': calls(["'1' IS JSON", "'x' IS JSON VALUE"], [`${N_STR} IS JSON`], ["'{\"a\":' IS JSON"]),
  'IS NOT DISTINCT FROM': calls(['1 IS NOT DISTINCT FROM 1'], [`${N_INT} IS NOT DISTINCT FROM 1`]),
  'IS NOT FALSE': calls(['TRUE IS NOT FALSE'], [`${N_BOOL} IS NOT FALSE`]),
  'IS NOT NULL': calls(['1 IS NOT NULL'], [`${N_INT} IS NOT NULL`]),
  'IS NOT TRUE': calls(['TRUE IS NOT TRUE'], [`${N_BOOL} IS NOT TRUE`]),
  'IS NULL': calls(['1 IS NULL'], [`${N_INT} IS NULL`]),
  'IS TRUE': calls(['TRUE IS TRUE'], [`${N_BOOL} IS TRUE`]),
  IS_ALPHA: calls(["IS_ALPHA('abc')"], [`IS_ALPHA(${N_STR})`], ["IS_ALPHA('')"]),
  IS_DECIMAL: calls(["IS_DECIMAL('1.5')", 'IS_DECIMAL(1)'], [`IS_DECIMAL(${N_STR})`], ["IS_DECIMAL('')", "IS_DECIMAL('1e999')"]),
  IS_DIGIT: calls(["IS_DIGIT('123')", 'IS_DIGIT(1)'], [`IS_DIGIT(${N_STR})`], ["IS_DIGIT('')"]),
  IS_VALID_UTF8: calls(["IS_VALID_UTF8(x'466c696e6b')", "IS_VALID_UTF8(x'41ff')"], [`IS_VALID_UTF8(${N_BYTES})`], ["IS_VALID_UTF8(x'')", "IS_VALID_UTF8(x'eda080')"]),
  ITEM: calls(['ARRAY[1, 2][1]', "MAP['a', 1]['a']", "CAST(ROW(1) AS ROW<a INT>)['a']"], [`${N_ARR}[1]`, `ARRAY[1][${N_INT}]`], ['ARRAY[1][CAST(0 AS INT) + 0]', 'ARRAY[1][CAST(-1 AS INT) + 0]']),
  JSON: calls(["JSON_ARRAY(JSON('[1]'))"], [`JSON_ARRAY(JSON(${N_STR}))`], ["JSON_ARRAY(JSON('['))"]),
  JSON_ARRAY: calls(["JSON_ARRAY(1, 'a', TRUE)", 'JSON_ARRAY()'], [`JSON_ARRAY(${N_INT})`, `JSON_ARRAY(${N_INT} NULL ON NULL)`]),
  JSON_EXISTS: calls(["JSON_EXISTS('{\"a\":1}', '$.a')"], [`JSON_EXISTS(${N_STR}, '$.a')`], ["JSON_EXISTS('x', '$')"]),
  JSON_LENGTH: calls(["JSON_LENGTH('[1]')", "JSON_LENGTH('{\"a\":[1,2]}', '$.a')"], [`JSON_LENGTH(${N_STR})`], ["JSON_LENGTH('')", "JSON_LENGTH('[]', '$[')"]),
  JSON_OBJECT: calls(["JSON_OBJECT('a' VALUE 1)", 'JSON_OBJECT()'], [`JSON_OBJECT('a' VALUE ${N_INT})`, `JSON_OBJECT('a' VALUE ${N_INT} ABSENT ON NULL)`]),
  JSON_QUERY: calls(["JSON_QUERY('{\"a\":[1]}', '$.a')", "JSON_QUERY('1', '$' WITH ARRAY WRAPPER)"], [`JSON_QUERY(${N_STR}, '$')`], ["JSON_QUERY('x', '$')", "JSON_QUERY('{}', 'strict $.a' ERROR ON ERROR)"]),
  JSON_QUOTE: text('JSON_QUOTE', "'a\"b'"),
  JSON_STRING: calls(['JSON_STRING(1)', "JSON_STRING(ROW(1, 'a'))"], [`JSON_STRING(${N_INT})`], ["JSON_STRING(CAST('NaN' AS DOUBLE))"]),
  JSON_TYPE: calls(["JSON_TYPE('1')", "JSON_TYPE('{\"a\":[]}', '$.a')"], [`JSON_TYPE(${N_STR})`], ["JSON_TYPE('')"]),
  JSON_UNQUOTE: text('JSON_UNQUOTE', "'\"a\"'"),
  JSON_VALUE: calls(["JSON_VALUE('{\"a\":1}', '$.a')", "JSON_VALUE('{\"a\":1}', '$.a' RETURNING INT)"], [`JSON_VALUE(${N_STR}, '$.a')`], ["JSON_VALUE('x', '$.a' ERROR ON ERROR)", "JSON_VALUE('{}', '$.a' DEFAULT 1 / 0 ON EMPTY)"]),
  LEAST: calls(['LEAST(1, 2)'], [`LEAST(1, ${N_INT})`]),
  LEFT: calls(["LEFT('abc', 2)"], [`LEFT(${N_STR}, 1)`], ["LEFT('abc', -1)", "LEFT('abc', 10)"]),
  LIKE: calls(["'abc' LIKE 'a%'", "'a_c' LIKE 'a!_c' ESCAPE '!'"], [`${N_STR} LIKE 'a'`], ["'a' LIKE 'a!' ESCAPE '!'", "'a' LIKE '%' ESCAPE 'xy'"]),
  LN: math('LN'),
  LOCALTIMESTAMP: calls(['LOCALTIMESTAMP'], []),
  LOCATE: calls(["LOCATE('b', 'abc')", "LOCATE('b', 'abcb', 3)"], [`LOCATE(${N_STR}, 'a')`], ["LOCATE('', '', -5)"]),
  LOG: calls(['LOG(10)', 'LOG(2, 8)'], [`LOG(${N_DBL})`], ['LOG(0)', 'LOG(1, 1)']),
  LOG10: math('LOG10'),
  LOG2: math('LOG2'),
  LOWER: text('LOWER'),
  LPAD: calls(["LPAD('a', 3, 'x')"], [`LPAD(${N_STR}, 3, 'x')`], ["LPAD('a', -1, 'x')", "LPAD('a', 3, '')"]),
  LTRIM: calls(["LTRIM('  a')", "LTRIM('xa', 'x')"], [`LTRIM(${N_STR})`]),
  MAKE_VALID_UTF8: calls(["MAKE_VALID_UTF8(x'466c696e6b')", "MAKE_VALID_UTF8(x'61ff62')"], [`MAKE_VALID_UTF8(${N_BYTES})`], ["MAKE_VALID_UTF8(x'')", "MAKE_VALID_UTF8(x'f0')", "MAKE_VALID_UTF8(x'f4908080')"]),
  MAP: calls(["MAP['a', 1]", "MAP[1, 'x', 2, 'y']"], ["MAP['a', CAST(NULL AS INT)]"]),
  MAP_CONTAINS_KEY: calls(["MAP_CONTAINS_KEY(MAP['a', 1], 'a')", "MAP_CONTAINS_KEY(MAP['a', 1], 'b')"], [`MAP_CONTAINS_KEY(${N_MAP}, 'a')`]),
  MAP_ENTRIES: calls(["MAP_ENTRIES(MAP['a', 1])"], [`MAP_ENTRIES(${N_MAP})`]),
  MAP_FROM_ARRAYS: calls(["MAP_FROM_ARRAYS(ARRAY['a'], ARRAY[1])"], [`MAP_FROM_ARRAYS(${N_ARR}, ARRAY[1])`], ["MAP_FROM_ARRAYS(ARRAY['a'], ARRAY[1, 2])"]),
  MAP_FROM_ENTRIES: calls(["MAP_FROM_ENTRIES(ARRAY[ROW('a', 1)])"], ["MAP_FROM_ENTRIES(CAST(NULL AS ARRAY<ROW<k STRING, v INT>>))"]),
  MAP_KEYS: calls(["MAP_KEYS(MAP['a', 1])"], [`MAP_KEYS(${N_MAP})`]),
  MAP_UNION: calls(["MAP_UNION(MAP['a', 1], MAP['b', 2])"], [`MAP_UNION(${N_MAP}, ${N_MAP})`]),
  MAP_VALUES: calls(["MAP_VALUES(MAP['a', 1])"], [`MAP_VALUES(${N_MAP})`]),
  MD5: hash('MD5'),
  MINUTE: part('MINUTE', 'time', DAY_TIME),
  MOD: calls(['MOD(7, 3)', '7 % 3', 'MOD(7.5, 2)', 'MOD(7e0, 2)'], [`MOD(${N_INT}, 2)`], ['MOD(1, 0)', 'MOD(1e0, 0)']),
  MONTH: part('MONTH', 'date', YEAR_MONTH),
  NEGATE: calls(['-CAST(5 AS INT)', '-CAST(1.5 AS DECIMAL(2, 1))', "-(INTERVAL '1' DAY + INTERVAL '1' HOUR)"], [`-${N_INT}`], ['-CAST(-2147483648 AS INT)']),
  NOT: calls(['NOT TRUE'], [`NOT ${N_BOOL}`]),
  NULLIF: calls(['NULLIF(1, 1)', 'NULLIF(1, 2)'], [`NULLIF(${N_INT}, 1)`]),
  OR: calls(['TRUE OR FALSE'], [`FALSE OR ${N_BOOL}`]),
  OVERLAPS: calls(["(DATE '2020-01-01', DATE '2020-01-05') OVERLAPS (DATE '2020-01-03', INTERVAL '1' DAY)"], [`(${N_DATE}, DATE '2020-01-05') OVERLAPS (DATE '2020-01-03', DATE '2020-01-04')`]),
  OVERLAY: calls(["OVERLAY('abc' PLACING 'X' FROM 2)", "OVERLAY('abc' PLACING 'X' FROM 2 FOR 0)"], [`OVERLAY(${N_STR} PLACING 'X' FROM 2)`], ["OVERLAY('abc' PLACING 'X' FROM -1)", "OVERLAY('abc' PLACING 'X' FROM 9 FOR 9)"]),
  PARSE_URL: calls(["PARSE_URL('http://a.b/c?d=e', 'HOST')", "PARSE_URL('http://a.b/c?d=e', 'QUERY', 'd')"], [`PARSE_URL(${N_STR}, 'HOST')`], ["PARSE_URL('', 'HOST')", "PARSE_URL('http://a.b', 'NOTHING')"]),
  PI: calls(['PI()'], []),
  POSITION: calls(["POSITION('b' IN 'abc')"], [`POSITION(${N_STR} IN 'abc')`], ["POSITION('' IN '')"]),
  POWER: calls(['POWER(2, 3)', 'POW(2.5, 2)'], [`POWER(${N_DBL}, 2)`], ['POWER(-1, 0.5)', 'POWER(0, -1)']),
  PRINT: calls(["PRINT('p ', 1)", "PRINT('p ', x'6869')", `PRINT('t ', ${TS})`, "PRINT('a ', ARRAY[1, 2])"], [`PRINT(${N_STR}, 1)`, `PRINT('p ', ${N_INT})`], ["PRINT('', '')", "PRINT('b ', x'00ff')", "PRINT('\u{1F600}', MAP['k', 1])"]),
  PRINTF: calls(["PRINTF('%s=%d', 'a', 1)", "PRINTF('x')"], [`PRINTF(${N_STR}, 1)`, `PRINTF('%s', ${N_INT})`], ["PRINTF('%q', 1)", "PRINTF('%d', 'x')"]),
  PROCTIME: calls(['PROCTIME()'], []),
  QUARTER: part('QUARTER', 'date', YEAR_MONTH),
  RADIANS: math('RADIANS'),
  RAND: calls(['RAND()', 'RAND(42)'], ['RAND(CAST(NULL AS INT))']),
  RAND_INTEGER: calls(['RAND_INTEGER(10)', 'RAND_INTEGER(42, 10)'], [`RAND_INTEGER(${N_INT})`], ['RAND_INTEGER(0)', 'RAND_INTEGER(1, -1)']),
  REGEXP: calls(["REGEXP('abc', 'b')"], [`REGEXP(${N_STR}, 'b')`], ["REGEXP('abc', '')", "REGEXP('abc', SUBSTRING('(x', 1, 1))"]),
  REGEXP_COUNT: calls(["REGEXP_COUNT('abab', 'b')"], [`REGEXP_COUNT(${N_STR}, 'b')`], ["REGEXP_COUNT('abc', SUBSTRING('(x', 1, 1))"]),
  REGEXP_EXTRACT: calls(["REGEXP_EXTRACT('abc', 'a(b)', 1)"], [`REGEXP_EXTRACT(${N_STR}, 'b')`], ["REGEXP_EXTRACT('abc', 'a(b)', -1)", "REGEXP_EXTRACT('abc', 'a(b)', 5)"]),
  REGEXP_EXTRACT_ALL: calls(["REGEXP_EXTRACT_ALL('a1b2', '([a-z])(\\d)', 2)"], [`REGEXP_EXTRACT_ALL(${N_STR}, 'a')`], ["REGEXP_EXTRACT_ALL('a', '(a)', 9)"]),
  REGEXP_INSTR: calls(["REGEXP_INSTR('abc', 'c')"], [`REGEXP_INSTR(${N_STR}, 'c')`]),
  REGEXP_REPLACE: calls(["REGEXP_REPLACE('abc', 'b', 'x')"], [`REGEXP_REPLACE(${N_STR}, 'b', 'x')`], ["REGEXP_REPLACE('abc', '', '-')"]),
  REGEXP_SUBSTR: calls(["REGEXP_SUBSTR('abc', 'b.')"], [`REGEXP_SUBSTR(${N_STR}, 'b')`]),
  REPEAT: calls(["REPEAT('ab', 2)"], [`REPEAT(${N_STR}, 2)`], ["REPEAT('ab', -1)", "REPEAT('', 1000)"]),
  REPLACE: calls(["REPLACE('abc', 'b', 'x')"], [`REPLACE(${N_STR}, 'b', 'x')`], ["REPLACE('abc', '', '-')"]),
  REVERSE: text('REVERSE'),
  RIGHT: calls(["RIGHT('abc', 2)"], [`RIGHT(${N_STR}, 1)`], ["RIGHT('abc', -1)"]),
  ROUND: calls(['ROUND(1.25, 1)', 'ROUND(1.25e0, 1)', 'ROUND(125, -1)'], [`ROUND(${N_DBL}, 1)`], ['ROUND(2147483647, -1)', 'ROUND(1e308, -308)']),
  ROW: calls(["ROW(1, 'a')", "(1, 'a')"], [`ROW(${N_INT})`]),
  RPAD: calls(["RPAD('a', 3, 'x')"], [`RPAD(${N_STR}, 3, 'x')`], ["RPAD('a', 0, 'x')"]),
  RTRIM: calls(["RTRIM('a  ')", "RTRIM('ax', 'x')"], [`RTRIM(${N_STR})`]),
  SECOND: part('SECOND', 'time', DAY_TIME),
  SHA1: hash('SHA1'),
  SHA2: calls(["SHA2('abc', 256)", "SHA2('abc', 512)", "SHA2(x'616263', 384)"], [`SHA2(${N_STR}, 256)`, `SHA2(${N_BYTES}, 256)`], ["SHA2('abc', 1)", "SHA2(x'', 1)"]),
  SHA224: hash('SHA224'),
  SHA256: hash('SHA256'),
  SHA384: hash('SHA384'),
  SHA512: hash('SHA512'),
  SIGN: calls(['SIGN(-2)', 'SIGN(2.5)', 'SIGN(-0.0e0)'], [`SIGN(${N_INT})`]),
  'SIMILAR TO': calls(["'abc' SIMILAR TO 'a(b|c)%'"], [`${N_STR} SIMILAR TO 'a'`], ["'a' SIMILAR TO '['", "'a' SIMILAR TO 'a' ESCAPE 'xy'"]),
  SIN: math('SIN'),
  SINH: math('SINH'),
  SPLIT: calls(["SPLIT('a,b', ',')"], [`SPLIT(${N_STR}, ',')`], ["SPLIT('', '')"]),
  SPLIT_INDEX: calls(["SPLIT_INDEX('a,b', ',', 1)", "SPLIT_INDEX('a,b', 44, 0)"], [`SPLIT_INDEX(${N_STR}, ',', 1)`], ["SPLIT_INDEX('a', '', 0)", "SPLIT_INDEX('a', 0, 0)"]),
  SQRT: math('SQRT'),
  STARTSWITH: calls(["STARTSWITH('abc', 'a')"], [`STARTSWITH(${N_STR}, 'a')`]),
  STR_TO_MAP: calls(["STR_TO_MAP('a=1,b=2')", "STR_TO_MAP('a:1;b:2', ';', ':')"], [`STR_TO_MAP(${N_STR})`], ["STR_TO_MAP('a=1', '(', '=')"]),
  SUBSTRING: calls(["SUBSTRING('abc', 2)", "SUBSTRING('abc' FROM 1 FOR 2)", "SUBSTR('abc', -1)", "SUBSTRING(x'010203', 2, 1)"], [`SUBSTRING(${N_STR}, 1)`, `SUBSTRING(${N_BYTES}, 1)`], ["SUBSTRING('abc', 2147483647, 2147483647)", "SUBSTRING('abc', 1, -1)", "SUBSTRING(x'01', -5, 2147483647)"]),
  TAN: math('TAN'),
  TANH: math('TANH'),
  TIMESTAMPADD: calls([`TIMESTAMPADD(DAY, 1, ${TS})`, "TIMESTAMPADD(MONTH, 1, DATE '2020-01-31')", "TIMESTAMPADD(MINUTE, 90, TIME '23:00:00')"], [`TIMESTAMPADD(DAY, ${N_INT}, ${TS})`], [`TIMESTAMPADD(YEAR, -3000, ${TS})`]),
  TIMESTAMPDIFF: calls([`TIMESTAMPDIFF(DAY, ${TS}, TIMESTAMP '2022-01-01 00:00:00')`, "TIMESTAMPDIFF(MONTH, DATE '2020-01-01', DATE '2021-01-01')"], [`TIMESTAMPDIFF(DAY, ${N_TS}, ${TS})`]),
  TO_BASE64: calls(["TO_BASE64('Hello World')", "TO_BASE64(x'0001ff')"], [`TO_BASE64(${N_STR})`, `TO_BASE64(${N_BYTES})`], ["TO_BASE64('')", "TO_BASE64(x'')", "TO_BASE64('\u{1F600}é')"]),
  TO_DATE: calls(["TO_DATE('2020-01-01')", "TO_DATE('01/02/2020', 'dd/MM/yyyy')"], [`TO_DATE(${N_STR})`], ["TO_DATE('2020-02-30')", "TO_DATE('x', 'yyyy')"]),
  TO_TIMESTAMP: calls(["TO_TIMESTAMP('2020-01-01 00:00:00')", "TO_TIMESTAMP('2020', 'yyyy')"], [`TO_TIMESTAMP(${N_STR})`], ["TO_TIMESTAMP('x')"]),
  TO_TIMESTAMP_LTZ: calls(['TO_TIMESTAMP_LTZ(0, 0)', 'TO_TIMESTAMP_LTZ(1000)', "TO_TIMESTAMP_LTZ('2020-01-01 00:00:00')"], [`TO_TIMESTAMP_LTZ(${N_INT}, 3)`, `TO_TIMESTAMP_LTZ(${N_STR})`], ["TO_TIMESTAMP_LTZ(1, CHAR_LENGTH('x') - 2)", 'TO_TIMESTAMP_LTZ(253402300800000, 3)', "TO_TIMESTAMP_LTZ('x', 'yyyy', 'UTC')"]),
  TRANSLATE: calls(["TRANSLATE('abc', 'ab', 'x')"], [`TRANSLATE(${N_STR}, 'a', 'b')`, `TRANSLATE('a', ${N_STR}, 'b')`], ["TRANSLATE('', '', '')"]),
  TRIM: calls(["TRIM('  a  ')", "TRIM(LEADING 'x' FROM 'xa')"], [`TRIM(${N_STR})`], ["TRIM(BOTH '' FROM 'a')"]),
  TRUNCATE: calls(['TRUNCATE(1.25, 1)', 'TRUNCATE(1.25e0)', 'TRUNCATE(129, -1)'], [`TRUNCATE(${N_DBL}, 1)`], ['TRUNCATE(1e308, -400)']),
  TYPEOF: calls(['TYPEOF(1)', 'TYPEOF(1, TRUE)'], ['TYPEOF(NULL)']),
  UNIX_TIMESTAMP: calls(['UNIX_TIMESTAMP()', "UNIX_TIMESTAMP('2020-01-01 00:00:00')"], [`UNIX_TIMESTAMP(${N_STR})`], ["UNIX_TIMESTAMP('x')"]),
  UNHEX: calls(["UNHEX('466C696E6B')", "UNHEX('616')"], [`UNHEX(${N_STR})`], ["UNHEX('')", "UNHEX('xy')", "UNHEX('é0')"]),
  UPPER: text('UPPER'),
  URL_DECODE: text('URL_DECODE', "'a%20b+c'"),
  URL_DECODE_RECURSIVE: calls(["URL_DECODE_RECURSIVE('a%2520b')", "URL_DECODE_RECURSIVE('a%2520b', 1)", "URL_DECODE_RECURSIVE('a%2520b', TRUE)"], [`URL_DECODE_RECURSIVE(${N_STR})`, `URL_DECODE_RECURSIVE(${N_STR}, 2)`], ["URL_DECODE_RECURSIVE('%', 3)", "URL_DECODE_RECURSIVE('a', 0)"]),
  URL_ENCODE: text('URL_ENCODE', "'a b&c'"),
  UUID: calls(['UUID()'], []),
  WEEK: part('WEEK'),
  YEAR: part('YEAR', 'date', YEAR_MONTH),
};

/** The calls of every aggregate function, by canonical name (over AGGREGATE_ROWS). */
export const AGGREGATE_CALLS: Readonly<Record<string, Calls>> = {
  ARRAY_AGG: calls(['ARRAY_AGG(i)', 'ARRAY_AGG(DISTINCT s)'], [`ARRAY_AGG(${N_INT})`]),
  ARRAY_AGG_IGNORE_NULLS: calls(['ARRAY_AGG(s IGNORE NULLS)'], [`ARRAY_AGG(${N_INT} IGNORE NULLS)`]),
  AVG: calls(['AVG(i)', 'AVG(d)', 'AVG(n)'], [`AVG(${N_INT})`]),
  COLLECT: calls(['COLLECT(s)', 'COLLECT(ROW(i, s))'], [`COLLECT(${N_INT})`]),
  COUNT: calls(['COUNT(*)', 'COUNT(s)', 'COUNT(DISTINCT i, s)'], [`COUNT(${N_INT})`]),
  FIRST_VALUE: calls(['FIRST_VALUE(s)', 'FIRST_VALUE(ROW(i, s))'], [`FIRST_VALUE(${N_INT})`]),
  JSON_ARRAYAGG_ABSENT_ON_NULL: calls(['JSON_ARRAYAGG(s)'], [`JSON_ARRAYAGG(${N_INT})`]),
  JSON_ARRAYAGG_ABSENT_ON_NULL_NESTED: calls(["JSON_ARRAYAGG(JSON_OBJECT('i' VALUE i))"], [`JSON_ARRAYAGG(JSON_ARRAY(${N_INT}))`]),
  JSON_ARRAYAGG_NULL_ON_NULL_NESTED: calls(['JSON_ARRAYAGG(JSON_ARRAY(s) NULL ON NULL)'], [`JSON_ARRAYAGG(JSON_ARRAY(${N_INT}) NULL ON NULL)`]),
  JSON_ARRAYAGG_NULL_ON_NULL: calls(['JSON_ARRAYAGG(d NULL ON NULL)'], [`JSON_ARRAYAGG(${N_INT} NULL ON NULL)`]),
  JSON_OBJECTAGG_ABSENT_ON_NULL: calls(['JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE d ABSENT ON NULL)'], [`JSON_OBJECTAGG(KEY ${N_STR} VALUE i ABSENT ON NULL)`]),
  JSON_OBJECTAGG_ABSENT_ON_NULL_NESTED: calls(["JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE JSON_OBJECT('d' VALUE d) ABSENT ON NULL)"], [`JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE JSON_ARRAY(${N_INT}) ABSENT ON NULL)`]),
  JSON_OBJECTAGG_NULL_ON_NULL_NESTED: calls(["JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE JSON_ARRAY(i, s))"], [`JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE JSON_ARRAY(${N_INT}))`]),
  JSON_OBJECTAGG_NULL_ON_NULL: calls(['JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE d)'], [`JSON_OBJECTAGG(KEY CAST(n AS STRING) VALUE ${N_INT})`], ['JSON_OBJECTAGG(KEY s VALUE i)']),
  LAST_VALUE: calls(['LAST_VALUE(d)'], [`LAST_VALUE(${N_INT})`]),
  LISTAGG: calls(['LISTAGG(s)', "LISTAGG(s, '; ')"], [`LISTAGG(${N_STR})`]),
  MAX: calls(['MAX(i)', 'MAX(s)'], [`MAX(${N_INT})`]),
  MIN: calls(['MIN(d)', 'MIN(n)'], [`MIN(${N_INT})`]),
  PERCENTILE: calls(['PERCENTILE(i, 0.5)', 'PERCENTILE(n, ARRAY[0.25, 0.75], i)'], [`PERCENTILE(${N_INT}, 0.5)`], ['PERCENTILE(d, i * 1.5)', 'PERCENTILE(d, ARRAY[2.0])']),
  STDDEV: calls(['STDDEV(d)'], [`STDDEV(${N_DBL})`]),
  STDDEV_POP: calls(['STDDEV_POP(d)', 'STDDEV_POP(i)', 'STDDEV_POP(n)'], [`STDDEV_POP(${N_DBL})`]),
  STDDEV_SAMP: calls(['STDDEV_SAMP(d)'], [`STDDEV_SAMP(${N_DBL})`]),
  SINGLE_VALUE: calls(['SINGLE_VALUE(i) FILTER (WHERE i = 2)', "SINGLE_VALUE(s, 'q') FILTER (WHERE i = 2)"], [`SINGLE_VALUE(${N_INT}) FILTER (WHERE i = 2)`], ['SINGLE_VALUE(i)', "SINGLE_VALUE(i, 'the subquery')"]),
  SUM: calls(['SUM(i)', 'SUM(d)', 'SUM(n)'], [`SUM(${N_INT})`], ['SUM(CAST(i AS TINYINT) * CAST(100 AS TINYINT))']),
  VARIANCE: calls(['VARIANCE(i)'], [`VARIANCE(${N_DBL})`]),
  VAR_POP: calls(['VAR_POP(n)'], [`VAR_POP(${N_DBL})`]),
  VAR_SAMP: calls(['VAR_SAMP(d)'], [`VAR_SAMP(${N_DBL})`]),
};
