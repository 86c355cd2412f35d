/**
 * What EXPLAIN marks as shared, as Flink does: a physical node whose job node an earlier printed
 * node already is (a source several scans read, an operator computed once for equal sub-plans) is
 * printed as `Reused(reference_id=[n])` without its inputs; the node printed first gets
 * `(reuse_id=[n])`. Numbers count the shared nodes in printing order.
 */
import { physicalInputs, type PhysicalNode } from './physical-node.js';

/** The marks of one EXPLAIN (over all the plans of a statement set). */
export interface ReuseMarks {
  /** Nodes printed in full, with their `reuse_id`. */
  readonly first: ReadonlyMap<PhysicalNode, number>;
  /** Nodes printed as a reference to the `reuse_id` of the node printed first. */
  readonly reused: ReadonlyMap<PhysicalNode, number>;
}

/** The marks for `roots`, printed in order, given the job node each physical node became. */
export function reuseMarks(roots: readonly PhysicalNode[], jobNodeOf: ReadonlyMap<PhysicalNode, string>): ReuseMarks {
  const printedFirst = new Map<string, PhysicalNode>();
  const references = new Map<PhysicalNode, string>();
  const walk = (node: PhysicalNode): void => {
    const job = jobNodeOf.get(node);
    if (job !== undefined) {
      if (printedFirst.has(job)) {
        references.set(node, job);
        return;
      }
      printedFirst.set(job, node);
    }
    for (const input of physicalInputs(node)) walk(input);
  };
  for (const root of roots) walk(root);
  const referenced = new Set(references.values());
  const numbers = new Map<string, number>();
  for (const job of printedFirst.keys()) if (referenced.has(job)) numbers.set(job, numbers.size + 1);
  return {
    first: new Map([...numbers].map(([job, n]) => [printedFirst.get(job)!, n])),
    reused: new Map([...references].map(([node, job]) => [node, numbers.get(job)!])),
  };
}
