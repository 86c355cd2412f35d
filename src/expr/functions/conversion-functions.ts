/**
 * Type conversion functions besides CAST/TRY_CAST (which are expressions of their own, see
 * cast.ts): TYPEOF, the input's type as Flink's `LogicalType.asSummaryString()` writes it.
 */
import { SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { ScalarFunctionDefinition } from '../function-definition.js';
import { Arg, defineScalar, stringLiteral } from './define.js';

/** A type as Flink's summary string: `INT NOT NULL`, `STRING`, `ROW<\`a\` INT, \`b\` STRING>`, `TIMESTAMP(3) *ROWTIME*`. */
export function flinkTypeSummary(type: SqlType): string {
  const suffix = type.nullable ? '' : ' NOT NULL';
  switch (type.kind) {
    case 'DECIMAL':
      return `DECIMAL(${type.precision}, ${type.scale})${suffix}`;
    case 'CHAR':
      return `CHAR(${type.length})${suffix}`;
    case 'VARCHAR':
      return (type.length === 2147483647 ? 'STRING' : `VARCHAR(${type.length})`) + suffix;
    case 'BINARY':
      return `BINARY(${type.length})${suffix}`;
    case 'VARBINARY':
      return (type.length === 2147483647 ? 'BYTES' : `VARBINARY(${type.length})`) + suffix;
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
      return `ROW<${type.fields.map((f) => `\`${f.name.replace(/`/g, '``')}\` ${flinkTypeSummary(f.type)}`).join(', ')}>${suffix}`;
    case 'ARRAY':
      return `ARRAY<${flinkTypeSummary(type.element)}>${suffix}`;
    case 'MAP':
      return `MAP<${flinkTypeSummary(type.key)}, ${flinkTypeSummary(type.value)}>${suffix}`;
    case 'NULL':
      return 'NULL';
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DATE':
      return type.kind + suffix;
  }
}

/** The conversion functions. */
export const conversionFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'TYPEOF',
    description: "TYPEOF(x[, forceSerializable]): the type of x as Flink's summary string ('INT NOT NULL'); computed when the query is planned",
    nulls: 'custom',
    signatures: [
      {
        args: [Arg.ANY, Arg.BOOLEAN],
        optional: 1,
        returns: SqlTypes.string(false),
        generate: (_ctx, [value]) => stringLiteral(flinkTypeSummary(value!.type)),
      },
    ],
  }),
];
