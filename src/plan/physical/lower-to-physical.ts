/**
 * Chooses a streaming implementation for each logical node: projections and filters become one
 * Calc (consecutive ones merge), aggregations get a hash exchange on their keys. Changelog
 * modes are filled in afterwards by plan/changelog.
 */
import { Exprs, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { SqlTypes } from '../../common/sql-type.js';
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalNode } from '../logical/logical-node.js';
import type { PhysicalNode } from './physical-node.js';

/** Lowers a logical plan; every mode is provisional (insert-only) until inference runs. */
export function lowerToPhysical(node: LogicalNode): PhysicalNode {
  const mode = INSERT_ONLY;
  switch (node.kind) {
    case 'scan':
      return { kind: 'source', source: node.source, tableSchema: node.schema, schema: node.schema, mode };
    case 'values':
      return { kind: 'values', rows: node.rows, schema: node.schema, mode };
    case 'project':
      return mergeCalc(lowerToPhysical(node.input), null, node.exprs, node);
    case 'filter':
      return mergeCalc(lowerToPhysical(node.input), node.condition, null, node);
    case 'watermark-assigner':
      return { kind: 'watermark-assigner', input: lowerToPhysical(node.input), rowtimeIndex: node.rowtimeIndex, watermark: node.watermark, schema: node.schema, mode };
    case 'aggregate': {
      const input = lowerToPhysical(node.input);
      const exchange: PhysicalNode = { kind: 'exchange', input, keys: node.keys.length === 0 ? null : node.keys, schema: input.schema, mode };
      return { kind: 'group-aggregate', input: exchange, keys: node.keys, calls: node.calls, emitUpdateBefore: true, schema: node.schema, mode };
    }
    case 'union':
      return { kind: 'union', inputs: node.inputs.map(lowerToPhysical), schema: node.schema, mode };
    case 'sink':
      return { kind: 'sink', input: lowerToPhysical(node.input), target: node.target, schema: node.schema, mode };
  }
}

/**
 * A Calc applying `condition` then `projection` on `input`, merged into `input` when that is a
 * Calc itself (its projection is substituted into ours). An identity projection is dropped.
 */
function mergeCalc(input: PhysicalNode, condition: ScalarExpr | null, projection: readonly ScalarExpr[] | null, node: LogicalNode): PhysicalNode {
  const schema = node.schema;
  const isIdentity = projection !== null && projection.length === input.schema.length && projection.every((e, i) => e.kind === 'input-ref' && e.index === i);
  const ownProjection = isIdentity ? null : projection;
  if (ownProjection === null && condition === null) return { ...input, schema } as PhysicalNode;
  if (input.kind !== 'calc') return { kind: 'calc', input, condition, projection: ownProjection, schema, mode: INSERT_ONLY };
  const inline = (expr: ScalarExpr): ScalarExpr => (input.projection === null ? expr : remapInputs(expr, (ref) => input.projection![ref.index]!));
  const mergedCondition = condition === null ? input.condition : input.condition === null ? inline(condition) : Exprs.call('AND', [input.condition, inline(condition)], SqlTypes.boolean());
  const mergedProjection = ownProjection === null ? input.projection : ownProjection.map(inline);
  return { kind: 'calc', input: input.input, condition: mergedCondition, projection: mergedProjection, schema, mode: INSERT_ONLY };
}
