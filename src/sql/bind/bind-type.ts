/** Turns type syntax into SQL types, checking parameters (`DECIMAL(40, 2)` is an error). */
import { WeirError } from '../../common/errors.js';
import { MAX_DECIMAL_PRECISION, MAX_VARBINARY_LENGTH, MAX_VARCHAR_LENGTH, SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { TypeSyntax } from '../parse/ast.js';

/** The SQL type a piece of type syntax denotes. */
export function bindType(syntax: TypeSyntax): SqlType {
  const nullable = !syntax.notNull;
  switch (syntax.kind) {
    case 'row-type':
      return SqlTypes.row(syntax.fields.map((f) => ({ name: f.name.name, type: bindType(f.type) })), nullable);
    case 'array-type':
      return SqlTypes.array(bindType(syntax.element), nullable);
    case 'map-type':
      return SqlTypes.map(bindType(syntax.key), bindType(syntax.value), nullable);
    case 'type':
      return bindScalarType(syntax, nullable);
  }
}

function bindScalarType(syntax: Extract<TypeSyntax, { kind: 'type' }>, nullable: boolean): SqlType {
  const [p0, p1] = syntax.params;
  const invalid = (message: string): never => {
    throw new WeirError('INVALID_ARGUMENT', message, { span: syntax.span });
  };
  switch (syntax.name) {
    case 'BOOLEAN':
      return SqlTypes.boolean(nullable);
    case 'TINYINT':
      return SqlTypes.tinyint(nullable);
    case 'SMALLINT':
      return SqlTypes.smallint(nullable);
    case 'INT':
      return SqlTypes.int(nullable);
    case 'BIGINT':
      return SqlTypes.bigint(nullable);
    case 'FLOAT':
      return SqlTypes.float(nullable);
    case 'DOUBLE':
      return SqlTypes.double(nullable);
    case 'DECIMAL': {
      const precision = p0 ?? 10;
      const scale = p1 ?? 0;
      if (precision < 1 || precision > MAX_DECIMAL_PRECISION) invalid(`DECIMAL precision must be between 1 and ${MAX_DECIMAL_PRECISION}, got ${precision}`);
      if (scale < 0 || scale > precision) invalid(`DECIMAL scale must be between 0 and the precision (${precision}), got ${scale}`);
      return SqlTypes.decimal(precision, scale, nullable);
    }
    case 'CHAR':
      return SqlTypes.char(checkLength(p0 ?? 1, invalid), nullable);
    case 'VARCHAR':
      return SqlTypes.varchar(checkLength(p0 ?? MAX_VARCHAR_LENGTH, invalid), nullable);
    case 'STRING':
      return SqlTypes.string(nullable);
    case 'DATE':
      return SqlTypes.date(nullable);
    case 'TIME':
      return SqlTypes.time(checkPrecision(p0 ?? 0, invalid), nullable);
    case 'TIMESTAMP':
      return SqlTypes.timestamp(checkPrecision(p0 ?? 6, invalid), nullable);
    case 'TIMESTAMP_LTZ':
      return SqlTypes.timestampLtz(checkPrecision(p0 ?? 6, invalid), nullable);
    case 'INTERVAL_DAY_TIME':
      return SqlTypes.intervalDayTime(nullable);
    case 'INTERVAL_YEAR_MONTH':
      return SqlTypes.intervalYearMonth(nullable);
    case 'BINARY':
      return SqlTypes.binary(checkLength(p0 ?? 1, invalid), nullable);
    case 'VARBINARY':
      return SqlTypes.varbinary(checkLength(p0 ?? MAX_VARBINARY_LENGTH, invalid), nullable);
  }
}

function checkLength(length: number, invalid: (message: string) => never): number {
  if (length < 1 || length > MAX_VARCHAR_LENGTH) invalid(`length must be between 1 and ${MAX_VARCHAR_LENGTH}, got ${length}`);
  return length;
}

function checkPrecision(precision: number, invalid: (message: string) => never): number {
  if (precision < 0 || precision > 9) invalid(`precision must be between 0 and 9, got ${precision}`);
  return precision;
}
