/**
 * Changelog modes: which row kinds a stream carries. Printed as Flink prints them:
 * `changelogMode=[I,UB,UA,D]`; a sink's own line says `changelogMode=[NONE]`.
 */

/** The kinds a stream may carry. */
export interface ChangelogMode {
  readonly insert: boolean;
  readonly updateBefore: boolean;
  readonly updateAfter: boolean;
  readonly delete: boolean;
}

/** Insert-only: `[I]`. */
export const INSERT_ONLY: ChangelogMode = { insert: true, updateBefore: false, updateAfter: false, delete: false };

/** Every kind: `[I,UB,UA,D]`. */
export const ALL_KINDS: ChangelogMode = { insert: true, updateBefore: true, updateAfter: true, delete: true };

/** Upsert by key: `[I,UA,D]` (no update-before). */
export const UPSERT: ChangelogMode = { insert: true, updateBefore: false, updateAfter: true, delete: true };

/** True when the stream has anything but inserts. */
export function isUpdating(mode: ChangelogMode): boolean {
  return mode.updateBefore || mode.updateAfter || mode.delete;
}

/** The kinds either stream may carry. */
export function unionModes(a: ChangelogMode, b: ChangelogMode): ChangelogMode {
  return {
    insert: a.insert || b.insert,
    updateBefore: a.updateBefore || b.updateBefore,
    updateAfter: a.updateAfter || b.updateAfter,
    delete: a.delete || b.delete,
  };
}

/** `I,UB,UA,D` style text. */
export function formatMode(mode: ChangelogMode): string {
  const kinds = [mode.insert && 'I', mode.updateBefore && 'UB', mode.updateAfter && 'UA', mode.delete && 'D'].filter(Boolean);
  return kinds.length === 0 ? 'NONE' : kinds.join(',');
}
