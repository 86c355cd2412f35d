/**
 * The kind of change a changelog record describes, as Flink's RowKind:
 * +I insert, -U the row before an update, +U the row after an update, -D delete.
 * Numeric so that batches can store kinds compactly.
 */
export const RowKind = {
  INSERT: 0,
  UPDATE_BEFORE: 1,
  UPDATE_AFTER: 2,
  DELETE: 3,
} as const;

/** One of the four {@link RowKind} values. */
export type RowKind = (typeof RowKind)[keyof typeof RowKind];

/** The short strings Flink prints for each kind, indexed by the kind. */
export const ROW_KIND_SHORT: readonly ['+I', '-U', '+U', '-D'] = ['+I', '-U', '+U', '-D'];

/** The printable form of a kind: `+I`, `-U`, `+U` or `-D`. */
export type RowKindShort = (typeof ROW_KIND_SHORT)[number];

/** Parses `+I`/`-U`/`+U`/`-D`. */
export function parseRowKind(text: string): RowKind {
  const index = ROW_KIND_SHORT.indexOf(text as RowKindShort);
  if (index < 0) throw new Error(`unknown row kind '${text}'`);
  return index as RowKind;
}
