/**
 * weir's own typed syntax tree for the Flink SQL it accepts. Produced by the grammar in
 * `grammar/flink-sql.peggy`; syntax only: names are not resolved and types not checked.
 * Every node carries the span of text it came from, for error messages.
 */
import type { ConflictStrategy } from '../../common/conflict-strategy.js';
import type { SourceSpan } from '../../common/errors.js';

/** Common to every node: where it came from. */
export interface Node {
  readonly span: SourceSpan;
}

/** An identifier as written; `quoted` is true for backtick-quoted names. Case is kept. */
export interface Identifier extends Node {
  readonly kind: 'identifier';
  readonly name: string;
  readonly quoted: boolean;
}

/** A possibly qualified name: `t`, `db.t`, `cat.db.t`. */
export interface QualifiedName extends Node {
  readonly kind: 'qualified-name';
  readonly parts: readonly Identifier[];
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** A type as written in DDL or CAST: `BIGINT`, `DECIMAL(23, 3)`, `ROW<a INT, b STRING>`. */
export type TypeSyntax =
  | { readonly kind: 'type'; readonly span: SourceSpan; readonly name: ScalarTypeName; readonly params: readonly number[]; readonly notNull: boolean }
  | { readonly kind: 'row-type'; readonly span: SourceSpan; readonly fields: readonly { readonly name: Identifier; readonly type: TypeSyntax }[]; readonly notNull: boolean }
  | { readonly kind: 'array-type'; readonly span: SourceSpan; readonly element: TypeSyntax; readonly notNull: boolean }
  | { readonly kind: 'map-type'; readonly span: SourceSpan; readonly key: TypeSyntax; readonly value: TypeSyntax; readonly notNull: boolean };

/**
 * Scalar type names after normalisation of synonyms: INTEGER → INT, STRING → VARCHAR (with no
 * length), `TIMESTAMP WITH LOCAL TIME ZONE` → TIMESTAMP_LTZ, `INTERVAL DAY TO SECOND` → INTERVAL_DAY_TIME,
 * `INTERVAL YEAR TO MONTH` → INTERVAL_YEAR_MONTH, DEC/NUMERIC → DECIMAL, FLOAT → FLOAT, REAL → FLOAT,
 * `DOUBLE PRECISION` → DOUBLE, BYTES/VARBINARY → VARBINARY.
 */
export type ScalarTypeName =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DECIMAL'
  | 'CHAR'
  | 'VARCHAR'
  | 'STRING'
  | 'BINARY'
  | 'VARBINARY'
  | 'DATE'
  | 'TIME'
  | 'TIMESTAMP'
  | 'TIMESTAMP_LTZ'
  | 'INTERVAL_DAY_TIME'
  | 'INTERVAL_YEAR_MONTH';

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

/** Any scalar expression. */
export type Expr =
  | ColumnRef
  | Literal
  | IntervalLiteral
  | TypedLiteral
  | UnaryExpr
  | BinaryExpr
  | FunctionCall
  | CaseExpr
  | CastExpr
  | BetweenExpr
  | InListExpr
  | InSubqueryExpr
  | ExistsExpr
  | ScalarSubquery
  | QuantifiedComparison
  | LikeExpr
  | IsExpr
  | FieldAccess
  | ItemAccess
  | StarExpr;

/**
 * A name in an expression: `price`, `B.price`, `person.id` (column `person`, field `id`, or
 * table `person`, column `id`: the binder decides).
 */
export interface ColumnRef extends Node {
  readonly kind: 'column-ref';
  readonly parts: readonly Identifier[];
}

/** `*` or `t.*`, only valid in a select list or in `COUNT(*)`. */
export interface StarExpr extends Node {
  readonly kind: 'star';
  readonly qualifier: readonly Identifier[];
}

/**
 * A literal. Numbers keep their text so that the binder can type them exactly
 * (`10` INT, `10000000000` BIGINT, `0.908` DECIMAL(3, 3), `1e6` DOUBLE).
 */
export type Literal =
  | { readonly kind: 'literal'; readonly span: SourceSpan; readonly type: 'number'; readonly text: string }
  | { readonly kind: 'literal'; readonly span: SourceSpan; readonly type: 'string'; readonly value: string }
  | { readonly kind: 'literal'; readonly span: SourceSpan; readonly type: 'boolean'; readonly value: boolean }
  /** `x'0aff'`: `hex` is the text between the quotes, not yet checked to be hex digits. */
  | { readonly kind: 'literal'; readonly span: SourceSpan; readonly type: 'binary'; readonly hex: string }
  | { readonly kind: 'literal'; readonly span: SourceSpan; readonly type: 'null' };

/** The units an interval literal may be written in. */
export type IntervalUnit = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND' | 'MILLISECOND';

/**
 * `INTERVAL '4' SECOND`, `INTERVAL '10' MINUTE`, `INTERVAL '1 2:03' DAY TO MINUTE`.
 * `value` is the quoted text; `sign` is -1 for `INTERVAL -'4' SECOND`.
 */
export interface IntervalLiteral extends Node {
  readonly kind: 'interval';
  readonly value: string;
  readonly sign: 1 | -1;
  readonly from: IntervalUnit;
  readonly to?: IntervalUnit;
  /** The leading field's precision when written (`DAY(3)`): its value may have at most that many digits. */
  readonly leadingPrecision?: number;
  /** SECOND's fractional precision when written (`SECOND(3)`, `SECOND(2, 6)`): at most that many fraction digits. */
  readonly fractionalPrecision?: number;
}

/** `DATE '2020-01-01'`, `TIME '12:00:00'`, `TIMESTAMP '2020-01-01 00:00:00'`. */
export interface TypedLiteral extends Node {
  readonly kind: 'typed-literal';
  readonly type: 'DATE' | 'TIME' | 'TIMESTAMP';
  readonly value: string;
}

/** Prefix operators. */
export interface UnaryExpr extends Node {
  readonly kind: 'unary';
  readonly op: 'NOT' | '-' | '+';
  readonly operand: Expr;
}

/** Binary operators; comparison `<>` and `!=` both become `<>`. */
export type BinaryOp = 'OR' | 'AND' | '=' | '<>' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%' | '||' | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM';

/** `left op right`. */
export interface BinaryExpr extends Node {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}

/**
 * A function call: scalar (`UPPER(x)`), aggregate (`COUNT(DISTINCT x) FILTER (WHERE ...)`) or
 * window (`ROW_NUMBER() OVER (...)`, `SUM(x) OVER w`). Names keep their case; the binder resolves
 * them case-insensitively. Special forms are normalised into calls: `EXTRACT(HOUR FROM ts)` →
 * `EXTRACT('HOUR', ts)` (the unit as a string literal), `TRIM(BOTH 'x' FROM s)` →
 * `TRIM('BOTH', 'x', s)`, `TRIM(s)` → `TRIM('BOTH', ' ', s)`, `SUBSTRING(s FROM 2 FOR 3)` →
 * `SUBSTRING(s, 2, 3)`, `POSITION(a IN b)` → `POSITION(a, b)`, `CURRENT_TIMESTAMP` (no parentheses)
 * → `CURRENT_TIMESTAMP()`, `DESCRIPTOR(c)` → a call named `DESCRIPTOR` with column-ref arguments,
 * `TABLE t` inside a table function → see {@link TableArg}.
 */
export interface FunctionCall extends Node {
  readonly kind: 'call';
  readonly name: QualifiedName;
  readonly args: readonly (Expr | TableArg)[];
  /**
   * In a table function's call only, when an argument is named (`SIZE => INTERVAL '1' HOUR`): the
   * name of each argument, parallel to `args`, `null` where one is positional.
   */
  readonly argumentNames?: readonly (Identifier | null)[];
  readonly distinct: boolean;
  /** `FILTER (WHERE cond)` after an aggregate. */
  readonly filter?: Expr;
  /** `OVER (...)` or `OVER w`. */
  readonly over?: WindowSpec;
}

/** `TABLE name` as the argument of a table-valued function such as TUMBLE. */
export interface TableArg extends Node {
  readonly kind: 'table-arg';
  readonly name: QualifiedName;
  /** `TABLE bid PARTITION BY bidder` (SESSION windows): the partition keys. */
  readonly partitionBy?: readonly Expr[];
}

/** The window of an OVER clause. */
export interface WindowSpec extends Node {
  readonly kind: 'window-spec';
  /** `OVER w` refers to a named window from the WINDOW clause. */
  readonly ref?: Identifier;
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  readonly frame?: WindowFrame;
}

/** `ROWS BETWEEN 10 PRECEDING AND CURRENT ROW`, `RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW`. */
export interface WindowFrame extends Node {
  readonly kind: 'window-frame';
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: FrameBound;
  readonly end: FrameBound;
}

/** One end of a window frame. */
export type FrameBound =
  | { readonly kind: 'unbounded-preceding' }
  | { readonly kind: 'preceding'; readonly offset: Expr }
  | { readonly kind: 'current-row' }
  | { readonly kind: 'following'; readonly offset: Expr }
  | { readonly kind: 'unbounded-following' };

/** `CASE [operand] WHEN ... THEN ... [ELSE ...] END`; `CASE x WHEN 1, 2 THEN` lists 2 in `alternatives`. */
export interface CaseExpr extends Node {
  readonly kind: 'case';
  readonly operand?: Expr;
  readonly whens: readonly { readonly when: Expr; readonly alternatives?: readonly Expr[]; readonly then: Expr }[];
  readonly else?: Expr;
}

/** `CAST(x AS type)` and `TRY_CAST(x AS type)`. */
export interface CastExpr extends Node {
  readonly kind: 'cast';
  readonly expr: Expr;
  readonly type: TypeSyntax;
  readonly try: boolean;
}

/** `x [NOT] BETWEEN [ASYMMETRIC | SYMMETRIC] low AND high`. */
export interface BetweenExpr extends Node {
  readonly kind: 'between';
  readonly expr: Expr;
  readonly low: Expr;
  readonly high: Expr;
  readonly negated: boolean;
  readonly symmetric: boolean;
}

/** `x [NOT] IN (a, b, c)`. */
export interface InListExpr extends Node {
  readonly kind: 'in-list';
  readonly expr: Expr;
  readonly list: readonly Expr[];
  readonly negated: boolean;
}

/** `x [NOT] IN (SELECT ...)`. */
export interface InSubqueryExpr extends Node {
  readonly kind: 'in-subquery';
  readonly expr: Expr;
  readonly query: Query;
  readonly negated: boolean;
}

/** `[NOT] EXISTS (SELECT ...)`. */
export interface ExistsExpr extends Node {
  readonly kind: 'exists';
  readonly query: Query;
  readonly negated: boolean;
}

/** `x <op> ANY | SOME | ALL (SELECT ...)` (SOME is ANY). */
export interface QuantifiedComparison extends Node {
  readonly kind: 'quantified';
  readonly expr: Expr;
  readonly op: '=' | '<>' | '<' | '<=' | '>' | '>=';
  readonly quantifier: 'ANY' | 'ALL';
  readonly query: Query;
}

/** `(SELECT ...)` used as a value. */
export interface ScalarSubquery extends Node {
  readonly kind: 'scalar-subquery';
  readonly query: Query;
}

/** `x [NOT] LIKE pattern [ESCAPE e]`, `SIMILAR TO` likewise. */
export interface LikeExpr extends Node {
  readonly kind: 'like';
  readonly op: 'LIKE' | 'SIMILAR TO';
  readonly expr: Expr;
  readonly pattern: Expr;
  readonly escape?: Expr;
  readonly negated: boolean;
}

/** `x IS [NOT] NULL | TRUE | FALSE | UNKNOWN`. */
export interface IsExpr extends Node {
  readonly kind: 'is';
  readonly expr: Expr;
  readonly test: 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN';
  readonly negated: boolean;
}

/** `(expr).field`: field access on a parenthesised or call expression (`person.id` is a {@link ColumnRef}). */
export interface FieldAccess extends Node {
  readonly kind: 'field-access';
  readonly expr: Expr;
  readonly field: Identifier;
}

/** `arr[1]`, `m['key']`. */
export interface ItemAccess extends Node {
  readonly kind: 'item-access';
  readonly expr: Expr;
  readonly index: Expr;
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

/** A query: a SELECT, a set operation, VALUES, or any of them with WITH / ORDER BY / LIMIT. */
export type Query = SelectQuery | SetOperation | ValuesQuery | WithQuery;

/** `WITH a AS (...), b AS (...) body`. */
export interface WithQuery extends Node {
  readonly kind: 'with';
  readonly ctes: readonly { readonly name: Identifier; readonly columns?: readonly Identifier[]; readonly query: Query; readonly span: SourceSpan }[];
  readonly body: Query;
}

/** One select-list entry. */
export type SelectItem =
  | { readonly kind: 'select-expr'; readonly span: SourceSpan; readonly expr: Expr; readonly alias?: Identifier }
  | { readonly kind: 'select-star'; readonly span: SourceSpan; readonly qualifier: readonly Identifier[] };

/** `expr [ASC|DESC] [NULLS FIRST|LAST]`. */
export interface OrderItem extends Node {
  readonly kind: 'order-item';
  readonly expr: Expr;
  readonly descending: boolean;
  readonly nullsFirst?: boolean;
}

/** A GROUP BY element: an expression, or GROUPING SETS / ROLLUP / CUBE. */
export type GroupingElement =
  | { readonly kind: 'group-expr'; readonly span: SourceSpan; readonly expr: Expr }
  | { readonly kind: 'grouping-sets'; readonly span: SourceSpan; readonly type: 'GROUPING SETS' | 'ROLLUP' | 'CUBE'; readonly sets: readonly (readonly Expr[])[] };

/** `SELECT [DISTINCT] ... FROM ... WHERE ... GROUP BY ... HAVING ... WINDOW ... ORDER BY ... LIMIT ...`. */
export interface SelectQuery extends Node {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  readonly from?: TableRef;
  readonly where?: Expr;
  readonly groupBy: readonly GroupingElement[];
  readonly having?: Expr;
  readonly windows: readonly { readonly name: Identifier; readonly spec: WindowSpec }[];
  readonly orderBy: readonly OrderItem[];
  readonly limit?: Expr;
  readonly offset?: Expr;
  /**
   * Never parsed: set by the decorrelator (bind-subquery.ts) on a correlated subquery with LIMIT /
   * OFFSET, the output columns (by name) its ORDER BY ... LIMIT applies within, one Top-N per value.
   */
  readonly limitPartition?: readonly string[];
}

/** `left UNION [ALL] right`, `INTERSECT`, `EXCEPT`, with optional ORDER BY / LIMIT on the whole. */
export interface SetOperation extends Node {
  readonly kind: 'set-operation';
  readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT';
  readonly all: boolean;
  readonly left: Query;
  readonly right: Query;
  readonly orderBy: readonly OrderItem[];
  readonly limit?: Expr;
  readonly offset?: Expr;
}

/** `VALUES (1, 'a'), (2, 'b')` as a query. */
export interface ValuesQuery extends Node {
  readonly kind: 'values';
  readonly rows: readonly (readonly Expr[])[];
}

/** What may follow FROM. */
export type TableRef = NamedTable | DerivedTable | JoinRef | TableFunctionRef | UnnestRef;

/** A table or view by name, optionally `FOR SYSTEM_TIME AS OF expr` and an alias. */
export interface NamedTable extends Node {
  readonly kind: 'named-table';
  readonly name: QualifiedName;
  readonly alias?: Identifier;
  readonly columnAliases?: readonly Identifier[];
  readonly forSystemTimeAsOf?: Expr;
}

/** `(query) [AS] alias [(c1, c2)]`, including `(VALUES ...) AS t(k, v)`; `LATERAL` when written. */
export interface DerivedTable extends Node {
  readonly kind: 'derived-table';
  readonly query: Query;
  readonly alias?: Identifier;
  readonly columnAliases?: readonly Identifier[];
  readonly lateral: boolean;
}

/** `left [NATURAL] [INNER|LEFT|RIGHT|FULL [OUTER]|CROSS] JOIN right [ON cond | USING (cols)]`; a comma is a CROSS join. */
export interface JoinRef extends Node {
  readonly kind: 'join';
  readonly type: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';
  readonly left: TableRef;
  readonly right: TableRef;
  readonly on?: Expr;
  readonly using?: readonly Identifier[];
  /** `NATURAL JOIN`: USING the columns both inputs have. */
  readonly natural?: true;
}

/** `left CROSS JOIN right`, for a rewrite of a query's FROM (the decorrelation of a subquery). */
export function crossJoinRef(left: TableRef, right: TableRef, span: SourceSpan): JoinRef {
  return { kind: 'join', type: 'CROSS', span, left, right };
}

/** `TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND)) [AS] alias`. */
export interface TableFunctionRef extends Node {
  readonly kind: 'table-function';
  readonly call: FunctionCall;
  readonly alias?: Identifier;
  readonly columnAliases?: readonly Identifier[];
}

/** `UNNEST(expr) [WITH ORDINALITY] [AS] alias (cols)`, usually after `CROSS JOIN`. */
export interface UnnestRef extends Node {
  readonly kind: 'unnest';
  readonly expr: Expr;
  /** Further collections (`UNNEST(a, b)`), which the binder refuses. */
  readonly others: readonly Expr[];
  readonly withOrdinality: boolean;
  readonly alias?: Identifier;
  readonly columnAliases?: readonly Identifier[];
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

/** One statement of a script. */
export type Statement =
  | CreateTable
  | CreateTableAs
  | CreateView
  | CreateMaterializedView
  | CreateFunction
  | DropObject
  | InsertStatement
  | QueryStatement
  | SetStatement
  | ResetStatement
  | ShowStatement
  | DescribeStatement
  | ExplainStatement
  | StatementSet
  | StopJob
  | UpdateStatement
  | DeleteStatement
  | FlushStatement;

/** A column in CREATE TABLE. */
export type ColumnDefinition =
  | { readonly kind: 'physical-column'; readonly span: SourceSpan; readonly name: Identifier; readonly type: TypeSyntax; readonly comment?: string; readonly primaryKey: boolean }
  | { readonly kind: 'computed-column'; readonly span: SourceSpan; readonly name: Identifier; readonly expr: Expr; readonly comment?: string }
  | { readonly kind: 'metadata-column'; readonly span: SourceSpan; readonly name: Identifier; readonly type: TypeSyntax; readonly from?: string; readonly virtual: boolean; readonly comment?: string };

/** `'key' = 'value'` in a WITH clause; spans point at the key for error messages. */
export interface OptionEntry extends Node {
  readonly kind: 'option';
  readonly key: string;
  readonly value: string;
}

/**
 * `CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (columns, [WATERMARK FOR c AS expr],
 * [PRIMARY KEY (...) NOT ENFORCED]) [COMMENT '...'] [PARTITIONED BY (...)] [WITH (...)]`,
 * (`LIKE` is not supported; `CREATE TABLE name WITH (...) AS query` is {@link CreateTableAs}).
 */
export interface CreateTable extends Node {
  readonly kind: 'create-table';
  readonly name: QualifiedName;
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly columns: readonly ColumnDefinition[];
  readonly watermark?: { readonly span: SourceSpan; readonly column: Identifier; readonly expr: Expr };
  readonly primaryKey?: { readonly span: SourceSpan; readonly columns: readonly Identifier[]; readonly notEnforced: boolean };
  readonly partitionedBy: readonly Identifier[];
  readonly comment?: string;
  readonly options: readonly OptionEntry[];
  /** `LIKE source (...)`: the table is built on another's definition (its column list may then be empty). */
  readonly like?: TableLike;
}

/** What LIKE merges (Flink's like options): which features of the source table, and how. */
export type LikeFeature = 'ALL' | 'CONSTRAINTS' | 'GENERATED' | 'METADATA' | 'OPTIONS' | 'PARTITIONS' | 'WATERMARKS';

/** How a feature of the source table is merged: kept (failing on a duplicate), left out, or kept and overwritten by the new table's. */
export type LikeStrategy = 'INCLUDING' | 'EXCLUDING' | 'OVERWRITING';

/** The LIKE clause of a CREATE TABLE. */
export interface TableLike {
  readonly span: SourceSpan;
  readonly source: QualifiedName;
  readonly options: readonly { readonly span: SourceSpan; readonly strategy: LikeStrategy; readonly feature: LikeFeature }[];
}

/**
 * `CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name [WITH (...)] AS query` (Flink's CTAS): a table with
 * the query's columns (a writable table without options), into which the query runs as a job.
 */
export interface CreateTableAs extends Node {
  readonly kind: 'create-table-as';
  readonly name: QualifiedName;
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly options: readonly OptionEntry[];
  readonly query: Query;
  /** The query's text exactly as written: the job is the INSERT of this text. */
  readonly queryText: string;
}

/** `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(c1, c2)] AS query`. */
export interface CreateView extends Node {
  readonly kind: 'create-view';
  readonly name: QualifiedName;
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly columns?: readonly Identifier[];
  readonly query: Query;
  /** The query's text exactly as written, kept so that SHOW CREATE can print it. */
  readonly queryText: string;
}

/** `CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [WITH (...)] AS query`. */
export interface CreateMaterializedView extends Node {
  readonly kind: 'create-materialized-view';
  readonly name: QualifiedName;
  readonly ifNotExists: boolean;
  /** `CREATE MATERIALIZED VIEW v (a, b) AS ...`: the view's column names, one per query column. */
  readonly columns?: readonly Identifier[];
  readonly options: readonly OptionEntry[];
  readonly query: Query;
  readonly queryText: string;
}

/** `CREATE [TEMPORARY] [SYSTEM] FUNCTION [IF NOT EXISTS] name AS 'identifier' [LANGUAGE JAVASCRIPT]`. */
export interface CreateFunction extends Node {
  readonly kind: 'create-function';
  readonly name: QualifiedName;
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly identifier: string;
  readonly language?: string;
}

/** `DROP TABLE | VIEW | MATERIALIZED VIEW | FUNCTION [IF EXISTS] name`. */
export interface DropObject extends Node {
  readonly kind: 'drop';
  readonly object: 'TABLE' | 'VIEW' | 'MATERIALIZED VIEW' | 'FUNCTION';
  readonly name: QualifiedName;
  readonly ifExists: boolean;
  readonly temporary: boolean;
  /** `DROP ... CASCADE`: the views that depend on the object are dropped with it (else a dependency refuses the DROP). */
  readonly cascade: boolean;
}

/** `INSERT INTO | OVERWRITE t [PARTITION (...)] [(c1, c2)] query`. */
export interface InsertStatement extends Node {
  readonly kind: 'insert';
  readonly target: QualifiedName;
  readonly overwrite: boolean;
  readonly columns?: readonly Identifier[];
  readonly partition: readonly OptionLikePair[];
  readonly query: Query;
  /** `ON CONFLICT DO ...` (Flink 2.3): how rows of the query that share the sink's primary key are resolved. */
  readonly onConflict?: ConflictStrategy;
}

/** `k = v` in a static PARTITION clause. */
export interface OptionLikePair extends Node {
  readonly name: Identifier;
  readonly value: Expr;
}

/** A query run on its own (streaming SELECT). */
export interface QueryStatement extends Node {
  readonly kind: 'query';
  readonly query: Query;
}

/** `SET 'key' = 'value'`; `SET` alone lists the settings. Keys and values may also be unquoted words. */
export interface SetStatement extends Node {
  readonly kind: 'set';
  readonly key?: string;
  readonly value?: string;
}

/** `RESET 'key'`; `RESET` alone resets everything. */
export interface ResetStatement extends Node {
  readonly kind: 'reset';
  readonly key?: string;
}

/**
 * `SHOW TABLES | VIEWS | MATERIALIZED VIEWS | [USER] FUNCTIONS | JOBS | CREATE TABLE t | CREATE VIEW v |
 * CREATE MATERIALIZED VIEW v | METRICS | CATALOGS | DATABASES | CURRENT CATALOG | CURRENT DATABASE`.
 */
export interface ShowStatement extends Node {
  readonly kind: 'show';
  readonly what:
    | 'TABLES'
    | 'VIEWS'
    | 'MATERIALIZED VIEWS'
    | 'FUNCTIONS'
    | 'USER FUNCTIONS'
    | 'JOBS'
    | 'METRICS'
    | 'CATALOGS'
    | 'DATABASES'
    | 'CURRENT CATALOG'
    | 'CURRENT DATABASE'
    | 'CREATE TABLE'
    | 'CREATE VIEW'
    | 'CREATE MATERIALIZED VIEW';
  /** The object of SHOW CREATE ... */
  readonly name?: QualifiedName;
}

/** `DESCRIBE t` / `DESC t`. */
export interface DescribeStatement extends Node {
  readonly kind: 'describe';
  readonly name: QualifiedName;
}

/** `EXPLAIN [PLAN FOR] statement`, with Flink's detail keywords (`EXPLAIN CHANGELOG_MODE, ... stmt`). */
export interface ExplainStatement extends Node {
  readonly kind: 'explain';
  readonly details: readonly string[];
  readonly statement: Statement;
}

/** `EXECUTE STATEMENT SET BEGIN insert; insert; END` (also `BEGIN STATEMENT SET; ... END;`). */
export interface StatementSet extends Node {
  readonly kind: 'statement-set';
  readonly inserts: readonly InsertStatement[];
}

/** `STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]`. */
export interface StopJob extends Node {
  readonly kind: 'stop-job';
  readonly jobId: string;
  readonly withSavepoint: boolean;
  readonly withDrain: boolean;
}

/** `UPDATE t SET c = expr, ... [WHERE cond]` on a writable table. */
export interface UpdateStatement extends Node {
  readonly kind: 'update';
  readonly target: QualifiedName;
  readonly assignments: readonly { readonly column: Identifier; readonly value: Expr }[];
  readonly where?: Expr;
}

/** `DELETE FROM t [WHERE cond]` on a writable table. */
export interface DeleteStatement extends Node {
  readonly kind: 'delete';
  readonly target: QualifiedName;
  readonly where?: Expr;
}

/** `FLUSH`: take a checkpoint and wait until every sink has committed it. */
export interface FlushStatement extends Node {
  readonly kind: 'flush';
}

/** A statement with the exact text it was parsed from (without the terminating `;`). */
export interface ParsedStatement {
  readonly statement: Statement;
  readonly text: string;
  readonly span: SourceSpan;
}
