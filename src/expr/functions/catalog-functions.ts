/**
 * Flink's catalog functions: what the session's current catalog objects are named. weir has one
 * catalog and one database (no USE), so the answers are constants of the session.
 */
import { DEFAULT_DATABASE } from '../../common/catalog-names.js';
import { SqlTypes } from '../../common/sql-type.js';
import type { ScalarFunctionDefinition } from '../function-definition.js';
import { defineScalar, stringLiteral } from './define.js';

/** The catalog functions. */
export const catalogFunctions: readonly ScalarFunctionDefinition[] = [
  defineScalar({
    name: 'CURRENT_DATABASE',
    description: "CURRENT_DATABASE(): the session's current database, 'default_database'",
    signatures: [{ args: [], returns: SqlTypes.string(false), generate: () => stringLiteral(DEFAULT_DATABASE) }],
  }),
];
