/**
 * The plain model the keyed-state property tests compare backends with: per declared state, a Map
 * from key to value, and what a restore of the key groups a subtask owns should give.
 */
import { keyGroupOf, type Key } from '../../../src/common/key-codec.js';

/** Per declared state name, its keys and values. */
export type StateModel = Map<string, Map<Key, unknown>>;

/** The model without states that hold no entry (as a backend's content leaves them out). */
export function nonEmpty(model: StateModel): StateModel {
  return new Map([...model].filter(([, entries]) => entries.size > 0));
}

/** The entries whose key group (of `maxParallelism` groups) `owns` accepts, states without any left out. */
export function filterByGroup(model: StateModel, owns: (group: number) => boolean, maxParallelism: number): StateModel {
  const out: StateModel = new Map();
  for (const [name, entries] of model) {
    const kept = new Map([...entries].filter(([k]) => owns(keyGroupOf(k, maxParallelism))));
    if (kept.size > 0) out.set(name, kept);
  }
  return out;
}
