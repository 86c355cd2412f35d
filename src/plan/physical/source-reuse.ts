/**
 * Source reuse (Flink's `table.optimizer.reuse-source-enabled`): scans of one table with the same
 * connector options and schemas read the same records, so one source serves them all. The job
 * graph lowers every such scan to one source node; EXPLAIN marks the first scan `reuse_id=[n]` and
 * prints the others as `Reused(reference_id=[n])`.
 */
import { physicalInputs, type PhysicalNode } from './physical-node.js';

type ScanNode = Extract<PhysicalNode, { kind: 'source' }>;

/** What makes two scans the same source: the table, its connector, options, schemas and key. */
export function scanIdentity(scan: ScanNode): string {
  const { qualifiedName, connector, options, primaryKey } = scan.source;
  return JSON.stringify([qualifiedName, connector, options, primaryKey, scan.tableSchema, scan.schema], (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

/**
 * The reuse id (1, 2, … in the order the plans are walked, inputs first) of every scan node whose
 * identity more than one distinct scan node of `roots` shares; scans read once are absent.
 */
export function reusedScans(roots: readonly PhysicalNode[]): Map<PhysicalNode, number> {
  const byIdentity = new Map<string, ScanNode[]>();
  const seen = new Set<PhysicalNode>();
  const walk = (node: PhysicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const input of physicalInputs(node)) walk(input);
    if (node.kind !== 'source') return;
    const identity = scanIdentity(node);
    byIdentity.set(identity, [...(byIdentity.get(identity) ?? []), node]);
  };
  for (const root of roots) walk(root);
  const ids = new Map<PhysicalNode, number>();
  let next = 1;
  for (const scans of byIdentity.values()) {
    if (scans.length < 2) continue;
    const id = next++;
    for (const scan of scans) ids.set(scan, id);
  }
  return ids;
}
