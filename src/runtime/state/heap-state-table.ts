/**
 * A declared state's storage in the heap backend, partitioned by key group: one Map (key → value)
 * per key group that holds any key, created on first use. A JavaScript Map holds at most 2^24
 * entries; partitioned, a subtask holds up to that many keys per key group (2^31 at the default
 * 128 groups). With a time-to-live each group also keeps when each key was last accessed, oldest
 * first. A list state of a backend that tracks changes (and has no time-to-live) logs how its lists
 * changed, so that deltas write only appended rows (list-append-log.ts). Invariant: every key lives
 * in the Map of its own key group (`keyGroupOf(key, maxParallelism)`).
 */
import type { Key } from '../../common/key-codec.js';
import type { StateKind } from './key-group-state-file.js';
import { ListAppendLog } from './list-append-log.js';

/** One declared state of a heap backend. */
export class HeapStateTable {
  /** Per key group: its keys and values (a Map or array per key for map and list states); undefined until used. */
  readonly groups: (Map<Key, unknown> | undefined)[];
  /** With a time-to-live, per key group: when each key was last accessed, oldest first. */
  readonly accessed: (Map<Key, number> | undefined)[] | undefined;
  /** A list state's log of appends and rewrites since the last completed checkpoint (see the module comment); undefined otherwise. */
  readonly appends: ListAppendLog | undefined;

  /** @param trackChanges the backend tracks changes for incremental checkpoints */
  constructor(
    readonly name: string,
    readonly kind: StateKind,
    maxParallelism: number,
    withTtl: boolean,
    trackChanges = false,
  ) {
    this.groups = new Array<Map<Key, unknown> | undefined>(maxParallelism).fill(undefined);
    this.accessed = withTtl ? new Array<Map<Key, number> | undefined>(maxParallelism).fill(undefined) : undefined;
    this.appends = kind === 'list' && trackChanges && !withTtl ? new ListAppendLog() : undefined;
  }

  /** The Map of a key group, created when missing. */
  group(keyGroup: number): Map<Key, unknown> {
    let map = this.groups[keyGroup];
    if (map === undefined) this.groups[keyGroup] = map = new Map();
    return map;
  }

  /** The access-time Map of a key group (tables with a time-to-live only), created when missing. */
  accessedIn(keyGroup: number): Map<Key, number> {
    const accessed = this.accessed!;
    let map = accessed[keyGroup];
    if (map === undefined) accessed[keyGroup] = map = new Map();
    return map;
  }

  /** Number of keys over all key groups. */
  get size(): number {
    let size = 0;
    for (const map of this.groups) if (map !== undefined) size += map.size;
    return size;
  }

  /** Every key and value, key group by key group. */
  *entries(): Generator<[Key, unknown]> {
    for (const map of this.groups) if (map !== undefined) yield* map;
  }
}
