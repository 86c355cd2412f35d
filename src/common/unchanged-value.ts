/**
 * The value a source puts in a column it knows is unchanged but cannot send (PostgreSQL sends no
 * unchanged TOASTed value in an update without the whole old row). Only the changelog
 * normalization right after such a source may see it: it takes the column's value from the key's
 * last row, so no other operator ever does.
 */
export const UNCHANGED_VALUE: unique symbol = Symbol('unchanged-value');
