/**
 * Facts about Flink's built-in functions, written from Flink's documentation
 * (docs/data/sql_functions.yml: the descriptions and their examples) and, where the documentation
 * is silent on an edge case, from what Flink's runtime does: `[expression, result, type?]`, the
 * result printed as `CAST(result AS STRING)` prints it (null for SQL NULL), the type as TYPEOF
 * prints it; or `{ error }`, a part of the message of the error the expression raises.
 * function-facts.test.ts runs each through the engine.
 */

/** The error an expression raises: a part of its message. */
export interface FactError {
  readonly error: string;
}

/** An expression, its result (or error) and optionally its type. */
export type Fact = readonly [sql: string, result: string | null | FactError, type?: string];

const NULL_INT = 'CAST(NULL AS INT)';
const NULL_STRING = 'CAST(NULL AS STRING)';
const NULL_BOOLEAN = 'CAST(NULL AS BOOLEAN)';

/** The facts, by category of Flink's function list. */
export const FACTS: Readonly<Record<string, readonly Fact[]>> = {
  comparison: [
    ['1 = 1', 'TRUE', 'BOOLEAN NOT NULL'],
    [`1 = ${NULL_INT}`, null, 'BOOLEAN'],
    ['1 <> 2', 'TRUE'],
    ['2 > 1.5', 'TRUE'],
    ['2 >= 2', 'TRUE'],
    ["'a' < 'b'", 'TRUE'],
    ["'abc' <= 'abd'", 'TRUE'],
    ['1 IS DISTINCT FROM NULL', 'TRUE', 'BOOLEAN NOT NULL'],
    ['NULL IS DISTINCT FROM NULL', 'FALSE'],
    ['1 IS NOT DISTINCT FROM NULL', 'FALSE'],
    ['NULL IS NOT DISTINCT FROM NULL', 'TRUE'],
    ['1 IS NOT DISTINCT FROM 1.0', 'TRUE'],
    ['12 BETWEEN 15 AND 12', 'FALSE'],
    ['12 BETWEEN SYMMETRIC 15 AND 12', 'TRUE'],
    ['12 BETWEEN ASYMMETRIC 10 AND 12', 'TRUE'],
    ['12 BETWEEN 10 AND NULL', null],
    ['12 BETWEEN NULL AND 10', 'FALSE'],
    ['12 BETWEEN SYMMETRIC NULL AND 12', null],
    ['12 NOT BETWEEN 15 AND 12', 'TRUE'],
    ['12 NOT BETWEEN SYMMETRIC 15 AND 12', 'FALSE'],
    ['12 NOT BETWEEN NULL AND 15', null],
    ['12 NOT BETWEEN 15 AND NULL', 'TRUE'],
    ['12 NOT BETWEEN SYMMETRIC 12 AND NULL', null],
    ["'abc' LIKE 'a%'", 'TRUE'],
    ["'abc' LIKE 'a_'", 'FALSE'],
    ["'abc' NOT LIKE '_b_'", 'FALSE'],
    ["'a_c' LIKE 'a!_c' ESCAPE '!'", 'TRUE'],
    ["'abc' LIKE 'a!_c' ESCAPE '!'", 'FALSE'],
    ["'a\nb' LIKE 'a%b'", 'TRUE'],
    [`${NULL_STRING} LIKE 'a%'`, null],
    ["'abc' SIMILAR TO 'a(b|x)c'", 'TRUE', 'BOOLEAN NOT NULL'],
    ["'abc' SIMILAR TO 'a[a-c]{2}'", 'TRUE'],
    ["'abc' SIMILAR TO 'a%'", 'TRUE'],
    ["'abc' SIMILAR TO 'b%'", 'FALSE'],
    ["'abc' SIMILAR TO '_b_'", 'TRUE'],
    ["'abc' NOT SIMILAR TO 'a(b|x)c'", 'FALSE'],
    ["'ab' SIMILAR TO '(a|b)+'", 'TRUE'],
    ["'a$' SIMILAR TO 'a$'", 'TRUE'],
    ["'a%' SIMILAR TO 'a!%' ESCAPE '!'", 'TRUE'],
    ["'ab' SIMILAR TO 'a!%' ESCAPE '!'", 'FALSE'],
    ["'x9' SIMILAR TO 'x[[:DIGIT:]]'", 'TRUE'],
    [`${NULL_STRING} SIMILAR TO 'a'`, null],
    ['4 IN (1, 2, 3)', 'FALSE'],
    ['1 IN (1, 2, NULL)', 'TRUE'],
    ['4 IN (1, 2, NULL)', null],
    [`${NULL_INT} IN (1, 2)`, null],
    ['4 NOT IN (1, 2, 3)', 'TRUE'],
    ['1 NOT IN (1, 2, NULL)', 'FALSE'],
    ['4 NOT IN (1, 2, NULL)', null],
    ["'b' IN ('a', 'b')", 'TRUE'],
    [`${NULL_INT} IS NULL`, 'TRUE', 'BOOLEAN NOT NULL'],
    ['1 IS NOT NULL', 'TRUE'],
  ],
  logical: [
    ['TRUE OR FALSE', 'TRUE'],
    [`TRUE OR ${NULL_BOOLEAN}`, 'TRUE'],
    [`FALSE OR ${NULL_BOOLEAN}`, null],
    [`TRUE AND ${NULL_BOOLEAN}`, null],
    [`FALSE AND ${NULL_BOOLEAN}`, 'FALSE'],
    ['TRUE AND TRUE', 'TRUE', 'BOOLEAN NOT NULL'],
    ['NOT TRUE', 'FALSE'],
    [`NOT ${NULL_BOOLEAN}`, null],
    ['FALSE IS FALSE', 'TRUE'],
    [`${NULL_BOOLEAN} IS FALSE`, 'FALSE', 'BOOLEAN NOT NULL'],
    [`${NULL_BOOLEAN} IS NOT FALSE`, 'TRUE'],
    ['TRUE IS TRUE', 'TRUE'],
    [`${NULL_BOOLEAN} IS TRUE`, 'FALSE'],
    [`${NULL_BOOLEAN} IS NOT TRUE`, 'TRUE'],
    ['FALSE IS NOT TRUE', 'TRUE'],
    [`${NULL_BOOLEAN} IS UNKNOWN`, 'TRUE'],
    ['TRUE IS UNKNOWN', 'FALSE'],
    [`${NULL_BOOLEAN} IS NOT UNKNOWN`, 'FALSE'],
    ['FALSE IS NOT UNKNOWN', 'TRUE'],
  ],
  conversion: [
    ["CAST('42' AS INT)", '42', 'INT NOT NULL'],
    ['CAST(NULL AS STRING)', null, 'STRING'],
    ["CAST('non-number' AS INT)", { error: "cannot cast 'non-number' to INT" }],
    ["TRY_CAST('42' AS INT)", '42', 'INT'],
    ['TRY_CAST(NULL AS STRING)', null, 'STRING'],
    ["TRY_CAST('non-number' AS INT)", null, 'INT'],
    ["COALESCE(TRY_CAST('non-number' AS INT), 0)", '0', 'INT NOT NULL'],
    ['TYPEOF(1)', 'INT NOT NULL', 'STRING NOT NULL'],
    ["TYPEOF('abc')", 'CHAR(3) NOT NULL'],
    ['TYPEOF(CAST(1 AS BIGINT))', 'BIGINT NOT NULL'],
    ['TYPEOF(1.5)', 'DECIMAL(2, 1) NOT NULL'],
    ['TYPEOF(1.5e0)', 'DOUBLE NOT NULL'],
    ['TYPEOF(NULL)', 'NULL'],
    ['TYPEOF(CAST(NULL AS VARCHAR(5)))', 'VARCHAR(5)'],
    ["TYPEOF(TIMESTAMP '2020-01-01 00:00:00')", 'TIMESTAMP(0) NOT NULL'],
    ['TYPEOF(ARRAY[1, 2])', 'ARRAY<INT NOT NULL> NOT NULL'],
    ["TYPEOF(MAP['a', 1])", 'MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL'],
    ["TYPEOF(ROW(1, 'a'))", 'ROW<`EXPR$0` INT NOT NULL, `EXPR$1` CHAR(1) NOT NULL> NOT NULL'],
    ['TYPEOF(1, TRUE)', 'INT NOT NULL'],
  ],
};
