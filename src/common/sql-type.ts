/**
 * SQL types as Flink defines them, and the JavaScript representation of their values.
 *
 * Value representation (a row is a positional array of these; SQL NULL is `null`):
 * BOOLEAN → boolean; TINYINT/SMALLINT/INT → number; BIGINT → the full signed 64-bit range,
 * exactly, as a number when the value is a safe integer and a bigint otherwise (never a bigint
 * inside the safe range: see int64.ts); FLOAT/DOUBLE → number;
 * DECIMAL(p,s) → bigint holding the unscaled value (the scale lives in the type);
 * CHAR/VARCHAR → string; BINARY/VARBINARY → Uint8Array (a fresh array of its own, never mutated once
 * made: a Buffer, being one, is accepted too); DATE → days since 1970-01-01; TIME → milliseconds of the day;
 * TIMESTAMP(p)/TIMESTAMP_LTZ(p) → epoch milliseconds (a number) for p <= 3, epoch nanoseconds (a bigint,
 * see epoch-nanos.ts) for p > 3; TIME(p) keeps milliseconds for every p, as Flink's runtime does; INTERVAL DAY TO SECOND → milliseconds;
 * INTERVAL YEAR TO MONTH → months; ROW → array; ARRAY → array; MAP → Map.
 */
export type SqlType =
  | { readonly kind: 'BOOLEAN'; readonly nullable: boolean }
  | { readonly kind: 'TINYINT'; readonly nullable: boolean }
  | { readonly kind: 'SMALLINT'; readonly nullable: boolean }
  | { readonly kind: 'INT'; readonly nullable: boolean }
  | { readonly kind: 'BIGINT'; readonly nullable: boolean }
  | { readonly kind: 'FLOAT'; readonly nullable: boolean }
  | { readonly kind: 'DOUBLE'; readonly nullable: boolean }
  | { readonly kind: 'DECIMAL'; readonly nullable: boolean; readonly precision: number; readonly scale: number }
  | { readonly kind: 'CHAR'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'VARCHAR'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'BINARY'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'VARBINARY'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'DATE'; readonly nullable: boolean }
  | { readonly kind: 'TIME'; readonly nullable: boolean; readonly precision: number }
  | {
      readonly kind: 'TIMESTAMP';
      readonly nullable: boolean;
      readonly precision: number;
      /** Set on event-time (`rowtime`) and processing-time (`proctime`) attributes. */
      readonly timeAttribute?: 'rowtime' | 'proctime';
    }
  | {
      readonly kind: 'TIMESTAMP_LTZ';
      readonly nullable: boolean;
      readonly precision: number;
      readonly timeAttribute?: 'rowtime' | 'proctime';
    }
  | { readonly kind: 'INTERVAL_DAY_TIME'; readonly nullable: boolean }
  | { readonly kind: 'INTERVAL_YEAR_MONTH'; readonly nullable: boolean }
  | { readonly kind: 'ROW'; readonly nullable: boolean; readonly fields: readonly RowField[] }
  | { readonly kind: 'ARRAY'; readonly nullable: boolean; readonly element: SqlType }
  | { readonly kind: 'MAP'; readonly nullable: boolean; readonly key: SqlType; readonly value: SqlType }
  | { readonly kind: 'NULL'; readonly nullable: true };

/** A named field of a ROW type. */
export interface RowField {
  readonly name: string;
  readonly type: SqlType;
}

/** The discriminant of {@link SqlType}. */
export type SqlTypeKind = SqlType['kind'];

/** The maximum length of VARCHAR, which is what STRING means. */
export const MAX_VARCHAR_LENGTH = 2147483647;

/** The maximum length of VARBINARY, which is what BYTES means. */
export const MAX_VARBINARY_LENGTH = 2147483647;

/** The largest DECIMAL precision Flink accepts. */
export const MAX_DECIMAL_PRECISION = 38;

/** Builders for the common types; nullable unless told otherwise. */
export const SqlTypes = {
  boolean: (nullable = true): SqlType => ({ kind: 'BOOLEAN', nullable }),
  tinyint: (nullable = true): SqlType => ({ kind: 'TINYINT', nullable }),
  smallint: (nullable = true): SqlType => ({ kind: 'SMALLINT', nullable }),
  int: (nullable = true): SqlType => ({ kind: 'INT', nullable }),
  bigint: (nullable = true): SqlType => ({ kind: 'BIGINT', nullable }),
  float: (nullable = true): SqlType => ({ kind: 'FLOAT', nullable }),
  double: (nullable = true): SqlType => ({ kind: 'DOUBLE', nullable }),
  decimal: (precision: number, scale: number, nullable = true): SqlType => ({ kind: 'DECIMAL', nullable, precision, scale }),
  string: (nullable = true): SqlType => ({ kind: 'VARCHAR', nullable, length: MAX_VARCHAR_LENGTH }),
  varchar: (length: number, nullable = true): SqlType => ({ kind: 'VARCHAR', nullable, length }),
  char: (length: number, nullable = true): SqlType => ({ kind: 'CHAR', nullable, length }),
  bytes: (nullable = true): SqlType => ({ kind: 'VARBINARY', nullable, length: MAX_VARBINARY_LENGTH }),
  varbinary: (length: number, nullable = true): SqlType => ({ kind: 'VARBINARY', nullable, length }),
  binary: (length: number, nullable = true): SqlType => ({ kind: 'BINARY', nullable, length }),
  date: (nullable = true): SqlType => ({ kind: 'DATE', nullable }),
  time: (precision = 0, nullable = true): SqlType => ({ kind: 'TIME', nullable, precision }),
  timestamp: (precision = 3, nullable = true): SqlType => ({ kind: 'TIMESTAMP', nullable, precision }),
  timestampLtz: (precision = 3, nullable = true): SqlType => ({ kind: 'TIMESTAMP_LTZ', nullable, precision }),
  intervalDayTime: (nullable = true): SqlType => ({ kind: 'INTERVAL_DAY_TIME', nullable }),
  intervalYearMonth: (nullable = true): SqlType => ({ kind: 'INTERVAL_YEAR_MONTH', nullable }),
  row: (fields: readonly RowField[], nullable = true): SqlType => ({ kind: 'ROW', nullable, fields }),
  array: (element: SqlType, nullable = true): SqlType => ({ kind: 'ARRAY', nullable, element }),
  map: (key: SqlType, value: SqlType, nullable = true): SqlType => ({ kind: 'MAP', nullable, key, value }),
  null: (): SqlType => ({ kind: 'NULL', nullable: true }),
} as const;

/** Returns the same type with the given nullability (and without a time attribute when it changes). */
export function withNullable(type: SqlType, nullable: boolean): SqlType {
  if (type.nullable === nullable) return type;
  if (type.kind === 'NULL') return type;
  return { ...type, nullable } as SqlType;
}

/** Whether the type is an event-time (`rowtime`) or processing-time (`proctime`) attribute. */
export function timeAttributeOf(type: SqlType): 'rowtime' | 'proctime' | undefined {
  return type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ' ? type.timeAttribute : undefined;
}

/** True when `before` is a time attribute and `after`, the same column further up a plan, no longer is (a join or projection materialized it). */
export function lostTimeAttribute(before: SqlType, after: SqlType): boolean {
  return timeAttributeOf(before) !== undefined && timeAttributeOf(after) === undefined;
}

/** Drops the rowtime/proctime marker, as Flink does when a time attribute is materialized. */
export function withoutTimeAttribute(type: SqlType): SqlType {
  if ((type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ') && type.timeAttribute !== undefined) {
    const { timeAttribute: _dropped, ...rest } = type;
    return rest as SqlType;
  }
  return type;
}

/** True for TINYINT, SMALLINT, INT and BIGINT. */
export function isIntegerType(type: SqlType): boolean {
  return type.kind === 'TINYINT' || type.kind === 'SMALLINT' || type.kind === 'INT' || type.kind === 'BIGINT';
}

/** True for the exact and approximate numeric types. */
export function isNumericType(type: SqlType): boolean {
  return isIntegerType(type) || type.kind === 'FLOAT' || type.kind === 'DOUBLE' || type.kind === 'DECIMAL';
}

/** True for CHAR and VARCHAR. */
export function isStringType(type: SqlType): boolean {
  return type.kind === 'CHAR' || type.kind === 'VARCHAR';
}

/** True for BINARY and VARBINARY (BYTES). */
export function isBinaryType(type: SqlType): boolean {
  return type.kind === 'BINARY' || type.kind === 'VARBINARY';
}

/** True for TIMESTAMP and TIMESTAMP_LTZ. */
export function isTimestampType(type: SqlType): boolean {
  return type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ';
}

/** Renders a type as Flink prints it: `BIGINT NOT NULL`, `DECIMAL(23, 3)`, `TIMESTAMP(3) *ROWTIME*`. */
export function formatType(type: SqlType): string {
  const suffix = type.nullable ? '' : ' NOT NULL';
  switch (type.kind) {
    case 'DECIMAL':
      return `DECIMAL(${type.precision}, ${type.scale})${suffix}`;
    case 'CHAR':
      return `CHAR(${type.length})${suffix}`;
    case 'VARCHAR':
      return (type.length === MAX_VARCHAR_LENGTH ? 'STRING' : `VARCHAR(${type.length})`) + suffix;
    case 'BINARY':
      return `BINARY(${type.length})${suffix}`;
    case 'VARBINARY':
      return (type.length === MAX_VARBINARY_LENGTH ? 'BYTES' : `VARBINARY(${type.length})`) + suffix;
    case 'TIME':
      return `TIME(${type.precision})${suffix}`;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const marker = type.timeAttribute === 'rowtime' ? ' *ROWTIME*' : type.timeAttribute === 'proctime' ? ' *PROCTIME*' : '';
      return `${type.kind}(${type.precision})${suffix}${marker}`;
    }
    // As Flink's planner types them (FlinkTypeFactory.toLogicalType): a day-time interval whose qualifier ends in SECOND is
    // INTERVAL SECOND(3), a year-month one ending in MONTH is INTERVAL MONTH (weir's interval types keep no qualifier).
    case 'INTERVAL_DAY_TIME':
      return `INTERVAL SECOND(3)${suffix}`;
    case 'INTERVAL_YEAR_MONTH':
      return `INTERVAL MONTH${suffix}`;
    case 'ROW':
      return `ROW<${type.fields.map((f) => `${quoteIdentifierIfNeeded(f.name)} ${formatType(f.type)}`).join(', ')}>${suffix}`;
    case 'ARRAY':
      return `ARRAY<${formatType(type.element)}>${suffix}`;
    case 'MAP':
      return `MAP<${formatType(type.key)}, ${formatType(type.value)}>${suffix}`;
    default:
      return type.kind + suffix;
  }
}

/** Structural type equality, ignoring nullability and time attributes when asked. */
export function sameType(a: SqlType, b: SqlType, options: { ignoreNullability?: boolean } = {}): boolean {
  if (a.kind !== b.kind) return false;
  if (!options.ignoreNullability && a.nullable !== b.nullable) return false;
  switch (a.kind) {
    case 'DECIMAL':
      return a.precision === (b as typeof a).precision && a.scale === (b as typeof a).scale;
    case 'CHAR':
    case 'VARCHAR':
    case 'BINARY':
    case 'VARBINARY':
      return a.length === (b as typeof a).length;
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return a.precision === (b as typeof a).precision;
    case 'ROW': {
      const bf = (b as typeof a).fields;
      return a.fields.length === bf.length && a.fields.every((f, i) => f.name === bf[i]!.name && sameType(f.type, bf[i]!.type, options));
    }
    case 'ARRAY':
      return sameType(a.element, (b as typeof a).element, options);
    case 'MAP':
      return sameType(a.key, (b as typeof a).key, options) && sameType(a.value, (b as typeof a).value, options);
    default:
      return true;
  }
}

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Quotes an identifier with backticks when it is not a plain word. */
export function quoteIdentifierIfNeeded(name: string): string {
  return PLAIN_IDENTIFIER.test(name) ? name : '`' + name.replace(/`/g, '``') + '`';
}
