import type { SqlType } from './sql-type.js';

/** A named, typed column of a relation. */
export interface Field {
  readonly name: string;
  readonly type: SqlType;
}

/** The columns of a relation, in order. */
export type Schema = readonly Field[];
