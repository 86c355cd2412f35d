import type { SqlType } from './sql-type.js';

/** A named, typed column of a relation. */
export interface Field {
  readonly name: string;
  readonly type: SqlType;
}

/** The columns of a relation, in order. */
export type Schema = readonly Field[];

/** Index of the column named `name` (case-sensitive), or -1. */
export function fieldIndex(schema: Schema, name: string): number {
  return schema.findIndex((f) => f.name === name);
}
