/**
 * Creates the keyed state backend of a subtask. `hashmap` is the heap backend every job uses;
 * `copying` is the contract-checking backend (copying-state-backend.ts), for tests only: it is
 * chosen by the environment variable `WEIR_TEST_STATE_BACKEND=copying` (the engine and the
 * operator test harness both read it), not by a user-facing configuration key.
 */
import { CopyingStateBackend } from './copying-state-backend.js';
import { MemoryStateBackend, type MemoryStateBackendOptions, type StateTtlOptions } from './memory-state-backend.js';

/** The kinds of keyed state backend that can be created. */
export type StateBackendKind = 'hashmap' | 'copying';

/** The environment variable that selects the backend for tests. */
export const TEST_STATE_BACKEND_ENV = 'WEIR_TEST_STATE_BACKEND';

/** The backend kind `WEIR_TEST_STATE_BACKEND` asks for (`hashmap` when unset); throws on any other value. */
export function stateBackendKindFromEnv(env: NodeJS.ProcessEnv = process.env): StateBackendKind {
  const value = env[TEST_STATE_BACKEND_ENV];
  if (value === undefined || value === '' || value === 'hashmap') return 'hashmap';
  if (value === 'copying') return 'copying';
  throw new Error(`${TEST_STATE_BACKEND_ENV} must be 'hashmap' or 'copying', got '${value}'`);
}

/** A new, empty keyed state backend of the given kind. Both kinds snapshot and restore the same way. */
export function createStateBackend(kind: StateBackendKind, options: MemoryStateBackendOptions | StateTtlOptions = {}): MemoryStateBackend {
  switch (kind) {
    case 'hashmap':
      return new MemoryStateBackend(options);
    case 'copying':
      return new CopyingStateBackend(options);
    default: {
      const unknownKind: never = kind;
      throw new Error(`unknown state backend kind '${String(unknownKind)}'`);
    }
  }
}
