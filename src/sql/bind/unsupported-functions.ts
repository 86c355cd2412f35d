/**
 * Built-in functions of Flink SQL (BuiltInFunctionDefinitions and FlinkSqlOperatorTable) that weir
 * does not offer, each with the reason: a call of one of them fails with that reason instead of
 * "does not exist", which would suggest a typo.
 */

const VARIANT = 'it works on the VARIANT type, which weir does not have';
const GEOGRAPHY = 'it works on the GEOGRAPHY type, which weir does not have';
const BITMAP = 'it works on the BITMAP type, which weir does not have';
const STRUCTURED = 'it builds structured (class-backed) types, which weir does not have';
const PTF = 'it is a process table function, which weir does not support';
const MATCH = 'it belongs to MATCH_RECOGNIZE, which weir does not support';
const PLANNER = "it is internal to Flink's planner";

const BITMAP_FUNCTIONS = [
  'AND', 'ANDNOT', 'AND_AGG', 'AND_CARDINALITY_AGG', 'BUILD', 'BUILD_AGG', 'BUILD_CARDINALITY_AGG', 'CARDINALITY', 'FROM_BYTES',
  'OR', 'OR_AGG', 'OR_CARDINALITY_AGG', 'TO_ARRAY', 'TO_BYTES', 'TO_STRING', 'XOR', 'XOR_AGG', 'XOR_CARDINALITY_AGG',
].map((suffix) => `BITMAP_${suffix}`);

const REASONS: ReadonlyMap<string, string> = new Map([
  // Flink's AggFunctionFactory has refused it outside batch mode; a HyperLogLog++ version for streaming is newer.
  ['APPROX_COUNT_DISTINCT', 'weir has no approximate (HyperLogLog) distinct count; COUNT(DISTINCT x) counts exactly'],
  ['PARSE_JSON', VARIANT],
  ['TRY_PARSE_JSON', VARIANT],
  ['ST_GEOGFROMTEXT', GEOGRAPHY],
  ['ST_GEOGFROMWKB', GEOGRAPHY],
  ['ST_ASTEXT', GEOGRAPHY],
  ['ST_ASWKB', GEOGRAPHY],
  ...BITMAP_FUNCTIONS.map((name): [string, string] => [name, BITMAP]),
  ['OBJECT_OF', STRUCTURED],
  ['OBJECT_UPDATE', STRUCTURED],
  ['ML_PREDICT', PTF],
  ['TO_CHANGELOG', PTF],
  ['FROM_CHANGELOG', PTF],
  ['MATCH_ROWTIME', MATCH],
  ['MATCH_PROCTIME', MATCH],
  ['CLASSIFIER', MATCH],
  ['PREV', MATCH],
  ['NEXT', MATCH],
  ['PROCTIME_MATERIALIZE', PLANNER],
  ['STREAMRECORD_TIMESTAMP', PLANNER],
  ['SOURCE_WATERMARK', 'it is only allowed as the whole expression of a WATERMARK FOR clause in CREATE TABLE'],
]);

/** Why weir does not offer the Flink built-in function `name` (upper case), or undefined when Flink has none of that name either. */
export function unsupportedFunctionReason(name: string): string | undefined {
  return REASONS.get(name);
}
